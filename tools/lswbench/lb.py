# SPDX-License-Identifier: BSD-3-Clause
"""§8 load balancing on lsw-lab's ECMP fabric (lswlab.ecmp.fabric: leaf0's K uplinks to two
spines are the bottleneck): Q QPs from h0 to h1; each uplink's load is what leaf0's ECMP
decision gave it (ecmp.stats BYTES, DUT-reported); JFI and MMR over the K uplinks (§8.4).
8.1 compares the 5-tuple hash with the hash plus the RoCE destination QP over Q, a new hash
seed per draw; 8.2 sweeps the flowlet inactivity time; 8.3 sprays packets."""
from lswlab import ecmp
from lswlab.run import Lab

from . import kpi
from .base import size_bytes, switch_configs
from .rdma import retransmits, trial


def uplink_bytes(lab, prefix):
    g = next(g for g in lab.switches["leaf0"].rpc("ecmp.stats")["groups"]
             if g["prefix"] == prefix)
    return [m["BYTES"] for m in g["members"]]


def run_mode(ctx, mode, qps, draws, ecmp_extra, wl_extra=None):
    """Every Q of @qps, @draws times each (a new seed per draw) under one ECMP @mode: rows
    of (q, draw, loads per uplink, results)."""
    p = ctx.p
    sc = {"uplink_speed": p["uplink_speed"], "k": p["k"], "mtu": p["mtu"]}
    fab = ecmp.fabric(sc, ctx.rundir, mode.replace("_", "-"))
    ctx.fabric_info(fab)
    prefix = fab.host_ip("h1") + "/32"
    glob = dict({"mode": mode}, **ecmp_extra)
    out = []
    with Lab(fab, switch_configs(ctx, fab, {"ECMP": {"GLOBAL": glob}})) as lab:
        ctx.dut_info(lab)
        for q in qps:
            for d in range(draws):
                lab.switches["leaf0"].rpc("config.set", {"config": {"ECMP": {"GLOBAL": dict(
                    glob, seed=1000 + d)}}})
                before = uplink_bytes(lab, prefix)
                flow = dict({"type": "flow", "src": "h0", "dst": "h1", "size": p["size"]},
                            **(wl_extra or {}))
                cfg = fab.host_config({"cc": {"algorithm": "none"}}, [flow] * q,
                                      {"seed": d + 1})
                res, _, drops = trial(lab, cfg, "b8")
                ctx.host_info(res, cfg)
                loads = [b - a for a, b in zip(before, uplink_bytes(lab, prefix))]
                out.append((q, d, loads, res, drops))
    return out


def report(ctx, name, runs, label):
    """KPIs, a table and a figure of @runs [(key, draw, loads, results, drops)] grouped by
    their key, named @label."""
    p = ctx.p
    u = p["uplink_speed"] * 1e6
    groups = {}
    rows = []
    for k, d, loads, res, drops in runs:
        j, m = kpi.jfi(loads), kpi.mmr(loads)
        sent = sum(x["bytes_sent"] for x in res["qps"])
        ideal = sent * 8 / (u * p["k"])
        jct = max(x["fct_us"]["max"] for x in res["qps"] if x["fct_us"]["count"]) / 1e6
        ooo = sum(h["counters"]["out_of_sequence"] for h in res["hosts"].values())
        rtx = retransmits(res)
        groups.setdefault(k, []).append((j, m, jct / ideal, ooo, rtx))
        ctx.repetition("JFI %s" % k, j)
        rows.append([k, d, " / ".join(str(x) for x in loads),
                     round(j, 4), round(m, 3), round(jct / ideal, 3), ooo, rtx, drops])
    bars = {}
    for k, xs in groups.items():
        n = len(xs)
        mj = sum(x[0] for x in xs) / n
        mm = sum(x[1] for x in xs) / n
        ctx.kpi("JFI over uplinks", round(mj, 4), "", kpi.DUT, **{label: k, "draws": n})
        ctx.kpi("MMR over uplinks", round(mm, 3), "", kpi.DUT, **{label: k, "draws": n})
        ctx.kpi("completion / ideal", round(sum(x[2] for x in xs) / n, 3), "", kpi.TESTER,
                **{label: k})
        ctx.kpi("out-of-order packets", sum(x[3] for x in xs), "packets", kpi.TESTER,
                **{label: k})
        ctx.kpi("retransmitted packets", sum(x[4] for x in xs), "packets", kpi.TESTER,
                **{label: k})
        bars[str(k)] = {"JFI": mj, "1/MMR": 1 / mm}
    ctx.table(name, "%s %s: load per uplink (DUT), JFI, MMR" % (ctx.spec["section"], label),
              [label, "draw", "bytes per uplink", "JFI", "MMR", "completion / ideal",
               "OOO pkts", "retransmitted", "DUT drops"], rows,
              "Loads: leaf0's ecmp.stats BYTES per member, the uplinks to the spines; "
              "completion / ideal: the last QP's completion against all bytes at the "
              "uplinks' summed rate (tester).")
    ctx.figure("bars", name, "%s JFI and 1/MMR by %s" % (ctx.spec["section"], label), bars,
               "1.0 is perfect balance for both (JFI over the uplinks' bytes, MMR its "
               "busiest over the mean).", "index")


