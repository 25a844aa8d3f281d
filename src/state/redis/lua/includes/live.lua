--[[ live: what every record's `exp` field means
     live(exp, now_ms): whether a record expiring at `exp` (ms, or false when the field is absent) is live ]]
local function live(exp, now)
  local at = tonumber(exp)
  return at ~= nil and at > now
end
