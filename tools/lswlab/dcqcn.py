# SPDX-License-Identifier: BSD-3-Clause
"""dcqcn (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015,
and the fluid model of Zhu et al., "ECN or Delay", CoNEXT
2016): N long flows into one port, started apart, through a switch that marks ECN on the
receiver's queue with the paper's curve. With DCQCN the senders settle on equal shares of
a full link and the queue sits between the marking thresholds. Each DCQCN run is held
against the fluid model (fluid.py) for the same parameters; NVIDIA's and the HPCC
simulator's parameter sets get the same measurements; PFC alone, with no congestion control,
is the comparison for pauses.

Every rate is measured over 100 ms windows on one grid for all flows (common.windows);
windows in which the emulator itself stalled are counted and left out."""
import statistics

from . import common, fluid
from .run import Lab
from .topo import merge, star

QUEUE_US = 100  # the queue's sample interval: 3 frames of 4 KB at 1 Gb/s


def size_bytes(s):
    """ "5KB" -> 5120 (binary units, as lsw reads them)."""
    s = str(s)
    for unit, mult in (("KB", 1024), ("MB", 1 << 20), ("B", 1)):
        if s.endswith(unit):
            return int(float(s[:-len(unit)]) * mult)
    return int(s)


def flow_sizes(sc, fab, n):
    """Bytes for each of @n flows started start_gap_us apart so that, at fair shares of the
    link's payload rate, all end together_us after the last one starts."""
    payload = sc["speed"] * 1e6 / 8 * sc["mtu"] / (fab.frame() + common.WIRE_EXTRA)
    gap, together = sc["start_gap_us"] / 1e6, sc["together_us"] / 1e6
    return [int(payload * (sum(gap / k for k in range(i + 1, n)) + together / n))
            for i in range(n)]


def one(sc, rep, case, n, rundir):
    """One run: @n flows of @case. Its hosts' results, the queue samples, drops, pauses."""
    c = sc["cases"][case]
    fab = star("dcqcn-%s-%d" % (case, n), rundir, n + 1, sc["speed"], sc["mtu"])
    e = sc["ecn"]
    frag = {"WRED_PROFILE": {"LAB": {
        "ecn": "ecn_green", "wred_green_enable": "true", "green_min_threshold": e["kmin"],
        "green_max_threshold": e["kmax"], "green_drop_probability": str(e["pmax"])}},
        "QUEUE": {"Ethernet0|3": {"wred_profile": "LAB"}}} if c["ecn"] else {}
    frag = merge(frag, c.get("switch", {}))
    wl = [{"type": "flow", "src": "h%d" % (i + 1), "dst": "h0", "size": size,
           "start_us": i * sc["start_gap_us"]} for i, size in enumerate(flow_sizes(sc, fab, n))]
    hosts = fab.host_config(merge({"cc": c["cc"]}, sc.get("host", {})), wl,
                            {"sample_us": sc["sample_us"]})
    # The receiver's queue from the switch's timeline recorder, every QUEUE_US: it swings
    # from 0 to kmax within a few ms, so a mean over 10 ms samples read by RPC moved 14-53%
    # from run to run with where the samples fell.
    tl = {"leaf": common.timeline(["Ethernet0"], QUEUE_US, ("queues",))}
    with Lab(fab, {"leaf": fab.switch_config("leaf", frag)}, tl) as lab:
        res, _ = lab.hosts(hosts)
        sw = lab.switches["leaf"]
        d, pauses = common.drops(sw), common.pfc_sent(sw)
        rep.commands.extend(lab.commands)
    qrows, lost = common.timeline_queue(lab.timelines()["leaf"], "Ethernet0",
                                        res["start_unix_ns"])
    rep.topology(fab)
    return fab, res, qrows, lost, d, pauses


