--[[ release: KEYS[1] once-record hash (fp, exp, res?) · no ARGV
     returns: 1 when a lease without a result was dropped, else 0 (a stored result is kept) ]]
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HEXISTS', KEYS[1], 'res') == 1 then return 0 end
return redis.call('DEL', KEYS[1])
