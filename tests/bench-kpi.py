#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""lsw-bench's KPIs (tools/lswbench/kpi.py) on inputs computed by hand, the drafts' worked
example first (bench -04 §9: n = 8, 1 GB in 10 ms is 175 GB/s of bus bandwidth)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from lswbench import kpi  # noqa: E402


class Collectives(unittest.TestCase):
    def test_worked_example(self):
        self.assertAlmostEqual(kpi.algo_factor("allreduce", 8), 1.75)
        self.assertAlmostEqual(kpi.busbw(1e9, 0.010, "allreduce", 8) / kpi.GB, 175.0)

    def test_factor_table(self):
        self.assertAlmostEqual(kpi.algo_factor("AllGather", 4), 0.75)
        self.assertAlmostEqual(kpi.algo_factor("reduce_scatter", 2), 0.5)
        self.assertAlmostEqual(kpi.algo_factor("all-to-all", 16), 15 / 16)
        self.assertAlmostEqual(kpi.algo_factor("allreduce", 2), 1.0)
        with self.assertRaises(ValueError):
            kpi.algo_factor("broadcast", 8)
        with self.assertRaises(ValueError):
            kpi.algo_factor("allreduce", 1)

    def test_efficiency(self):
        # 175 GB/s = 1400 Gb/s over a 1.6 Tb/s of NICs: 87.5 %.
        self.assertAlmostEqual(kpi.busbw_efficiency(175e9 * 8, 1.6e12), 87.5)

    def test_roofline_and_ratio(self):
        # 10 iterations of 50 ms compute + 1 GB AllReduce over 8 at 400 Gb/s:
        # 8 * 1e9 * 1.75 / 400e9 = 35 ms; roofline 10 * 85 ms = 0.85 s.
        r = kpi.roofline_jct(0.050, 1e9, 1.75, 400e9, 10)
        self.assertAlmostEqual(r, 0.85)
        self.assertAlmostEqual(kpi.jct_ratio(0.935, r), 1.1)
        # JCT 0.6 s with C_total 0.5 s and Comm_time 0.35 s: 1 - 0.1/0.35 overlapped.
        self.assertAlmostEqual(kpi.overlap_fraction(0.6, 0.5, 0.35), 1 - 0.1 / 0.35)
        self.assertAlmostEqual(kpi.effective_comm_overhead(0.6, 0.5), 0.1)


class Fairness(unittest.TestCase):
    def test_jfi(self):
        self.assertAlmostEqual(kpi.jfi([5, 5, 5, 5]), 1.0)
        self.assertAlmostEqual(kpi.jfi([1, 0, 0, 0]), 0.25)  # 1/N
        self.assertAlmostEqual(kpi.jfi([1, 2, 3]), 36 / 42)
        self.assertEqual(kpi.jfi([0, 0]), 1.0)

    def test_mmr(self):
        # 8 flows on 4 links as 3, 2, 2, 1: the busiest holds 3 of a mean of 2.
        self.assertAlmostEqual(kpi.mmr([3, 2, 2, 1]), 1.5)
        self.assertAlmostEqual(kpi.mmr([2, 2, 2, 2]), 1.0)


class Congestion(unittest.TestCase):
    def test_ecn_ratio(self):
        self.assertAlmostEqual(kpi.ecn_marking_ratio(25, 200), 12.5)
        self.assertEqual(kpi.ecn_marking_ratio(0, 0), 0.0)

    def test_pause_events_non_zero_quanta_only(self):
        self.assertEqual(kpi.pause_events([65535, 0, 65535, 100, 0, 0]), 3)
        self.assertAlmostEqual(kpi.pause_rate(3, 0.5), 6.0)

    def test_paused_time(self):
        speed = 1e9  # a quantum is 512 ns
        q = 1000  # 512 µs
        # XOFF at 0, XON at 100 µs: 100 µs.
        self.assertAlmostEqual(kpi.paused_time_us([(0, q), (100e-6, 0)], speed, 1), 100)
        # XOFF at 0 running out, then XOFF at 1 ms with nothing after until t_end 1.2 ms.
        self.assertAlmostEqual(kpi.paused_time_us([(0, q), (1e-3, q)], speed, 1.2e-3),
                               512 + 200)
        # A refresh at 300 µs replaces the timer: 0 .. 812 µs.
        self.assertAlmostEqual(kpi.paused_time_us([(0, q), (300e-6, q)], speed, 1), 812)
        # An XON alone pauses nothing.
        self.assertEqual(kpi.paused_time_us([(0, 0)], speed, 1), 0)

    def test_drop_rate(self):
        self.assertAlmostEqual(kpi.drop_rate_ppm(3, 1_000_000), 3.0)

    def test_convergence(self):
        fair = 100.0
        ws = [[150, 50], [120, 80], [105, 95], [95, 108], [111, 90], [100, 100], [92, 109]]
        self.assertEqual(kpi.fair_share_converged(ws, fair), 5)
        self.assertIsNone(kpi.fair_share_converged([[100, 100], [50, 150]], fair))
        # Against each window's own mean: [80, 88] has mean 84, both within 10 %.
        self.assertEqual(kpi.fair_share_converged([[50, 150], [80, 88], [90, 90]], None), 1)


class Statistics(unittest.TestCase):
    def test_percentile_nearest_rank(self):
        xs = list(range(1, 101))
        self.assertEqual(kpi.percentile(xs, 50), 50)
        self.assertEqual(kpi.percentile(xs, 99), 99)
        self.assertEqual(kpi.percentile(xs, 99.9), 100)
        self.assertEqual(kpi.percentile([7], 99), 7)
        s = kpi.summary([4, 1, 3, 2])
        self.assertEqual((s["min"], s["p50"], s["max"], s["mean"]), (1, 2, 4, 2.5))

    def test_cv(self):
        # mean 10, sample sd sqrt(((−2)² + 0 + 2²)/2) = 2.
        self.assertAlmostEqual(kpi.cv([8, 10, 12]), 0.2)
        self.assertEqual(kpi.cv([5]), 0.0)

    def test_slope(self):
        # 2 MB more each hour.
        self.assertAlmostEqual(kpi.slope_per_hour([(0, 10e6), (3600, 12e6), (7200, 14e6)]),
                               2.0)

    def test_observation_points(self):
        v = kpi.kv("busbw", 1.0, "GB/s", kpi.ENDPOINT, collective="allreduce")
        self.assertEqual((v["point"], v["collective"]), ("endpoint", "allreduce"))
        with self.assertRaises(ValueError):
            kpi.kv("x", 1, "", "switch")


if __name__ == "__main__":
    unittest.main()
