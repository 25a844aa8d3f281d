--[[ grant-unlease: KEYS[1] a grant's refresh lease · ARGV[1] holder
     returns: 1 when the holder's lease was removed, else 0 (another holder's is kept) ]]
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
