# SPDX-License-Identifier: BSD-3-Clause
"""§9 collectives with lsw-host as the scripted collective engine: bus bandwidth with the
draft's fixed algo_factor, its efficiency against the NIC line rate, per message size and N.

9.1 AllReduce runs lsw-host's ring (2(n-1) steps of S/n, a barrier between steps; JCT per
iteration from its engine). 9.2 AllToAll and 9.3 AllGather run as lsw-host's all_to_all:
every host sends S/n to every other host on a QP per ordered pair, iterations back to back
on the same QPs (no barrier): an iteration ends when its last message's ACK arrives, and its
time is from the previous iteration's end (the first: from the post). AllGather moves the
same bytes as AllToAll on the wire (each shard to every peer); only the data differ."""
import statistics

from lswlab import topo
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


def t10_1(ctx):
    """§10.1: each iteration computes for C (lsw-host's compute_us: nothing on the wire),
    then runs a ring AllReduce of S; JCT (the collective engine's clock, compute included)
    against Roofline_seq = Iterations x (C + 8 S algo_factor / B_acc)."""
    p = ctx.p
    speed, it = p["speed"], p["iterations"]
    b_acc = speed * 1e6
    ctx.scaling("%d Mb/s NICs (B_acc) for 100G (time x%.0f): S = %s for the draft's 256 MB "
                "to 4 GB (the bytes / %.0f, so that the communication takes the draft's "
                "time), C = %s ms unscaled; N = %s (draft: 64-1024); %d iterations (draft: "
                "1000)" % (speed, stretch(speed), ", ".join(p["sizes"]), stretch(speed),
                           ", ".join(map(str, p["compute_ms"])),
                           ", ".join(map(str, p["n"])), it))
    ctx.config("collective", "allreduce, algorithm %s; compute then communicate (no "
               "overlap: lsw-host's compute phase is a pause)" % ALGORITHMS["allreduce"])
    ctx.config("JCT", "sum of the iterations' JCTs (lsw-host's engine, each from its "
               "compute phase's start to its last step's barrier), iterations back to back")
    rows = []
    for n in p["n"]:
        fab = fabric(ctx, "b10-%d" % n, n, speed, speed * 2)
        hosts = fab.hosts[:n]
        af = kpi.algo_factor("allreduce", n)
        with Lab(fab, switch_configs(ctx, fab)) as lab:
            ctx.dut_info(lab)
            for size_s in p["sizes"]:
                size = size_bytes(size_s)
                for c_ms in p["compute_ms"]:
                    wl = [{"type": "ring_allreduce", "hosts": hosts, "size": size,
                           "iterations": it, "compute_us": int(c_ms * 1000)}]
                    cfg = fab.host_config({"cc": p["cc"]}, wl)
                    res, _, drops = trial(lab, cfg, "b10")
                    ctx.host_info(res, cfg)
                    c = res["collectives"][0]
                    lbl = {"n": n, "S": size_s, "C_ms": c_ms, "algo_factor": round(af, 4),
                           "LB": ctx.p.get("ecmp_mode") or "hash"}
                    if c["iterations_done"] < it:
                        ctx.anomaly("10.1 %s: %d of %d iterations completed" % (
                            lbl, c["iterations_done"], it))
                        continue
                    jct = sum(c["jct_us"]) / 1e6
                    roof = kpi.roofline_jct(c_ms / 1000, size, af, b_acc, it)
                    ratio = kpi.jct_ratio(jct, roof)
                    comm = it * 8 * size * af / b_acc
                    c_total = it * c_ms / 1000
                    ctx.kpi("JCT", round(jct, 4), "s", kpi.ENDPOINT, **lbl)
                    ctx.kpi("Roofline JCT (sequential)", round(roof, 4), "s", kpi.ENDPOINT,
                            **lbl)
                    ctx.kpi("JCT Ratio", round(ratio, 4), "", kpi.ENDPOINT, **lbl)
                    ctx.kpi("Overlap_Fraction",
                            round(kpi.overlap_fraction(jct, c_total, comm), 4), "",
                            kpi.ENDPOINT, **lbl)
                    ctx.kpi("Effective_Comm_Overhead",
                            round(kpi.effective_comm_overhead(jct, c_total), 4), "s",
                            kpi.ENDPOINT, **lbl)
                    ctx.kpi("DUT drops", drops, "packets", kpi.DUT, **lbl)
                    ctx.repetition("JCT Ratio n=%d S=%s C=%g ms" % (n, size_s, c_ms), ratio)
                    # App. B's indicative bands (not pass/fail in the draft).
                    band = "<= 1.05" if ratio <= 1.05 else "<= 1.15" if ratio <= 1.15 \
                        else "> 1.15"
                    rows.append([n, size_s, c_ms, it, round(jct * 1000, 1),
                                 round(roof * 1000, 1), round(ratio, 3), band,
                                 round(kpi.effective_comm_overhead(jct, c_total) * 1000, 1),
                                 drops])
                    # The roofline is a bound: a ratio below 1 is a measurement error.
                    ctx.check("10.1 n=%d S=%s C=%g ms: JCT at or above the roofline" % (
                        n, size_s, c_ms), ">= 1", round(ratio, 3), ratio >= 1)
    ctx.r["comparability"] = {
        "N": p["n"], "placement": ctx.p.get("fabric", "star"), "B_acc": "%d Mb/s" % speed,
        "collective": "allreduce", "S": p["sizes"], "algo_factor": "2(n-1)/n (term. §3)",
        "transport": "RoCEv2 RC (lsw-host)", "LB": ctx.p.get("ecmp_mode") or "hash",
        "CCL": "lsw-host's collective engine (no CCL)"}
    ctx.table("jct", "10.1 JCT Ratio with compute phases (endpoint)",
              ["n", "S", "C ms", "iterations", "JCT ms", "Roofline_seq ms", "JCT Ratio",
               "App. B band", "Effective_Comm_Overhead ms", "DUT drops"], rows,
              "Roofline_seq = Iterations x (C + 8 S algo_factor / B_acc), B_acc the NIC's "
              "line rate; the JCT ratio tends to 1 as C grows, the network's share of the "
              "job shrinking. App. B's bands (1.05, 1.15) are indicative, not pass/fail.")
    groups = {}
    for r in rows:
        groups.setdefault("C=%g ms" % r[2], {})["n=%s S=%s" % (r[0], r[1])] = r[6]
    ctx.figure("bars", "ratio", "10.1 JCT Ratio by compute time", groups,
               "JCT Ratio per compute time C and (n, S): 1.0 is no network overhead.",
               "JCT Ratio")


