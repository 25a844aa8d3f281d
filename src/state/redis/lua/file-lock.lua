--[[ file-lock: KEYS[1] one file's lock hash (holder, until, fence) · ARGV[1] now_ms, ARGV[2] holder, ARGV[3] lease_ms
     returns: {'granted', fence} — the temp files of lapsed holders, joined by '/' (no file name holds one), '' for none —
              or {'busy', retry_after_ms} while another holder's lease runs ]]
--- @constants
local now = tonumber(ARGV[1])
local rec = redis.call('HMGET', KEYS[1], 'holder', 'until', 'fence')
if rec[1] and tonumber(rec[2]) > now then return {'busy', tonumber(rec[2]) - now} end
local fence = rec[3] or ''
if rec[1] then fence = fence == '' and rec[1] or fence .. '/' .. rec[1] end
redis.call('HSET', KEYS[1], 'holder', ARGV[2], 'until', now + tonumber(ARGV[3]), 'fence', fence)
redis.call('PEXPIRE', KEYS[1], FILE_LOCK_RECORD_MS)
return {'granted', fence}
