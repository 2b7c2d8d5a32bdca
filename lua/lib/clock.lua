-- Defines `now`, epoch µs: Redis TIME when ARGV[2] is 'r', else (or where Redis refuses TIME) the app clock ARGV[1].
local now
if ARGV[2] == 'r' then
  local ok, t = pcall(redis.call, 'TIME')
  if ok then now = t[1] * 1000000 + t[2] else now = tonumber(ARGV[1]) end
else
  now = tonumber(ARGV[1])
end
