--[[
  Books the next slot of a connector's schedule (GCRA: one request every 1/limit seconds, on Redis's clock so every
  process agrees). Live calls always book, at most one slot ahead since sync never books ahead; a sync page books
  only a slot that is free now, so it never stands in front of a live call. A pause (429) stops both lanes. A
  learnt limit grows 5 % every ARGV[5] ms without a 429.

  Input:
    KEYS[1] the schedule (theoretical arrival time)
    KEYS[2] the pause (until, ms)
    KEYS[3] the learnt limit (hash: limit, changed)
    KEYS[4] the prefix of the per-second used counters

    ARGV[1] the documented limit per second (0: learn it)
    ARGV[2] the lane: live or sync
    ARGV[3] the initial learnt limit
    ARGV[4] the highest learnt limit
    ARGV[5] grow the learnt limit every this many ms

  Output:
    {booked (1|0), wait ms, the limit in force, used in the last whole second}
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
if limit == 0 then
  local learnt = redis.call('HMGET', KEYS[3], 'limit', 'changed')
  limit = tonumber(learnt[1]) or tonumber(ARGV[3])
  local changed = tonumber(learnt[2]) or now
  if now - changed >= tonumber(ARGV[5]) then
    limit = math.min(tonumber(ARGV[4]), limit + math.max(1, math.floor(limit * 0.05)))
    changed = now
  end
  redis.call('HSET', KEYS[3], 'limit', limit, 'changed', changed)
  redis.call('PEXPIRE', KEYS[3], 86400000)
end
local second = math.floor(now / 1000)
local used = tonumber(redis.call('GET', KEYS[4] .. (second - 1)) or '0')
local paused = tonumber(redis.call('GET', KEYS[2]) or '0')
if paused > now then return {0, paused - now, limit, used} end
local interval = 1000 / limit
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
if ARGV[2] == 'sync' and tat > now then return {0, math.ceil(tat - now), limit, used} end
redis.call('SET', KEYS[1], tostring(tat + interval), 'PX', math.ceil(interval) + 60000)
redis.call('INCR', KEYS[4] .. second)
redis.call('PEXPIRE', KEYS[4] .. second, 3000)
return {1, math.ceil(tat - now), limit, used}
