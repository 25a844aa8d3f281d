--[[ replay: the once-record of one side-effecting call, hash (fp, exp, res?)
     replay_check({k, fp, lease}, now_ms): the verdict that stops the call ('mismatch'|'replayed'|'in_flight'),
       or nil when no record is live
     replay_take({k, fp, lease}, now_ms): the lease an admitted call runs under
     replay_complete({k, res, ttl}, now_ms): the result, onto the runner's record only ]]
--- @include "live"

local function replay_check(s, now)
  local rec = redis.call('HMGET', KEYS[s.k], 'fp', 'exp', 'res')
  if not live(rec[2], now) then return nil end
  if rec[1] ~= s.fp then return { o = 'mismatch' } end
  if rec[3] then return { o = 'replayed', r = rec[3] } end
  return { o = 'in_flight' }
end

local function replay_take(s, now)
  redis.call('DEL', KEYS[s.k])
  redis.call('HSET', KEYS[s.k], 'fp', s.fp, 'exp', now + s.lease)
  redis.call('PEXPIRE', KEYS[s.k], s.lease)
end

-- Only onto the runner's record: without it the fingerprint is unknown and a replay could not be checked.
local function replay_complete(s, now)
  if redis.call('EXISTS', KEYS[s.k]) == 0 then return end
  redis.call('HSET', KEYS[s.k], 'res', s.res, 'exp', now + s.ttl)
  redis.call('PEXPIRE', KEYS[s.k], s.ttl)
end
