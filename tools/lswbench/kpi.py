# SPDX-License-Identifier: BSD-3-Clause
"""The KPIs of the IETF BMWG drafts "Benchmarking Methodology for AI Training Network
Fabrics" (draft-calabria-bmwg-ai-fabric-training-bench-04) and its terminology
(draft-calabria-bmwg-ai-fabric-terminology-05), exactly as they define them; pure functions
of numbers, so that unit tests check them by hand (tests/bench-kpi.py).

Where the drafts leave a choice open, the choice is made here once and stated in CHOICES
(every report prints it), so that it is the same in every test.

Every value a test reports is a kv(): its name, value, unit and observation point, one of
POINTS (the drafts: never merge values from different points)."""
import math
import statistics

TESTER = "tester"      # (a) the boundary / traffic generator: lsw-host's emulated NICs
DUT = "DUT-reported"   # (b) the switches' own counters, read through lsw's RPC
ENDPOINT = "endpoint"  # (c) endpoint software: lsw-host's collective engine's clock
POINTS = {TESTER: "lsw-host's counters and timestamps (the Fabric DUT Boundary: NIC port)",
          DUT: "lsw's counters (port, direction, priority or queue named with each value)",
          ENDPOINT: "lsw-host's collective engine (JCT per iteration)"}

GB = 1e9  # the drafts' GB/s are decimal: the worked example (1 GB in 10 ms, 175 GB/s)

ALGO_FACTORS = {
    # term. §3: fixed per collective, whatever algorithm the CCL runs.
    "allreduce": lambda n: 2 * (n - 1) / n,
    "allgather": lambda n: (n - 1) / n,
    "reducescatter": lambda n: (n - 1) / n,
    "alltoall": lambda n: (n - 1) / n,
}

CHOICES = [
    "GB/s and Gb/s are decimal (10^9), as the draft's worked example (n = 8, 1 GB in 10 ms: "
    "175 GB/s) requires.",
    "Pxx is the nearest-rank percentile: the smallest sample that xx % of samples do not "
    "exceed (term. §2).",
    "CV = sample standard deviation (n - 1) / mean over the repetitions of one test point.",
    "ECN marking ratio: CE-marked packets / all packets the queue sent in the interval "
    "(every data packet of the tests is ECT(0), so all and ECT packets are the same).",
    "PFC pause events count PAUSE frames with non-zero quanta only; XON (zero quanta) frames "
    "are not counted and end the paused interval (bench -04 §4.3). lsw's PFC_n_TX_PKTS "
    "counts XON frames too, so the event count comes from lsw's timeline (every PFC frame "
    "with its quanta); the counter is printed beside it.",
    "Paused time: the union of paused intervals per port and priority over the test's "
    "interval; a pause lasts quanta x 512 bit times at the port's speed from its frame, a "
    "later XOFF replaces the timer, an XON ends it.",
    "MMR is by load (bytes per link), JFI over the N parallel links' tx bytes (bench §8.4); "
    "terminology's per-flow JFI is printed where flows are measured.",
    "Zero packet loss (RoCEv2, term. §10): no DUT drop of the lossless class.",
    "DCQCN fair share (§7.3): the bottleneck's payload line rate / number of flows; the "
    "time to within 10 % of each window's own mean rate is printed beside it (it does not "
    "count a link the flows leave partly idle against them).",
    "MB in the memory slope is decimal (10^6 bytes per hour).",
]


def kv(name, value, unit, point, **labels):
    """One reported value with its unit and observation point (POINTS)."""
    if point not in POINTS:
        raise ValueError("unknown observation point %r" % point)
    d = {"kpi": name, "value": value, "unit": unit, "point": point}
    d.update(labels)
    return d


# --- collectives and JCT (term. §3, §8; bench §9, §10.1) ---------------------------------

def algo_factor(collective, n):
    c = collective.lower().replace("_", "").replace("-", "")
    if c not in ALGO_FACTORS:
        raise ValueError("no algo_factor for %r (the drafts define %s)" % (
            collective, ", ".join(ALGO_FACTORS)))
    if n < 2:
        raise ValueError("a collective needs n >= 2 participants, not %r" % n)
    return ALGO_FACTORS[c](n)


def busbw(size_bytes, time_s, collective, n):
    """Bus bandwidth in bytes/s: data_size x algo_factor / time (divide by GB for GB/s)."""
    return size_bytes * algo_factor(collective, n) / time_s


def busbw_efficiency(busbw_bps, line_rate_bps):
    """BusBW / NIC line rate, both in bits/s, as a percentage."""
    return 100.0 * busbw_bps / line_rate_bps


