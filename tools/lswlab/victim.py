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
from .topo import leaf_spine


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
    q = sc["quick"] if quick else {}
    start_ms = q.get("burst_start_ms", sc["burst_start_ms"])
    out = {}
    for case in sc["cases"]:
        res, rows, d, pfc = one(sc, rep, case, rundir, quick)
        rates = common.series(res, "tx_bps")
        f1, f2 = 0x100, 0x101
        xs, ys = rates.get(f1, ([], []))
        before = [y for x, y in zip(xs, ys) if start_ms * 0.5 <= x < start_ms]
        during = [y for x, y in zip(xs, ys) if start_ms <= x < start_ms + sc["window_ms"]]
        b = sum(before) / max(1, len(before))
        worst = min(during) if during else 0
        mean_during = sum(during) / max(1, len(during))
        ln = lanes(rows)
        paused_ms = {k: sum(e - s for s, e in v) for k, v in ln.items()}
        out[case] = {"f1_before_mbps": b / 1e6, "f1_min_during_mbps": worst / 1e6,
                     "f1_mean_during_mbps": mean_during / 1e6,
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
        rep.lines("rates_" + case, "F1 (to idle r1) and F2 (to r2), %s" % case, "time (ms)",
                  "Mb/s", {"F1": (xs, [y / 1e6 for y in ys]),
                           "F2": (rates.get(f2, ([], []))[0],
                                  [y / 1e6 for y in rates.get(f2, ([], []))[1]])},
                  "The burst into r2 starts at %d ms. F1 goes to an idle receiver, yet it "
                  "stops while the spine pauses leaf0's uplink: it waits behind traffic to "
                  "r2 (head-of-line blocking). F2 shares r2's link with the burst." % start_ms,
                  marks=[(start_ms, "burst")])
        t_max = rows[-1][0] * 1000 if rows else 1
        rep.lanes("pauses_" + case, "Ports pausing their peer (priority 3), %s" % case,
                  {k: v for k, v in sorted(ln.items()) if v} or {"(none)": []},
                  "Each bar is a port of a switch sending PFC XOFF to its peer: leaf1 pauses "
                  "the spine, then the spine pauses leaf0's uplink, then leaf0 pauses its "
                  "hosts: the pause climbs the tree, hop by hop.", t_max)
        rep.csv("pauses_" + case, ["t_s"] + sorted(rows[0][1]) if rows else ["t_s"],
                [[t] + [int(r[k]) for k in sorted(r)] for t, r in rows])
    pf, dc = out["pfc"], out["dcqcn"]
    exp = sc["expect"]
    rep.check("pfc: F1 falls during the burst though r1 is idle",
              "min < %.0f%% of before" % (100 * exp["f1_drop_max"]),
              "%.0f of %.0f Mb/s" % (pf["f1_min_during_mbps"], pf["f1_before_mbps"]),
              pf["f1_min_during_mbps"] < exp["f1_drop_max"] * pf["f1_before_mbps"], rate=True)
    up = "spine0 " + "%s" % "Ethernet0"
    rep.check("pfc: the pause reached leaf0's uplink (two hops up)", "> 0 PFC frames",
              pf["pfc_frames"].get(up, 0), pf["pfc_frames"].get(up, 0) > 0)
    # labs.md 1: with DCQCN the fall is shorter. What is measured without sampling is how
    # long the spine held leaf0's uplink paused: its PFC frames (one per refresh).
    rep.check("dcqcn: leaf0's uplink paused for less (PFC frames from the spine)",
              "< pfc's %d" % pf["pfc_frames"].get(up, 0), dc["pfc_frames"].get(up, 0),
              dc["pfc_frames"].get(up, 0) < pf["pfc_frames"].get(up, 0))
