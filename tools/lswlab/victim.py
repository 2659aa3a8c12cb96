# SPDX-License-Identifier: BSD-3-Clause
"""victim (the DCQCN paper's Fig. 1): two tiers, a shared uplink. Long
flows F1 (h0 to r1) and F2 (h1 to r2) run; then h2 and h3 burst into r2 too. r2's port
congests, its leaf pauses the spine, the spine's queue to that leaf fills and the spine
pauses the source leaf's uplink, where F1 waits behind the others although r1 is idle:
PFC spreads congestion upstream (head-of-line blocking). With DCQCN the senders slow down
and the pauses, and F1's loss, are shorter.

Fabric: leaf0 (h0-h3), leaf1 (r1, r2), two spines; leaf0 reaches leaf1's hosts through
spine0 alone (a static route), so that every flow shares that uplink."""
from . import common
from .run import Lab
from .topo import leaf_spine, merge

WIN_US = 20000  # F1's rate while the burst lasts, in windows of 20 ms


def pauses(clients):
    """Per switch and port: is it pausing its peer (tx) on priority 3 now."""
    out = {}
    for name, c in clients.items():
        for port, p in c.call("pfc.stats")["ports"].items():
            pr = p["priorities"].get("3")
            if pr is not None:
                out["%s %s" % (name, port)] = bool(pr["tx_pausing"])
    return out


def lanes(rows):
    """{label: [(start_ms, end_ms)]} of the time each port paused its peer."""
    out, since = {}, {}
    for t, r in rows:
        for k, v in r.items():
            out.setdefault(k, [])
            if v and k not in since:
                since[k] = t
            if not v and k in since:
                out[k].append((since.pop(k) * 1000, t * 1000))
    end = rows[-1][0] if rows else 0
    for k, t in since.items():
        out[k].append((t * 1000, end * 1000))
    return out


def one(sc, rep, case, rundir, quick):
    q = sc["quick"] if quick else {}
    c = sc["cases"][case]
    fab = leaf_spine("victim-" + case, rundir, 2, 2, 0, 1, sc["speed"],
                     sc.get("uplink_speed"), mtu=sc["mtu"])
    for h, leaf in (("h0", "leaf0"), ("h1", "leaf0"), ("h2", "leaf0"), ("h3", "leaf0"),
                    ("r1", "leaf1"), ("r2", "leaf1")):
        fab.host(h, leaf)
    spine_ip = next(ln["b_ip"] for ln in fab.links if ln["a"] == "leaf0" and ln["b"] == "spine0")
    cfgs = {}
    for s in fab.switches:
        frag = {}
        if c.get("ecn"):
            e = sc["ecn"]
            frag = {"WRED_PROFILE": {"LAB": {
                "ecn": "ecn_green", "wred_green_enable": "true", "green_min_threshold": e["kmin"],
                "green_max_threshold": e["kmax"], "green_drop_probability": str(e["pmax"])}},
                "QUEUE": {"%s|3" % p: {"wred_profile": "LAB"} for p in fab_ports(fab, s)}}
        frag = merge(merge(frag, sc.get("switch", {})), c.get("switch", {}))
        cfgs[s] = fab.switch_config(s, frag)
    for r in ("r1", "r2"):
        cfgs["leaf0"]["STATIC_ROUTE"][fab.host_ip(r) + "/32"] = {"nexthop": spine_ip}
    dur = q.get("long_ms", sc["long_ms"])
    bps = sc["speed"] * 1e6
    long_size = int(bps / 8 * dur / 1000)
    burst = q.get("burst", sc["burst"])
    start = q.get("burst_start_ms", sc["burst_start_ms"]) * 1000
    wl = [{"type": "flow", "src": "h0", "dst": "r1", "size": long_size},
          {"type": "flow", "src": "h1", "dst": "r2", "size": long_size},
          {"type": "incast", "senders": ["h2", "h3"], "receiver": "r2", "size": burst,
           "start_us": start}]
    hosts = fab.host_config({"cc": c["cc"]}, wl, {"sample_us": sc["sample_us"]})
    with Lab(fab, cfgs) as lab:
        res, rows = lab.hosts(hosts, sample=pauses, interval=0.005)
        d = {s: common.drops(sw) for s, sw in lab.switches.items()}
        # PFC frames each port sent on priority 3: a pause shorter than the sampling
        # interval is missed by the lanes, never by the counters.
        pfc = {"%s %s" % (s, port): p["priorities"]["3"]["PFC_3_TX_PKTS"]
               for s, sw in lab.switches.items()
               for port, p in sw.rpc("pfc.stats")["ports"].items() if "3" in p["priorities"]}
        rep.commands.extend(lab.commands)
    return res, rows, d, pfc


