--[[ grant-put: KEYS[1] the tenant's grants hash · ARGV[1] field (user:provider), ARGV[2] the grant as JSON without its version,
     ARGV[3] expected version ('' for any)
     returns: the version written, or -1 when the stored version is not the expected one ]]
local current = redis.call('HGET', KEYS[1], ARGV[1])
local version = 0
if current then version = cjson.decode(current).version or 0 end
if ARGV[3] ~= '' and (not current or version ~= tonumber(ARGV[3])) then return -1 end
local grant = cjson.decode(ARGV[2])
grant.version = version + 1
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(grant))
return version + 1
