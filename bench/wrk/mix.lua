-- The bench mix for wrk (Debian package `wrk`), a load generator in C that takes a quarter of the CPU
-- of bench/run.ts at the same rate: a cross-check of bench/run.ts's figures on a machine whose cores
-- the load generator shares with the server and PostgreSQL (docs/performance.md).
--
--   URLS=../shared/bench/urls.txt wrk -t1 -c16 -d20s --latency -s bench/wrk/mix.lua http://127.0.0.1:5551
--
-- Each of wrk's threads sends the URL file's paths round-robin (blank and # lines skipped); a
-- response's status is not checked (the mix holds 400s and 404s on purpose: wrk counts them as
-- "Non-2xx or 3xx responses").
local file = os.getenv("URLS") or "../shared/bench/urls.txt"
local paths = {}
for line in io.lines(file) do
  line = line:gsub("%s+$", "")
  if line ~= "" and line:sub(1, 1) ~= "#" then paths[#paths + 1] = line end
end
assert(#paths > 0, "no URL in " .. file)

local next_index = 0
function request()
  next_index = next_index % #paths + 1
  return wrk.format("GET", paths[next_index])
end
