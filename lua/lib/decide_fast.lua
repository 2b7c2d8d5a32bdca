-- Defines decide_fast(told, NT, NX): the fast path of ratelimit_decide.lua (ARGV[3] 'g' | 'd': every bucket GCRA,
-- none with a penalty; one MGET, one PSETEX per charged bucket), returning that script's reply. told is the
-- script's told-key setter, NT the number of told keys, NX the extra KEYS after the buckets (claim and told keys).
-- Needs `now` (lib/clock.lua) and EPS (lib/kinds.lua). ARGV layout: in the header of ratelimit_decide.lua.
local function decide_fast(told, NT, NX)
  local tonumber, fmt = tonumber, string.format
  local path = ARGV[3]
  local n = #KEYS - NX
  local keys = KEYS
  if NX > 0 then keys = {} for i = 1, n do keys[i] = KEYS[i] end end
  local out = redis.call('MGET', unpack(keys))
  local h, degraded = 3, false
  if path == 'd' then
    h, degraded = 5, ARGV[5] == '1'
    local at = tonumber(ARGV[4])
    if not degraded and at > 0 then
      for i = 1, n do
        local b = h + i * 4 - 3
        local v = out[i]
        if v and ARGV[b + 2] % 4 >= 2 and math.max(0, v - now) / ARGV[b] >= at then degraded = true end
      end
    end
  end
  local W = {}
  local j = h + n * 4
  local bl, worst = 0, -1
  for i = 1, n do
    local b = h + i * 4 - 3
    local tau, inc, fl = ARGV[b], ARGV[b + 1], ARGV[b + 2]
    if h == 5 and fl % 8 >= 4 then
      if degraded then tau, inc = ARGV[j + 1], ARGV[j + 2] end
      j = j + 2
    end
    local tat = out[i]
    if tat then
      tat = tonumber(tat)
      if tat < now then tat = now end
    else
      tat = now
    end
    local nxt = tat + inc
    if nxt - now <= tau + EPS then
      W[i] = nxt
    elseif fl % 2 == 0 then
      -- an enforced bucket refuses: nothing is written
      if NT == 0 then
        out[n + 1], out[n + 2], out[n + 3], out[n + 4], out[n + 5] = now, 0, degraded and 1 or 0, 0, -1
        return out
      end
      local r = nxt - tau - now
      if tonumber(inc) > tau + EPS then r = math.max(tat - now, 1e6) end
      r = math.ceil(r / 1000)
      if r > worst then bl, worst = i, r end
    end
  end
  if bl > 0 then
    out[n + 1], out[n + 2], out[n + 3], out[n + 4], out[n + 5] = now, 0, degraded and 1 or 0, told(bl, worst, ARGV[h + bl * 4]), bl - 1
    return out
  end
  for i = 1, n do
    local w = W[i]
    if w then
      if w % 1 == 0 then w = fmt('%d', w) end
      redis.call('PSETEX', KEYS[i], ARGV[h + i * 4], w)
    end
  end
  out[n + 1], out[n + 2], out[n + 3], out[n + 4], out[n + 5] = now, 1, degraded and 1 or 0, 0, -1
  return out
end
