--[[
  A sliding-window counter of one API client's requests. The key holds this window's count and the previous one's;
  the previous window counts in proportion to how much of it still lies within the last `window` seconds, so no
  burst of twice the limit fits across a window edge. A refused request is not counted. Redis's clock is the only
  clock, so every API instance agrees.

  Input:
    KEYS[1] the client's counter (hash: w window number, c its count, p the previous window's count)

    ARGV[1] points to consume
    ARGV[2] the window, in seconds
    ARGV[3] the limit per window

  Output:
    {consumed, ms}: consumed > limit means refused, and ms is the wait until the points would fit; otherwise ms is
    the time to the end of the current window.
]]
local now = redis.call('TIME')
local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local points = tonumber(ARGV[1])
local windowMs = tonumber(ARGV[2]) * 1000
local limit = tonumber(ARGV[3])
local window = math.floor(nowMs / windowMs)
local state = redis.call('HMGET', KEYS[1], 'w', 'c', 'p')
local current = tonumber(state[2]) or 0
local previous = tonumber(state[3]) or 0
local stored = tonumber(state[1])
if stored == nil or stored < window - 1 then
  current, previous = 0, 0
elseif stored == window - 1 then
  current, previous = 0, current
end
local elapsed = nowMs - window * windowMs
local estimate = previous * (windowMs - elapsed) / windowMs + current
if estimate + points > limit then
  local wait
  local room = limit - points - current
  if previous > 0 and room >= 0 then
    wait = (windowMs - elapsed) - room * windowMs / previous
  else
    wait = (windowMs - elapsed) + windowMs * (1 - (limit - points) / math.max(current, 1))
  end
  return {limit + points, math.max(1, math.ceil(wait))}
end
current = current + points
redis.call('HSET', KEYS[1], 'w', window, 'c', current, 'p', previous)
redis.call('PEXPIRE', KEYS[1], 2 * windowMs)
return {math.ceil(estimate + points), windowMs - elapsed}