def measure(sc, fab, res, qrows):
    """The run's figures, all over the same windows (common.windows)."""
    win, line = sc["window_us"], sc["speed"] * 1e6
    sp = common.spans(res)
    qpns = sorted(sp)
    wf = common.wire_factor(res)
    starts = [sp[q][0] for q in qpns]
    t_all, t_end = max(starts), min(sp[q][1] for q in qpns)
    out = {"qpns": qpns, "starts_us": starts, "ends_us": [sp[q][1] for q in qpns],
           "together_us": [t_all, t_end]}
    # The first flow alone, until the second starts.
    lone = common.windows(res, starts[0], starts[1] if len(qpns) > 1 else sp[qpns[0]][1],
                          qpns[:1], win)
    out["lone"] = [w[1][qpns[0]] * wf[qpns[0]] / line for w in lone if common.clean(w[2])]
    # Every flow sending: utilization (wire bits of all over the line) and Jain's index.
    ws = common.windows(res, t_all, t_end, qpns, win)
    rows = []
    for a, rates, stall in ws:
        rows.append({"t_us": a, "util": sum(rates[q] * wf[q] for q in qpns) / line,
                     "jain": common.jain(rates.values()), "clean": common.clean(stall),
                     "rates": [rates[q] for q in qpns], "stall_us": stall})
    out["windows"] = rows
    good = [r for r in rows if r["clean"]]
    out["stalled_windows"] = len(rows) - len(good)
    # Converged: from the first window after which every clean window is fair.
    conv = None
    for i, r in enumerate(good):
        if all(x["jain"] >= sc["expect"]["jain_min"] for x in good[i:]):
            conv = r["t_us"] - t_all
            break
    out["converged_us"] = conv
    after = [r for r in good if conv is not None and r["t_us"] - t_all >= conv]
    out["util_min"] = min((r["util"] for r in after), default=None)
    out["util_median"] = statistics.median([r["util"] for r in after]) if after else None
    out["jain_min"] = min((r["jain"] for r in after), default=None)
    # Steady state: the second half of the time every flow sends.
    mid = (t_all + t_end) / 2
    steady = [r for r in good if r["t_us"] >= mid]
    out["steady_rates_bps"] = [statistics.mean(r["rates"][i] * wf[q] for r in steady)
                               if steady else None for i, q in enumerate(qpns)]
    # The queue over the same windows as the rates: time-weighted, the stalled ones out
    # (a stalled emulator sends nothing and the queue drains for the machine's reasons).
    qspans = [(r["t_us"] / 1e6, min(r["t_us"] + win, t_end) / 1e6) for r in steady]
    out["queue_mean"], out["queue_zero"] = common.step_mean(qrows, qspans)
    return out


def model(res, m, ecn, sc, fab):
    """The fluid model for the run's own parameters and start times: per flow its steady
    rate (wire bits/s) and the steady queue (bytes), over the same span."""
    conf = next(h["dcqcn"] for h in res["hosts"].values() if "dcqcn" in h)
    starts = [t / 1e6 for t in m["starts_us"]]
    t_all, t_end = [t / 1e6 for t in m["together_us"]]
    o = fluid.for_lab(conf, sc["speed"] * 1e6, fab.frame(), fab.frame() + common.WIRE_EXTRA,
                      starts, t_end + 0.05, ecn)
    mid = (t_all + t_end) / 2
    idx = [i for i, t in enumerate(o["t"]) if mid <= t <= t_end]
    o["steady_rates_bps"] = [statistics.mean(f[i] for i in idx) for f in o["rc"]]
    o["queue_mean"] = statistics.mean(o["q"][i] for i in idx)
    return o


def rel(a, b):
    return abs(a - b) / b if b else float("inf")


