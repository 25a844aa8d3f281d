--[[ decide: KEYS[1] approval hash
     · ARGV[1] approval id, ARGV[2] now_ms, ARGV[3] decision ('approved'|'denied'),
     ARGV[4] any tenant ('1'|'0'), ARGV[5] tenant, ARGV[6] reason (optional)
     returns: the updated hash as a flat field/value list, or nil unless it is this id, pending,
     unexpired and (unless ARGV[4] is '1') of the tenant ]]
local rec = redis.call('HMGET', KEYS[1], 'id', 'status', 'expires_at', 'tenant')
if rec[1] ~= ARGV[1] or rec[2] ~= 'pending' or tonumber(rec[3]) <= tonumber(ARGV[2]) then return nil end
if ARGV[4] ~= '1' and rec[4] ~= ARGV[5] then return nil end
redis.call('HSET', KEYS[1], 'status', ARGV[3])
if ARGV[6] then redis.call('HSET', KEYS[1], 'reason', ARGV[6]) end
return redis.call('HGETALL', KEYS[1])
