# SPDX-License-Identifier: BSD-3-Clause
"""incast: N senders, one receiver, one switch, for each N and each
mode (PFC only; PFC with DCQCN and ECN; lossy). PFC turns drops into pauses; DCQCN keeps
the queue short; without PFC and with a buffer under N bandwidth-delay products the switch
drops and the hosts retransmit."""
from . import common
from .run import Lab
from .topo import star


def one(sc, rep, mode, n, size, rundir, record=False):
    m = sc["modes"][mode]
    fab = star("incast-%s-%d" % (mode, n), rundir, n + 1, sc["speed"], sc["mtu"])
    frag = dict(m.get("switch", {}))
    if m.get("ecn"):
        e = m["ecn"]
        frag["WRED_PROFILE"] = {"LAB": {
            "ecn": "ecn_green", "wred_green_enable": "true", "green_min_threshold": e["kmin"],
            "green_max_threshold": e["kmax"], "green_drop_probability": str(e["pmax"])}}
        frag["QUEUE"] = {"Ethernet0|3": {"wred_profile": "LAB"}}
    hosts = fab.host_config(
        dict(m.get("hosts", {}), cc=m["cc"]),
        [{"type": "incast", "senders": ["h%d" % i for i in range(1, n + 1)],
          "receiver": "h0", "size": size}],
        {"sample_us": 1000})
    # The receiver's port and the first sender's, on the timeline (@record).
    ports = [fab.port_of("h0")[1], fab.port_of("h1")[1]]
    tl = {"leaf": common.timeline(ports)} if record else None
    with Lab(fab, {"leaf": fab.switch_config("leaf", frag, m["pfc"])}, tl) as lab:
        res, qrows = lab.hosts(hosts, sample=common.queue_sampler("leaf", "Ethernet0"))
        sw = lab.switches["leaf"]
        d = common.drops(sw)
        pauses = common.pfc_sent(sw)
        rep.commands.extend(lab.commands)
    h0 = res["hosts"]["h0"]
    retx = sum(q["retransmitted_packets"] for q in res["qps"])
    # A QP whose go-back-N retries ran out (retry_cnt timeouts in a row) is in error and
    # stops, as a NIC's does: its unfinished messages are accounted for, not hung.
    gave_up = [q for q in res["qps"] if q["error"]]
    unaccounted = sum(q["messages_posted"] - q["messages_done"] for q in res["qps"]
                      if not q["error"])
    rates = common.rates_together(res)
    return {"mode": mode, "n": n, "drops": common.total(d), "drop_reasons": d, "lossless_drops":
            common.total(d) if mode in sc["expect"]["lossless_modes"] else None,
            "pause_frames": pauses,
            "goodput_fraction": h0["goodput_bps"] / (sc["speed"] * 1e6),
            "retransmits": retx, "jain": common.jain(rates.values()),
            "messages_done": res["messages_done"], "messages": res["messages_posted"],
            "qps_gave_up": len(gave_up), "messages_unaccounted": unaccounted,
            "queue": qrows, "timeline": lab.timelines(), "t0_ns": res["start_unix_ns"],
            "timeline_ports": ["leaf:" + p for p in ports]}