def t10_3(ctx):
    """§10.3, partly: two jobs, each a ring AllReduce over hosts on both leaves of a
    leaf-spine, so that both cross the same spines; each alone (baseline), then both at
    once (contention). Interference = Contention_JCT / Baseline_JCT per job. The draft's
    spine overlap (0-75 %) is not set: ECMP's hash places the rings' QPs on the spines."""
    p = ctx.p
    speed, it, size = p["speed"], p["iterations"], size_bytes(p["size"])
    ctx.scaling("%d Mb/s links (time x%.0f), uplinks at the host speed (1:1); two jobs of "
                "%d hosts, S = %s, %d iterations" % (speed, stretch(speed), p["hosts_per_job"],
                                                     human(size), it))
    ctx.config("jobs", "job A and job B each half on leaf0, half on leaf1; the spine overlap "
               "is ECMP's (not the draft's 0/25/50/75 % settings)")
    k = p["hosts_per_job"]
    fab = fabric_ls(ctx, "b103", k, speed)
    half = k // 2
    leaf = [fab.hosts[:k], fab.hosts[k:]]
    jobs = {"A": leaf[0][:half] + leaf[1][:half], "B": leaf[0][half:] + leaf[1][half:]}
    rows, jct = [], {}
    with Lab(fab, switch_configs(ctx, fab)) as lab:
        ctx.dut_info(lab)
        # Alone and together in turn, repeated: the median JCT of each (a run that the
        # shared machine held up is one of several).
        for rep in range(p["repetitions"]):
            for mode, names in (("A alone", ["A"]), ("B alone", ["B"]),
                                ("together", ["A", "B"])):
                wl = [{"type": "ring_allreduce", "hosts": jobs[j], "size": size,
                       "iterations": it} for j in names]
                cfg = fab.host_config({"cc": p["cc"]}, wl)
                res, _, drops = trial(lab, cfg, "b103")
                ctx.host_info(res, cfg)
                for j, c in zip(names, res["collectives"]):
                    jct.setdefault((j, mode == "together"), []).append(
                        sum(c["jct_us"]) / 1e6)
                    ctx.kpi("JCT", round(sum(c["jct_us"]) / 1e3, 2), "ms", kpi.ENDPOINT,
                            job=j, run=mode, repetition=rep + 1)
                    ctx.check("10.3 %s #%d: job %s's iterations all complete" % (
                        mode, rep + 1, j), it, c["iterations_done"],
                        c["iterations_done"] == it)
                ctx.kpi("DUT drops", drops, "packets", kpi.DUT, run=mode, repetition=rep + 1)
    for j in ("A", "B"):
        if not jct.get((j, False)) or not jct.get((j, True)):
            continue
        base, cont = (statistics.median(jct[(j, x)]) for x in (False, True))
        inter = cont / base
        ctx.kpi("Interference (Contention_JCT / Baseline_JCT)", round(inter, 3), "",
                kpi.ENDPOINT, job=j)
        ctx.repetition("Interference job %s" % j, inter)
        rows.append([j, ", ".join(jobs[j]), len(jct[(j, False)]), round(base * 1000, 1),
                     round(cont * 1000, 1), round(inter, 3)])
    ctx.table("interference", "10.3 Two jobs on shared spines (endpoint)",
              ["job", "hosts", "repetitions", "baseline JCT ms (median)",
               "contention JCT ms (median)", "Interference"], rows,
              "Interference = Contention_JCT / Baseline_JCT (bench §10.3), each the median "
              "over the repetitions; 1.0: the other job costs nothing.")


def fabric_ls(ctx, name, per_leaf, speed):
    """A two-leaf, two-spine fabric with @per_leaf hosts on each leaf, uplinks at @speed."""
    fab = topo.leaf_spine(name, ctx.rundir, 2, 2, per_leaf, 1, speed, speed,
                          ctx.p.get("mtu", 4096))
    ctx.fabric_info(fab)
    return fab