def plots(rep, sc, case, n, res, m, mod, qrows):
    """Rates (smoothed over 20 ms, the raw samples faint), alpha and the queue, each beside
    the fluid model's prediction, with the flows' starts marked."""
    names = {q["qpn"]: "%s → %s" % (q["src"], q["dst"]) for q in res["qps"]}
    marks = [(s / 1000, "%s starts" % names[q]) for q, s in zip(m["qpns"], m["starts_us"])]
    tx = common.series(res, "tx_bps")
    al = common.series(res, "alpha")
    model_rate = {}
    if mod:
        ts = [t * 1000 for t in mod["t"]]
        model_rate = {"model " + names[q]: (ts, [r / 1e6 for r in mod["rc"][i]])
                      for i, q in enumerate(m["qpns"])}
    tag = "%s N=%d" % (case, n)
    rep.rates("rate_%s_%d" % (case, n), "Each flow's rate (%s)" % tag,
              {names[q]: (xs, [y / 1e6 for y in ys]) for q, (xs, ys) in tx.items()},
              model_rate, marks,
              "Sent rate of each flow (Mb/s of RoCE payload), smoothed over 20 ms over the "
              "raw 5 ms samples (faint); dashed, the DCQCN fluid model (CoNEXT 2016) for "
              "the same parameters and starts, in wire Mb/s. The flows start apart; each "
              "newcomer's CNPs cut everyone, and they settle on equal shares.",
              line=sc["speed"])
    if mod:
        ts = [t * 1000 for t in mod["t"]]
        series = {names[q]: (xs, ys) for q, (xs, ys) in al.items()}
        series.update({"model " + names[q]: (ts, mod["alpha"][i])
                       for i, q in enumerate(m["qpns"])})
        rep.lines("alpha_%s_%d" % (case, n), "Each flow's alpha (%s)" % tag, "time (ms)",
                  "alpha", series,
                  "Alpha, each sender's estimate of how often its flow is marked: set at "
                  "its first CNP, raised by each CNP, decayed every alpha period without "
                  "one. Dashed: the fluid model.", marks=marks, model_dashed=True)
    q_series = {"measured (every %d us)" % QUEUE_US: ([t * 1000 for t, _ in qrows],
                                                      [v / 1024 for _, v in qrows])}
    if mod:
        q_series["fluid model"] = ([t * 1000 for t in mod["t"]], [v / 1024 for v in mod["q"]])
    e = sc["ecn"]
    rep.lines("queue_%s_%d" % (case, n), "The receiver's queue (%s)" % tag, "time (ms)", "KB",
              q_series, "Occupancy of the receiver's egress queue (lsw's timeline recorder), with "
              "the marking thresholds kmin %s and kmax %s: DCQCN holds it between them, "
              "where the marks balance the senders' increases." % (e["kmin"], e["kmax"]),
              marks=marks, hlines=[(size_bytes(e["kmin"]) / 1024, "kmin"),
                                   (size_bytes(e["kmax"]) / 1024, "kmax")],
              model_dashed=True)


