--[[
  Announces that a connector's change feed grew (docs/architecture.md, "The answer cache"): one stream entry numbered
  by a counter without gaps, so a reader that finds a number missing knows it may have missed one, and the feed's
  head as Redis knows it (never moved back: appends of one connector may announce themselves out of order).

  Input:
    KEYS[1] the counter of announcements
    KEYS[2] the stream of announcements
    KEYS[3] the connector's head

    ARGV[1] the connector id
    ARGV[2] the entity
    ARGV[3] the number of the append's last event
    ARGV[4] the stream's approximate length cap
    ARGV[5] the head's time to live, in ms

  Output:
    the announcement's number
]]
local n = redis.call('INCR', KEYS[1])
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[4], '*', 'n', n, 'c', ARGV[1], 'e', ARGV[2], 's', ARGV[3])
local head = tonumber(redis.call('GET', KEYS[3]) or '0')
if tonumber(ARGV[3]) > head then
  redis.call('SET', KEYS[3], ARGV[3], 'PX', ARGV[5])
else
  redis.call('PEXPIRE', KEYS[3], ARGV[5])
end
return n
