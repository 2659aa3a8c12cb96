# SPDX-License-Identifier: BSD-3-Clause
"""§11.1 scale, partly: a ring AllReduce as N grows, as far as one lsw-host process on this
machine's CPUs goes (the draft starts at 64): JCT Ratio against the roofline (no compute
phase), BusBW, PFC frames and drops (DUT), and each lsw's CPU time and resident memory over
the run (from /proc: the DUT process). BGP re-convergence does not apply: lsw runs no
routing protocol."""
import os

from lswlab import common
from lswlab.run import Lab

from . import kpi
from .base import fabric, human, size_bytes, stretch, switch_configs
from .rdma import trial
from .soak import rss

TICK = os.sysconf("SC_CLK_TCK")


def cpu_s(sw):
    """The lsw process's user + system CPU seconds so far."""
    with open("/proc/%d/stat" % sw.proc.pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def t11_1(ctx):
    p = ctx.p
    speed, it, size = p["speed"], p["iterations"], size_bytes(p["size"])
    ctx.scaling("%d Mb/s NICs (time x%.0f); N = %s (draft: 64 and up; one lsw-host process "
                "emulates every NIC); S = %s for 1 GB; %d iterations" % (
                    speed, stretch(speed), ", ".join(map(str, p["n"])), human(size), it))
    ctx.config("BGP re-convergence", "not applicable: lsw runs no routing protocol (static "
               "routes over every shortest path)")
    rows = []
    for n in p["n"]:
        fab = fabric(ctx, "b111-%d" % n, n, speed, speed * 2)
        af = kpi.algo_factor("allreduce", n)
        with Lab(fab, switch_configs(ctx, fab)) as lab:
            ctx.dut_info(lab)
            wl = [{"type": "ring_allreduce", "hosts": fab.hosts[:n], "size": size,
                   "iterations": it}]
            cfg = fab.host_config({"cc": p["cc"]}, wl)
            cpu0 = {s: cpu_s(sw) for s, sw in lab.switches.items()}
            pfc0 = sum(common.pfc_sent(sw) for sw in lab.switches.values())
            res, _, drops = trial(lab, cfg, "b111")
            pfc = sum(common.pfc_sent(sw) for sw in lab.switches.values()) - pfc0
            wall = res["elapsed_us"] / 1e6
            cpu = {s: 100 * (cpu_s(sw) - cpu0[s]) / wall for s, sw in lab.switches.items()}
            mem = {s: rss(sw) for s, sw in lab.switches.items()}
            ctx.host_info(res, cfg)
        c = res["collectives"][0]
        lbl = {"n": n, "size": human(size), "algo_factor": round(af, 4)}
        ctx.kpi("DUT drops", drops, "packets", kpi.DUT, **lbl)
        ctx.kpi("PFC frames sent (incl. XON)", pfc, "frames", kpi.DUT, **lbl)
        for s in sorted(cpu):
            ctx.kpi("switch CPU (avg over the run)", round(cpu[s], 1), "% of one CPU",
                    kpi.DUT, switch=s, **lbl)
            ctx.kpi("switch memory (RSS at the end)", mem[s], "bytes", kpi.DUT, switch=s,
                    **lbl)
        ctx.check("11.1 n=%d: zero packet loss (no DUT drop)" % n, 0, drops, drops == 0)
        ctx.check("11.1 n=%d: every iteration completes" % n, it, c["iterations_done"],
                  c["iterations_done"] == it)
        if not c["jct_us"]:
            continue
        times = [x / 1e6 for x in c["jct_us"]]
        roof = kpi.roofline_jct(0, size, af, speed * 1e6)
        ratio = kpi.jct_ratio(sum(times) / len(times), roof)
        bw = sum(kpi.busbw(size, t, "allreduce", n) for t in times) / len(times)
        ctx.kpi("JCT Ratio (mean iteration)", round(ratio, 4), "", kpi.ENDPOINT, **lbl)
        ctx.kpi("BusBW avg", round(bw * 8 / 1e9, 4), "Gb/s", kpi.ENDPOINT, **lbl)
        ctx.repetition("JCT Ratio n=%d" % n, ratio)
        rows.append([n, human(size), len(times), round(ratio, 3), round(bw * 8 / 1e6, 1),
                     round(kpi.busbw_efficiency(bw * 8, speed * 1e6), 1), pfc, drops,
                     round(max(cpu.values()), 1), round(max(mem.values()) / 2 ** 20, 1)])
    ctx.r["comparability"] = {
        "N": p["n"], "placement": ctx.p.get("fabric", "star"), "B_acc": "%d Mb/s" % speed,
        "collective": "allreduce", "S": human(size), "algo_factor": "2(n-1)/n (term. §3)",
        "transport": "RoCEv2 RC (lsw-host)", "LB": ctx.p.get("ecmp_mode") or "hash"}
    ctx.table("scale", "11.1 AllReduce as N grows",
              ["n", "S", "iterations", "JCT Ratio", "BusBW Mb/s", "efficiency %",
               "PFC frames (DUT)", "DUT drops", "busiest lsw CPU %", "largest lsw RSS MB"],
              rows, "JCT Ratio = the mean iteration's JCT / (8 S algo_factor / B_acc) "
              "(endpoint); CPU and RSS of each lsw process from /proc (DUT). On this machine "
              "the hosts' emulation shares the CPUs with the switches: what falls with N is "
              "as much the emulator as the fabric.")
    ctx.figure("lines", "ratio", "11.1 JCT Ratio by N", "N", "JCT Ratio",
               {"ring AllReduce": ([r[0] for r in rows], [r[3] for r in rows])},
               "The JCT ratio as the ring grows (1.0: no network overhead).")
