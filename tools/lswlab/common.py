# SPDX-License-Identifier: BSD-3-Clause
"""Figures every scenario reads from the switches' and hosts' own counters."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import lswtimeline  # noqa: E402  (tools/lswtimeline.py)


def drops(sw):
    """{port: {reason: count}} of every drop an lsw counted."""
    out = {}
    for port, s in sw.rpc("port.stats")["ports"].items():
        d = {k: v for k, v in s.get("drops", {}).items() if v}
        if d:
            out[port] = d
    return out


def total(d):
    return sum(n for reasons in d.values() for n in reasons.values())


def drops_measured(d):
    """A drop check's measured figure: the count, and where there are drops, their ports
    and reasons, so that a failed run's summary names them (CI keeps only the summary)."""
    n = total(d)
    if n == 0:
        return 0
    return "%d (%s)" % (n, ", ".join("%s %s %d" % (p, r, c) for p, rs in sorted(d.items())
                                     for r, c in sorted(rs.items())))


LOSSLESS_DROPS = ("HEADROOM_OVERFLOW", "INGRESS_PG_THRESHOLD", "EGRESS_QUEUE_THRESHOLD",
                  "MBUF_LIMIT", "WRED_DROP", "TX_RING_FULL", "TX_QUEUE_FULL")


def pfc_sent(sw, prio=3):
    """PFC frames an lsw sent on @prio, over every port."""
    ports = sw.rpc("pfc.stats")["ports"]
    return sum(p["priorities"][str(prio)]["PFC_%d_TX_PKTS" % prio] for p in ports.values()
               if str(prio) in p["priorities"])


WINDOW_US = 100000  # rates, fairness and utilization over 100 ms windows (labs.md's choice)
STALL_MAX = 0.02    # a window in which the emulator stalled longer than 2% is not judged
WIRE_EXTRA = 24     # FCS, preamble and inter-frame gap: a frame's bytes beyond its length


def spans(res):
    """{qpn: (start_us, end_us)}: from each QP's first message post to its last completion,
    in µs of the workload (a flow's whole life; its samples are partial at both ends)."""
    cols = res["messages"]["columns"]
    iq, ip, ifct = cols.index("qpn"), cols.index("post_us"), cols.index("fct_us")
    out = {}
    for row in res["messages"]["rows"]:
        a, b = row[ip], row[ip] + row[ifct]
        s = out.get(row[iq])
        out[row[iq]] = (min(a, s[0]), max(b, s[1])) if s else (a, b)
    return out


def sample_us(res):
    """The interval of the rate samples (µs): the commonest gap between sample times."""
    ts = sorted({r[0] for r in res["samples"]["rows"]})
    gaps = sorted(round(b - a) for a, b in zip(ts, ts[1:]))
    return gaps[len(gaps) // 2] if gaps else 0


def windows(res, t0, t1, qpns, win_us=WINDOW_US):
    """Consecutive windows of @win_us from @t0 (µs) that end by @t1, over which every QP of
    @qpns is measured: [(start_us, {qpn: bits/s}, stall_us)]. A sample at t covers
    (t - interval, t]; a QP's rate is its bytes sent in the window over the window, so that
    every QP is measured over the same span (never each over its own samples). stall_us is
    the time the emulator stalled in the window (lsw-host's stall_us column)."""
    cols = res["samples"]["columns"]
    it, iq, itx = cols.index("t_us"), cols.index("qpn"), cols.index("tx_bps")
    ist = cols.index("stall_us") if "stall_us" in cols else None
    step = sample_us(res)
    out = []
    if step <= 0:
        return out
    # Windows on the sample grid, so that each sample falls in one window whole.
    a = step * -(-t0 // step)
    rows = sorted(res["samples"]["rows"], key=lambda r: r[it])
    while a + win_us <= t1 + step / 2:
        rates = {q: 0.0 for q in qpns}
        stall = {}
        for r in rows:
            if a + step / 2 < r[it] <= a + win_us + step / 2:
                if r[iq] in rates:
                    rates[r[iq]] += r[itx] * step / win_us
                if ist is not None:
                    stall[round(r[it])] = r[ist]
        out.append((a, rates, sum(stall.values())))
        a += win_us
    return out


def clean(stall_us, win_us=WINDOW_US):
    """A window the emulator did not stall in (more than STALL_MAX of it)."""
    return stall_us <= STALL_MAX * win_us


def wire_factor(res):
    """{qpn: wire bytes per payload byte} of each QP's sender, from its own counters: what
    the link carries (frames, FCS, preamble, gap) for the payload its QPs sent."""
    sent = {}
    for q in res["qps"]:
        sent[q["src"]] = sent.get(q["src"], 0) + q["bytes_sent"]
    out = {}
    for q in res["qps"]:
        pc = res["hosts"][q["src"]]["port_counters"]
        wire = pc["tx_bytes"] + WIRE_EXTRA * pc["tx_packets"]
        out[q["qpn"]] = wire / sent[q["src"]] if sent[q["src"]] else 1.0
    return out


def jain(xs):
    xs = list(xs)
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs)) if any(xs) else 0.0


