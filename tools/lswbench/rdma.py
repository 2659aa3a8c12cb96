# SPDX-License-Identifier: BSD-3-Clause
"""§5 RDMA transport: throughput by message size and QP count (5.1), latency idle and
loaded (5.2), burst absorption under incast (5.3), on lsw-lab's fabrics with lsw-host's
emulated NICs as the traffic generator."""
from lswlab import common
from lswlab.run import Lab

from . import kpi
from .base import fabric, human, size_bytes, stretch, switch_configs

HDR = 58 + 4  # Ethernet, tag, IPv4, UDP, BTH, RETH, ICRC (topo.Fabric.frame)


def drops_now(lab):
    return sum(common.total(common.drops(sw)) for sw in lab.switches.values())


def trial(lab, cfg, name, sample=None, interval=0.01):
    """lsw-host on @cfg through @lab: its results, samples, and the DUT's drops meanwhile."""
    before = drops_now(lab)
    res, rows = lab.hosts(cfg, name=name, sample=sample, interval=interval)
    return res, rows, drops_now(lab) - before


def retransmits(res):
    return sum(q["retransmitted_packets"] for q in res["qps"])


def pairs(fab, n):
    """(sender, receiver) of @n pairs, senders from the second half of the hosts: on a
    leaf-spine the halves are the two leaves, so every pair crosses a spine."""
    half = len(fab.hosts) // 2
    return [(fab.hosts[half + i], fab.hosts[i]) for i in range(n)]


def t5_1(ctx):
    """Throughput: N pairs x Q QPs of RDMA WRITE of each size; RFC 2544's binary search on
    the offered load (the senders' pacing rate) for the highest rate without loss."""
    p = ctx.p
    speed = p["speed"]
    fab = fabric(ctx, "b51", 2 * p["pairs"], speed, speed * 2)
    trial_s = p["trial_ms"] / 1000
    ctx.scaling("links %d Mb/s for 100GbE (time x%.0f); trials of %d ms for the draft's 60 s; "
                "binary search of at most %d steps (draft: 10 halvings to 0.1 %%)" % (
                    speed, stretch(speed), p["trial_ms"], p["search_steps"]))
    ctx.config("PFC", "priority 3 lossless (SONiC AZURE)")
    rows = []
    with Lab(fab, switch_configs(ctx, fab)) as lab:
        ctx.dut_info(lab)
        for size_s in p["sizes"]:
            size = size_bytes(size_s)
            for q in p["qps"]:
                lo, hi, rate, best = 0.0, 1.0, 1.0, None
                for step in range(p["search_steps"]):
                    per_qp = max(1, min(p["max_messages_per_qp"],
                                        int(speed * 1e6 / 8 * trial_s * rate / q / size)))
                    wl = []
                    for s, d in pairs(fab, p["pairs"]):
                        for dirn in ((s, d), (d, s)) if p["bidirectional"] else ((s, d),):
                            wl += [{"type": "flow", "src": dirn[0], "dst": dirn[1],
                                    "size": size, "count": per_qp} for _ in range(q)]
                    cfg = fab.host_config({"cc": p["cc"]}, wl)
                    for h in {w["src"] for w in wl}:
                        cfg["hosts"][h]["speed"] = "%dM" % max(1, int(speed * rate))
                    res, _, drops = trial(lab, cfg, "b51")
                    ctx.host_info(res, cfg)
                    lost = drops + retransmits(res)
                    good = sum(res["hosts"][h]["goodput_bps"] for h in {w["dst"] for w in wl})
                    if lost == 0:
                        best = (rate, good, res)
                        lo = rate
                        if rate >= 1.0:
                            break
                    else:
                        hi = rate
                    if hi - lo <= 0.001:
                        break
                    rate = (lo + hi) / 2
                if best is None:
                    ctx.anomaly("5.1 %s Q=%d: loss at every offered load tried" % (size_s, q))
                    rows.append([size_s, q, None, None, None, None, step + 1])
                    continue
                rate, good, res = best
                links = p["pairs"] * (2 if p["bidirectional"] else 1)
                wf = sum(common.wire_factor(res).values()) / len(res["qps"])
                eff = good / (links * speed * 1e6)
                ctx.kpi("throughput", round(good / 1e9, 4), "Gb/s (RoCE payload)",
                        kpi.TESTER, size=size_s, qps=q)
                ctx.kpi("port utilization", round(100 * eff * wf, 2), "%", kpi.TESTER,
                        size=size_s, qps=q)
                ctx.kpi("efficiency", round(100 * eff, 2), "% (payload / line)", kpi.TESTER,
                        size=size_s, qps=q)
                ctx.repetition("efficiency %s Q=%d" % (size_s, q), eff)
                rows.append([size_s, q, round(100 * rate, 2), round(good / 1e9, 4),
                             round(100 * eff * wf, 2), round(100 * eff, 2), step + 1])
    ctx.table("throughput", "5.1 Throughput by message size and QPs (tester)",
              ["size", "QPs per pair", "offered load %", "throughput Gb/s", "port %",
               "efficiency %", "search steps"], rows,
              "RFC 2544 throughput: the highest offered load (the senders' pacing rate, % of "
              "the line) at which neither the DUT drops nor the tester retransmits; its "
              "RoCE payload rate at the receivers, the wire rate as % of the port, and "
              "payload over line rate.")
    series = {}
    for r in rows:
        if r[3] is not None:
            xs, ys = series.setdefault("Q=%d" % r[1], ([], []))
            xs.append(size_bytes(r[0]))
            ys.append(r[5])
    ctx.figure("lines", "eff", "5.1 Efficiency by message size", "message size (bytes)",
               "payload / line rate (%)", series,
               "Each QP count's efficiency against the message size: per-message costs of "
               "the emulated NIC dominate small messages.", log="x")


