#!/usr/bin/env python3
"""compare_json.py GOT.json WANT.json — structural JSON comparison with a
relative tolerance of 1e-9 on numbers (floating-point output may differ in
the last digits across libm versions); exits 1 naming the first difference."""
import json
import sys

TOL = 1e-9


def cmp(a, b, path):
    if isinstance(b, dict):
        if not isinstance(a, dict) or set(a) != set(b):
            return "%s: keys %s vs %s" % (path, sorted(a) if isinstance(a, dict) else a, sorted(b))
        for k in b:
            r = cmp(a[k], b[k], path + "." + k)
            if r:
                return r
    elif isinstance(b, list):
        if not isinstance(a, list) or len(a) != len(b):
            return "%s: list length differs" % path
        for i, (x, y) in enumerate(zip(a, b)):
            r = cmp(x, y, "%s[%d]" % (path, i))
            if r:
                return r
    elif isinstance(b, (int, float)) and not isinstance(b, bool):
        if not isinstance(a, (int, float)) or abs(a - b) > TOL * max(abs(a), abs(b), 1e-30):
            return "%s: got %r, want %r" % (path, a, b)
    elif a != b:
        return "%s: got %r, want %r" % (path, a, b)
    return None


got, want = (json.load(open(p)) for p in sys.argv[1:3])
r = cmp(got, want, "$")
if r:
    print("compare_json: " + r)
    sys.exit(1)
