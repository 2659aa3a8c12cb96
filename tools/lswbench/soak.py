# SPDX-License-Identifier: BSD-3-Clause
"""§12 soak, scaled: AllReduce and AllToAll alternating at 80 % of the line rate (the
hosts paced at 80 %) for a duration in minutes instead of 24 h; every interval each
switch's resident memory (/proc, the DUT process), its drops, PFC frames and free mbufs.
12.1: the JCT ratio of every collective and its σ, counters flat; 12.2: each lsw's memory
slope against the draft's 1 MB/h."""
import statistics
import time

from lswlab import common
from lswlab.run import Lab

from . import kpi
from .collectives import a2a_times
from .base import fabric, human, size_bytes, switch_configs
from .rdma import trial


def rss(sw):
    with open("/proc/%d/status" % sw.proc.pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def snapshot(lab):
    out = {}
    for name, sw in lab.switches.items():
        out[name] = {"rss": rss(sw), "drops": common.total(common.drops(sw)),
                     "pfc_tx": common.pfc_sent(sw),
                     "mbufs_free": sw.rpc("switch.info")["mbufs_free"]}
    return out


def t12(ctx):
    p = ctx.p
    speed, n, size = p["speed"], p["n"], size_bytes(p["size"])
    load = p["load"]
    ctx.scaling("%d s of soak for 24 h after a warm-up, samples every %g s for 60 s; %d hosts "
                "at %d Mb/s paced at %d %% (bench 12.1's 80 %%); S = %s" % (
                    p["duration_s"], p["interval_s"], n, speed, 100 * load, human(size)))
    fab = fabric(ctx, "b12", n, speed, speed * 2)
    hosts = fab.hosts[:n]
    samples, ratios, t_start = [], [], None
    with Lab(fab, switch_configs(ctx, fab)) as lab:
        ctx.dut_info(lab)
        # Warm-up, discarded (term. §2): lsw touches its mbufs and rings for the first
        # time under the first traffic, which is start-up, not a leak.
        trial(lab, fab.host_config({"cc": {"algorithm": "none"}}, [{
            "type": "ring_allreduce", "hosts": hosts, "size": size, "iterations": 2}]), "b12")
        t_start = time.monotonic()
        samples.append((0.0, snapshot(lab)))
        k = 0
        while time.monotonic() - t_start < p["duration_s"]:
            coll = ("allreduce", "alltoall")[k % 2]
            k += 1
            if coll == "allreduce":
                wl = [{"type": "ring_allreduce", "hosts": hosts, "size": size,
                       "iterations": p["iterations"]}]
            else:
                wl = [{"type": "all_to_all", "hosts": hosts, "size": size // n,
                       "count": p["iterations"]}]
            cfg = fab.host_config({"cc": {"algorithm": "none"}}, wl)
            for h in hosts:
                cfg["hosts"][h]["speed"] = "%dM" % int(speed * load)
            res, _, _ = trial(lab, cfg, "b12")
            ctx.host_info(res, cfg)
            af = kpi.algo_factor(coll, n)
            # The roofline at the full line rate: the 20 % the hosts leave idle is overhead
            # the ratio shows, the same in every iteration.
            roof = kpi.roofline_jct(0, size, af, speed * 1e6)
            if coll == "allreduce":
                times = [x / 1e6 for x in res["collectives"][0]["jct_us"]]
            else:
                times = a2a_times(res, n, p["iterations"])
            ratios += [(coll, kpi.jct_ratio(t, roof)) for t in times]
            now = time.monotonic() - t_start
            if now - samples[-1][0] >= p["interval_s"]:
                samples.append((now, snapshot(lab)))
        samples.append((time.monotonic() - t_start, snapshot(lab)))
    rows = []
    for t, snap in samples:
        for name, v in sorted(snap.items()):
            rows.append([round(t, 1), name, v["rss"], v["drops"], v["pfc_tx"], v["mbufs_free"]])
    ctx.table("soak", "12.1 Soak: each switch every interval (DUT)",
              ["t s", "switch", "RSS bytes", "drops", "PFC frames sent (incl. XON)",
               "mbufs free"], rows,
              "Resident memory from /proc of each lsw process; the counters from its RPC.")
    series = {}
    for name in sorted(samples[0][1]):
        pts = [(t, s[name]["rss"]) for t, s in samples]
        slope = kpi.slope_per_hour(pts)
        ctx.kpi("memory slope", round(slope, 3), "MB/h", kpi.DUT, switch=name,
                samples=len(pts))
        ctx.kpi("memory", pts[-1][1], "bytes RSS", kpi.DUT, switch=name)
        d = samples[-1][1][name]["drops"] - samples[0][1][name]["drops"]
        ctx.kpi("drops during the soak", d, "packets", kpi.DUT, switch=name)
        m0, m1 = samples[0][1][name]["mbufs_free"], samples[-1][1][name]["mbufs_free"]
        ctx.kpi("free mbufs, start and end", "%d / %d" % (m0, m1), "mbufs", kpi.DUT,
                switch=name)
        if slope > 1.0:
            ctx.anomaly("12.2 %s: memory slope %.2f MB/h over a %d s soak (the draft's "
                        "threshold is 1 MB/h; a short soak's slope is mostly start-up)" % (
                            name, slope, p["duration_s"]))
        ctx.check("12.1 %s: no drop during the soak" % name, 0, d, d == 0)
        series[name] = ([t for t, _ in pts], [b / 1e6 for _, b in pts])
    for coll in ("allreduce", "alltoall"):
        xs = [r for c, r in ratios if c == coll]
        if len(xs) >= 2:
            ctx.kpi("JCT ratio mean", round(statistics.mean(xs), 4), "", kpi.ENDPOINT,
                    collective=coll, iterations=len(xs))
            ctx.kpi("JCT ratio sigma", round(statistics.stdev(xs), 4), "", kpi.ENDPOINT,
                    collective=coll)
            for x in xs:
                ctx.repetition("JCT ratio %s" % coll, x)
    ctx.figure("lines", "rss", "12.2 Resident memory of each lsw over the soak", "time (s)",
               "RSS (MB)", series,
               "Flat is the goal: the draft reports a slope above 1 MB/h.")
