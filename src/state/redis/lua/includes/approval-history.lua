--[[ approval-history: decided approval requests, kept for listing and lookup within an age and a count
     history_add(zkey, hkey, id, json, now_ms, keep_ms, count): `id` joins the sorted set `zkey`, scored by when it
       is forgotten (now + keep_ms: with one keep_ms for all, also the order of decisions), and, with `hkey`, its
       record `json` that hash (with `ran:<id>` once its call ran); entries past their time, then the oldest past
       `count`, are forgotten, so the history is bounded however busy the tenant
     history_pointer(ptr, keep_ms): the id pointer lives as long as the kept decision it leads to ]]
local function history_forget(hkey, ids)
  if not hkey then return end
  for _, old in ipairs(ids) do redis.call('HDEL', hkey, old, 'ran:' .. old) end
end

local function history_add(zkey, hkey, id, json, now, keep, count)
  redis.call('ZADD', zkey, now + keep, id)
  if hkey then redis.call('HSET', hkey, id, json) end
  history_forget(hkey, redis.call('ZRANGEBYSCORE', zkey, '-inf', now))
  redis.call('ZREMRANGEBYSCORE', zkey, '-inf', now)
  local over = redis.call('ZCARD', zkey) - count
  if over > 0 then
    history_forget(hkey, redis.call('ZRANGE', zkey, 0, over - 1))
    redis.call('ZREMRANGEBYRANK', zkey, 0, over - 1)
  end
  redis.call('PEXPIRE', zkey, keep)
  if hkey then redis.call('PEXPIRE', hkey, keep) end
end

local function history_pointer(ptr, keep)
  if redis.call('PTTL', ptr) < keep then redis.call('PEXPIRE', ptr, keep) end
end
