# SPDX-License-Identifier: BSD-3-Clause
"""§7 congestion: ECN marking against queue depth (7.1), PFC under incast per hop (7.2),
DCQCN convergence to fair share (7.3), a PFC storm against the watchdog (7.4).

Switch-side figures come from lsw's timeline recorder (DUT-reported): every PFC frame with
its quanta (so that pause events count non-zero quanta only, kpi.CHOICES) and each
queue's depth, packets sent and packets marked per interval."""
import json
import os

import lswtimeline
from lswlab import common, storm
from lswlab.run import Lab
from lswlab.topo import Fabric, merge

from . import kpi
from .base import (LABS, ecn_fragment, fabric, human, size_bytes, speed_mbps, stretch,
                   switch_configs)
from .rdma import retransmits, trial


def window(res, linger_ms=100):
    """The run's span in Unix ns: the workload's start to its end and the linger."""
    t0 = res["start_unix_ns"]
    return t0, t0 + int(res["elapsed_us"] * 1000) + linger_ms * 1000000


# --- 7.1 ECN ------------------------------------------------------------------------------

def curve(q, kmin, kmax, pmax):
    """lsw's configured marking probability at depth @q (include/lsw/ecn.h, lsw_ecn_hit)."""
    if q <= kmin:
        return 0.0
    if q > kmax:
        return 1.0
    return pmax / 100.0 * (q - kmin) / (kmax - kmin)


