#!/usr/bin/env python3
"""check_trace.py TRACE.json[.gz] — validates a culonx Chrome trace with a real
JSON parser, exactly, in integer nanoseconds (numbers are read as Decimal,
never as binary floats): required fields on every complete event, integer-ns
times, no two events on one (pid, tid) thread overlap by even 0 ns (current
Perfetto drops overlapping complete events), every dependency listed in
args.deps ends before the event starts, flow events come in s/f pairs on
existing threads, counters are finite, and the last event ends at
otherData.iteration_time_s. Exits 1 with a message on the first violation."""
import decimal
import gzip
import json
import sys


def fail(msg):
    print("check_trace: " + msg)
    sys.exit(1)


def ns(v, what):
    d = decimal.Decimal(v) * 1000
    if d != d.to_integral_value():
        fail("%s %s us is not a whole number of nanoseconds" % (what, v))
    return int(d)


def main(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        doc = json.load(f, parse_float=decimal.Decimal)
    evs = doc.get("traceEvents")
    if not isinstance(evs, list) or not evs:
        fail("no traceEvents")
    by_id, threads, names, flows, counters = {}, {}, set(), {}, 0
    for e in evs:
        ph = e.get("ph")
        if ph == "M":
            names.add((e["pid"], e["name"]))
            continue
        if ph in ("s", "f"):
            flows.setdefault(e["id"], {})[ph] = e
            ns(e["ts"], "flow ts")
            continue
        if ph == "C":
            counters += 1
            for v in e["args"].values():
                if not decimal.Decimal(v).is_finite():
                    fail("counter not finite: %r" % e)
            continue
        if ph != "X":
            fail("unexpected phase %r" % ph)
        for k in ("name", "cat", "ts", "dur", "pid", "tid", "args"):
            if k not in e:
                fail("event without %s: %r" % (k, e))
        e["a"], e["d"] = ns(e["ts"], "ts"), ns(e["dur"], "dur")
        e["b"] = e["a"] + e["d"]
        if e["d"] < 0 or e["a"] < 0:
            fail("negative time: %r" % e)
        by_id[e["args"]["id"]] = e
        threads.setdefault((e["pid"], e["tid"]), []).append(e)
    overlaps = 0
    for (pid, tid), lst in threads.items():
        lst.sort(key=lambda e: (e["a"], e["b"]))
        for a, b in zip(lst, lst[1:]):
            if a["b"] > b["a"]:
                fail("overlap of %d ns on stage %d thread %d: %s@%d+%d and %s@%d" %
                     (a["b"] - b["a"], pid, tid, a["name"], a["a"], a["d"], b["name"], b["a"]))
        if (pid, "process_name") not in names:
            fail("stage %d has no process_name" % pid)
    deps = 0
    for e in by_id.values():
        for d in e["args"]["deps"]:
            if d in by_id:  # zero-length nodes are not written
                p = by_id[d]
                deps += 1
                if p["b"] > e["a"]:
                    fail("dependency violated: %s (id %d) starts at %d ns before %s (id %d) ends at %d ns"
                         % (e["name"], e["args"]["id"], e["a"], p["name"], d, p["b"]))
    for i, pair in flows.items():
        if set(pair) != {"s", "f"}:
            fail("flow %r is not an s/f pair" % i)
        if (pair["s"]["pid"], pair["s"]["tid"]) not in threads or \
           (pair["f"]["pid"], pair["f"]["tid"]) not in threads:
            fail("flow %r on a thread without events" % i)
        if ns(pair["s"]["ts"], "flow") > ns(pair["f"]["ts"], "flow"):
            fail("flow %r goes back in time" % i)
    end = max(e["b"] for e in by_id.values())
    want = float(doc["otherData"]["iteration_time_s"]) * 1e9
    if not doc["otherData"].get("truncated") and abs(end - want) > 1e-6 * want + 1000:
        fail("last event ends at %d ns, iteration time is %.0f ns" % (end, want))
    print("ok %s: %d events, %d threads, %d dependencies, %d flows, %d counters, 0 ns overlap" %
          (path, len(by_id), len(threads), deps, len(flows), counters))


if __name__ == "__main__":
    main(sys.argv[1])