def run(sc, rep, rundir, quick):
    q = sc["quick"] if quick else {}
    ns, size = q.get("n", sc["n"]), q.get("size", sc["size"])
    exp = sc["expect"]
    # The largest N of the lossless modes is recorded on the timeline.
    runs = [one(sc, rep, mode, n, size, rundir, n == max(ns) and sc["modes"][mode]["pfc"])
            for mode in sc["modes"] for n in ns]
    for r in runs:
        tag = "%s N=%d" % (r["mode"], r["n"])
        m = sc["modes"][r["mode"]]
        if m["pfc"]:
            rep.check(tag + ": every message completes", r["messages"], r["messages_done"],
                      r["messages_done"] == r["messages"])
        else:
            # Without PFC, go-back-N over a tail-dropping queue can run a QP out of retries
            # (the lossy collapse this mode shows): then it gives up, as a NIC's QP does.
            # Which QPs do depends on timing; that every message either completes or
            # belongs to a QP that gave up does not.
            rep.check(tag + ": every message completes or its QP gave up (retries out)",
                      "%d, 0 hung" % r["messages"], "%d done, %d QPs gave up, %d hung" % (
                          r["messages_done"], r["qps_gave_up"], r["messages_unaccounted"]),
                      r["messages_unaccounted"] == 0)
        # The modes meant to be lossless (expect.lossless_modes): with PFC turned off in
        # one (--set), this is the check that fails.
        if r["mode"] in exp["lossless_modes"]:
            rep.check(tag + ": no lossless drop", 0, common.drops_measured(r["drop_reasons"]),
                      r["lossless_drops"] == 0)
        if r["mode"] == "pfc":
            rep.check(tag + ": pauses sent", "> 0", r["pause_frames"], r["pause_frames"] > 0)
        if m["pfc"] and m["cc"]["algorithm"] == "none":
            # PFC alone keeps the link busy (labs.md 1). DCQCN's senders cut their rate on
            # the first marks and take milliseconds to recover: its goodput is reported,
            # its check is below.
            rep.check(tag + ": goodput of the receiver's link", ">= %.2f" % exp["goodput_min"],
                      round(r["goodput_fraction"], 3),
                      r["goodput_fraction"] >= exp["goodput_min"], rate=True)
        if m["pfc"] and m["cc"]["algorithm"] != "none":
            alone = [x for x in runs if x["n"] == r["n"] and sc["modes"][x["mode"]]["pfc"] and
                     sc["modes"][x["mode"]]["cc"]["algorithm"] == "none"]
            if alone:
                rep.check(tag + ": fewer pauses than PFC alone (the senders slow down first)",
                          "< %d" % alone[0]["pause_frames"], r["pause_frames"],
                          r["pause_frames"] < alone[0]["pause_frames"])
        if not m["pfc"]:
            rep.check(tag + ": drops (buffer < N x BDP)", "> 0", r["drops"], r["drops"] > 0)
            rep.check(tag + ": retransmissions", "> 0", r["retransmits"], r["retransmits"] > 0)
    rep.metrics["runs"] = [{k: v for k, v in r.items()
                            if k not in ("queue", "timeline", "t0_ns", "timeline_ports")}
                           for r in runs]
    for key, title, ylabel, about in (
            ("goodput_fraction", "Goodput of the receiver's link", "fraction of the link",
             "PFC keeps the receiver's link busy with no loss; without it, drops and "
             "timeouts waste it as N grows."),
            ("drops", "Packets dropped by the switch", "packets",
             "Lossless modes drop nothing: the switch pauses its senders before the "
             "headroom overflows. The lossy mode drops once N senders overrun the buffer."),
            ("pause_frames", "PFC frames sent by the switch", "frames",
             "PFC alone pauses the senders again and again; DCQCN slows them first, so few "
             "pauses are left.")):
        rep.lines("vs_n_" + key, title, "N senders", ylabel,
                  {mode: ([r["n"] for r in runs if r["mode"] == mode],
                          [r[key] for r in runs if r["mode"] == mode]) for mode in sc["modes"]},
                  about)
    big = max(ns)
    series = {}
    for r in runs:
        if r["n"] == big:
            series[r["mode"]] = ([t * 1000 for t, _ in r["queue"]],
                                 [v / 1024 for _, v in r["queue"]])
            rep.csv("queue_%s_n%d" % (r["mode"], big), ["t_s", "bytes"], r["queue"])
    rep.lines("queue", "The receiver's egress queue, N=%d" % big, "time (ms)", "KB", series,
              "With PFC only the queue rises to where the switch pauses its senders and "
              "stays there; with DCQCN it is held near the ECN thresholds; the lossy queue "
              "fills to its limit and drops. Sampled every 10 ms from lsw's queue.stats.")
    for r in runs:
        if r["timeline"]:
            tl = rep.timeline("timeline_%s" % r["mode"], "The switch's timeline, %s, N=%d" % (
                r["mode"], r["n"]), r["timeline"],
                "Queue, PG, pause and rate lanes of the receiver's port (the congested "
                "queue) and the first sender's port (its PG, and the pauses the switch sends "
                "it), from lsw's timeline recorder, sampled every 200 us, on the workload's "
                "clock. With PFC alone the sender's PG fills to its XOFF point and the "
                "pauses go out in a train; with DCQCN the queue stays near the ECN "
                "thresholds and few pauses are left.", r["t0_ns"], r["timeline_ports"])
            lost = sum(tl.values(x)["records"] for x in tl.of_kind("lost"))
            rep.check("%s N=%d: timeline recorded, nothing lost" % (r["mode"], r["n"]),
                      "0 lost", lost, lost == 0 and len(tl.of_kind("port")) > 0)
