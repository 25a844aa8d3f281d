--[[ lock: what a session last saw of one workspace file, hash (meta, exp)
     lock_read(k, now_ms): the meta JSON while live, else nil
     lock_write({k, meta (JSON), ttl}, now_ms): stored by a settled Read, Write or Edit ]]
--- @include "live"

local function lock_read(k, now)
  local rec = redis.call('HMGET', KEYS[k], 'meta', 'exp')
  if live(rec[2], now) then return rec[1] end
  return nil
end

local function lock_write(l, now)
  redis.call('HSET', KEYS[l.k], 'meta', l.meta, 'exp', now + l.ttl)
  redis.call('PEXPIRE', KEYS[l.k], l.ttl)
end
