# SPDX-License-Identifier: BSD-3-Clause
"""policies: buffer-sharing policies (dynamic thresholds, ABM, the HPCC simulator) compared
by what users care about.
One switch and 8 hosts: background flows from a flow-size CDF (web search) at a given load
between all hosts, half of them lossless and half lossy, plus periodic incast bursts into one
host (h0); the same seeds for every policy. Per policy and seed: FCT slowdown p50/p99 for
small (< 100 KB), medium and large (> 1 MB) flows, drops (all, and of packets bound for the
bursts' receiver), pauses and pause time, peak and mean buffer occupancy, and its CDF; then
mean and spread over the seeds. The same run with other accounting cells (AI-tuned, 256 B,
4 KB) shows what cell waste costs.

Each policy is a fragment of switch config (BUFFER_POOL.policy and its profiles) applied over
the fabric's own; its threshold behaviour is checked in the switch's own counters:
  - idle, every lossy queue's threshold_bytes (queue.stats) is the policy's formula at Q = 0;
  - the busiest lossy queue's watermark stays under the policy's cap (DT and ABM:
    alpha B / (1 + alpha), the one-queue steady state; static: static_th; partitioned:
    B / N; complete sharing: B);
  - ABM: some sample saw its threshold cut below DT's (n_p > 1 or a drain rate under 1);
  - hpcc_sim: no egress threshold drop ever ("egress admission always passes"), and the
    ingress lossy PG's idle threshold is B' >> 3."""
import statistics

from . import common
from .run import Lab
from .topo import merge, star

BUCKETS = (("small", 0, 100 * 1024), ("medium", 100 * 1024, 1 << 20),
           ("large", 1 << 20, 1 << 62))
LOSSY_Q = "1"      # lsw-host's lossy class: DSCP 0, TC 1 under AZURE
LOSSLESS_Q = "3"
INT64_MAX = (1 << 63) - 1
EGRESS, INGRESS = "egress_lossless_pool", "ingress_lossless_pool"


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))] if xs else float("nan")


def pool(pools, name):
    return next(p for p in pools if p["name"] == name)


def sampler(port):
    """Every sample: the buffer held (the egress pool: every queued byte is charged there),
    and the receiver's lossy queue: its threshold and ABM's inputs when it has them."""
    def fn(clients):
        c = clients["leaf"]
        occ = pool(c.call("buffer.pools"), EGRESS)["CURR_OCCUPANCY_BYTES"]
        q = c.call("queue.stats", {"port": port})["ports"][port][LOSSY_Q]
        return {"occ": occ, "thr": q["threshold_bytes"], "abm": q.get("abm")}
    return fn


def stats(vals):
    vals = [v for v in vals if v is not None]
    if not vals:
        return {"mean": None, "spread": None}
    return {"mean": statistics.mean(vals), "spread": [min(vals), max(vals)]}


def unsched_map(cfg, dscp):
    """SONiC's AZURE DSCP-to-TC map (lsw's built-in) with each unscheduled DSCP of @dscp
    ({"lossless": d, "lossy": d}) in its class's TC, bound to every port of @cfg."""
    m = {str(d): "1" for d in range(64)}
    m.update({"3": "3", "4": "4", "8": "0", "46": "5", "48": "6"})
    m[str(dscp["lossless"])] = LOSSLESS_Q
    m[str(dscp["lossy"])] = LOSSY_Q
    cfg["DSCP_TO_TC_MAP"] = {"UNSCHED": m}
    for v in cfg["PORT_QOS_MAP"].values():
        v["dscp_to_tc_map"] = "UNSCHED"
    return cfg