def run(sc, rep, rundir, quick):
    if quick:
        sc = merge(sc, sc["quick"])
    e, exp = sc["ecn"], sc["expect"]
    ecn = {"kmin": size_bytes(e["kmin"]), "kmax": size_bytes(e["kmax"]),
           "pmax": float(e["pmax"]) / 100}
    table, results = [], {}
    for case, c in sc["cases"].items():
        for n in c["n"]:
            fab, res, qrows, lost, d, pauses = one(sc, rep, case, n, rundir)
            m = measure(sc, fab, res, qrows)
            mod = model(res, m, ecn, sc, fab) if c["cc"]["algorithm"] == "dcqcn" else None
            tag = "%s N=%d" % (case, n)
            r = {"case": case, "n": n, "drops": common.total(d), "drop_reasons": d,
                 "pause_frames": pauses, "messages": res["messages_posted"],
                 "messages_done": res["messages_done"],
                 "cnps": sum(q["cnps_sent"] for q in res["qps"]),
                 "emulator": res.get("emulator"), **m}
            if mod:
                r["model_steady_rates_bps"] = mod["steady_rates_bps"]
                r["model_queue_mean"] = mod["queue_mean"]
                # Each flow against the model's share (its flows' mean): the model's
                # flows differ only by how long each one's alpha has decayed, which the
                # emulator's packet-by-packet CNPs mix in a different order each run.
                share = statistics.mean(mod["steady_rates_bps"])
                r["model_share_bps"] = share
                r["rate_err"] = max(rel(a, share) for a in m["steady_rates_bps"]) \
                    if None not in m["steady_rates_bps"] else None
                r["queue_err"] = rel(m["queue_mean"], mod["queue_mean"]) \
                    if m["queue_mean"] is not None else None
            results[(case, n)] = r
            rep.metrics.setdefault("runs", []).append(
                {k: v for k, v in r.items() if k not in ("windows",)})
            rep.csv("windows_%s_%d" % (case, n), ["t_us", "utilization", "jain", "clean"] +
                    ["rate_bps_%d" % q for q in m["qpns"]],
                    [[w["t_us"], round(w["util"], 4), round(w["jain"], 4), w["clean"]] +
                     [round(x) for x in w["rates"]] for w in m["windows"]])
            rep.csv("queue_%s_%d" % (case, n), ["t_s", "bytes"], qrows)
            rep.csv("samples_%s_%d" % (case, n), res["samples"]["columns"],
                    res["samples"]["rows"])
            plots(rep, sc, case, n, res, m, mod, qrows)
            rep.check("%s: every message completes" % tag, r["messages"], r["messages_done"],
                      r["messages_done"] == r["messages"])
            rep.check("%s: no drop" % tag, 0, common.drops_measured(d), r["drops"] == 0)
            rep.check("%s: the queue recorded whole" % tag, "0 records lost", lost, lost == 0)
            table.append(row(r))
            if not c.get("checked"):
                continue
            check_run(rep, r, exp, sc)
    rep.table("summary", "Every run, side by side",
              ["case", "N", "lone flow (min of windows)", "utilization (median, min)",
               "Jain (min)", "converged after", "queue mean (model)", "rate vs model",
               "CNPs", "PFC frames", "stalled windows"], table,
              "Each run's figures over 100 ms windows in which every flow sends, from the "
              "window after which every one is fair (Jain's index >= %.2f); utilization in "
              "wire bits of the link. The queue is the receiver's egress queue in the "
              "second half of that time, beside the fluid model's mean." % exp["jain_min"])
    # PFC alone is the case without congestion control, whether or not its switch marks
    # (marks nobody reacts to change nothing): what a --set does to it must not make the
    # check vanish. Without such a case, or a checked DCQCN one, the check fails and says so.
    pf = [r for (case, n), r in results.items()
          if sc["cases"][case]["cc"].get("algorithm") == "none"]
    dc = [r for (case, n), r in results.items() if sc["cases"][case].get("checked")]
    expected = "<= %.2f x PFC's, PFC's >= %d" % (exp["pause_ratio_max"], exp["pfc_pauses_min"])
    if pf and dc:
        # Pauses: DCQCN's most against PFC alone's, with a floor so that the comparison has
        # something to compare (PFC alone pauses hundreds of times; DCQCN none or few).
        most, base = max(r["pause_frames"] for r in dc), min(r["pause_frames"] for r in pf)
        rep.check("DCQCN pauses far less than PFC alone", expected, "%d vs %d" % (most, base),
                  base >= exp["pfc_pauses_min"] and most <= exp["pause_ratio_max"] * base)
    else:
        rep.check("DCQCN pauses far less than PFC alone", expected,
                  "not compared: no %s ran" % (
                      "case without congestion control (cc.algorithm none)" if not pf else
                      "checked DCQCN case"), False)


def fmt(x, f="%.3f"):
    return "-" if x is None else f % x


def row(r):
    return [r["case"], r["n"], fmt(min(r["lone"]) if r["lone"] else None),
            "%s, %s" % (fmt(r["util_median"]), fmt(r["util_min"])), fmt(r["jain_min"]),
            fmt(r["converged_us"] / 1000 if r["converged_us"] is not None else None, "%.0f ms"),
            "%s KB (%s)" % (fmt(r["queue_mean"] / 1024 if r["queue_mean"] is not None else None,
                                "%.0f"),
                            fmt(r.get("model_queue_mean", 0) / 1024 if r.get("model_queue_mean")
                                else None, "%.0f")),
            fmt(100 * r["rate_err"] if r.get("rate_err") is not None else None, "%.0f%%"),
            r["cnps"],
            r["pause_frames"], "%d of %d" % (r["stalled_windows"], len(r["windows"]))]


# Fair by the end: the last clean windows of the steady half (the second half of the time
# every flow sends), a second and more after the last flow started.
END_WINDOWS = 3


