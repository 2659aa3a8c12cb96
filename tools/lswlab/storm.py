# SPDX-License-Identifier: BSD-3-Clause
"""storm: a NIC keeps priority 3 paused (the malfunctioning NIC of the
seeds). lsw's PFC watchdog detects the storm within [D, D + poll] of the pause starting,
applies its action (drop, forward, alert), and restores within [R, R + poll] of the pause
ending; meanwhile another priority to the same port and traffic between other ports keep
their rate. One run per action.

Hosts: h0 storms; h1 writes to h0 on the lossless priority 3 (the stormed queue); h2 writes
to h0 on a lossy priority (DSCP 0); h3 writes to h4 (other ports). Times come from lsw's own
pfc.stats and pfcwd.stats, read every 10 ms (the sampling adds at most 20 ms to each)."""
from . import common
from .run import Lab
from .topo import star


def sample(clients):
    c = clients["leaf"]
    pfc = c.call("pfc.stats", {"port": "Ethernet0"})["ports"]["Ethernet0"]["priorities"]["3"]
    wd = c.call("pfcwd.stats", {"port": "Ethernet0"})["ports"]["Ethernet0"]["queues"]["3"]
    st = c.call("port.stats")
    ports = st["ports"]
    # Rates use the switch's time of the counters: the lab's own clock is read before three
    # calls whose latency varies by milliseconds on a busy machine (+-5% over 300 ms).
    return {"paused": pfc["rx_paused"], "stormed": wd["PFC_WD_STATUS"] == "stormed",
            "ts": st["timestamp_ns"] / 1e9,
            "tx0": ports["Ethernet0"]["IF_OUT_OCTETS"],
            "tx4": ports["Ethernet16"]["IF_OUT_OCTETS"]}


def edges(rows, key):
    """Times (s) where rows[key] turns true, and where it turns false."""
    on, off, prev = [], [], False
    for t, r in rows:
        if r[key] and not prev:
            on.append(t)
        if prev and not r[key]:
            off.append(t)
        prev = r[key]
    return on, off


def one(sc, rep, action, rundir, quick):
    q = sc["quick"] if quick else {}
    storm_ms = q.get("storm_ms", sc["storm_ms"])
    wd = sc["watchdog"]
    fab = star("storm-%s" % action, rundir, 5, sc["speed"], sc["mtu"])
    frag = {"PORT_QOS_MAP": {"Ethernet0": {"pfc_watchdog_status": "enable"}},
            "PFC_WD": {"GLOBAL": {"POLL_INTERVAL": str(wd["poll_ms"])},
                       "Ethernet0": {"action": action, "detection_time": str(wd["detect_ms"]),
                                     "restoration_time": str(wd["restore_ms"])}}}
    # The watchdog's flag joins the ports' existing PORT_QOS_MAP entry.
    cfg = fab.switch_config("leaf", {"PFC_WD": frag["PFC_WD"]})
    key = next(iter(cfg["PORT_QOS_MAP"]))
    cfg["PORT_QOS_MAP"][key]["pfc_watchdog_status"] = "enable"
    total = storm_ms + wd["restore_ms"] + 2 * wd["poll_ms"] + 400
    bps = sc["speed"] * 1e6
    size = int(bps / 8 * total / 1000 * 0.9)  # long enough to run past the restoration
    wl = [{"type": "flow", "src": "h1", "dst": "h0", "size": size},
          {"type": "flow", "src": "h2", "dst": "h0", "size": size},
          {"type": "flow", "src": "h3", "dst": "h4", "size": size}]
    extra = {"sample_us": 10000, "duration_ms": total + 300,
             "hosts": {"h0": {"storm": {"priority": 3, "start_ms": sc["storm_start_ms"],
                                        "duration_ms": storm_ms}},
                       "h2": {"dscp_data": 0, "prio_data": 0, "dscp_ack": 0, "prio_ack": 0}}}
    hosts = fab.host_config({"cc": {"algorithm": "none"}, "rto_us": 1000000, "retry_cnt": 7},
                            wl, extra)
    with Lab(fab, {"leaf": cfg}) as lab:
        res, rows = lab.hosts(hosts, sample=sample)
        sw = lab.switches["leaf"]
        stats = sw.rpc("pfcwd.stats", {"port": "Ethernet0"})["ports"]["Ethernet0"]["queues"]["3"]
        d = common.drops(sw)
        rep.commands.extend(lab.commands)
    return res, rows, stats, d


