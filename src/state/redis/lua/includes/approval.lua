--[[ approval: the approval request for one call's arguments, hash (id, tenant, session_id, user?, tool, arguments, preview,
     status, created_at, expires_at, and once decided decided_at, decided_by, reason?), with its tenant's index of
     pending requests and, when they share the script's slot (a single node), its id pointer and the global index;
     else the store writes those two after (store.ts)
     approval_check({k, tidx, hist, ptr?, gidx?, ttl, max?, tenant, session, user?, open?}, now_ms): the verdict that stops
       the call ('approval_pending' with the request's expiry as `exp`, and `new` when this call opened it;
       'approval_denied' with its decider's key id as `by`; 'approval_absent' when none is live and there is no
       `open` {id, tool, args, preview} to open one with; 'approval_limit' with `retry` ms until the first pending
       one expires when the tenant's index holds `max` pending requests already), or nil when it is approved, its
       id then kept in `a.found` and its decider's key id in `a.by`
     approval_consume(a, now_ms): an approval admits its call once; its kept decision (hist) notes that it ran ]]
--- @include "live"
--- @include "approval-index"

local function approval_check(a, now)
  local rec = redis.call('HMGET', KEYS[a.k], 'id', 'status', 'expires_at', 'reason', 'decided_by')
  if not live(rec[3], now) then
    if not a.open then return { o = 'approval_absent' } end
    if a.max then
      -- The index holds the tenant's pending requests only: decided ones leave it (decide.lua), expired ones go here.
      redis.call('ZREMRANGEBYSCORE', KEYS[a.tidx], '-inf', now)
      if redis.call('ZCARD', KEYS[a.tidx]) >= a.max then
        local first = redis.call('ZRANGE', KEYS[a.tidx], 0, 0, 'WITHSCORES')
        return { o = 'approval_limit', retry = math.max(1, tonumber(first[2]) - now) }
      end
    end
    local o = a.open
    local expires = now + a.ttl
    redis.call('DEL', KEYS[a.k])
    redis.call('HSET', KEYS[a.k], 'id', o.id, 'tenant', a.tenant, 'session_id', a.session, 'tool', o.tool,
      'arguments', o.args, 'preview', o.preview, 'status', 'pending', 'created_at', now, 'expires_at', expires)
    if a.user then redis.call('HSET', KEYS[a.k], 'user', a.user) end
    redis.call('PEXPIRE', KEYS[a.k], a.ttl)
    approval_index(KEYS[a.tidx], KEYS[a.k], expires, a.ttl, now)
    if a.ptr then
      redis.call('SET', KEYS[a.ptr], KEYS[a.k], 'PX', a.ttl)
      approval_index(KEYS[a.gidx], KEYS[a.k], expires, a.ttl, now)
    end
    return { o = 'approval_pending', id = o.id, exp = expires, new = true }
  end
  if rec[2] == 'denied' then return { o = 'approval_denied', id = rec[1], reason = rec[4] or nil, by = rec[5] or '' } end
  if rec[2] == 'pending' then return { o = 'approval_pending', id = rec[1], exp = tonumber(rec[3]) } end
  a.found = rec[1]
  a.by = rec[5] or ''
  return nil
end

local function approval_consume(a, now)
  redis.call('DEL', KEYS[a.k])
  if redis.call('HEXISTS', KEYS[a.hist], a.found) == 1 then redis.call('HSET', KEYS[a.hist], 'ran:' .. a.found, now) end
end
