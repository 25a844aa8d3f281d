--[[ index: KEYS[1] the global approval index, KEYS[2..n] approval id pointers
     · ARGV[1] now_ms, ARGV[2] JSON array of {ptr, key, exp}: one pending approval each, its key and expiry
     On a Cluster, the global index and the pointers live in a slot of their own, apart from the tenant's
     slot the approval is in: the store writes them here after every admit that answered approval_pending,
     so an entry lost to a failure is written again the next time the call asks. ]]
--- @include "includes/approval-index"

local now = tonumber(ARGV[1])
for _, a in ipairs(cjson.decode(ARGV[2])) do
  local ttl = a.exp - now
  if ttl > 0 then
    redis.call('SET', KEYS[a.ptr], a.key, 'PX', ttl)
    approval_index(KEYS[1], a.key, a.exp, ttl, now)
  end
end
return 1
