--[[ approval: the approval request for one call's arguments, hash (id, tenant, session_id, tool, arguments,
     status, created_at, expires_at, reason?), with its id pointer and its tenant's and the global index
     approval_check({k, ptr, tidx, gidx, id, ttl, tenant, session, tool, args}, now_ms): the verdict that stops
       the call ('approval_pending'|'approval_denied'), or nil when it is approved; opens a pending request
       with id `id` when none is live
     approval_consume({k, tidx, gidx}): an approval admits its call once ]]
--- @include "live"

-- Never shortens an index's life below that of its longest-lived member.
local function extend(key, ttl)
  if redis.call('PTTL', key) < ttl then redis.call('PEXPIRE', key, ttl) end
end

local function approval_check(a, now)
  local rec = redis.call('HMGET', KEYS[a.k], 'id', 'status', 'expires_at', 'reason')
  if not live(rec[3], now) then
    local expires = now + a.ttl
    redis.call('DEL', KEYS[a.k])
    redis.call('HSET', KEYS[a.k], 'id', a.id, 'tenant', a.tenant, 'session_id', a.session, 'tool', a.tool,
      'arguments', a.args, 'status', 'pending', 'created_at', now, 'expires_at', expires)
    redis.call('PEXPIRE', KEYS[a.k], a.ttl)
    redis.call('SET', KEYS[a.ptr], KEYS[a.k], 'PX', a.ttl)
    -- Pruned on every insert, so an index holds live requests only, however rarely anyone lists it.
    for _, index in ipairs({ KEYS[a.tidx], KEYS[a.gidx] }) do
      redis.call('ZREMRANGEBYSCORE', index, '-inf', now)
      redis.call('ZADD', index, expires, KEYS[a.k])
      extend(index, a.ttl)
    end
    return { o = 'approval_pending', id = a.id }
  end
  if rec[2] == 'denied' then return { o = 'approval_denied', id = rec[1], reason = rec[4] or nil } end
  if rec[2] == 'pending' then return { o = 'approval_pending', id = rec[1] } end
  return nil
end

local function approval_consume(a)
  redis.call('DEL', KEYS[a.k])
  redis.call('ZREM', KEYS[a.tidx], KEYS[a.k])
  redis.call('ZREM', KEYS[a.gidx], KEYS[a.k])
end
