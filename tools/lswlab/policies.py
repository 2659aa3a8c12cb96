# SPDX-License-Identifier: BSD-3-Clause
"""policies (reference/labs.md 1-3): buffer-sharing policies compared by what users care
about. One switch and 8 hosts: background flows from a flow-size CDF (web search) at a
given load between all hosts, plus periodic incast bursts into one host; the same seeds for
every policy. Per policy and seed: FCT slowdown p50/p99 for small (< 100 KB), medium and
large (> 1 MB) flows, drops in the bursts, pauses and pause time, peak and mean buffer
occupancy, and its CDF; then mean and spread over the seeds.

Each policy is a fragment of switch config (its pools and profiles), applied over the
fabric's own; its expected queue cap (from the policy's formula) is checked against the
busiest queue's watermark, so that each policy's threshold shows in the counters."""
import statistics

from . import common
from .run import Lab
from .topo import star

BUCKETS = (("small", 0, 100 * 1024), ("medium", 100 * 1024, 1 << 20),
           ("large", 1 << 20, 1 << 62))


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))] if xs else float("nan")


def occupancy(clients):
    pools = clients["leaf"].call("buffer.pools")
    return sum(p["CURR_OCCUPANCY_BYTES"] for p in pools if p["type"] == "egress")


def one(sc, rep, name, frag, seed, rundir, quick):
    q = sc["quick"] if quick else {}
    n = sc["hosts"]
    fab = star("pol-%s-%d" % (name, seed), rundir, n, sc["speed"], sc["mtu"])
    hosts = ["h%d" % i for i in range(n)]
    dur = q.get("duration_ms", sc["duration_ms"])
    wl = [{"type": "poisson", "hosts": hosts, "cdf": sc["cdf"], "load": sc["load"],
           "duration_ms": dur, "size_scale": q.get("size_scale", sc.get("size_scale", 1))}]
    b = sc["bursts"]
    period = b["period_ms"]
    for k in range(max(1, dur // period)):
        wl.append({"type": "incast", "senders": hosts[1:1 + b["senders"]], "receiver": "h0",
                   "size": b["size"], "start_us": (k * period + period // 2) * 1000})
    extra = {"seed": seed, "base_rtt_us": sc["base_rtt_us"], "linger_ms": 50,
             "hosts": {h: {"dscp_data": 0, "prio_data": 0, "dscp_ack": 0, "prio_ack": 0}
                       for h in hosts[n // 2:]}}
    hc = fab.host_config({"cc": sc["cc"], "rto_us": sc["rto_us"]}, wl, extra)
    with Lab(fab, {"leaf": fab.switch_config("leaf", frag)}) as lab:
        res, rows = lab.hosts(hc, sample=occupancy, interval=0.01, timeout=600)
        sw = lab.switches["leaf"]
        d = common.drops(sw)
        pfc = sw.rpc("pfc.stats")["ports"]
        qs = sw.rpc("queue.stats")["ports"]
        pools = sw.rpc("buffer.pools")
        rep.commands.extend(lab.commands)
    msgs = res["messages"]["rows"]  # qpn, seq, size, post_us, fct_us, slowdown
    out = {"flows": len(msgs), "failed": res["messages_failed"],
           "drops": common.total(d), "drop_reasons": d,
           "pause_frames": sum(p["priorities"][k]["PFC_%s_TX_PKTS" % k]
                               for p in pfc.values() for k in p["priorities"]),
           "pause_us": sum(p["priorities"][k]["PFC_%s_TX_PAUSE_DURATION_US" % k]
                           for p in pfc.values() for k in p["priorities"]),
           "peak_bytes": max(p["WATERMARK_BYTES"] for p in pools if p["type"] == "egress"),
           "mean_bytes": statistics.mean(v for t, v in rows if t >= 0) if rows else 0,
           "busiest_queue_bytes": max(qq["WATERMARK_BYTES"] for port in qs.values()
                                      for qq in port.values() if isinstance(qq, dict)),
           "occupancy": [v for t, v in rows if t >= 0]}
    for bucket, lo, hi in BUCKETS:
        sl = [m[5] for m in msgs if lo <= m[2] < hi]
        out[bucket] = {"n": len(sl), "p50": pct(sl, 50), "p99": pct(sl, 99)}
    out["size_slowdown"] = [(m[2], m[5]) for m in msgs]
    return out


def run(sc, rep, rundir, quick):
    q = sc["quick"] if quick else {}
    seeds = q.get("seeds", sc["seeds"])
    results = {}
    for name, pol in sc["policies"].items():
        results[name] = [one(sc, rep, name, pol["switch"], s, rundir, quick) for s in seeds]
        runs = results[name]
        wm = max(r["busiest_queue_bytes"] for r in runs)
        cap = pol["queue_cap"]
        rep.check("%s: the busiest queue within the policy's cap" % name,
                  "<= %d B" % cap, wm, wm <= cap)
        rep.check("%s: every flow completes" % name, 0, sum(r["failed"] for r in runs),
                  sum(r["failed"] for r in runs) == 0)
        summary = {"seeds": seeds}
        for key in ("drops", "pause_frames", "pause_us", "peak_bytes", "mean_bytes"):
            vals = [r[key] for r in runs]
            summary[key] = {"mean": statistics.mean(vals),
                            "spread": [min(vals), max(vals)]}
        for bucket, _, _ in BUCKETS:
            for p in ("p50", "p99"):
                vals = [r[bucket][p] for r in runs if r[bucket]["n"]]
                summary["%s_%s" % (bucket, p)] = {
                    "mean": statistics.mean(vals) if vals else None,
                    "spread": [min(vals), max(vals)] if vals else None}
        rep.metrics.setdefault("policies", {})[name] = summary
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
              "whole buffer (complete sharing) hurts them.")
    rep.cdf("occupancy_cdf", "Egress buffer occupancy (sampled every 10 ms)", "bytes",
            {name: [v for r in runs for v in r["occupancy"]] or [0]
             for name, runs in results.items()},
            "How much of the buffer each policy lets traffic hold.")
    rows = []
    for name, m in rep.metrics["policies"].items():
        rows.append([name] + [m[k]["mean"] for k in ("drops", "pause_frames", "peak_bytes")] +
                    [m["%s_%s" % (b, p)]["mean"] for b, _, _ in BUCKETS for p in ("p50", "p99")])
    rep.csv("policies", ["policy", "drops", "pause_frames", "peak_bytes"] +
            ["%s_%s" % (b, p) for b, _, _ in BUCKETS for p in ("p50", "p99")], rows)
    rep.note("Each policy ran on the seeds %s; tables give the mean and the spread." % seeds)
