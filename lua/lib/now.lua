-- Declares `now` (epoch µs) for the kinds (lib/kinds.lua) where the script sets it itself rather than by
-- lib/clock.lua (its clock is not ARGV[1..2]).
local now
