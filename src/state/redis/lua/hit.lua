--[[ hit: KEYS[1] counter of one fixed window · ARGV[1] cost (0 only reads), ARGV[2] window_ms
     returns: the count after this hit ]]
local cost = tonumber(ARGV[1])
if cost == 0 then return tonumber(redis.call('GET', KEYS[1]) or '0') end
local count = redis.call('INCRBY', KEYS[1], cost)
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return count
