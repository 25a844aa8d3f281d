--[[ decided: KEYS[1] the global index, KEYS[2] the global decided index, KEYS[3] the id pointer
     · ARGV[1] the approval key, ARGV[2] approval id, ARGV[3] now_ms, ARGV[4] keep_ms, ARGV[5] keep count
     On a Cluster, what decide.lua writes on a single node in the global slot: the request leaves the global
     index of pending ones and joins the global decided index, and its id pointer lives as long as it is kept. ]]
--- @include "includes/approval-history"

redis.call('ZREM', KEYS[1], ARGV[1])
history_add(KEYS[2], nil, ARGV[2], nil, tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]))
history_pointer(KEYS[3], tonumber(ARGV[4]))
return 1
