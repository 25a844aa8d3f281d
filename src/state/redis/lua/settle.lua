--[[ settle: KEYS[1..n] every key the batch writes, named by each request by index
     · ARGV[1] now_ms, ARGV[2] JSON array, one object per executed call:
       breaker? {k, outcome ('success'|'failure'|'neutral'), probe, threshold, recovery, ttl}
       lock?   {k, meta (JSON), ttl}
       replay? {k, res (JSON), ttl}
     returns: the number of calls settled
     Each transition is its own file in includes/, written into this script when it is loaded. ]]
--- @include "includes/breaker"
--- @include "includes/lock"
--- @include "includes/replay"

local now = tonumber(ARGV[1])
local requests = cjson.decode(ARGV[2])

for _, r in ipairs(requests) do
  if r.breaker then breaker_record(r.breaker, now) end
  if r.lock then lock_write(r.lock, now) end
  if r.replay then replay_complete(r.replay, now) end
end
return #requests
