# SPDX-License-Identifier: BSD-3-Clause
"""ecmp: N equal flows from one host to another across
a leaf with K uplinks. Hashing collides when entropy is low: over many seeds the busiest
uplink carries E[max] flows (3.54 for 8 flows on 4 uplinks, against 2 ideally), so the last
flow, and the collective, takes about 1.77 times as long; adaptive modes spread the flows
evenly.

Fabric: h0 on leaf0, whose 4 uplinks (2 to each of 2 spines) are the bottleneck (the hosts'
links are as fast as all of them together; the spines' links to leaf1 faster still). The
flows differ only in their UDP source port, as QPs between two NICs do. For each seed of
`hash`, leaf0's ECMP seed changes through config.set and the hosts run again; flows per
uplink come from leaf0's ecmp.stats (bytes per member / bytes per flow)."""
from . import common
from .run import Lab
from .topo import Fabric


def fabric(sc, rundir, mode):
    u = sc["uplink_speed"]
    fab = Fabric("ecmp-" + mode, rundir, u * sc["k"], sc["mtu"])
    for n in ("leaf0", "leaf1", "spine0", "spine1"):
        fab.switch(n)
    for i in range(sc["k"]):
        fab.link("leaf0", "spine%d" % (i % 2), u)
    for j in range(2):
        fab.link("leaf1", "spine%d" % j, u * sc["k"])
    fab.host("h0", "leaf0", u * sc["k"])
    fab.host("h1", "leaf1", u * sc["k"])
    return fab


def segments(rows, members, idle_s):
    """Split sampled member byte counters into bursts of traffic separated by at least
    @idle_s without a byte: each burst's bytes per member."""
    out, start, last_change, prev = [], None, None, None
    for t, g in rows:
        cur = [g[m] for m in members]
        if prev is not None and cur != prev:
            if start is None:
                start = prev
            last_change = (t, cur)
        elif start is not None and last_change and t - last_change[0] >= idle_s:
            out.append([b - a for a, b in zip(start, last_change[1])])
            start, last_change = None, None
        prev = cur
    if start is not None and last_change:
        out.append([b - a for a, b in zip(start, last_change[1])])
    return out