def fab_ports(fab, sw):
    return [ln[side + "_port"] for ln in fab.links for side in ("a", "b") if ln[side] == sw]


def run(sc, rep, rundir, quick):
    out = {}
    for case in sc["cases"]:
        res, rows, d, pfc = one(sc, rep, case, rundir, quick)
        rates = common.series(res, "tx_bps")
        f1, f2 = 0x100, 0x101
        xs, ys = rates.get(f1, ([], []))
        # F1 over the same windows before the burst and while it lasts (from the bursting
        # QPs' first post to their last completion): bytes over time, never samples.
        sp = common.spans(res)
        b0 = min(sp[qp][0] for qp in sp if qp not in (f1, f2))
        b1 = max(sp[qp][1] for qp in sp if qp not in (f1, f2))
        # Before: one window over the second half of the time before the burst, on the
        # sample grid (a sample short so that the grid's start still fits).
        step = common.sample_us(res)
        before = common.windows(res, b0 / 2, b0, [f1], step * int(b0 / 2 // step - 1))
        during = common.windows(res, b0, b1, [f1, f2], WIN_US)
        b = before[0][1][f1] if before else 0
        mean_during = sum(w[1][f1] for w in during) / max(1, len(during))
        f2_during = sum(w[1][f2] for w in during) / max(1, len(during))
        worst = min((w[1][f1] for w in during), default=0)
        ln = lanes(rows)
        paused_ms = {k: sum(e - s for s, e in v) for k, v in ln.items()}
        out[case] = {"f1_before_mbps": b / 1e6, "f1_min_during_mbps": worst / 1e6,
                     "f1_mean_during_mbps": mean_during / 1e6,
                     "f2_mean_during_mbps": f2_during / 1e6,
                     "f1_over_f2": mean_during / f2_during if f2_during else 0.0,
                     "burst_ms": [b0 / 1000, b1 / 1000],
                     "drops": sum(common.total(x) for x in d.values()),
                     "drop_reasons": {"%s %s" % (s, port): r for s, x in d.items()
                                      for port, r in x.items()},
                     "paused_ms": {k: round(v, 1) for k, v in paused_ms.items() if v},
                     "pfc_frames": {k: v for k, v in pfc.items() if v},
                     "messages_done": res["messages_done"], "messages": res["messages_posted"]}
        rep.metrics.setdefault("cases", {})[case] = out[case]
        rep.check("%s: every message completes" % case, out[case]["messages"],
                  out[case]["messages_done"], out[case]["messages_done"] == out[case]["messages"])
        rep.check("%s: no drop anywhere" % case, 0, out[case]["drops"], out[case]["drops"] == 0)
        names = {q["qpn"]: "%s → %s" % (q["src"], q["dst"]) for q in res["qps"]}
        label = {f1: "F1 " + names[f1], f2: "F2 " + names[f2]}
        rep.rates("rates_" + case, "Every flow's rate, %s" % case,
                  {label.get(qp, names[qp] + " (burst)"): (t, [y / 1e6 for y in v])
                   for qp, (t, v) in sorted(rates.items())}, {},
                  [(b0 / 1000, "burst starts"), (b1 / 1000, "burst ends")],
                  "Sent rate of each flow (Mb/s of RoCE payload), smoothed over 20 ms over "
                  "the raw samples (faint). F1 goes to the idle r1; F2 and the burst share "
                  "r2's link. With PFC alone F1 falls to the burst's share while the spine "
                  "pauses leaf0's uplink (head-of-line blocking); with DCQCN the burst's "
                  "senders slow down instead, nothing is paused, and F1 keeps the link.",
                  line=sc["speed"])
        t_max = rows[-1][0] * 1000 if rows else 1
        rep.lanes("pauses_" + case, "Ports pausing their peer (priority 3), %s" % case,
                  {k: v for k, v in sorted(ln.items()) if v} or {"(none)": []},
                  "Each bar is a port of a switch sending PFC XOFF to its peer: leaf1 pauses "
                  "the spine, then the spine pauses leaf0's uplink, then leaf0 pauses its "
                  "hosts: the pause climbs the tree, hop by hop. With DCQCN the lanes stay empty "
                  "or nearly.", t_max)
        rep.csv("pauses_" + case, ["t_s"] + sorted(rows[0][1]) if rows else ["t_s"],
                [[t] + [int(r[k]) for k in sorted(r)] for t, r in rows])
    pf, dc = out["pfc"], out["dcqcn"]
    exp = sc["expect"]
    # F1 against F2 over the same windows while the burst lasts: F2 shares r2's link with
    # the burst, F1's receiver is idle. With PFC alone F1 is held to about F2's rate (it
    # waits behind the same paused queue: 1.0-1.3 here); F1 against its own rate before
    # the burst would judge the hosts' start, which a busy machine delays.
    rep.check("pfc: F1, to the idle r1, held near F2's rate during the burst",
              "F1/F2 <= %.1f" % exp["pfc_f1_over_f2_max"],
              "%.2f (%.0f vs %.0f Mb/s)" % (pf["f1_over_f2"], pf["f1_mean_during_mbps"],
                                           pf["f2_mean_during_mbps"]),
              pf["f1_over_f2"] <= exp["pfc_f1_over_f2_max"], rate=True)
    up = "spine0 Ethernet0"
    rep.check("pfc: the pause reached leaf0's uplink (two hops up)", "> 0 PFC frames",
              pf["pfc_frames"].get(up, 0), pf["pfc_frames"].get(up, 0) > 0)
    # The DCQCN paper's claim, in the two figures that do not depend on the machine's
    # speed: the fabric pauses far less (every PFC frame of every port, counted by the
    # switches, with a floor so that PFC alone gives something to compare), ...
    n_pf, n_dc = sum(pf["pfc_frames"].values()), sum(dc["pfc_frames"].values())
    rep.check("dcqcn: the fabric pauses far less than with PFC alone (PFC frames, all ports)",
              "<= %.2f x pfc's, pfc's >= %d" % (exp["pause_ratio_max"], exp["pfc_pauses_min"]),
              "%d vs %d" % (n_dc, n_pf),
              n_pf >= exp["pfc_pauses_min"] and n_dc <= exp["pause_ratio_max"] * n_pf)
    # ... and the victim is no longer treated as congested: F1 (to the idle r1) against F2
    # (which shares r2 with the burst), over the same windows while the burst lasts. With
    # PFC alone both wait behind the same paused queue (about 1.2-1.3 here); with DCQCN
    # only F2 and the burst slow down (about 1.8).
    rep.check("dcqcn: F1 keeps more of the link than F2 during the burst",
              "F1/F2 >= %.1f (pfc's shown)" % exp["f1_over_f2_min"],
              "%.2f (pfc: %.2f)" % (dc["f1_over_f2"], pf["f1_over_f2"]),
              dc["f1_over_f2"] >= exp["f1_over_f2_min"], rate=True)
