--[[ claim: KEYS[1] once-record hash (fp, exp, res?)
     · ARGV[1] now_ms, ARGV[2] fingerprint, ARGV[3] lease_ms
     returns: {'claimed'} | {'done', result JSON} | {'in_flight'} | {'mismatch'} ]]
local now = tonumber(ARGV[1])
local rec = redis.call('HMGET', KEYS[1], 'fp', 'exp', 'res')
local exp = tonumber(rec[2])
if exp and exp > now then
  if rec[1] ~= ARGV[2] then return { 'mismatch' } end
  if rec[3] then return { 'done', rec[3] } end
  return { 'in_flight' }
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'fp', ARGV[2], 'exp', now + tonumber(ARGV[3]))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return { 'claimed' }