def run(sc, rep, rundir, quick):
    q = sc["quick"] if quick else {}
    n, k, size = sc["n"], sc["k"], q.get("size", sc["size"])
    exp = sc["expect"]
    flow_s = common_bytes(size) * 8 / (sc["uplink_speed"] * 1e6)
    jcts, maxes, ratios, ideal = {}, {}, {}, {}
    for mode, ecmp in sc["modes"].items():
        # Groups of n flows, one after the other with an idle gap between: each group is
        # other QPs, other UDP source ports, so another draw of the hash (as another seed
        # would be). An adaptive mode's flows start stagger_us apart within their group, so
        # that a flow's load shows in the uplinks' qualities before the next one picks.
        groups = q.get("seeds", sc["seeds"]) if ecmp["mode"] == "hash" else \
            q.get("runs", sc["runs"])
        gap = ecmp.get("stagger_us", 0)
        period_us = int((n * flow_s * 1.5 + 0.1) * 1e6) + (n - 1) * gap
        wl = [{"type": "flow", "src": "h0", "dst": "h1", "size": size,
               "start_us": g * period_us + i * gap} for g in range(groups) for i in range(n)]
        ideal[mode] = ideal_jct(n, k, flow_s, gap / 1e6) * 1000
        fab = fabric(sc, rundir, mode)
        prefix = fab.host_ip("h1") + "/32"
        frag = {"ECMP": {"GLOBAL": dict(sc["ecmp_global"], mode=ecmp["mode"])}}
        if sc.get("ecn"):  # DCQCN's marks on the uplinks' queues
            e = sc["ecn"]
            frag["WRED_PROFILE"] = {"LAB": {
                "ecn": "ecn_green", "wred_green_enable": "true",
                "green_min_threshold": e["kmin"], "green_max_threshold": e["kmax"],
                "green_drop_probability": str(e["pmax"])}}
        cfgs = {s: fab.switch_config(s, frag) for s in fab.switches}
        if sc.get("ecn"):
            cfgs["leaf0"]["QUEUE"] = {"%s|3" % ln["a_port"]: {"wred_profile": "LAB"}
                                      for ln in fab.links if ln["a"] == "leaf0" and
                                      fab.is_switch(ln["b"])}
        if ecmp.get("rebalance"):  # on leaf0's group to h1, the one under study
            cfgs["leaf0"]["ECMP"][prefix] = {"mode": ecmp["mode"], "rebalance": True}
        hosts = fab.host_config({"cc": sc["cc"]}, wl, {"settle_ms": 20, "linger_ms": 10})

        def sample(clients):
            gr = next(g for g in clients["leaf0"].call("ecmp.stats")["groups"]
                      if g["prefix"] == prefix)
            return {m["ip"]: m["BYTES"] for m in gr["members"]}
        with Lab(fab, cfgs) as lab:
            res, rows = lab.hosts(hosts, name="hosts-" + mode, sample=sample, interval=0.005)
            rep.commands.extend(lab.commands)
        members = sorted(rows[0][1]) if rows else []
        bursts = segments(rows, members, min(0.05, period_us / 4e6))
        msgs = res["messages"]["rows"]
        jcts[mode], maxes[mode], ratios[mode] = [], [], []
        for g in range(groups):
            rows_g = [r for r in msgs if (r[0] - 0x100) // n == g]
            if len(rows_g) == n:
                jcts[mode].append(max(r[3] + r[4] for r in rows_g) / 1000 -
                                  min(r[3] for r in rows_g) / 1000)
        for per in bursts:
            flow = sum(per) / n
            if flow > 0:
                maxes[mode].append(max(per) / flow)
                ratios[mode].append(max(per) / (sum(per) / len(per)))
        rep.check("%s: every flow completes" % mode, n * groups, res["messages_done"],
                  res["messages_done"] == n * groups)
        rep.check("%s: a burst of traffic per group" % mode, groups, len(bursts),
                  len(bursts) == groups)
    e_max = {m: sum(v) / max(1, len(v)) for m, v in maxes.items()}
    # --quick runs 3 groups of short flows: one flowlet moved late weighs more in each
    # group's bytes, so its balance bound is its own (expect.quick).
    if quick:
        exp = dict(exp, **exp.get("quick", {}))
    jct = {m: sum(v) / max(1, len(v)) / ideal[m] for m, v in jcts.items()}
    for mode, ecmp in sc["modes"].items():
        rep.metrics.setdefault("modes", {})[mode] = {
            "groups": len(jcts[mode]), "mean_max_flows_per_uplink": round(e_max[mode], 3),
            "mean_max_over_mean": round(sum(ratios[mode]) / max(1, len(ratios[mode])), 3),
            "mean_jct_over_ideal": round(jct[mode], 3),
            "jct_ms": [round(j, 2) for j in jcts[mode]]}
        if ecmp["mode"] == "hash":
            rep.check("hash: E[max flows per uplink] over %d draws" % len(maxes[mode]),
                      "%.2f +- 10%%" % exp["hash_e_max"], round(e_max[mode], 2),
                      abs(e_max[mode] - exp["hash_e_max"]) <= 0.1 * exp["hash_e_max"])
            rep.check("hash: JCT / ideal (mean)", "about %.2f (+-20%%)" % exp["hash_jct"],
                      round(jct[mode], 2),
                      abs(jct[mode] - exp["hash_jct"]) <= 0.2 * exp["hash_jct"], rate=True)
        else:
            mm = sum(ratios[mode]) / max(1, len(ratios[mode]))
            rep.check("%s: max/mean bytes per uplink" % mode,
                      "<= %.2f" % exp["adaptive_max_mean"], round(mm, 3),
                      mm <= exp["adaptive_max_mean"], rate=True)
            rep.check("%s: JCT / ideal (mean)" % mode, "<= %.2f" % exp["adaptive_jct"],
                      round(jct[mode], 2), jct[mode] <= exp["adaptive_jct"], rate=True)
    rep.note("%d flows of %s from h0 to h1 per group; %d uplinks of %d Mb/s; ideal JCT %s." % (
        n, size, k, sc["uplink_speed"], ", ".join("%.1f ms (%s)" % (v, m)
                                                  for m, v in ideal.items())))
    rep.bars("uplinks", "Flows on the busiest uplink (mean over groups)",
             {m: {"busiest uplink": e_max[m], "ideal": n / k} for m in sc["modes"]},
             "Random hashing puts more flows on some uplink than on others; the busiest one "
             "decides when the last flow ends. Adaptive modes reach the ideal N/K.",
             "flows")
    rep.cdf("jct_cdf", "JCT over groups, per mode", "JCT / ideal",
            {m: [j / ideal[m] for j in v] for m, v in jcts.items()},
            "Each group of flows is another draw of the hash: some are lucky, most are "
            "not. Adaptive modes finish near the ideal every time.")
    rep.csv("jct", ["mode", "group", "jct_ms"],
            [(m, i, jcts[m][i]) for m in jcts for i in range(len(jcts[m]))])


def ideal_jct(n, k, flow_s, gap_s):
    """A true lower bound on a group's JCT (s) with perfect balance: flow j starts at j *
    @gap_s; a flow takes one uplink at a time (no faster than @flow_s alone), so while only
    a flows have started the k uplinks carry at most min(a, k) flows' worth. The flows that
    start at or after j's start cannot end before that capacity has carried them: the bound
    is the worst j. (Adding the whole stagger to the unstaggered bound, as the lab did,
    overstated it: late flows overlap the early ones' tails, and JCT / ideal 0.83 was
    measured.)"""
    def fill(m):
        """Time for m flows started @gap_s apart to get m @flow_s of uplink time."""
        need, t, a = m * flow_s, 0.0, 1 if gap_s > 0 else m
        while True:
            rate = min(a, k)
            step = gap_s if a < m else float("inf")
            if rate * step >= need:
                return t + need / rate
            need -= rate * step
            t += step
            a += 1
    return max(j * gap_s + fill(n - j) for j in range(n))


def common_bytes(s):
    s = str(s)
    for unit, mult in (("KB", 1024), ("MB", 1 << 20), ("B", 1)):
        if s.endswith(unit):
            return int(float(s[:-len(unit)]) * mult)
    return int(s)
