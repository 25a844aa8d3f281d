--[[ file-unlock: KEYS[1] one file's lock hash (holder, until, fence) · ARGV[1] holder
     returns: 1 when the holder still held the lock and it was dropped (fence included), else 0 ]]
if redis.call('HGET', KEYS[1], 'holder') ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])