def one(sc, rep, tag, frag, seed, rundir, quick):
    q = sc["quick"] if quick else {}
    n = sc["hosts"]
    fab = star("pol-%s-%d" % (tag.replace("/", ""), seed), rundir, n, sc["speed"], sc["mtu"])
    hosts = ["h%d" % i for i in range(n)]
    dur = q.get("duration_ms", sc["duration_ms"])
    wl = [{"type": "poisson", "hosts": hosts, "cdf": sc["cdf"], "load": sc["load"],
           "duration_ms": dur, "size_scale": q.get("size_scale", sc.get("size_scale", 1))}]
    b = sc["bursts"]
    period = b["period_ms"]
    for k in range(max(1, dur // period)):
        wl.append({"type": "incast", "senders": hosts[1:1 + b["senders"]], "receiver": "h0",
                   "size": b["size"], "start_us": (k * period + period // 2) * 1000})
    # Every policy gets the same traffic: each message's first BDP (the line rate times the
    # base RTT, as ABM's simulator tags it) carries its class's unscheduled DSCP, which
    # only an ABM pool reads (LSW.buffer.abm_unsched_dscp).
    u = sc["unsched_dscp"]
    bdp = sc.get("unsched_bytes") or sc["speed"] * sc["base_rtt_us"] // 8
    extra = {"seed": seed, "base_rtt_us": sc["base_rtt_us"], "linger_ms": 50,
             "hosts": {h: {"dscp_data": 0, "prio_data": 0, "dscp_ack": 0, "prio_ack": 0,
                           "dscp_unsched": u["lossy"]} for h in hosts[n // 2:]}}
    hc = fab.host_config({"cc": sc["cc"], "rto_us": sc["rto_us"],
                          "dscp_unsched": u["lossless"], "unsched_bytes": bdp}, wl, extra)
    rx_port = fab.port_of("h0")[1]
    # The ingress lossy PG's alpha, under each policy's own fragment (hpcc_sim sets it):
    # where it binds first, the egress policy compared is not what drops.
    if "dynamic_th" not in frag.get("BUFFER_PROFILE", {}).get("ingress_lossy_profile", {}):
        frag = merge(frag, {"BUFFER_PROFILE": {"ingress_lossy_profile": {
            "dynamic_th": sc["ingress_lossy_dynamic_th"]}}})
    with Lab(fab, {"leaf": unsched_map(fab.switch_config("leaf", frag), u)}) as lab:
        res, rows = lab.hosts(hc, sample=sampler(rx_port), interval=0.01, timeout=600)
        sw = lab.switches["leaf"]
        d = common.drops(sw)
        pfc = sw.rpc("pfc.stats")["ports"]
        qs = sw.rpc("queue.stats")["ports"]
        pgs = sw.rpc("pg.stats")["ports"]
        pools = sw.rpc("buffer.pools")
        bstats = sw.rpc("buffer.stats")
        rep.commands.extend(lab.commands)
    msgs = res["messages"]["rows"]  # qpn, seq, size, post_us, fct_us, slowdown
    queues = [qq for port in qs.values() for k, qq in port.items() if isinstance(qq, dict)]
    samples = [v for t, v in rows if t >= 0]
    # Messages that never completed, by class: a lossless one would mean a lost packet; a
    # lossy one is go-back-N giving up after retry_cnt (7) timeouts under heavy loss.
    qps = res["qps"].values() if isinstance(res["qps"], dict) else res["qps"]
    lossless_hosts = set(hosts[:n // 2])
    undone = {True: 0, False: 0}
    for qp in qps:
        undone[qp["src"] in lossless_hosts] += qp["messages_posted"] - qp["messages_done"]
    out = {"flows": len(msgs), "failed": res["messages_failed"],
           "failed_lossless": undone[True], "failed_lossy": undone[False],
           "drops": common.total(d), "drop_reasons": d,
           "lossless_drops": sum(qs[p][LOSSLESS_Q]["DROPPED_PACKETS"] for p in qs),
           "lossless_reasons": {p: {r: v for r, v in qs[p][LOSSLESS_Q]["drops"].items() if v}
                                for p in qs if qs[p][LOSSLESS_Q]["DROPPED_PACKETS"]},
           "receiver_drops": sum(qq["DROPPED_PACKETS"] for k, qq in qs[rx_port].items()
                                 if isinstance(qq, dict)),
           "egress_threshold_drops": sum(qq["drops"]["EGRESS_QUEUE_THRESHOLD"]
                                         for qq in queues),
           "pause_frames": sum(p["priorities"][k]["PFC_%s_TX_PKTS" % k]
                               for p in pfc.values() for k in p["priorities"]),
           "pause_ms": sum(p["priorities"][k]["PFC_%s_TX_PAUSE_DURATION_US" % k]
                           for p in pfc.values() for k in p["priorities"]) / 1000,
           "peak_bytes": pool(pools, EGRESS)["WATERMARK_BYTES"],
           "mean_bytes": statistics.mean(v["occ"] for v in samples) if samples else 0,
           "lossy_queue_wm": max(port[LOSSY_Q]["WATERMARK_BYTES"] for port in qs.values()),
           "idle_thr": qs[rx_port][LOSSY_Q]["threshold_bytes"],
           "idle_pg_thr": pgs[rx_port]["0"]["threshold_bytes"],
           "egress_shared": pool(pools, EGRESS)["shared_size"],
           "ingress_shared": pool(pools, INGRESS)["shared_size"],
           "efficiency": bstats["efficiency"], "cell": bstats["cell"],
           "unsched_packets": sum(h["counters"]["req_unsched_packets"]
                                  for h in res["hosts"].values()),
           "abm_unsched_admitted": sum(qq.get("ABM_UNSCHED_PACKETS", 0) for qq in queues),
           "occupancy": [v["occ"] for v in samples],
           "thr_samples": [[v["occ"], v["thr"], v["abm"]] for v in samples]}
    for bucket, lo, hi in BUCKETS:
        sl = [m[5] for m in msgs if lo <= m[2] < hi]
        out[bucket] = {"n": len(sl), "p50": pct(sl, 50), "p99": pct(sl, 99)}
    out["size_slowdown"] = [(m[2], m[5]) for m in msgs]
    return out


def alpha(expect):
    return 2.0 ** expect.get("dynamic_th", 0)


def threshold_checks(rep, name, expect, runs, frame):
    """The policy's threshold, as the switch's counters show it (see the module's doc)."""
    kind = expect["policy"]
    b = runs[0]["egress_shared"]
    n = expect.get("members", 64)
    idle = {"dt": lambda: int(alpha(expect) * b), "abm": lambda: int(alpha(expect) * b),
            "static": lambda: expect.get("static_th", 0), "complete_sharing": lambda: b,
            "partitioned": lambda: b // n, "hpcc_sim": lambda: INT64_MAX}[kind]()
    got = [r["idle_thr"] for r in runs]
    rep.check("%s: idle, the lossy queue's threshold is the formula's" % name,
              idle, got, all(abs(g - idle) <= 1 for g in got))
    wm = max(r["lossy_queue_wm"] for r in runs)
    if kind == "abm" and "unsched_dynamic_th" in expect:
        # Unscheduled packets (a message's first BDP) may take a queue past the others'
        # threshold (test_policies checks how far): here, that the hosts tagged them and
        # that the switch admitted some with their alpha.
        u = [r["unsched_packets"] for r in runs]
        rep.check("%s: the hosts sent unscheduled packets (first BDP)" % name, "> 0 each run",
                  u, all(x > 0 for x in u))
        a = [r["abm_unsched_admitted"] for r in runs]
        rep.check("%s: the switch admitted them with alpha_u (ABM_UNSCHED_PACKETS)" % name,
                  "> 0 each run", a, all(x > 0 for x in a))
    elif kind in ("dt", "abm"):
        a = alpha(expect)
        cap = int(a * b / (1 + a)) + frame
        rep.check("%s: the busiest lossy queue within alpha B / (1 + alpha)" % name,
                  "<= %d B" % cap, wm, wm <= cap)
    elif kind in ("static", "partitioned", "complete_sharing"):
        cap = idle + frame
        rep.check("%s: the busiest lossy queue within its fixed cap" % name,
                  "<= %d B" % cap, wm, wm <= cap)
    if kind == "abm":
        # Some sample while traffic ran: n_p above 1 or a drain rate below 1 (the
        # threshold below DT's alpha (B - Q)).
        cut = [s[2] for r in runs for s in r["thr_samples"]
               if s[2] and (s[2]["n_p"] > 1 or s[2]["drain"] < 1)]
        rep.check("%s: n_p or the drain rate cut the threshold below DT's" % name,
                  "> 0 samples", len(cut), len(cut) > 0)
    if kind == "hpcc_sim":
        e = sum(r["egress_threshold_drops"] for r in runs)
        rep.check("%s: egress admission always passes" % name, 0, e, e == 0)
        want = runs[0]["ingress_shared"] >> 3
        got = [r["idle_pg_thr"] for r in runs]
        rep.check("%s: idle, the lossy PG's threshold is B' >> 3" % name, want, got,
                  all(abs(g - want) <= 1 for g in got))


def summarise(runs, seeds):
    summary = {"seeds": seeds}
    for key in ("drops", "receiver_drops", "pause_frames", "pause_ms", "peak_bytes",
                "mean_bytes", "efficiency", "failed_lossy"):
        summary[key] = stats([r[key] for r in runs])
    for bucket, _, _ in BUCKETS:
        for p in ("p50", "p99"):
            summary["%s_%s" % (bucket, p)] = stats([r[bucket][p] for r in runs
                                                    if r[bucket]["n"]])
    # Every drop of the seeds by reason (port.stats), summed: where each policy drops.
    reasons = {}
    for r in runs:
        for per_port in r["drop_reasons"].values():
            for k, v in per_port.items():
                reasons[k] = reasons.get(k, 0) + v
    summary["drops_by_reason"] = reasons
    summary["occupancy_cdf"] = [[pct(occ, p) for p in range(0, 101, 5)]
                                for occ in [[v for r in runs for v in r["occupancy"]] or [0]]][0]
    return summary


def fmt(s, scale=1.0, digits=1):
    if s["mean"] is None:
        return "-"
    m, (lo, hi) = s["mean"] * scale, s["spread"]
    if lo == hi:
        return "%.*f" % (digits, m)
    return "%.*f [%.*f-%.*f]" % (digits, m, digits, lo * scale, digits, hi * scale)


COLUMNS = [("drops", "drops", 1, 0), ("receiver_drops", "to receiver", 1, 0),
           ("pause_frames", "pauses", 1, 0), ("pause_ms", "pause ms", 1, 1),
           ("peak_bytes", "peak KB", 1 / 1024, 0), ("mean_bytes", "mean KB", 1 / 1024, 0),
           ("failed_lossy", "lossy failed", 1, 0)] + [
    ("%s_%s" % (b, p), "%s %s" % (b, p), 1, 1) for b, _, _ in BUCKETS for p in ("p50", "p99")]


def table_rows(metrics, first="policy"):
    header = [first] + [c[1] for c in COLUMNS]
    rows = [[name] + [fmt(m[k], sc, dg) for k, _, sc, dg in COLUMNS]
            for name, m in metrics.items()]
    return header, rows


def lossless_checks(rep, name, runs):
    """No lossless drop: a policy pauses before it drops. A headroom overflow is apart: it
    says a host kept sending after the pause for longer than the headroom covers, which on
    a shared 2-CPU machine is a host or worker off its CPU (timing, as a rate check)."""
    def count(pred):
        return sum(n for r in runs for reasons in r["lossless_reasons"].values()
                   for why, n in reasons.items() if pred(why))
    policy = count(lambda why: why != "HEADROOM_OVERFLOW")
    rep.check("%s: no lossless drop (pause before drop)" % name, 0,
              policy if policy == 0 else [r["lossless_reasons"] for r in runs], policy == 0)
    late = count(lambda why: why == "HEADROOM_OVERFLOW")
    rep.check("%s: no headroom overflow (each pause in time)" % name, 0, late, late == 0,
              rate=True)


def run(sc, rep, rundir, quick):
    q = sc["quick"] if quick else {}
    seeds = q.get("seeds", sc["seeds"])
    frame = sc["mtu"] + 64 + 64  # a RoCE frame rounded up to cells, and a cell
    results = {}
    for name, pol in sc["policies"].items():
        runs = [one(sc, rep, name, pol["switch"], s, rundir, quick) for s in seeds]
        results[name] = runs
        threshold_checks(rep, name, pol["expect"], runs, frame)
        failed = sum(r["failed_lossless"] for r in runs)
        rep.check("%s: every lossless message completes" % name, 0, failed, failed == 0)
        lossless_checks(rep, name, runs)
        rep.metrics.setdefault("policies", {})[name] = summarise(runs, seeds)
    # The cell sizes of the AI packet-size tuning against 256 B and 4 KB cells, under one
    # policy: buffer efficiency (bytes / bytes charged) and what the waste costs. Pools of
    # cells_pool_size: at 2 MB, 4 KB cells do not even hold 8 lossless ports' headroom (the
    # formula scales it by cell/64, SONiC's dynamic headroom model), and lsw refuses the config.
    cells = {}
    size_frag = {"BUFFER_POOL": {INGRESS: {"size": sc["cells_pool_size"]},
                                 EGRESS: {"size": sc["cells_pool_size"]}}}
    base = merge(sc["policies"][sc["cells_policy"]]["switch"], size_frag)
    # Efficiency is a property of the frame sizes, not of a seed: fewer seeds do (the full
    # run's two minutes).
    cseeds = q.get("seeds", sc.get("cells_seeds", seeds))
    for cname in q.get("cells", list(sc["cells"])):
        size = sc["cells"][cname]
        frag = base
        if size:
            frag = merge(base, {"LSW": {"buffer": {"cell_size": size}}})
        runs = [one(sc, rep, "cell" + cname, frag, s, rundir, quick) for s in cseeds]
        cells[cname] = runs
        m = summarise(runs, cseeds)
        m["cell"] = runs[0]["cell"]
        m["drop_reasons"] = [r["drop_reasons"] for r in runs]
        lossless_checks(rep, "cells " + cname, runs)
        rep.metrics.setdefault("cells", {})[cname] = m
    if "ai" in cells and len(cells) > 1:
        worst = min(cells, key=lambda c: rep.metrics["cells"][c]["efficiency"]["mean"])
        e_ai = rep.metrics["cells"]["ai"]["efficiency"]["mean"]
        e_w = rep.metrics["cells"][worst]["efficiency"]["mean"]
        rep.check("cells: AI-tuned cells waste less than %s ones" % worst,
                  "efficiency > %.3f" % e_w, round(e_ai, 4), e_ai > e_w)

    header, rows = table_rows(rep.metrics["policies"])
    rep.table("policies", "Per policy: mean [spread] over seeds %s" % seeds, header, rows,
              "Drops of every kind, and of packets bound for the bursts' receiver; PFC frames "
              "sent and time paused; peak and mean buffer held; FCT slowdown by flow size.")
    ch, crows = table_rows(rep.metrics.get("cells", {}), "cell")
    ch.insert(1, "bytes")
    ch.insert(2, "efficiency")
    for r in crows:
        m = rep.metrics["cells"][r[0]]
        r.insert(1, m["cell"])
        r.insert(2, fmt(m["efficiency"], 1, 4))
    rep.table("cells", "Accounting cells under %s: mean [spread]" % sc["cells_policy"], ch,
              crows, "The same traffic with the AI-tuned cell (lsw's default, from "
              "LSW.buffer.ai_packet_sizes), 256 B and 4 KB cells: a frame is charged whole "
              "cells, so coarse cells hold less traffic in the same buffer.")
    # What the papers draw: FCT slowdown against flow size, occupancy CDFs.
    edges = [1 << k for k in range(10, 31)]
    series = {}
    for name, runs in results.items():
        pairs = [p for r in runs for p in r["size_slowdown"]]
        xs, ys = [], []
        for lo, hi in zip(edges, edges[1:]):
            sl = [s for size, s in pairs if lo <= size < hi]
            if sl:
                xs.append((lo * hi) ** 0.5 / 1024)
                ys.append(pct(sl, 99))
        series[name] = (xs, ys)
    rep.lines("fct_slowdown", "p99 FCT slowdown by flow size", "flow size (KB, log bins)",
              "p99 slowdown", series,
              "Small flows suffer most where bursts fill the buffer; a policy that keeps room "
              "for bursts (a small alpha, ABM) helps them, one that lets a queue take the "
              "whole buffer (complete sharing) hurts them.", log="xy")
    rep.cdf("occupancy_cdf", "Buffer held (sampled every 10 ms)", "bytes",
            {name: [v for r in runs for v in r["occupancy"]] or [0]
             for name, runs in results.items()},
            "How much of the buffer each policy lets traffic hold.")
    rep.bars("drops", "Drops and pauses per policy (mean over seeds)",
             {name: {"drops": m["drops"]["mean"], "to receiver": m["receiver_drops"]["mean"],
                     "pauses": m["pause_frames"]["mean"]}
              for name, m in rep.metrics["policies"].items()},
             "Bursts into one host either fill its queue (drops under a tight cap) or pause "
             "the senders of the lossless class.", "count")
    rep.note("Each policy ran on the seeds %s; tables give the mean and the spread "
             "(min-max). Link speed %d Mb/s with %d B RoCE payloads; ABM's update interval "
             "is stretched with the link (LSW.buffer.abm_update_us)." %
             (seeds, sc["speed"], sc["mtu"]))
