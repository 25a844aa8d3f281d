--[[ approval: the approval request for one call's arguments, hash (id, tenant, session_id, tool, arguments,
     status, created_at, expires_at, reason?), with its tenant's index and, when they share the script's slot
     (a single node), its id pointer and the global index; else the store writes those two after (store.ts)
     approval_check({k, tidx, ptr?, gidx?, id, ttl, tenant, session, tool, args}, now_ms): the verdict that stops
       the call ('approval_pending' with the request's expiry as `exp`, or 'approval_denied'), or nil when it is
       approved; opens a pending request with id `id` when none is live
     approval_consume({k, tidx, gidx?}): an approval admits its call once ]]
--- @include "live"
--- @include "approval-index"

local function approval_check(a, now)
  local rec = redis.call('HMGET', KEYS[a.k], 'id', 'status', 'expires_at', 'reason')
  if not live(rec[3], now) then
    local expires = now + a.ttl
    redis.call('DEL', KEYS[a.k])
    redis.call('HSET', KEYS[a.k], 'id', a.id, 'tenant', a.tenant, 'session_id', a.session, 'tool', a.tool,
      'arguments', a.args, 'status', 'pending', 'created_at', now, 'expires_at', expires)
    redis.call('PEXPIRE', KEYS[a.k], a.ttl)
    approval_index(KEYS[a.tidx], KEYS[a.k], expires, a.ttl, now)
    if a.ptr then
      redis.call('SET', KEYS[a.ptr], KEYS[a.k], 'PX', a.ttl)
      approval_index(KEYS[a.gidx], KEYS[a.k], expires, a.ttl, now)
    end
    return { o = 'approval_pending', id = a.id, exp = expires }
  end
  if rec[2] == 'denied' then return { o = 'approval_denied', id = rec[1], reason = rec[4] or nil } end
  if rec[2] == 'pending' then return { o = 'approval_pending', id = rec[1], exp = tonumber(rec[3]) } end
  return nil
end

local function approval_consume(a)
  redis.call('DEL', KEYS[a.k])
  redis.call('ZREM', KEYS[a.tidx], KEYS[a.k])
  -- The global index, when in another slot, keeps the key until it expires; a listing skips keys gone.
  if a.gidx then redis.call('ZREM', KEYS[a.gidx], KEYS[a.k]) end
end