def t5_2(ctx):
    """Latency: one QP of one-packet messages, idle and with the receiver's link full;
    FCT of a one-packet WRITE is a round trip (request and ACK) on the tester's clock."""
    p = ctx.p
    speed = p["speed"]
    fab = fabric(ctx, "b52", 3, speed, speed * 2)
    size = size_bytes(p["size"])
    gap = p["gap_us"]
    dur_us = gap * p["samples"]
    ctx.scaling("%d samples x %d runs (draft: >= 10,000 x 20, pooled); %d Mb/s links "
                "(time x%.0f); a probe every %d us" % (p["samples"], p["runs"], speed,
                                                      stretch(speed), gap))
    ctx.scaling("one-way latency needs synchronized clocks the drafts do not give a software "
                "TG: the round trip (WRITE to its ACK) is reported, not halved")
    if p["poll"]:
        ctx.scaling("the switch's worker and the hosts' lcore poll without sleeping (a "
                    "sleeping poll loop adds up to its sleep, 100 us, to an idle packet)")
    frag = {"LSW": {"global": {"idle_sleep_us": 0}}} if p["poll"] else {}
    pooled = {"idle": [], "loaded": []}
    with Lab(fab, switch_configs(ctx, fab, frag)) as lab:
        ctx.dut_info(lab)
        for load in ("idle", "loaded"):
            for run in range(p["runs"]):
                # The probe from the last host (on a leaf-spine, across a spine).
                wl = [{"type": "flow", "src": fab.hosts[-1], "dst": "h0", "size": size,
                       "count": p["samples"], "gap_us": gap}]
                if load == "loaded":
                    bg = int(speed * 1e6 / 8 * (dur_us + 20000) / 1e6)
                    wl.append({"type": "flow", "src": fab.hosts[-2], "dst": "h0",
                               "size": bg})
                cfg = fab.host_config({"cc": p["cc"]}, wl, {
                    "seed": run + 1, "idle_sleep_us": 0 if p["poll"] else 100})
                res, _, drops = trial(lab, cfg, "b52")
                ctx.host_info(res, cfg)
                cols = res["messages"]["columns"]
                iq, ifct = cols.index("qpn"), cols.index("fct_us")
                probe = res["qps"][0]["qpn"]
                xs = [r[ifct] for r in res["messages"]["rows"] if r[iq] == probe]
                # The first probes run while the background flow starts: warm-up, discarded.
                xs = xs[len(xs) // 10:]
                if xs:
                    ctx.repetition("P50 RTT %s" % load, kpi.percentile(xs, 50))
                pooled[load] += xs
                if drops:
                    ctx.anomaly("5.2 %s run %d: %d DUT drops" % (load, run, drops))
    rows = []
    for load, xs in pooled.items():
        if not xs:
            ctx.anomaly("5.2 %s: no samples" % load)
            continue
        s = kpi.summary(xs)
        for k in ("min", "mean", "p50", "p95", "p99", "p99.9", "max"):
            ctx.kpi("RTT " + k, round(s[k], 2), "us", kpi.TESTER, load=load, size=p["size"])
        rows.append([load, s["samples"]] + [round(s[k], 2) for k in
                                            ("min", "mean", "p50", "p95", "p99", "p99.9",
                                             "max")])
    if len(rows) == 2:
        for k, i in (("p50", 4), ("p99", 6)):
            ctx.kpi("loaded/idle factor " + k, round(rows[1][i] / rows[0][i], 2), "",
                    kpi.TESTER)
    ctx.table("latency", "5.2 Round-trip latency, %s messages, 1 QP (tester)" % p["size"],
              ["load", "samples", "min us", "mean us", "P50 us", "P95 us", "P99 us",
               "P99.9 us", "max us"], rows,
              "Pooled over the runs, the first tenth of each run discarded as warm-up. "
              "Loaded: a second sender fills the receiver's link, so probes queue behind it "
              "(and PFC pauses both).")
    ctx.figure("cdf", "cdf", "5.2 Round-trip latency CDF", "RTT (us)",
               {k: v for k, v in pooled.items() if v},
               "Idle: the emulator's and the switch's per-packet service; loaded: queueing "
               "behind a line-rate flow to the same port.")


def t5_3(ctx):
    """Bursts: N senders each send a burst of L frames at line rate (minimum gap) at the
    same time into one port, lossy class; L grows along a ladder; the capacity is the
    largest N x L no trial of which lost a frame. One lsw-host run holds every trial, each
    burst on QPs of its own, so a trial's loss is its QPs' retransmissions."""
    p = ctx.p
    speed, mtu = p["speed"], p["mtu"]
    ratios = p["ratios"]
    fab = fabric(ctx, "b53", max(ratios) + 1, speed)
    pool = size_bytes(p["egress_pool"])
    frame = mtu + HDR
    ladder = []
    total = pool // 8
    while total <= 2 * pool:
        ladder.append(total)
        total = int(total * 1.41421356)
    ctx.scaling("%d Mb/s links; %d trials per length (draft: >= 50); incast %s (draft: "
                "2:1 to 32:1); burst totals %s..%s against a %s lossy egress pool" % (
                    speed, p["trials"], ", ".join("%d:1" % r for r in ratios),
                    human(ladder[0]), human(ladder[-1]), human(pool)))
    ctx.config("egress pool (lossy class)", human(pool))
    frag = {"BUFFER_POOL": {"egress_lossless_pool": {"size": human(pool)}},
            "BUFFER_PROFILE": {"egress_lossy_profile": {"static_th": human(pool)}}}
    wl, bursts, t = [], [], 0
    for n in ratios:
        for tot in ladder:
            frames = max(1, tot // n // frame)
            for k in range(p["trials"]):
                first = len(wl)
                wl += [{"type": "flow", "src": "h%d" % (i + 1), "dst": "h0",
                        "size": frames * mtu, "start_us": t} for i in range(n)]
                bursts.append((n, frames, range(first, len(wl))))
                # The queue drains and any go-back-N ends before the next burst.
                t += int(n * frames * frame * 8 / speed) + p["pause_between_us"]
    cfg = fab.host_config({"cc": {"algorithm": "none"}, "rto_us": p["rto_us"]}, wl)
    with Lab(fab, switch_configs(ctx, fab, frag, lossless=False)) as lab:
        ctx.dut_info(lab)
        res, _, drops = trial(lab, cfg, "b53")
        ctx.host_info(res, cfg)
    qps = res["qps"]
    lossy = {}
    for n, frames, idx in bursts:
        lost = sum(qps[i]["retransmitted_packets"] for i in idx)
        lossy.setdefault((n, frames), []).append(lost)
    rows, series = [], {}
    for n in ratios:
        cap = None
        for tot in ladder:
            frames = max(1, tot // n // frame)
            lost = lossy[(n, frames)]
            if any(lost):
                break
            cap = frames
        fr = cap * n if cap else 0
        ctx.kpi("burst capacity", fr, "frames", kpi.TESTER, ratio="%d:1" % n,
                frame_bytes=frame)
        ctx.kpi("burst capacity", fr * frame, "bytes", kpi.TESTER, ratio="%d:1" % n)
        rows.append(["%d:1" % n, cap or 0, fr, fr * frame,
                     sum(1 for (m, _), v in lossy.items() if m == n for x in v if x)])
        xs, ys = series.setdefault("%d:1" % n, ([], []))
        for tot in ladder:
            frames = max(1, tot // n // frame)
            xs.append(frames * n * frame / 1024)
            ys.append(sum(1 for x in lossy[(n, frames)] if x) / p["trials"])
    ctx.kpi("DUT drops, all bursts", drops, "packets", kpi.DUT)
    ctx.table("bursts", "5.3 Burst absorption under incast (lossy class)",
              ["incast", "frames per sender", "capacity frames", "capacity bytes",
               "lossy trials"], rows,
              "The largest burst (all senders together) of %d-byte frames at line rate that "
              "no trial lost a frame of, read from the tester's retransmissions per burst; "
              "the ladder grows by sqrt(2)." % frame)
    ctx.figure("lines", "loss", "5.3 Trials with loss by burst size", "burst (KB, all senders)",
               "fraction of trials with loss", series,
               "Each incast ratio's share of lossy trials against the total burst: the step "
               "sits near the egress pool, the buffer that absorbs it.")
