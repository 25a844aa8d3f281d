--[[ complete: KEYS[1] once-record hash (fp, exp, res?)
     · ARGV[1] now_ms, ARGV[2] result JSON, ARGV[3] ttl_ms
     returns: 1 when stored, 0 when there was no claim to complete (its fingerprint is unknown) ]]
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'res', ARGV[2], 'exp', tonumber(ARGV[1]) + tonumber(ARGV[3]))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
