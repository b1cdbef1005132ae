#!/usr/bin/env python3
"""Unit tests of the torch bench's bookkeeping (rope2d.bench_torch), which runs without a GPU:
the sign test, the reading of kernel durations from a profiler trace, and the rows it prints
(valid JSON, passing the schema rope2d reads them with). PyTorch is not needed
(a stub stands in for the import)."""
import json
import math
import os
import sys
import tempfile
import types
import unittest

sys.modules.setdefault("torch", types.ModuleType("torch"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from rope2d import bench_torch  # noqa: E402


def kernel(name, ts, dur):
    return {"ph": "X", "cat": "kernel", "name": name, "ts": ts, "dur": dur}


SPIN = "void at::cuda::(anonymous namespace)::spin_kernel(long)"


class SignTest(unittest.TestCase):
    def test_counts_and_p_value(self):
        r = bench_torch.sign_test([1, 1, 1, 1, 2, 3], [2, 2, 2, 2, 1, 3])
        self.assertEqual((r["wins"], r["losses"], r["ties"]), (4, 1, 1))
        self.assertAlmostEqual(r["p"], (5 + 1) / 32)  # P(X >= 4), X ~ Binomial(5, 1/2)
        self.assertEqual(r["median_diff_ms"], 1)

    def test_all_wins_and_all_ties(self):
        self.assertAlmostEqual(bench_torch.sign_test([1] * 10, [2] * 10)["p"], 2.0**-10)
        self.assertEqual(bench_torch.sign_test([1] * 5, [1] * 5)["p"], 1.0)

    def test_losing_side_is_not_significant(self):
        self.assertGreater(bench_torch.sign_test([2] * 20, [1] * 20)["p"], 0.99)


class KernelDurations(unittest.TestCase):
    def write(self, events):
        fd, path = tempfile.mkstemp(suffix=".json")
        with os.fdopen(fd, "w") as f:
            json.dump({"traceEvents": events}, f)
        self.addCleanup(os.remove, path)
        return path

    def test_each_call_is_the_kernels_between_its_two_sleeps(self):
        events = [
            kernel("fill", 0, 5), kernel(SPIN, 10, 1000), kernel("triton_poi_fused", 1011, 2.5), kernel(SPIN, 1014, 1),
            kernel("fill", 1020, 5), kernel(SPIN, 1030, 1000), kernel("sin", 2031, 1.5), kernel("cos", 2033, 1.0),
            kernel(SPIN, 2035, 1), {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 3, "dur": 1},
        ]
        got = bench_torch.kernel_durations(self.write(events[::-1]), 2)  # any order in the file
        self.assertEqual(len(got), 2)
        self.assertTrue(math.isclose(got[0], 2.5e-3) and math.isclose(got[1], 2.5e-3))

    def test_wrong_number_of_sleeps_or_an_empty_call_is_an_error(self):
        events = [kernel(SPIN, 0, 1000), kernel("k", 1001, 2), kernel(SPIN, 1004, 1)]
        with self.assertRaisesRegex(RuntimeError, "holds 2 sleep kernels, expected 4"):
            bench_torch.kernel_durations(self.write(events), 2)
        with self.assertRaisesRegex(RuntimeError, "call 0 ran no kernel"):
            bench_torch.kernel_durations(self.write([kernel(SPIN, 0, 1000), kernel(SPIN, 1004, 1)]), 1)


class WorkloadRow(unittest.TestCase):
    """The rows rope2d bench --torch reads through verify/schema/bench-torch.schema.json."""
    EVENTS = {"eager": [0.02, 0.021, 0.022], "compile": [0.012, 0.011, 0.013], "rope2d": [0.010, 0.0105, 0.0101],
              "rope2d_v2p": [0.011, 0.0112, 0.0111]}

    def document(self, kernels):
        rows = [bench_torch.workload_row("2x773", list(self.EVENTS), self.EVENTS, kernels, "a clock")]
        return json.loads(json.dumps({"device": "d", "torch": "2.5.1", "workloads": rows}, allow_nan=False))

    def test_times_and_sign_tests_of_each_kernel(self):
        row = self.document(self.EVENTS)["workloads"][0]
        self.assertEqual(row["compile"], {"event_ms": 0.012, "kernel_ms": 0.012})
        self.assertEqual(row["paired_kernel"]["wins"], 3)
        self.assertIn("paired_events_v2p", row)
        self.assertIn("paired_kernel_v2p", row)

    def test_no_kernel_clock_is_null_not_nan(self):
        row = self.document(None)["workloads"][0]  # json.dumps(allow_nan=False) raised on a NaN
        self.assertIsNone(row["eager"]["kernel_ms"])
        self.assertNotIn("paired_kernel", row)
        self.assertIn("paired_events", row)

    def test_rows_pass_the_schema(self):
        try:
            import jsonschema
        except ImportError:
            self.skipTest("python3 has no jsonschema (Debian: python3-jsonschema)")
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "schema", "bench-torch.schema.json")) as f:
            schema = json.load(f)
        for kernels in (self.EVENTS, None):
            self.assertEqual([e.message for e in jsonschema.Draft7Validator(schema).iter_errors(self.document(kernels))], [])


class Configs(unittest.TestCase):
    def test_parse(self):
        self.assertEqual(bench_torch.parse_configs("v2p=2/256/2,v4s=4/128/0"),
                         {"rope2d_v2p": (2, 256, 2), "rope2d_v4s": (4, 128, 0)})
        self.assertEqual(bench_torch.parse_configs(None), {})


if __name__ == "__main__":
    unittest.main()