def common_scaling(ctx):
    p = ctx.p
    ctx.scaling("one leaf's %d uplinks at %d Mb/s to two spines (draft: 8-64 leaves); h0's "
                "link as fast as all of them; messages of %s; %d draws per point (a new hash "
                "seed each)" % (p["k"], p["uplink_speed"], p["size"], p["draws"]))
    ctx.r["comparability"] = {"N": 2, "placement": "h0 on leaf0, h1 on leaf1",
                              "B_acc": "%d Mb/s" % (p["uplink_speed"] * p["k"]),
                              "oversubscription": "1:1 at leaf0", "transport": "RoCEv2 RC",
                              "LB": ctx.p.get("modes") or ctx.p.get("mode")}


def t8_1(ctx):
    p = ctx.p
    common_scaling(ctx)
    ctx.scaling("lsw-host gives every QP its own UDP source port, so the 5-tuple already "
                "differs per QP; hash_qp adds the BTH destination QP (Meta's E-ECMP)")
    ctx.config("ECMP mode", p["modes"])
    runs = []
    for mode in p["modes"]:
        for q, d, loads, res, drops in run_mode(ctx, mode, p["qps"], p["draws"], {}):
            runs.append(("%s Q=%d" % (mode, q), d, loads, res, drops))
    report(ctx, "lb", runs, "mode, Q")


def t8_2(ctx):
    p = ctx.p
    common_scaling(ctx)
    n_msgs = max(1, size_bytes(p["size"]) // (32 << 10))
    ctx.scaling("each QP sends %d messages of 32 KB %d us apart, the gaps flowlets form at; "
                "inactivity times %s us (draft: 500 ns-2 us at 100G; x%d stretched)" % (
                    n_msgs, p["burst_gap_us"], ", ".join(map(str, p["gaps_us"])),
                    100000 // (p["uplink_speed"] * p["k"])))
    ctx.config("ECMP mode", p["mode"])
    runs = []
    for gap in p["gaps_us"]:
        for _, d, loads, res, drops in run_mode(
                ctx, p["mode"], [p["qps"]], p["draws"], {"inactivity_time": gap},
                {"size": "32KB", "count": n_msgs, "gap_us": p["burst_gap_us"]}):
            runs.append((gap, d, loads, res, drops))
    report(ctx, "flowlet", runs, "inactivity us")


def t8_3(ctx):
    p = ctx.p
    common_scaling(ctx)
    ctx.config("ECMP mode", p["modes"])
    runs = []
    for mode in p["modes"]:
        for _, d, loads, res, drops in run_mode(ctx, mode, [p["qps"]], p["draws"], {}):
            runs.append((mode, d, loads, res, drops))
    report(ctx, "spray", runs, "mode")