def roofline_jct(compute_s, size_bytes, factor, b_acc_bps, iterations=1):
    """Iterations x (C + 8 S algo_factor / B_acc), B_acc in bits/s (bench §10.1)."""
    return iterations * (compute_s + 8 * size_bytes * factor / b_acc_bps)


def jct_ratio(jct_s, roofline_s):
    return jct_s / roofline_s


def overlap_fraction(jct_s, compute_total_s, comm_time_s):
    """1 - (JCT - C_total) / Comm_time (bench §10.1)."""
    return 1 - (jct_s - compute_total_s) / comm_time_s


def effective_comm_overhead(jct_s, compute_total_s):
    return jct_s - compute_total_s


# --- fairness (bench §8.4, term. §2) ------------------------------------------------------

def jfi(xs):
    """Jain's index (sum x)^2 / (N sum x^2): 1/N .. 1. All zero: 1 (nothing to be unfair)."""
    xs = list(xs)
    if not xs:
        raise ValueError("Jain's index of nothing")
    sq = sum(x * x for x in xs)
    return sum(xs) ** 2 / (len(xs) * sq) if sq else 1.0


def mmr(xs):
    """Max-mean ratio: busiest link over the mean per link; 1.0 is balanced."""
    xs = list(xs)
    mean = sum(xs) / len(xs)
    return max(xs) / mean if mean else 1.0


# --- congestion (bench §7) ----------------------------------------------------------------

def ecn_marking_ratio(ce_marked, packets):
    """CE-marked packets / packets in the interval, %."""
    return 100.0 * ce_marked / packets if packets else 0.0


def pause_events(quanta):
    """PFC pause events: frames with non-zero quanta (XON, zero quanta, is not one)."""
    return sum(1 for q in quanta if q)


def pause_rate(events, interval_s):
    """Events/s."""
    return events / interval_s


def paused_time_us(frames, speed_bps, t_end):
    """Cumulative paused time (µs) of one port and priority from its PFC frames
    [(t_s, quanta)] in time order, up to @t_end (s): see CHOICES."""
    total, since, until = 0.0, None, None
    for t, q in frames:
        if since is not None and t >= until:  # the pause ran out before this frame
            total += until - since
            since = None
        if q == 0:
            if since is not None:
                total += t - since
                since = None
            continue
        if since is None:
            since = t
        until = t + q * 512 / speed_bps
    if since is not None:
        total += min(until, t_end) - since
    return total * 1e6


def drop_rate_ppm(lost, sent):
    return 1e6 * lost / sent if sent else 0.0


def fair_share_converged(rates_by_window, fair, tol=0.10):
    """Index of the first window from which every flow stays within @tol of @fair in every
    later window (bench §7.3), or None. @rates_by_window: [[rate per flow]]; @fair None:
    each window's own mean (the share of what the flows got together)."""
    ok = [all(abs(r - f) <= tol * f for r in w)
          for w, f in ((w, fair if fair is not None else sum(w) / len(w))
                       for w in rates_by_window)]
    for i in range(len(ok)):
        if all(ok[i:]):
            return i
    return None


# --- statistics (term. §2, bench §13) -----------------------------------------------------

def percentile(xs, p):
    """Nearest rank: the smallest sample that @p % of the samples do not exceed."""
    xs = sorted(xs)
    if not xs:
        raise ValueError("percentile of nothing")
    k = max(1, math.ceil(p / 100.0 * len(xs)))
    return xs[k - 1]


def summary(xs):
    """min, mean, P50, P95, P99, P99.9, max (bench §5.2)."""
    return {"min": min(xs), "mean": statistics.mean(xs), "p50": percentile(xs, 50),
            "p95": percentile(xs, 95), "p99": percentile(xs, 99),
            "p99.9": percentile(xs, 99.9), "max": max(xs), "samples": len(xs)}


def cv(xs):
    """Coefficient of variation σ/mean (sample σ); 0 for one repetition."""
    xs = list(xs)
    if len(xs) < 2:
        return 0.0
    m = statistics.mean(xs)
    return statistics.stdev(xs) / m if m else 0.0


def slope_per_hour(samples):
    """Least-squares slope of [(t_s, bytes)] in MB/h (bench §12.2's 1 MB/h)."""
    n = len(samples)
    if n < 2:
        return 0.0
    mt = sum(t for t, _ in samples) / n
    mb = sum(b for _, b in samples) / n
    den = sum((t - mt) ** 2 for t, _ in samples)
    num = sum((t - mt) * (b - mb) for t, b in samples)
    return num / den * 3600 / 1e6 if den else 0.0
