-- wrk script for the rows with one fixed request (bench/run.py sets the environment):
--   BENCH_METHOD   GET or POST
--   BENCH_BODY     request body (may be empty)
--   BENCH_HEADERS  header lines "Name: value" separated by "\n"
--   BENCH_EXPECT   text a 2xx body must contain to count as a success (may be empty)
-- Every answer's status is counted; done() prints one line "BENCH_JSON {...}" with the
-- totals, the latency percentiles and a sample body of each non-2xx/3xx status.

wrk.method = os.getenv("BENCH_METHOD") or "GET"
local body = os.getenv("BENCH_BODY") or ""
if body ~= "" then wrk.body = body end
for line in string.gmatch(os.getenv("BENCH_HEADERS") or "", "[^\n]+") do
  local name, value = string.match(line, "^([^:]+):%s*(.*)$")
  if name then wrk.headers[name] = value end
end

local expect = os.getenv("BENCH_EXPECT") or ""
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  statuses = {}
  samples = {}
end

function response(status, headers, body)
  local key = tostring(status)
  if expect ~= "" and status >= 200 and status < 300
      and not string.find(body or "", expect, 1, true) then
    key = key .. " without " .. expect
  end
  statuses[key] = (statuses[key] or 0) + 1
  if (status < 200 or status >= 300 or key ~= tostring(status)) and samples[key] == nil then
    samples[key] = string.sub(body or "", 1, 300)
  end
end

local function quote(s)
  s = string.gsub(s, '[%c"\\]', function(c)
    return string.format("\\u%04x", string.byte(c))
  end)
  return '"' .. s .. '"'
end

function done(summary, latency, requests)
  local counts, texts = {}, {}
  for _, thread in ipairs(threads) do
    for k, v in pairs(thread:get("statuses") or {}) do counts[k] = (counts[k] or 0) + v end
    for k, v in pairs(thread:get("samples") or {}) do texts[k] = texts[k] or v end
  end
  local parts = {}
  for k, v in pairs(counts) do table.insert(parts, quote(k) .. ":" .. v) end
  local sample_parts = {}
  for k, v in pairs(texts) do table.insert(sample_parts, quote(k) .. ":" .. quote(v)) end
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"max_us":%d,' ..
    '"non2xx3xx":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d,' ..
    '"statuses":{%s},"samples":{%s}}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    latency.max, e.status, e.connect, e.read, e.write, e.timeout,
    table.concat(parts, ","), table.concat(sample_parts, ",")))
end
