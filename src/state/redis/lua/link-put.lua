--[[ link-put: KEYS[1] the tenant's links made (a sorted set: id by when it lapses), KEYS[2] the link, KEYS[3] its target's pointer
     ARGV[1] now (epoch ms), ARGV[2] the link's TTL (ms), ARGV[3] the most links a tenant may have made within a TTL,
     ARGV[4] the link's sealed value, ARGV[5] the pointer ("<id> <expires at>"), ARGV[6] the link's id
     returns: 1 when the link is kept, 0 when the tenant is at its bound (nothing written) ]]
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('SET', KEYS[2], ARGV[4], 'PX', ARGV[2])
redis.call('SET', KEYS[3], ARGV[5], 'PX', ARGV[2])
redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[2]), ARGV[6])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
