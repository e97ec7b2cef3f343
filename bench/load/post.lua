-- wrk script for the load benchmarks: POST one AdmissionReview body file, as the apiserver does,
-- and print one machine-readable result line for bench/load/run.sh.
--
--   wrk -t1 -c16 -d10s --latency -s post.lua https://127.0.0.1:PORT/validate -- BODY.json [MS]
--
-- MS, if given, is the mean pause in milliseconds (a fraction is kept) before each request on a connection, which
-- caps the rate (connections x 1000 / (MS + latency)) for latency at a set load rather than at
-- saturation. Each pause is drawn from an exponential distribution, so the connections' requests
-- arrive independently (a Poisson stream, as reviews from unrelated pod creations do). A fixed
-- pause would lock the connections into step: every connection opens at once and waits the same
-- time after each answer, so all N requests would keep arriving together, a burst of N every MS.
-- wrk still waits for each response before the pause, so a slow response delays the requests
-- behind it instead of showing as their latency (coordinated omission): at a set rate the tail
-- it reports is a lower bound.
--
-- No response() callback on purpose: defining one makes wrk hand every response to Lua, which
-- costs the client more than the small servers cost. wrk counts non-2xx replies itself
-- (summary.errors.status).

function init(args)
  local path = args[1]
  if path == nil then
    error("post.lua: pass the body file after --, e.g. -- build-bench/load/3k.json")
  end
  local f = assert(io.open(path, "rb"))
  wrk.body = f:read("*a")
  f:close()
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  -- Defined only when asked for: wrk runs a timer per request once a script has delay().
  local pause = tonumber(args[2])
  if pause then
    math.randomseed(os.time())
    function delay()
      -- 1 - random() is in (0, 1], so the log is finite. wrk takes whole milliseconds:
      -- rounding up with the fraction's probability keeps the mean pause exact even when it is
      -- below a millisecond (many connections at a high rate), where rounding to the nearest
      -- would shorten it.
      local ms = -math.log(1 - math.random()) * pause
      return math.floor(ms + math.random())
    end
  end
end

-- Latencies are in microseconds; duration too. One line, key=value, parsed by run.sh.
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "RESULT requests=%d duration_us=%d bytes=%d p50_us=%d p90_us=%d p99_us=%d p999_us=%d " ..
    "max_us=%d connect_errors=%d read_errors=%d write_errors=%d status_errors=%d timeouts=%d\n",
    summary.requests, summary.duration, summary.bytes,
    latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency:percentile(99.9), latency.max,
    e.connect, e.read, e.write, e.status, e.timeout))
end
