--[[ approval-index: a sorted set of approval keys by expiry (a tenant's, or every tenant's)
     approval_index(index_key, approval_key, expires_ms, ttl_ms, now_ms): lists the approval until it expires;
       pruned on every insert, so an index holds live requests only, however rarely anyone lists it ]]
local function approval_index(index, member, expires, ttl, now)
  redis.call('ZREMRANGEBYSCORE', index, '-inf', now)
  redis.call('ZADD', index, expires, member)
  -- Never shortens an index's life below that of its longest-lived member.
  if redis.call('PTTL', index) < ttl then redis.call('PEXPIRE', index, ttl) end
end