def check_run(rep, r, exp, sc):
    tag = "%s N=%d" % (r["case"], r["n"])
    e = sc["ecn"]
    # Every window of the lone flow the emulator did not stall in; none is a failure too.
    rep.check("%s: the first flow alone uses the link" % tag,
              ">= %.2f of line rate" % exp["lone_min"],
              fmt(min(r["lone"])) if r["lone"] else "no clean window",
              bool(r["lone"]) and min(r["lone"]) >= exp["lone_min"], rate=True)
    # Judged over the steady half's windows the emulator did not stall in (those of the
    # queue figure too): with fewer than half of them clean, or fewer than END_WINDOWS,
    # the machine, not DCQCN, left too little to judge (a run beside a compiler stalled in
    # 18 of 20), and the check says so as a rate check.
    t_all, t_end = r["together_us"]
    steady = [w for w in r["windows"] if w["t_us"] >= (t_all + t_end) / 2]
    good = [w for w in steady if w["clean"]]
    judged = 2 * len(good) >= len(steady) and len(good) >= END_WINDOWS
    end = good[-END_WINDOWS:]
    rep.check("%s: fair by the end (Jain, last %d clean windows)" % (tag, END_WINDOWS),
              ">= %.2f" % exp["jain_min"],
              fmt(min(w["jain"] for w in end)) if judged else
              "%d of %d steady windows clean" % (len(good), len(steady)),
              judged and min(w["jain"] for w in end) >= exp["jain_min"], rate=not judged)
    # How soon is a figure of DCQCN's dynamics and of the emulator's timing both: a
    # newcomer's start may cut one flow twice, and the lab, whose CNPs come in clusters,
    # takes up to a second to even that out where the fluid model takes 100 ms (README).
    rep.check("%s: converged (every later window fair)" % tag,
              "within %d ms" % (exp["converge_max_us"] / 1000),
              "%s, Jain >= %s after" % (fmt(r["converged_us"] / 1000 if r["converged_us"]
                                            is not None else None, "%.0f ms"),
                                        fmt(r["jain_min"])),
              r["converged_us"] is not None and r["converged_us"] <= exp["converge_max_us"],
              rate=True)
    rep.check("%s: the flows fill the link (every window)" % tag,
              ">= %.2f" % exp["util_min"], fmt(r["util_min"]),
              r["util_min"] is not None and r["util_min"] >= exp["util_min"], rate=True)
    # Over the steady half's clean windows; too few of them, a rate check as the one above.
    qm = r["queue_mean"]
    rep.check("%s: the queue sits between the marking thresholds" % tag,
              "%s <= mean <= %s, empty < 20%%" % (e["kmin"], e["kmax"]),
              "%.0f KB, empty %.2f" % (qm / 1024, r["queue_zero"]) if qm is not None else
              "no clean window",
              qm is not None and size_bytes(e["kmin"]) <= qm <= size_bytes(e["kmax"]) and
              r["queue_zero"] < 0.2, rate=not judged or qm is None)
    # Against the model: rate checks, for they measure the emulator's timing as much as
    # DCQCN (a host process held up a few ms by a busy machine sends late, its flow loses
    # share and the queue drains: 20-32% off in such runs, 1-9% on a quiet one).
    if r.get("rate_err") is not None:
        rep.check("%s: each flow's steady rate as the fluid model's share" % tag,
                  "within %.0f%%" % (100 * exp["model_tol"]), "%.0f%%" % (100 * r["rate_err"]),
                  r["rate_err"] <= exp["model_tol"], rate=True)
    if r.get("queue_err") is not None:
        rep.check("%s: steady queue as the fluid model's" % tag,
                  "within %.0f%%" % (100 * exp["model_tol"]), "%.0f%%" % (100 * r["queue_err"]),
                  r["queue_err"] <= exp["model_tol"], rate=True)
    st = sum(1 for w in r["windows"] if w["clean"])
    rep.check("%s: windows the emulator did not stall in" % tag, ">= 80% of them",
              "%d of %d" % (st, len(r["windows"])), st >= 0.8 * len(r["windows"]), rate=True)
