# SPDX-License-Identifier: BSD-3-Clause
"""§9 collectives with lsw-host as the scripted collective engine: bus bandwidth with the
draft's fixed algo_factor, its efficiency against the NIC line rate, per message size and N.

9.1 AllReduce runs lsw-host's ring (2(n-1) steps of S/n, a barrier between steps; JCT per
iteration from its engine). 9.2 AllToAll and 9.3 AllGather run as lsw-host's all_to_all:
every host sends S/n to every other host on a QP per ordered pair, iterations back to back
on the same QPs (no barrier): an iteration ends when its last message's ACK arrives, and its
time is from the previous iteration's end (the first: from the post). AllGather moves the
same bytes as AllToAll on the wire (each shard to every peer); only the data differ."""
from lswlab.run import Lab

from . import kpi
from .base import fabric, human, size_bytes, stretch, switch_configs
from .rdma import trial

ALGORITHMS = {"allreduce": "ring (lsw-host ring_allreduce)",
              "alltoall": "direct (a QP per ordered pair)",
              "allgather": "direct (each shard to every peer, all_to_all pattern)"}


def a2a_times(res, n, iterations):
    """Per iteration of an all_to_all with @iterations messages per QP: seconds."""
    cols = res["messages"]["columns"]
    iq, ii, ip, ifct = (cols.index(c) for c in ("qpn", "seq", "post_us", "fct_us"))
    ends = {}
    start = None
    for r in res["messages"]["rows"]:
        end = r[ip] + r[ifct]
        ends[r[ii]] = max(ends.get(r[ii], 0), end)
        start = r[ip] if start is None else min(start, r[ip])
    out, prev = [], start
    for k in sorted(ends):
        out.append((ends[k] - prev) / 1e6)
        prev = ends[k]
    return out[:iterations]


def run(ctx, collective):
    p = ctx.p
    speed = p["speed"]
    ctx.scaling("%d Mb/s NICs for 400-800G (time x%.0f at 100G); N = %s (draft: 8-1024); "
                "S = %s (draft: 1 MB-4 GB); %d iterations (draft: >= 100)" % (
                    speed, stretch(speed), ", ".join(map(str, p["n"])),
                    ", ".join(p["sizes"]), p["iterations"]))
    ctx.config("collective", "%s, algorithm %s" % (collective, ALGORITHMS[collective]))
    rows, series = [], {}
    for n in p["n"]:
        fab = fabric(ctx, "b9-%s-%d" % (collective, n), n, speed, speed * 2)
        hosts = fab.hosts[:n]
        with Lab(fab, switch_configs(ctx, fab)) as lab:
            ctx.dut_info(lab)
            for size_s in p["sizes"]:
                size = size_bytes(size_s)
                af = kpi.algo_factor(collective, n)
                if collective == "allreduce":
                    wl = [{"type": "ring_allreduce", "hosts": hosts, "size": size,
                           "iterations": p["iterations"]}]
                else:
                    wl = [{"type": "all_to_all", "hosts": hosts, "size": max(1, size // n),
                           "count": p["iterations"]}]
                cfg = fab.host_config({"cc": p["cc"]}, wl)
                res, _, drops = trial(lab, cfg, "b9")
                ctx.host_info(res, cfg)
                if collective == "allreduce":
                    c = res["collectives"][0]
                    times = [x / 1e6 for x in c["jct_us"]]
                    algo = "%s, %d steps of %s (2(n-1) = %d)" % (
                        ALGORITHMS[collective], c["steps"], human(c["chunk_bytes"]),
                        2 * (n - 1))
                    verified = c["steps"] == 2 * (n - 1)
                else:
                    times = a2a_times(res, n, p["iterations"])
                    qps = len(res["qps"])
                    algo = "%s, %d QPs (n(n-1) = %d)" % (ALGORITHMS[collective], qps,
                                                         n * (n - 1))
                    verified = qps == n * (n - 1)
                if not times:
                    ctx.anomaly("%s n=%d S=%s: no iteration completed" % (collective, n,
                                                                           size_s))
                    continue
                bw = [kpi.busbw(size, t, collective, n) for t in times]
                lbl = {"collective": collective, "n": n, "size": size_s,
                       "algo_factor": round(af, 4)}
                s = {k: kpi.percentile(bw, q) for k, q in (("p50", 50), ("p95", 95),
                                                           ("p99", 99))}
                avg = sum(bw) / len(bw)
                eff = kpi.busbw_efficiency(avg * 8, speed * 1e6)
                ctx.kpi("BusBW avg", round(avg * 8 / 1e9, 4), "Gb/s", kpi.ENDPOINT, **lbl)
                for k, v in s.items():
                    ctx.kpi("BusBW " + k, round(v * 8 / 1e9, 4), "Gb/s", kpi.ENDPOINT, **lbl)
                ctx.kpi("BusBW efficiency", round(eff, 2), "% of NIC line rate",
                        kpi.ENDPOINT, **lbl)
                ctx.kpi("DUT drops", drops, "packets", kpi.DUT, **lbl)
                for t in times:
                    ctx.repetition("BusBW %s n=%d %s" % (collective, n, size_s),
                                   kpi.busbw(size, t, collective, n))
                rows.append([collective, n, size_s, round(af, 4), len(times),
                             round(avg * 8 / 1e6, 1), round(s["p50"] * 8 / 1e6, 1),
                             round(s["p95"] * 8 / 1e6, 1), round(s["p99"] * 8 / 1e6, 1),
                             round(eff, 1), algo + (" verified" if verified else
                                                    " NOT as expected"), drops])
                if not verified:
                    ctx.anomaly("%s n=%d: the algorithm ran otherwise: %s" % (
                        collective, n, algo))
                xs, ys = series.setdefault("n=%d" % n, ([], []))
                xs.append(size)
                ys.append(avg * 8 / 1e6)
        ctx.r["comparability"] = {
            "N": p["n"], "placement": ctx.p.get("fabric", "star"),
            "B_acc": "%d Mb/s" % speed, "collective": collective, "S": p["sizes"],
            "algo_factor": "%s (term. §3)" % ("2(n-1)/n" if collective == "allreduce"
                                              else "(n-1)/n"),
            "transport": "RoCEv2 RC (lsw-host)", "LB": ctx.p.get("ecmp_mode") or "hash",
            "CCL": "lsw-host's collective engine (no CCL)"}
    ctx.table("busbw", "%s %s bus bandwidth (endpoint)" % (ctx.spec["section"], collective),
              ["collective", "n", "S", "algo_factor", "iterations", "avg Mb/s", "P50 Mb/s",
               "P95 Mb/s", "P99 Mb/s", "efficiency %", "Algorithm (verified)", "DUT drops"],
              rows, "BusBW = S x algo_factor / time per iteration (term. §3), decimal units; "
              "efficiency = BusBW / the NIC's line rate.")
    ctx.figure("lines", "busbw", "%s %s BusBW by message size" % (ctx.spec["section"],
                                                                   collective),
               "S (bytes)", "BusBW (Mb/s)", series,
               "Bus bandwidth against the message size per N; the line rate is the top.",
               log="x", hlines=[(speed, "line rate")])


def t9_1(ctx):
    run(ctx, "allreduce")


def t9_2(ctx):
    run(ctx, "alltoall")


def t9_3(ctx):
    run(ctx, "allgather")
