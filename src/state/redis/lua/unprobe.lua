--[[ unprobe: KEYS[1..n] breaker hashes · ARGV[1] JSON array of {k, token}
     Frees the probe slots an admit took in the breakers' slot for calls the tenant's script then refused
     (an earlier gate or the rate limit stopped them), so a refused call does not hold the probe for a
     recovery period. ]]
--- @include "includes/breaker"

for _, p in ipairs(cjson.decode(ARGV[1])) do breaker_free_probe(p) end
return 1
