--[[ decide: KEYS[1] approval hash, KEYS[2] the tenant's index of pending requests, KEYS[3] the tenant's decided
     index, KEYS[4] the tenant's history hash; and, when they share this slot (a single node), KEYS[5] the global
     index, KEYS[6] the global decided index, KEYS[7] the id pointer (else the store runs decided.lua after)
     · ARGV[1] approval id, ARGV[2] now_ms, ARGV[3] decision ('approved'|'denied'), ARGV[4] the deciding key's id,
     ARGV[5] keep_ms, ARGV[6] keep count, ARGV[7] reason (optional)
     returns: {'decided', record} when this decision was taken; {'already', record, ran ('1' or '')} when one had
     been; nil unless the request is this id and live. A record is the hash as a JSON array of field, value,
     with `kept_until` (when the history forgets it) added ]]
--- @include "includes/approval-history"

local id, now = ARGV[1], tonumber(ARGV[2])
local keep, count = tonumber(ARGV[5]), tonumber(ARGV[6])
local kept = redis.call('HGET', KEYS[4], id)
if kept then return { 'already', kept, redis.call('HGET', KEYS[4], 'ran:' .. id) and '1' or '' } end
local rec = redis.call('HMGET', KEYS[1], 'id', 'status', 'expires_at')
if rec[1] ~= id or tonumber(rec[3]) <= now then return nil end
-- Decided, but past the history's count already: the request itself still says how.
if rec[2] ~= 'pending' then return { 'already', cjson.encode(redis.call('HGETALL', KEYS[1])), '' } end
redis.call('HSET', KEYS[1], 'status', ARGV[3], 'decided_at', now, 'decided_by', ARGV[4])
if ARGV[7] then redis.call('HSET', KEYS[1], 'reason', ARGV[7]) end
local flat = redis.call('HGETALL', KEYS[1])
table.insert(flat, 'kept_until')
table.insert(flat, tostring(now + keep))
local json = cjson.encode(flat)
redis.call('ZREM', KEYS[2], KEYS[1])
history_add(KEYS[3], KEYS[4], id, json, now, keep, count)
if KEYS[5] then
  redis.call('ZREM', KEYS[5], KEYS[1])
  history_add(KEYS[6], nil, id, nil, now, keep, count)
  history_pointer(KEYS[7], keep)
end
return { 'decided', json }
