--[[ admit: KEYS[1..n] every key the batch reads or writes, named by each request by index
     · ARGV[1] now_ms, ARGV[2] JSON array, one object per call, in order:
         replay?   {k, fp, lease}     call record hash (fp, exp, res?)
         approval? {k, tidx, hist, ptr?, gidx?, ttl, tenant, session, user?, open?: {id, tool, args, preview}}
                   approval hash, the tenant's pending index and history hash; for a new request: its id
                   pointer and the global index (includes/approval.lua)
         lock?     k                  lock hash (meta, exp)
         breaker?  {k, recovery, ttl, token?} breaker hash (state, failures, reopens_at, probe_until, probe_token),
                   or {stop} the verdict of a breaker in another slot that stops the call (store.ts), or absent
                   when that breaker let the call through
         rate?     {k, per_minute}    token bucket hash (level, at)
     returns: one JSON string per call: {o = outcome, id?, exp?, reason?, retry?, r? (stored result JSON),
              lock? (meta JSON), probe?, aid? and by? (the approval that admitted it, and the key id that approved)}
     Checks run in the order above and the first that stops a call wins; only an admitted call takes
     anything, and later calls of the batch see what earlier admitted ones took. Each transition is its
     own file in includes/, written into this script when it is loaded (redis/scripts.ts). ]]
--- @include "includes/replay"
--- @include "includes/approval"
--- @include "includes/lock"
--- @include "includes/breaker"
--- @include "includes/token-bucket"

local now = tonumber(ARGV[1])
local requests = cjson.decode(ARGV[2])

local out = {}
for i, r in ipairs(requests) do
  local verdict
  if r.replay then verdict = replay_check(r.replay, now) end

  local consume
  if not verdict and r.approval then
    verdict = approval_check(r.approval, now)
    if not verdict then consume = r.approval end
  end

  local lock
  if not verdict and r.lock then lock = lock_read(r.lock, now) end

  local probe = false
  if not verdict and r.breaker then
    if r.breaker.stop then verdict = r.breaker.stop else verdict, probe = breaker_check(r.breaker, now) end
  end

  local level
  if not verdict and r.rate then verdict, level = bucket_check(r.rate, now) end

  if verdict then
    out[i] = cjson.encode(verdict)
  else
    if r.replay then replay_take(r.replay, now) end
    if consume then approval_consume(consume, now) end
    if probe then breaker_take_probe(r.breaker, now) end
    if level then bucket_take(r.rate, level, now) end
    out[i] = cjson.encode({ o = 'admitted', lock = lock, probe = probe, aid = consume and consume.found or nil, by = consume and consume.by or nil })
  end
end
return out
