--[[ breaker: one scope's circuit breaker, hash (state, failures, reopens_at, probe_until); no key is closed
     with no failures
     breaker_check({k, recovery, ttl}, now_ms): the verdict that stops the call ('circuit_open') or nil, and
       whether the call goes as the probe
     breaker_take_probe({k, recovery, ttl, token?}, now_ms): the probe slot, for an admitted probe; `token` marks
       it as taken by one admit, so that admit can free it again (breaker_free_probe)
     breaker_free_probe({k, token}): the probe slot back, when the tenant's script refused the call it was for
     breaker_record({k, outcome ('success'|'failure'|'neutral'), probe, threshold, recovery, ttl}, now_ms):
       a settled call's outcome ]]
--- @constants

local function breaker_check(b, now)
  local rec = redis.call('HMGET', KEYS[b.k], 'state', 'reopens_at', 'probe_until')
  if rec[1] == 'open' then
    local reopens = tonumber(rec[2])
    if now < reopens then return { o = 'circuit_open', retry = reopens - now }, false end
    return nil, true
  elseif rec[1] == 'half_open' then
    local probe_until = tonumber(rec[3]) or 0
    -- Half open with the probe still out: retry soon, the probe usually settles within a tool timeout.
    if probe_until > now then return { o = 'circuit_open', retry = math.min(probe_until - now, HALF_OPEN_RETRY_MS) }, false end
    return nil, true
  end
  return nil, false
end

-- The probe slot is a lease of one recovery period: a probe that never reports counts as a failed one.
local function breaker_take_probe(b, now)
  redis.call('HSET', KEYS[b.k], 'state', 'half_open', 'probe_until', now + b.recovery, 'probe_token', b.token or '')
  redis.call('PEXPIRE', KEYS[b.k], b.ttl)
end

-- Only the slot that admit took: if it was settled, expired or taken again since, it is not this one's.
local function breaker_free_probe(p)
  local rec = redis.call('HMGET', KEYS[p.k], 'state', 'probe_token')
  if rec[1] == 'half_open' and rec[2] == p.token then redis.call('HSET', KEYS[p.k], 'probe_until', 0, 'probe_token', '') end
end

local function breaker_record(b, now)
  local key = KEYS[b.k]
  local state = redis.call('HGET', key, 'state')
  if (state == 'open' or state == 'half_open') and not b.probe then
    -- A call admitted before the breaker opened, reporting late: only the probe moves an open breaker.
    return
  end
  if b.outcome == 'success' then
    -- Closed with no failures is what a missing breaker means.
    redis.call('DEL', key)
  elseif b.outcome == 'failure' then
    local failures = redis.call('HINCRBY', key, 'failures', 1)
    if b.probe or failures >= b.threshold then
      redis.call('HSET', key, 'state', 'open', 'reopens_at', now + b.recovery, 'probe_until', 0)
    end
    redis.call('PEXPIRE', key, b.ttl)
  elseif b.probe and redis.call('EXISTS', key) == 1 then
    -- A neutral probe proved nothing: free the slot for the next caller, stay half open.
    redis.call('HSET', key, 'probe_until', 0)
  end
end