def rates(rows, a, b):
    """Mean rates (b/s) of tx0 and tx4 in [a, b] (lab time) and outside it while their flows
    ran (from the first byte to the last), on the switch's own clock (ts)."""
    during, outside = {}, {}
    for key in ("tx0", "tx4"):
        moving = [i for i in range(1, len(rows)) if rows[i][1][key] != rows[i - 1][1][key]]
        if not moving:
            during[key] = outside[key] = 0
            continue
        first, last = moving[0] - 1, moving[-1]
        span = [r for _, r in rows[first:last + 1]]
        inside = [r for t, r in rows[first:last + 1] if a <= t <= b]
        if len(inside) < 2:
            during[key] = outside[key] = 0
            continue
        d_bytes = inside[-1][key] - inside[0][key]
        d_time = inside[-1]["ts"] - inside[0]["ts"]
        o_bytes = span[-1][key] - span[0][key] - d_bytes
        o_time = span[-1]["ts"] - span[0]["ts"] - d_time
        during[key] = d_bytes * 8 / d_time if d_time > 0 else 0
        outside[key] = o_bytes * 8 / o_time if o_time > 0 else 0
    return during, outside


def run(sc, rep, rundir, quick):
    wd, exp = sc["watchdog"], sc["expect"]
    slack = exp["sampling_slack_ms"]
    for action in sc["actions"]:
        res, rows, stats, d = one(sc, rep, action, rundir, quick)
        p_on, p_off = edges(rows, "paused")
        s_on, s_off = edges(rows, "stormed")
        tag = action
        detect = (s_on[0] - p_on[0]) * 1000 if p_on and s_on else None
        rep.check("%s: storm detected within [D, D + poll]" % tag,
                  "%d-%d ms (+%d sampling)" % (wd["detect_ms"], wd["detect_ms"] + wd["poll_ms"],
                                              slack), None if detect is None else round(detect),
                  detect is not None and wd["detect_ms"] - slack <= detect <=
                  wd["detect_ms"] + wd["poll_ms"] + slack)
        # The pause ends when the last XOFF's quanta run out after the storm. Alert changes
        # nothing, so it ends with the storm (SONiC): its R is 0.
        r = 0 if action == "alert" else wd["restore_ms"]
        restore = (s_off[0] - p_off[-1]) * 1000 if p_off and s_off else None
        rep.check("%s: restored within [R, R + poll] of the pause's end" % tag,
                  "%d-%d ms (+%d sampling)" % (r, r + wd["poll_ms"], slack),
                  None if restore is None else round(restore),
                  restore is not None and r - slack <= restore <= r + wd["poll_ms"] + slack)
        # Rates while stormed, against the same flows' rates outside the storm in the same
        # run: what the hosts and the switch can serve on this machine cancels out.
        if s_on and s_off:
            during, outside = rates(rows, s_on[0], s_off[0])
            for key, what in (("tx4", "other ports' rate"),
                              ("tx0", "the lossy priority to the stormed port")):
                if key == "tx0" and action == "forward":
                    continue  # h1's lossless flow shares the port again once forwarded
                ratio = during[key] / outside[key] if outside[key] else 0
                rep.check("%s: %s while stormed" % (tag, what),
                          ">= %.2f of its rate outside the storm" % exp["others_min"],
                          "%.3f (%.0f / %.0f Mb/s)" % (ratio, during[key] / 1e6,
                                                       outside[key] / 1e6),
                          ratio >= exp["others_min"], rate=True)
        rep.check("%s: detected once, restored once" % tag, "1 / 1", "%d / %d" % (
            stats["PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED"],
            stats["PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED"]),
            stats["PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED"] == 1 and
            stats["PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED"] == 1)
        if action == "drop":
            rep.check("drop: the stormed queue's packets dropped", "> 0",
                      stats["PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS"],
                      stats["PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS"] > 0)
        rep.metrics.setdefault("actions", {})[action] = {
            "detect_ms": detect, "restore_ms": restore, "drops": d,
            "watchdog": {k: v for k, v in stats.items() if k.startswith("PFC_WD_QUEUE")}}
        ts = [t * 1000 for t, _ in rows]
        rate = {}
        for key, label in (("tx0", "to the stormed port (h0)"), ("tx4", "between other ports")):
            ys = [0.0] + [(rows[i][1][key] - rows[i - 1][1][key]) * 8 /
                          max(1e-6, rows[i][1]["ts"] - rows[i - 1][1]["ts"]) / 1e6
                          for i in range(1, len(rows))]
            rate[label] = (ts, ys)
        rep.csv("switch_" + action, ["t_s", "paused", "stormed", "tx_bytes_h0", "tx_bytes_h4"],
                [(t, int(r["paused"]), int(r["stormed"]), r["tx0"], r["tx4"]) for t, r in rows])
        marks = [(t * 1000, "storm") for t in p_on[:1]] + \
            [(t * 1000, "detect") for t in s_on[:1]] + \
            [(t * 1000, "pause ends") for t in p_off[-1:]] + \
            [(t * 1000, "restore") for t in s_off[:1]]
        rep.lines("rates_" + action, "Switch TX rates, action %s" % action, "time (ms)", "Mb/s",
                  rate, "The storm starts; the stormed queue stops; the watchdog detects it "
                  "after its detection time and applies '%s'; traffic between other ports "
                  "never notices. The storm ends, its last pause runs out, and the restoration "
                  "time later the queue is back." % action, marks=marks)
