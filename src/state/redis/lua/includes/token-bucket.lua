--[[ token-bucket: the rate limit of one subject and tool, hash (level, at); no key is a full bucket
     bucket_check({k, per_minute}, now_ms): the verdict that stops the call ('rate_limited') or nil, and the
       level now
     bucket_take({k, per_minute}, level, now_ms): one token, for an admitted call
     Tokens are counted in 1/60000ths (TOKEN): per_minute per 60 000 ms is then exactly per_minute units per ms. ]]
--- @constants

local function bucket_check(rate, now)
  local capacity = rate.per_minute * TOKEN
  local rec = redis.call('HMGET', KEYS[rate.k], 'level', 'at')
  local level = capacity
  if rec[1] then
    level = math.min(capacity, tonumber(rec[1]) + math.max(0, now - tonumber(rec[2])) * rate.per_minute)
  end
  if level < TOKEN then return { o = 'rate_limited', retry = math.ceil((TOKEN - level) / rate.per_minute) }, nil end
  return nil, level
end

-- An idle bucket is full again after BUCKET_IDLE_MS, the same as no bucket.
local function bucket_take(rate, level, now)
  redis.call('HSET', KEYS[rate.k], 'level', level - TOKEN, 'at', now)
  redis.call('PEXPIRE', KEYS[rate.k], BUCKET_IDLE_MS)
end
