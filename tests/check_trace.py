#!/usr/bin/env python3
"""check_trace.py TRACE.json — validates a culonx Chrome trace with a real
JSON parser: required fields on every complete event, no two events on one
(pid, tid) thread overlap, every dependency listed in args.deps ends before
the event starts, and the last event ends at otherData.iteration_time_s.
Exits 1 with a message on the first violation."""
import json
import sys

EPS_US = 2e-3  # ts and dur are each rounded to 3 decimals in microseconds


def fail(msg):
    print("check_trace: " + msg)
    sys.exit(1)


def main(path):
    with open(path) as f:
        doc = json.load(f)
    evs = doc.get("traceEvents")
    if not isinstance(evs, list) or not evs:
        fail("no traceEvents")
    by_id, threads, names = {}, {}, set()
    for e in evs:
        ph = e.get("ph")
        if ph == "M":
            names.add((e["pid"], e["name"]))
            continue
        if ph != "X":
            fail("unexpected phase %r" % ph)
        for k in ("name", "cat", "ts", "dur", "pid", "tid", "args"):
            if k not in e:
                fail("event without %s: %r" % (k, e))
        if e["dur"] < 0 or e["ts"] < 0:
            fail("negative time: %r" % e)
        by_id[e["args"]["id"]] = e
        threads.setdefault((e["pid"], e["tid"]), []).append(e)
    for (pid, tid), lst in threads.items():
        lst.sort(key=lambda e: e["ts"])
        for a, b in zip(lst, lst[1:]):
            if a["ts"] + a["dur"] > b["ts"] + EPS_US:
                fail("overlap on stage %d thread %d: %s@%.3f+%.3f and %s@%.3f" %
                     (pid, tid, a["name"], a["ts"], a["dur"], b["name"], b["ts"]))
        if (pid, "process_name") not in names:
            fail("stage %d has no process_name" % pid)
    deps = 0
    for e in by_id.values():
        for d in e["args"]["deps"]:
            if d in by_id:  # zero-length nodes are not written
                p = by_id[d]
                deps += 1
                if p["ts"] + p["dur"] > e["ts"] + EPS_US:
                    fail("dependency violated: %s (id %d) starts at %.3f before %s (id %d) ends at %.3f"
                         % (e["name"], e["args"]["id"], e["ts"], p["name"], d, p["ts"] + p["dur"]))
    end = max(e["ts"] + e["dur"] for e in by_id.values())
    want = doc["otherData"]["iteration_time_s"] * 1e6
    if abs(end - want) > 1e-6 * want + 1.0:
        fail("last event ends at %.3f us, iteration time is %.3f us" % (end, want))
    print("ok %s: %d events, %d threads, %d dependencies checked" %
          (path, len(by_id), len(threads), deps))


if __name__ == "__main__":
    main(sys.argv[1])
