#!/usr/bin/env python3
"""Compares the set results of two rope2d verify reports (report.json) of the same submission
and options, judged two ways (on the GPU and with --cpu-judge): every set's disposition,
integrity, counts, per-tier over counts, ulps, worst element, histograms and subnormal modes
must be equal; the error values (max, the worst element's, the largest by angle binade) to
2^-40 relative, since the GPU computes S and the error with CUDA's double sincos, which may
differ from glibc's in the last bits (the verdicts come from the enclosure, not from these);
the RMS error may differ in its last bits (the GPU sums in another order). Prints each difference; exit 0 when there is none, 1 otherwise, 2 on bad input.

    same_judgement.py reports/a/report.json reports/b/report.json
"""
import json
import sys

EXACT = ["disposition", "integrity", "elements", "correctly_rounded_fraction", "max_ulp", "unwritten",
         "nonfinite_mismatch", "all_zero", "tiers", "subnormal_mode", "subnormal_modes", "subnormal_unexplained",
         "overflow_accepted", "reproduce", "histogram"]
REL = 2.0 ** -40


def close(x, y):
    """Equal, or numbers within REL of each other; lists and objects element by element."""
    if isinstance(x, dict) and isinstance(y, dict):
        return x.keys() == y.keys() and all(close(x[k], y[k]) for k in x)
    if isinstance(x, list) and isinstance(y, list):
        return len(x) == len(y) and all(close(a, b) for a, b in zip(x, y))
    if isinstance(x, (int, float)) and isinstance(y, (int, float)) and not isinstance(x, bool):
        return x == y or abs(x - y) <= REL * max(abs(x), abs(y))
    return x == y


def load(path):
    try:
        with open(path) as f:
            return {r["name"]: r for r in json.load(f)["results"]}
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"{path}: expected a rope2d report.json with 'results' (a list of sets with 'name'), found: {e!r}", file=sys.stderr)
        sys.exit(2)


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    a, b = load(argv[1]), load(argv[2])
    diffs = [f"only in {argv[1] if n in a else argv[2]}: {n}" for n in sorted(set(a) ^ set(b))]
    for name in sorted(set(a) & set(b)):
        x, y = a[name], b[name]
        for key in EXACT:
            if x.get(key) != y.get(key):
                diffs.append(f"{name}: {key}: {json.dumps(x.get(key))[:200]} != {json.dumps(y.get(key))[:200]}")
        for key in ("max_scaled_error", "worst", "max_by_angle"):
            if not close(x.get(key), y.get(key)):
                diffs.append(f"{name}: {key}: {json.dumps(x.get(key))[:200]} != {json.dumps(y.get(key))[:200]}")
        rx, ry = x.get("rms_scaled_error", 0), y.get("rms_scaled_error", 0)
        if abs(rx - ry) > 1e-12 * max(abs(rx), abs(ry), 1e-300):
            diffs.append(f"{name}: rms_scaled_error {rx!r} != {ry!r}")
    for d in diffs:
        print(d)
    print(f"{len(set(a) & set(b))} sets compared, {len(diffs)} differences")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
