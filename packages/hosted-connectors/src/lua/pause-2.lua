--[[
  A 429: pauses the connector (every lane, every process) until the wait is over, and when the limit is learnt,
  lowers it to 70 % of what it was.

  Input:
    KEYS[1] the pause (until, ms)
    KEYS[2] the learnt limit (hash: limit, changed)

    ARGV[1] the wait, in ms
    ARGV[2] learning (1|0)
    ARGV[3] the initial learnt limit

  Output:
    the pause's end (ms)
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local untilMs = now + tonumber(ARGV[1])
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if untilMs > current then redis.call('SET', KEYS[1], untilMs, 'PX', tonumber(ARGV[1]) + 1000) end
if ARGV[2] == '1' then
  local limit = tonumber(redis.call('HGET', KEYS[2], 'limit')) or tonumber(ARGV[3])
  redis.call('HSET', KEYS[2], 'limit', math.max(1, math.floor(limit * 0.7)), 'changed', now)
  redis.call('PEXPIRE', KEYS[2], 86400000)
end
return untilMs