def t7_1(ctx):
    """Two senders at line rate into one port (lossy, a buffer larger than the deepest
    threshold, so the queue sweeps past kmax and back); for each threshold T the profile
    is kmin = T, kmax = kmax_factor x T; P(mark) per depth bin from the timeline's queue
    records (marked / sent in intervals whose depth falls in the bin)."""
    p = ctx.p
    speed, mtu = p["speed"], p["mtu"]
    ths = [size_bytes(t) for t in p["thresholds"]]
    deepest = int(max(ths) * p["overshoot"]) + (1 << 20)
    pool = human(max(8 << 20, 2 * deepest))
    fab = fabric(ctx, "b71", 3, speed)
    frag = {"LSW": {"buffer": {"size": pool}},
            "BUFFER_POOL": {"egress_lossless_pool": {"size": pool},
                            "ingress_lossless_pool": {"size": pool}},
            "BUFFER_PROFILE": {"egress_lossy_profile": {"static_th": pool}}}
    frag.update(ecn_fragment(ths[0], ths[0] * p["kmax_factor"], p["pmax"], ["Ethernet0|3"]))
    ctx.scaling("thresholds as the draft's (%s), unscaled: a software buffer of %s holds "
                "them; %d Mb/s links; depth sampled every %d us" % (
                    ", ".join(p["thresholds"]), pool, speed, p["interval_us"]))
    ctx.config("WRED/ECN", "kmin = T, kmax = %g T, pmax %g %% on Ethernet0|3 (receiver)" % (
        p["kmax_factor"], p["pmax"]))
    cfgs = switch_configs(ctx, fab, frag, lossless=False)
    tl = {"leaf": {"ports": ["Ethernet0"], "interval_us": p["interval_us"],
                   "record": ["queues"]}}
    runs = []
    with Lab(fab, cfgs, tl) as lab:
        ctx.dut_info(lab)
        sw = lab.switches["leaf"]
        for th in ths:
            kmax = th * p["kmax_factor"]
            sw.rpc("config.set", {"config": ecn_fragment(th, kmax, p["pmax"],
                                                         ["Ethernet0|3"])})
            # Rounds of the sweep, each after the queue drained, until the ramp's bins hold
            # enough packets (a 100 KB threshold's sweep is only 60 frames a sender).
            size = int(th * p["overshoot"])
            rounds = max(1, -(-p["packets"] * fab.frame() // (2 * size)))
            drain_us = int(2 * size * 8 / speed) + 2000
            wl = [{"type": "flow", "src": h, "dst": "h0", "size": size, "count": rounds,
                   "gap_us": 2 * drain_us} for h in ("h1", "h2")]
            cfg = fab.host_config({"cc": {"algorithm": "none"}}, wl)
            res, _, drops = trial(lab, cfg, "b71")
            ctx.host_info(res, cfg)
            if drops:
                ctx.anomaly("7.1 T=%s: %d drops" % (human(th), drops))
            runs.append((th, kmax, res))
        files = lab.timelines()
    t = lswtimeline.read(files["leaf"])
    port = t.ports.index("Ethernet0")
    recs = [(r[0], t.values(r)) for r in t.of_kind("queue") if r[2] == port and r[3] == 3]
    rows, series = [], {}
    for th, kmax, res in runs:
        a, b = window(res)
        bins = {}
        width = th / 8
        marked = sent = moved = 0
        prev = (0, 0)
        step = p["interval_us"] * 1000
        for ts, v in recs:
            if a <= ts <= b and v["tx_pkts"]:
                marked += v["ecn_marked"]
                sent += v["tx_pkts"]
                # Marks are decided at each dequeue, the depth is sampled at the interval's
                # end: an interval is binned by its mean depth only where the depth moved
                # less than a bin and no interval was skipped (a late worker catches up
                # its line time in one burst, hundreds of KB, lsw's shaper_catchup_us).
                if ts - prev[0] > 1.5 * step or abs(v["bytes"] - prev[1]) > width:
                    moved += v["tx_pkts"]
                else:
                    k = int((v["bytes"] + prev[1]) / 2 // width)
                    m, n = bins.get(k, (0, 0))
                    bins[k] = (m + v["ecn_marked"], n + v["tx_pkts"])
            prev = (ts, v["bytes"])
        name = "T=%s" % human(th)
        ctx.kpi("packets left out of the curve (depth moved a bin or more)", moved,
                "packets", kpi.DUT, threshold=human(th), of=sent)
        ctx.kpi("ECN marking ratio", round(kpi.ecn_marking_ratio(marked, sent), 3), "%",
                kpi.DUT, threshold=human(th), port="leaf:Ethernet0", queue=3,
                direction="egress")
        rx = res["hosts"]["h0"]
        ctx.kpi("ECN marking ratio", round(kpi.ecn_marking_ratio(
            rx["counters"]["np_ecn_marked_roce_packets"], rx["port_counters"]["rx_packets"]),
            3), "%", kpi.TESTER, threshold=human(th), host="h0")
        devs, onset = [], None
        xs, ys, ms = [], [], []
        for k in sorted(bins):
            m, s = bins[k]
            if s < p.get("min_packets", 10):
                continue
            mid = (k + 0.5) * width
            meas, conf = m / s, curve(mid, th, kmax, p["pmax"])
            devs.append(abs(meas - conf))
            if onset is None and m:
                onset = k * width
            xs.append(mid / th)
            ys.append(meas)
            ms.append(conf)
            rows.append([name, round(mid / 1024, 1), s, m, round(100 * meas, 2),
                         round(100 * conf, 2)])
        series[name] = (xs, ys)
        series["model " + name] = (xs, ms)
        dev = max(devs) if devs else None
        ctx.kpi("deviation from configured curve, max", None if dev is None else
                round(100 * dev, 2), "percentage points", kpi.DUT, threshold=human(th))
        ctx.kpi("first marked depth", None if onset is None else round(onset / 1024, 1),
                "KB", kpi.DUT, threshold=human(th), configured_kmin_kb=th / 1024)
        peak = max((v["bytes"] for ts, v in recs if a <= ts <= b), default=0)
        ctx.kpi("queue depth max", round(peak / 1024, 1), "KB", kpi.DUT, threshold=human(th))
        if peak <= kmax:
            ctx.anomaly("7.1 %s: the queue peaked at %s, under kmax %s: the ramp's top is not "
                        "measured" % (name, human(int(peak)), human(kmax)))
        ctx.check("7.1 %s: marks only above kmin (one bin of slack)" % name,
                  ">= %.0f KB" % ((th - width) / 1024),
                  None if onset is None else "%.0f KB" % (onset / 1024),
                  onset is not None and onset >= th - width)
    ctx.table("ecn", "7.1 P(mark) by queue depth against the configured curve (DUT)",
              ["threshold", "depth KB (bin centre)", "packets sent", "marked", "measured %",
               "configured %"], rows,
              "lsw's timeline: per interval the queue's depth, the packets it sent and marked; "
              "bins of T/8 with at least 10 packets.")
    ctx.figure("lines", "curve", "7.1 ECN marking probability against queue depth",
               "queue depth / T", "P(mark)", series,
               "Measured (solid) against the configured WRED/ECN curve (dashed): none below "
               "kmin = T, a ramp to pmax at kmax, all above.", model_dashed=True)


# --- 7.2 PFC incast -----------------------------------------------------------------------

def incast_fabric(ctx, n, speed, up):
    """Senders on leaf1, the receiver on leaf0, one spine between: a pause climbs three
    hops (leaf0 -> spine0 -> leaf1 -> senders). Uplinks @up fast, so that the receiver's
    port, not an uplink, is the bottleneck."""
    if ctx.p.get("fabric") == "star":
        return fabric(ctx, "b72", n + 1, speed)
    fab = Fabric("b72", ctx.rundir, speed, ctx.p["mtu"])
    for s in ("leaf0", "leaf1", "spine0"):
        fab.switch(s)
    fab.link("leaf0", "spine0", up)
    fab.link("leaf1", "spine0", up)
    fab.host("h0", "leaf0")
    for i in range(n):
        fab.host("h%d" % (i + 1), "leaf1")
    ctx.fabric_info(fab)
    return fab


def hops(fab):
    """{(switch, port): (hop, peer)}: hop 1 the receiver's leaf, 2 the spine, 3 the
    senders' leaf; the peer is the node the port pauses."""
    order = {"leaf": 1, "leaf0": 1, "spine0": 2, "leaf1": 3}
    out = {}
    for ln in fab.links:
        for side, other in (("a", "b"), ("b", "a")):
            if side + "_port" in ln:
                out[(ln[side], ln[side + "_port"])] = (order[ln[side]], ln[other])
    return out


def pfc_counters(lab):
    out = {}
    for name, sw in lab.switches.items():
        for port, s in sw.rpc("pfc.stats")["ports"].items():
            pr = s["priorities"].get("3")
            if pr:
                out[(name, port)] = (pr["PFC_3_TX_PKTS"], pr["PFC_3_TX_PAUSE_DURATION_US"])
    return out


def pfc_frames(tls, a, b, prio=3):
    """{(switch, port): [(t_s, quanta)]}: the PFC frames of @prio each switch sent in
    [@a, @b] (Unix ns), from the timelines @tls ({switch: lswtimeline})."""
    frames = {}
    for s, t in tls.items():
        for r in t.of_kind("pfc_tx"):
            if a <= r[0] <= b and r[3] == prio:
                frames.setdefault((s, t.port_name(r[2])), []).append(
                    (r[0] / 1e9, t.values(r)["quanta"]))
    return frames


def t7_2(ctx):
    p = ctx.p
    speed, ns = p["speed"], p["n"]
    up = min(10000, speed * p["uplink_factor"])
    fab = incast_fabric(ctx, max(ns), speed, up)
    ctx.scaling("%d Mb/s host links, %d Mb/s uplinks (time x%.0f); incast %s (draft: N = 2 "
                "to 64); %s per sender at 100 %% rate instead of a 300 s stream" % (
                    speed, up, stretch(speed), ", ".join(map(str, ns)), p["size"]))
    ctx.config("PFC", "priority 3 lossless on every port" if p["pfc"] else
               "OFF (a broken expectation: the lossless class is lossy)")
    ctx.config("storm onset", "the first PAUSE (non-zero quanta) any switch sends after the "
               "incast starts, ms from its start (the drafts leave it undefined)")
    # Events only (every PFC frame, on every port); timeline.start wants a port to sample.
    tl = {s: {"ports": ["Ethernet0"], "interval_us": 1000, "record": ["events"]}
          for s in fab.switches}
    runs = []
    # ECN on the receiver's queue only (the congested one), for --compare cc.algorithm=...
    e = p["ecn"]
    home, port = fab.port_of("h0")
    cfgs = switch_configs(ctx, fab, lossless=p["pfc"])
    cfgs[home] = merge(cfgs[home], ecn_fragment(e["kmin"], e["kmax"], e["pmax"],
                                                ["%s|3" % port]))
    ctx.config("WRED/ECN", "kmin %s, kmax %s, pmax %s %% on %s:%s queue 3" % (
        e["kmin"], e["kmax"], e["pmax"], home, port))
    ctx.config("congestion control", p["cc"])
    with Lab(fab, cfgs, tl) as lab:
        ctx.dut_info(lab)
        qc = lab.switches[home].rpc("qos.port", {"port": port})
        ctx.config("PFC headroom (leaf0 receiver port, PG 3)", qc["pgs"]["3"])
        for n in ns:
            wl = [{"type": "incast", "senders": ["h%d" % (i + 1) for i in range(n)],
                   "receiver": "h0", "size": p["size"]}]
            cfg = fab.host_config({"cc": p["cc"], "rto_us": 100000}, wl)
            before = pfc_counters(lab)
            res, _, drops = trial(lab, cfg, "b72")
            after = pfc_counters(lab)
            ctx.host_info(res, cfg)
            runs.append((n, res, drops, {k: (after[k][0] - before[k][0],
                                             after[k][1] - before[k][1]) for k in after}))
        files = lab.timelines()
    tls = {s: lswtimeline.read(f) for s, f in files.items()}
    hop = hops(fab)
    speeds = {}
    for ln in fab.links:
        for side in ("a", "b"):
            if side + "_port" in ln:
                speeds[(ln[side], ln[side + "_port"])] = ln["speed"] * 1e6
    rows, bars = [], {}
    for n, res, drops, ctr in runs:
        a, b = window(res)
        dur = (b - a) / 1e9
        frames = pfc_frames(tls, a, b)
        first = min((f[0][0] for f in frames.values() if any(q for _, q in f)), default=None)
        for key in sorted(hop, key=lambda k: (hop[k][0], k)):
            fr = frames.get(key, [])
            ev = kpi.pause_events(q for _, q in fr)
            if not ev and not ctr.get(key, (0, 0))[0]:
                continue
            paused = kpi.paused_time_us(fr, speeds[key], b / 1e9)
            h, peer = hop[key]
            lbl = {"n": n, "hop": h, "port": "%s:%s" % key, "pauses": peer, "priority": 3,
                   "direction": "tx"}
            ctx.kpi("PFC pause events", ev, "events", kpi.DUT, **lbl)
            ctx.kpi("PFC pause rate", round(kpi.pause_rate(ev, dur), 1), "events/s",
                    kpi.DUT, **lbl)
            ctx.kpi("PFC paused time", round(paused), "us", kpi.DUT, **lbl)
            rows.append([n, h, "%s:%s" % key, peer, ev, round(kpi.pause_rate(ev, dur), 1),
                         round(paused), ctr.get(key, (None,))[0], ctr.get(key, (0, None))[1]])
            bars.setdefault("N=%d" % n, {})
            g = bars["N=%d" % n]
            g["hop %d" % h] = g.get("hop %d" % h, 0) + ev
        sp = [res["hosts"]["h%d" % (i + 1)]["port_counters"] for i in range(n)]
        ctx.kpi("PAUSE frames received by the senders", sum(c["rx_prio3_pause"] for c in sp),
                "frames (incl. XON)", kpi.TESTER, n=n)
        ctx.kpi("senders' paused time", sum(c["rx_prio3_pause_duration"] for c in sp), "us",
                kpi.TESTER, n=n)
        good = res["hosts"]["h0"]["goodput_bps"] / (speed * 1e6)
        ctx.kpi("receiver goodput", round(100 * good, 2), "% of line", kpi.TESTER, n=n)
        ctx.kpi("DUT drops", drops, "packets", kpi.DUT, n=n)
        ctx.kpi("retransmitted packets", retransmits(res), "packets", kpi.TESTER, n=n)
        ctx.kpi("storm onset", None if first is None else round((first - a / 1e9) * 1000, 2),
                "ms", kpi.DUT, n=n)
        ctx.repetition("receiver goodput N=%d" % n, good)
        ctx.check("7.2 N=%d: zero packet loss (no DUT drop)" % n, 0, drops, drops == 0)
        ctx.check("7.2 N=%d: every message completes" % n, res["messages_posted"],
                  res["messages_done"], res["messages_done"] == res["messages_posted"])
    ctx.table("pauses", "7.2 PAUSE events per hop (DUT, priority 3, sent)",
              ["N", "hop", "switch:port", "pauses", "events (quanta > 0)", "events/s",
               "paused us", "PFC_3_TX_PKTS (incl. XON)", "PFC_3_TX_PAUSE_DURATION_US"], rows,
              "Hop 1 is the receiver's leaf pausing the spine, 2 the spine pausing the "
              "senders' leaf, 3 that leaf pausing the senders. Events and paused time from "
              "lsw's timeline (every PFC frame with its quanta); the counters beside them for "
              "comparison (they count XON frames too).")
    ctx.figure("bars", "hops", "7.2 PAUSE events per hop", bars,
               "Pauses climb from the congested port hop by hop towards the senders.",
               "events (non-zero quanta)")


# --- 7.3 DCQCN convergence ------------------------------------------------------------------

def t7_3(ctx):
    """M flows from t = 0, M more at T0; the time from T0 until every one of the 2M flows
    is within the tolerance of the fair share (the receiver link's payload rate / 2M) in
    every later window."""
    p = ctx.p
    speed, mtu = p["speed"], p["mtu"]
    model = speed_mbps(p["cc"].get("model_speed", speed))
    ctx.scaling("%d Mb/s links; DCQCN's %s profile as at %s Mb/s, its times stretched x%.0f; "
                "M = %s (draft: 4 to 256) from %d senders; T0 at %d ms, %d ms after it" % (
                    speed, p["cc"].get("profile"), model, model / speed,
                    ", ".join(map(str, p["m"])), p["senders"], p["t0_us"] / 1000,
                    p["after_us"] / 1000))
    e = p["ecn"]
    ctx.config("WRED/ECN", "kmin %s, kmax %s, pmax %s %% on the receiver's queue 3" % (
        e["kmin"], e["kmax"], e["pmax"]))
    ctx.config("DCQCN", p["cc"])
    fab = fabric(ctx, "b73", p["senders"] + 1, speed)
    frag = ecn_fragment(e["kmin"], e["kmax"], e["pmax"], ["Ethernet0|3"])
    payload = speed * 1e6 / 8 * mtu / (fab.frame() + common.WIRE_EXTRA)
    rows, series = [], {}
    with Lab(fab, switch_configs(ctx, fab, frag)) as lab:
        ctx.dut_info(lab)
        for m in p["m"]:
            t0, after = p["t0_us"] / 1e6, p["after_us"] / 1e6
            wl = []
            for i in range(2 * m):
                late = i >= m
                size = payload * (after / (2 * m) if late else t0 / m + after / (2 * m))
                wl.append({"type": "flow", "src": "h%d" % (1 + i % p["senders"]),
                           "dst": "h0", "size": int(size), "start_us": p["t0_us"] * late})
            cfg = fab.host_config({"cc": p["cc"]}, wl, {"sample_us": p["sample_us"]})
            res, _, drops = trial(lab, cfg, "b73")
            ctx.host_info(res, cfg)
            sp = common.spans(res)
            qpns = sorted(sp)
            t_end = min(s[1] for s in sp.values())
            fair = payload * 8 / (2 * m)
            ws = common.windows(res, p["t0_us"], t_end, qpns, p["window_us"])
            good = [(a, [r[q] for q in qpns]) for a, r, st in ws if common.clean(st)]
            stalled = len(ws) - len(good)
            i = kpi.fair_share_converged([r for _, r in good], fair, p["tolerance"])
            conv_ms = None if i is None else (good[i][0] - p["t0_us"]) / 1000
            j = kpi.fair_share_converged([r for _, r in good], None, p["tolerance"])
            conv_own = None if j is None else (good[j][0] - p["t0_us"]) / 1000
            util = [sum(r) / (payload * 8) for _, r in good]
            xs = [(a - p["t0_us"]) / 1000 for a, _ in good]
            series["2M=%d" % (2 * m)] = (xs, [100 * max(abs(x - fair) / fair for x in r)
                                              for _, r in good])
            last = good[len(good) // 2:]
            jfi = kpi.jfi([sum(r[k] for _, r in last) for k in range(len(qpns))]) \
                if last else None
            ctx.kpi("DCQCN convergence time", conv_ms, "ms (lab time)", kpi.TESTER, m=m,
                    flows=2 * m, tolerance="%g %%" % (100 * p["tolerance"]))
            ctx.kpi("DCQCN convergence time, to the flows' own mean", conv_own,
                    "ms (lab time)", kpi.TESTER, m=m, flows=2 * m)
            ctx.kpi("payload utilization after T0", round(100 * sum(util) / len(util), 2)
                    if util else None, "% of line", kpi.TESTER, flows=2 * m)
            ctx.kpi("JFI of flow rates, second half", None if jfi is None else round(jfi, 4),
                    "", kpi.TESTER, flows=2 * m)
            ctx.kpi("DUT drops", drops, "packets", kpi.DUT, m=m)
            if conv_ms is not None:
                ctx.repetition("convergence ms 2M=%d" % (2 * m), conv_ms)
            else:
                ctx.anomaly("7.3 M=%d: the %d flows did not stay within %g %% of the fair "
                            "share within the trial" % (m, 2 * m, 100 * p["tolerance"]))
            if stalled:
                ctx.anomaly("7.3 M=%d: %d windows left out (the emulator stalled)" % (
                    m, stalled))
            rows.append([m, 2 * m, round(fair / 1e6, 1), conv_ms, conv_own,
                         round(100 * sum(util) / len(util), 1) if util else None,
                         None if jfi is None else round(jfi, 4), len(good), stalled, drops])
    ctx.table("dcqcn", "7.3 DCQCN convergence after M more flows join (tester)",
              ["M", "flows", "fair share Mb/s", "converged after T0 ms",
               "to own mean ms", "utilization %", "JFI (2nd half)", "windows",
               "stalled windows", "DUT drops"], rows,
              "Rates over %d ms windows of lsw-host's samples, every flow on one grid "
              "(lsw-lab's common.windows); converged from the first window after which every "
              "flow stays within %g %% of the fair share." % (p["window_us"] / 1000,
                                                               100 * p["tolerance"]))
    ctx.figure("lines", "conv", "7.3 The worst flow's distance from its fair share",
               "time after T0 (ms)", "max |rate - fair| / fair (%)", series,
               "After T0 the newcomers' CNPs cut everyone; DCQCN brings all 2M flows to "
               "within the tolerance (line) of the fair share.",
               hlines=[(100 * p["tolerance"], "tolerance")])


# --- 7.4 PFC storm --------------------------------------------------------------------------

def t7_4(ctx):
    """lsw-lab's storm scenario (a NIC keeps priority 3 paused), one watchdog action."""
    p = ctx.p
    with open(os.path.join(LABS, "storm.json")) as f:
        sc = json.load(f)
    sc["storm_ms"] = p["storm_ms"]
    wd = sc["watchdog"]
    ctx.scaling("a storm of %d ms (draft: cyclic traffic for 300 s); SONiC's watchdog "
                "times (detect %d ms, restore %d ms, poll %d ms); 1 Gb/s links" % (
                    p["storm_ms"], wd["detect_ms"], wd["restore_ms"], wd["poll_ms"]))
    ctx.config("PFC watchdog", dict(wd, action=p["action"]))
    ctx.r["fabrics"].append({"name": "storm (lsw-lab)", "switches": ["leaf"],
                             "hosts": ["h%d" % i for i in range(5)], "links": []})
    res, rows, stats, d = storm.one(sc, ctx.rep, p["action"], ctx.rundir, False)
    p_on, p_off = storm.edges(rows, "paused")
    s_on, s_off = storm.edges(rows, "stormed")
    detect = (s_on[0] - p_on[0]) * 1000 if p_on and s_on else None
    restore = (s_off[0] - p_off[-1]) * 1000 if p_off and s_off else None
    lbl = {"port": "leaf:Ethernet0", "queue": 3, "action": p["action"]}
    ctx.kpi("watchdog detection time", None if detect is None else round(detect, 1), "ms",
            kpi.DUT, **lbl)
    ctx.kpi("watchdog restoration time", None if restore is None else round(restore, 1), "ms",
            kpi.DUT, **lbl)
    for k in ("DEADLOCK_DETECTED", "DEADLOCK_RESTORED", "TX_DROPPED_PACKETS"):
        ctx.kpi("PFC_WD_QUEUE_STATS_" + k, stats["PFC_WD_QUEUE_STATS_" + k], "", kpi.DUT, **lbl)
    ctx.kpi("storm PAUSE frames sent", res["hosts"]["h0"]["counters"][
        "tx_pause_storm_frames"], "frames", kpi.TESTER, host="h0")
    slack = sc["expect"]["sampling_slack_ms"]
    ctx.check("7.4 detected within [D, D + poll] (+ sampling)", "%d-%d ms" % (
        wd["detect_ms"] - slack, wd["detect_ms"] + wd["poll_ms"] + slack), detect,
        detect is not None and wd["detect_ms"] - slack <= detect <=
        wd["detect_ms"] + wd["poll_ms"] + slack)
    r = 0 if p["action"] == "alert" else wd["restore_ms"]
    ctx.check("7.4 restored within [R, R + poll] of the pause's end (+ sampling)",
              "%d-%d ms" % (r - slack, r + wd["poll_ms"] + slack), restore,
              restore is not None and r - slack <= restore <= r + wd["poll_ms"] + slack)
    ctx.table("storm", "7.4 PFC storm: the watchdog (DUT, sampled every 10 ms)",
              ["action", "storm ms", "detection ms", "restoration ms", "detected",
               "restored", "dropped"],
              [[p["action"], p["storm_ms"], detect, restore,
                stats["PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED"],
                stats["PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED"],
                stats["PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS"]]],
              "Detection: from the queue's pause starting to the watchdog's storm state; "
              "restoration: from the last pause running out to the queue's restoration. "
              "Other switch drops: %s." % (common.drops_measured(d)))
    ctx.figure("lines", "state", "7.4 Paused and stormed states", "time (ms)", "state",
               {"paused by the peer": ([t * 1000 for t, _ in rows],
                                       [int(x["paused"]) for _, x in rows]),
                "stormed (watchdog)": ([t * 1000 for t, _ in rows],
                                       [0.9 * int(x["stormed"]) for _, x in rows])},
               "The storm pauses the queue; the watchdog declares it stormed after its "
               "detection time and restores it after the pause ends.", steps=True)