def rates_together(res, win_us=WINDOW_US, skip=0.0):
    """Each QP's mean rate (bits/s) over the clean windows in which every QP sends (from the
    last to start to the first to end): one span for all, one window when the span is
    shorter than two. @skip leaves out that fraction of the span at its start (the time
    the flows take to converge). {} when there is none."""
    sp = spans(res)
    if not sp:
        return {}
    t0, t1 = max(s[0] for s in sp.values()), min(s[1] for s in sp.values())
    t0 += skip * max(0, t1 - t0)
    # A run shorter than a window is one window, on the sample grid.
    step = sample_us(res)
    if step and t1 - t0 < win_us + step:
        win_us = step * int((t1 - t0) // step - 1)
    if win_us <= 0:
        return {}
    ws = [w for w in windows(res, t0, t1, list(sp), win_us) if clean(w[2], win_us)]
    if not ws:
        return {}
    return {q: sum(w[1][q] for w in ws) / len(ws) for q in sp}


def series(res, column):
    """{qpn: (t_ms, values)} of a sample column (rate_bps, tx_bps or alpha)."""
    i = res["samples"]["columns"].index(column)
    out = {}
    for row in res["samples"]["rows"]:
        xs, ys = out.setdefault(row[1], ([], []))
        xs.append(row[0] / 1000)
        ys.append(row[i])
    return out


def queue_sampler(switch, port, queue="3"):
    """A sampler of one queue's occupancy (bytes) on one switch."""
    def fn(clients):
        q = clients[switch].call("queue.stats", {"port": port})["ports"][port][queue]
        return q["CURR_OCCUPANCY_BYTES"]
    return fn


def timeline_queue(path, port, t0_ns, queue=3):
    """[(t_s, bytes)] of one queue's occupancy on a switch's timeline file (@path), seconds
    from the workload's time 0 (@t0_ns, Unix ns): the recorder's samples every interval
    while the queue holds bytes, one zero sample when it empties, none while it stays
    empty, so the series is a step function that is 0 before its first sample. Also the
    records the recorder lost (a gap in the series when not 0)."""
    tl = lswtimeline.read(path)
    p = tl.ports.index(port)
    rows = [((r[0] - t0_ns) / 1e9, tl.values(r)["bytes"]) for r in tl.of_kind("queue")
            if r[2] == p and r[3] == queue]
    lost = sum(tl.values(r)["records"] for r in tl.of_kind("lost"))
    return rows, lost


def step_mean(rows, spans):
    """Time-weighted mean of the step series @rows [(t, v)] over the intervals @spans
    [(a, b)] (same unit as t), and the fraction of that time at 0: (mean, zero), or
    (None, None) when @spans is empty. Each sample holds until the next one."""
    total = area = zero = 0.0
    for a, b in spans:
        v = 0
        t = a
        for tr, vr in rows:
            if tr <= a:
                v = vr
                continue
            if tr >= b:
                break
            area += v * (tr - t)
            zero += (tr - t) if v == 0 else 0
            t, v = tr, vr
        area += v * (b - t)
        zero += (b - t) if v == 0 else 0
        total += b - a
    return (area / total, zero / total) if total else (None, None)


def timeline(ports, interval_us=200, record=("queues", "pgs", "ports", "events")):
    """timeline.start's params for a lab switch: @ports' queues, PGs, counters and the
    events (or what @record names). 200 us at 1 Gb/s is 2 us of a 100G fabric (labs.md:
    time slowed down 100 times); a few ports keep the file to about 10 MB a second."""
    return {"ports": list(ports), "interval_us": interval_us,
            "record": list(record)}
