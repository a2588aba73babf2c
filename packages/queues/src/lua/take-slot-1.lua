--[[
  Takes a slot of a semaphore shared through Redis: a sorted set of holders scored by when each took its slot or
  last beat. Holders older than the stale time (their process died) no longer count and are removed first.

  Input:
    KEYS[1] the semaphore's sorted set

    ARGV[1] now, in ms
    ARGV[2] stale before, in ms: holders scored before this are gone
    ARGV[3] the holder
    ARGV[4] the limit: how many holders at once
    ARGV[5] the set's time to live, in ms (an idle semaphore leaves no key behind)

  Output:
    1  the holder holds a slot: taken now, or already held (its score refreshed, as a heartbeat)
    0  every slot is taken
]]
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
if redis.call('ZSCORE', KEYS[1], ARGV[3]) then
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[3])
  return 1
end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then
  return 0
end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
