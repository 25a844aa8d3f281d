--[[ settle: KEYS[1..n] every key the batch writes, named by each request by index
     · ARGV[1] now_ms, ARGV[2] JSON array, one object per executed call:
       breaker {k, outcome ('success'|'failure'|'neutral'), probe, threshold, recovery, ttl}
       lock?   {k, meta (JSON), ttl}
       replay? {k, res (JSON), ttl}
     returns: the number of calls settled ]]
local now = tonumber(ARGV[1])
local requests = cjson.decode(ARGV[2])

for _, r in ipairs(requests) do
  local b = r.breaker
  local key = KEYS[b.k]
  local state = redis.call('HGET', key, 'state')
  if (state == 'open' or state == 'half_open') and not b.probe then
    -- A call admitted before the breaker opened, reporting late: only the probe moves an open breaker.
  elseif b.outcome == 'success' then
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

  if r.lock then
    redis.call('HSET', KEYS[r.lock.k], 'meta', r.lock.meta, 'exp', now + r.lock.ttl)
    redis.call('PEXPIRE', KEYS[r.lock.k], r.lock.ttl)
  end

  -- Only onto the runner's record: without it the fingerprint is unknown and a replay could not be checked.
  if r.replay and redis.call('EXISTS', KEYS[r.replay.k]) == 1 then
    redis.call('HSET', KEYS[r.replay.k], 'res', r.replay.res, 'exp', now + r.replay.ttl)
    redis.call('PEXPIRE', KEYS[r.replay.k], r.replay.ttl)
  end
end
return #requests
