# SPDX-License-Identifier: BSD-3-Clause
"""dcqcn: 2-4 long flows into one port, started apart. With DCQCN and
ECN the senders settle on a fair share (Jain's index over the last half >= 0.95), the queue
is held near the marking thresholds, and the switch pauses far less than with PFC alone."""
from . import common
from .run import Lab
from .topo import star


def one(sc, rep, case, n, rundir, quick):
    c = sc["cases"][case]
    q = sc["quick"] if quick else {}
    fab = star("dcqcn-%s" % case, rundir, n + 1, sc["speed"], sc["mtu"])
    e = sc["ecn"]
    frag = {"WRED_PROFILE": {"LAB": {
        "ecn": "ecn_green", "wred_green_enable": "true", "green_min_threshold": e["kmin"],
        "green_max_threshold": e["kmax"], "green_drop_probability": str(e["pmax"])}},
        "QUEUE": {"Ethernet0|3": {"wred_profile": "LAB"}}} if c["ecn"] else {}
    gap = q.get("start_gap_us", sc["start_gap_us"])
    wl = [{"type": "flow", "src": "h%d" % i, "dst": "h0", "size": q.get("size", sc["size"]),
           "start_us": (i - 1) * gap} for i in range(1, n + 1)]
    hosts = fab.host_config({"cc": c["cc"]}, wl, {"sample_us": sc["sample_us"]})
    with Lab(fab, {"leaf": fab.switch_config("leaf", frag)}) as lab:
        res, qrows = lab.hosts(hosts, sample=common.queue_sampler("leaf", "Ethernet0"))
        sw = lab.switches["leaf"]
        d, pauses = common.drops(sw), common.pfc_sent(sw)
        rep.commands.extend(lab.commands)
    return res, qrows, d, pauses


def size_bytes(s):
    """ "5KB" -> 5120 (binary units, as lsw reads them)."""
    s = str(s)
    for unit, mult in (("KB", 1024), ("MB", 1 << 20), ("B", 1)):
        if s.endswith(unit):
            return int(float(s[:-len(unit)]) * mult)
    return int(s)


def run(sc, rep, rundir, quick):
    q = sc["quick"] if quick else {}
    n = q.get("n", sc["n"])
    e, exp = sc["ecn"], sc["expect"]
    kmax = size_bytes(e["kmax"])
    out, queues = {}, {}
    for case in sc["cases"]:
        # A case for comparison only (NVIDIA's profile beside the paper's) is left out of
        # --quick: it has no check.
        if quick and sc["cases"][case].get("report_only"):
            continue
        res, qrows, d, pauses = one(sc, rep, case, n, rundir, quick)
        rates = common.rates_last_half(res)
        t_end = max((r[0] for r in res["samples"]["rows"]), default=0) / 1e6
        late = [v for t, v in qrows if t_end / 2 <= t <= t_end]
        out[case] = {"jain": common.jain(rates.values()), "pause_frames": pauses,
                     "drops": common.total(d), "drop_reasons": d,
                     "queue_within_kmax": sum(1 for v in late if v <= kmax) / max(1, len(late)),
                     "rates_mbps": [round(r / 1e6, 1) for r in rates.values()],
                     "messages_done": res["messages_done"], "messages": res["messages_posted"]}
        queues[case] = ([t * 1000 for t, _ in qrows], [v / 1024 for _, v in qrows])
        rep.csv("queue_" + case, ["t_s", "bytes"], qrows)
        rep.csv("samples_" + case, res["samples"]["columns"], res["samples"]["rows"])
        if case == "dcqcn":
            plots = (("tx_bps", "tx_bps", "Each flow's rate (DCQCN)", "Mb/s", 1e-6,
                      "The flows start apart at line rate; CNPs cut each newcomer and the "
                      "others, and they settle on equal shares of the receiver's link."),
                     ("alpha", "alpha", "Each flow's alpha (DCQCN)", "alpha", 1,
                      "Alpha tracks how often CNPs arrive: it rises while the queue is marked "
                      "and decays without marks."))
        elif sc["cases"][case].get("report_only"):
            plots = (("tx_bps", "tx_bps_" + case, "Each flow's rate (%s)" % case, "Mb/s", 1e-6,
                      "The same flows under NVIDIA's firmware profile, for comparison (no "
                      "check): its alpha decays fast (g 5/1024 every microsecond, stretched), "
                      "so a CNP cuts a rate by little, and shares that start unequal can stay "
                      "unequal for the whole run (its Jain's index is in results.json, "
                      "metrics.cases)."),)
        else:
            plots = ()
        if plots:
            for col, name, title, ylabel, scale, about in plots:
                rep.lines(name, title, "time (ms)", ylabel,
                          {"QP %d" % qp: (xs, [y * scale for y in ys])
                           for qp, (xs, ys) in common.series(res, col).items()}, about)
        rep.metrics.setdefault("cases", {})[case] = out[case]
        rep.check("%s: every message completes" % case, out[case]["messages"],
                  out[case]["messages_done"], out[case]["messages_done"] == out[case]["messages"])
        rep.check("%s: no drop" % case, 0, common.drops_measured(out[case]["drop_reasons"]),
                  out[case]["drops"] == 0)
    rep.lines("queue", "The receiver's egress queue", "time (ms)", "KB", queues,
              "With DCQCN the queue stays near the ECN thresholds (kmin %s, kmax %s); with "
              "PFC alone it climbs to where the switch pauses its senders. Sampled every "
              "10 ms from lsw's queue.stats." % (e["kmin"], e["kmax"]))
    dc, pf = out["dcqcn"], out["pfc"]
    rep.check("dcqcn: Jain's index of the rates, last half", ">= %.2f" % exp["jain_min"],
              round(dc["jain"], 3), dc["jain"] >= exp["jain_min"])
    rep.check("dcqcn: queue at or under kmax, last half",
              ">= %.0f%% of samples" % (100 * exp["within_kmax_min"]),
              "%.0f%%" % (100 * dc["queue_within_kmax"]),
              dc["queue_within_kmax"] >= exp["within_kmax_min"])
    rep.check("dcqcn: pauses, against PFC alone", "<= %.2f x" % exp["pause_ratio_max"],
              "%d vs %d" % (dc["pause_frames"], pf["pause_frames"]),
              dc["pause_frames"] <= exp["pause_ratio_max"] * pf["pause_frames"])
