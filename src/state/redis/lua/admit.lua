--[[ admit: KEYS[1..n] every key the batch reads or writes, named by each request by index
     · ARGV[1] now_ms, ARGV[2] JSON array, one object per call, in order:
         replay?   {k, fp, lease}     call record hash (fp, exp, res?)
         approval? {k, ptr, tidx, gidx, id, ttl, tenant, session, tool, args}
                   approval hash; for a new request with id `id`: its id pointer, tenant and global index
         lock?     k                  lock hash (meta, exp)
         breaker   {k, recovery, ttl} breaker hash (state, failures, reopens_at, probe_until)
         rate?     {k, per_minute}    token bucket hash (level, at)
     returns: one JSON string per call: {o = outcome, id?, reason?, retry?, r? (stored result JSON),
              lock? (meta JSON), probe?}
     Checks run in the order above and the first that stops a call wins; only an admitted call takes
     anything, and later calls of the batch see what earlier admitted ones took. ]]
local now = tonumber(ARGV[1])
local requests = cjson.decode(ARGV[2])

-- Tokens are counted in 1/60000ths: perMinute per 60 000 ms is then exactly per_minute units per ms.
local TOKEN = 60000
-- An idle bucket is full again after a minute, the same as no bucket.
local BUCKET_IDLE_MS = 60000
-- Half open with the probe still out: retry soon, the probe usually settles within a tool timeout.
local HALF_OPEN_RETRY_MS = 1000

-- Never shortens an index's life below that of its longest-lived member.
local function extend(key, ttl)
  if redis.call('PTTL', key) < ttl then redis.call('PEXPIRE', key, ttl) end
end

local function live(exp)
  local at = tonumber(exp)
  return at ~= nil and at > now
end

local out = {}
for i, r in ipairs(requests) do
  local verdict

  if r.replay then
    local rec = redis.call('HMGET', KEYS[r.replay.k], 'fp', 'exp', 'res')
    if live(rec[2]) then
      if rec[1] ~= r.replay.fp then verdict = { o = 'mismatch' }
      elseif rec[3] then verdict = { o = 'replayed', r = rec[3] }
      else verdict = { o = 'in_flight' } end
    end
  end

  local consume
  if not verdict and r.approval then
    local a = r.approval
    local rec = redis.call('HMGET', KEYS[a.k], 'id', 'status', 'expires_at', 'reason')
    if not live(rec[3]) then
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
      verdict = { o = 'approval_pending', id = a.id }
    elseif rec[2] == 'denied' then verdict = { o = 'approval_denied', id = rec[1], reason = rec[4] or nil }
    elseif rec[2] == 'pending' then verdict = { o = 'approval_pending', id = rec[1] }
    else consume = a end
  end

  local lock
  if not verdict and r.lock then
    local rec = redis.call('HMGET', KEYS[r.lock], 'meta', 'exp')
    if live(rec[2]) then lock = rec[1] end
  end

  local probe = false
  if not verdict then
    local rec = redis.call('HMGET', KEYS[r.breaker.k], 'state', 'reopens_at', 'probe_until')
    if rec[1] == 'open' then
      local reopens = tonumber(rec[2])
      if now < reopens then verdict = { o = 'circuit_open', retry = reopens - now } else probe = true end
    elseif rec[1] == 'half_open' then
      local probe_until = tonumber(rec[3]) or 0
      if probe_until > now then
        verdict = { o = 'circuit_open', retry = math.min(probe_until - now, HALF_OPEN_RETRY_MS) }
      else probe = true end
    end
  end

  local level
  if not verdict and r.rate then
    local per_minute = r.rate.per_minute
    local capacity = per_minute * TOKEN
    local rec = redis.call('HMGET', KEYS[r.rate.k], 'level', 'at')
    level = capacity
    if rec[1] then
      level = math.min(capacity, tonumber(rec[1]) + math.max(0, now - tonumber(rec[2])) * per_minute)
    end
    if level < TOKEN then verdict = { o = 'rate_limited', retry = math.ceil((TOKEN - level) / per_minute) } end
  end

  if verdict then
    out[i] = cjson.encode(verdict)
  else
    if r.replay then
      redis.call('DEL', KEYS[r.replay.k])
      redis.call('HSET', KEYS[r.replay.k], 'fp', r.replay.fp, 'exp', now + r.replay.lease)
      redis.call('PEXPIRE', KEYS[r.replay.k], r.replay.lease)
    end
    if consume then
      redis.call('DEL', KEYS[consume.k])
      redis.call('ZREM', KEYS[consume.tidx], KEYS[consume.k])
      redis.call('ZREM', KEYS[consume.gidx], KEYS[consume.k])
    end
    if probe then
      -- The probe slot is a lease of one recovery period: a probe that never reports counts as a failed one.
      redis.call('HSET', KEYS[r.breaker.k], 'state', 'half_open', 'probe_until', now + r.breaker.recovery)
      redis.call('PEXPIRE', KEYS[r.breaker.k], r.breaker.ttl)
    end
    if level then
      redis.call('HSET', KEYS[r.rate.k], 'level', level - TOKEN, 'at', now)
      redis.call('PEXPIRE', KEYS[r.rate.k], BUCKET_IDLE_MS)
    end
    out[i] = cjson.encode({ o = 'admitted', lock = lock, probe = probe })
  end
end
return out
