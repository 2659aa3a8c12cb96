# SPDX-License-Identifier: BSD-3-Clause
"""§7.4 PFC deadlock: a cyclic buffer dependency on a ring of three lsw processes, formed by
PFC, standing after its senders stop, and broken by lsw's PFC watchdog.

Switches s0, s1, s2 in a ring, host hI on sI. Each switch routes the host two hops away
clockwise (sI -> sI+1 -> sI+2) instead of over the direct link, and hI writes to hI+2 at
line rate: every ring link carries two flows (one on its first hop, one on its second), so
every ring queue builds, and each switch's lossless ingress from its ring neighbour fills
with packets that wait for the next ring link. When the three pauses close the circle no
ring port may send: the deadlock of Hu et al., "Deadlocks in Datacenter Networks: Why Do
They Form, and How to Avoid Them" (HotNets 2016), which the draft's cyclic traffic provokes.

Three phases on one fabric: (1) no watchdog: the cycle forms, and still stands after the
senders stop (a deadlock, not congestion); (2) the watchdog enabled by config.set on the
standing deadlock: it detects each ring queue after its detection time, drops what the
queue holds and ignores the pause, the cycle drains, the queues are restored; (3) the same
traffic with the watchdog on from its start: the cycle forms again and again, each time
broken, and the messages move. States come from pfc.stats, port.stats and pfcwd.stats
sampled every 20 ms (DUT-reported); PAUSE events per hop from lsw's timeline."""
import time

import lswtimeline
from lswlab.run import Lab, Sampler
from lswlab.topo import Fabric

from . import kpi
from .base import stretch, switch_configs
from .congestion import pfc_frames
from .rdma import retransmits, trial

RING = ("s0", "s1", "s2")
SAMPLE_S = 0.02


def ring_fabric(ctx, speed, mtu):
    fab = Fabric("b74d", ctx.rundir, speed, mtu)
    for s in RING:
        fab.switch(s)
    # Link i is hop sI -> sI+1; the lower switch first (it is the memif server, and
    # lsw-lab starts the switches in order).
    links = [fab.link(*sorted((RING[i], RING[(i + 1) % 3]))) for i in range(3)]
    for i, s in enumerate(RING):
        fab.host("h%d" % i, s)
    ctx.fabric_info(fab)
    return fab, links


def side(ln, sw):
    """(@sw's port, @sw's address) on link @ln."""
    return (ln["a_port"], ln["a_ip"]) if ln["a"] == sw else (ln["b_port"], ln["b_ip"])


def clockwise(links):
    """{switch: its port to the next switch clockwise}, and {switch: both ring ports}."""
    cw, ring = {}, {s: [] for s in RING}
    for i, ln in enumerate(links):
        a, b = RING[i], RING[(i + 1) % 3]
        cw[a] = side(ln, a)[0]
        ring[a].append(side(ln, a)[0])
        ring[b].append(side(ln, b)[0])
    return cw, ring


def watchdog_fragment(cfg, ports, wd, action):
    """PFC_WD on @ports, and the watchdog's flag on the ports' PORT_QOS_MAP entry."""
    key = next(iter(cfg["PORT_QOS_MAP"]))
    frag = {"PFC_WD": {"GLOBAL": {"POLL_INTERVAL": str(wd["poll_ms"])}},
            "PORT_QOS_MAP": {key: {"pfc_watchdog_status": "enable"}}}
    for p in ports:
        frag["PFC_WD"][p] = {"action": action, "detection_time": str(wd["detect_ms"]),
                             "restoration_time": str(wd["restore_ms"])}
    return frag


def sampler(cw):
    def sample(clients):
        out = {}
        for s, c in clients.items():
            pfc = c.call("pfc.stats", {"port": cw[s]})["ports"][cw[s]]["priorities"]["3"]
            st = c.call("port.stats")
            wd = c.call("pfcwd.stats")["ports"].get(cw[s])
            out[s] = {"paused": pfc["rx_paused"], "tx": st["ports"][cw[s]]["IF_OUT_OCTETS"],
                      "stormed": bool(wd) and wd["queues"]["3"]["PFC_WD_STATUS"] == "stormed"}
        return out
    return sample


def stuck(rows):
    """Per row: every clockwise ring port paused and silent since the row before."""
    out = [False]
    for (_, a), (_, b) in zip(rows, rows[1:]):
        out.append(all(b[s]["paused"] and b[s]["tx"] == a[s]["tx"] for s in RING))
    return out


def runs_of(flags):
    """[(first, last)] index ranges where @flags holds."""
    out, start = [], None
    for i, f in enumerate(flags + [False]):
        if f and start is None:
            start = i
        if not f and start is not None:
            out.append((start, i - 1))
            start = None
    return out


def settle(watch, wd, limit_ms):
    """Wait until the watchdog has broken the cycle (a queue stormed, then a ring port sent
    again) and a queue was restored, or at most @limit_ms."""
    end = time.monotonic() + limit_ms / 1000
    while time.monotonic() < end:
        time.sleep(SAMPLE_S)
        rows = watch.rows
        if rows and broke(rows) and any(a[s]["stormed"] and not b[s]["stormed"] for s in RING
                                        for (_, a), (_, b) in zip(rows, rows[1:])):
            time.sleep(wd["poll_ms"] / 1000)
            return


def broke(rows):
    """After a queue was first declared stormed, the circle is open: a clockwise ring port
    is no longer paused (the drop may leave it nothing to send)."""
    i = next((i for i, (_, r) in enumerate(rows) if any(r[s]["stormed"] for s in RING)), None)
    return i is not None and not all(rows[-1][1][s]["paused"] for s in RING)


def state(lab, ring):
    """Each ring port's PFC state, queue 3 and PG 3 occupancy, and watchdog state: what
    the report shows where the cycle was not broken."""
    out = {}
    for s, sw in lab.switches.items():
        pfc = sw.rpc("pfc.stats")["ports"]
        q = sw.rpc("queue.stats")["ports"]
        pg = sw.rpc("pg.stats")["ports"]
        wd = sw.rpc("pfcwd.stats")["ports"]
        for port in pfc:
            out["%s:%s" % (s, port)] = {
                "rx_paused": pfc[port]["priorities"]["3"]["rx_paused"],
                "tx_pausing": pfc[port]["priorities"]["3"]["tx_pausing"],
                "queue3_bytes": q[port]["3"]["CURR_OCCUPANCY_BYTES"],
                "pg3_bytes": pg[port]["3"]["CURR_OCCUPANCY_BYTES"],
                "wd": wd.get(port, {}).get("queues", {}).get("3", {}).get("PFC_WD_STATUS")}
    return out


def wd_counts(lab, cw):
    out = {}
    for s, sw in lab.switches.items():
        q = sw.rpc("pfcwd.stats", {"port": cw[s]})["ports"].get(cw[s])
        out[s] = q["queues"]["3"] if q else {}
    return out


def delta(after, before, key):
    return sum(after[s].get(key, 0) - before[s].get(key, 0) for s in RING)


def t7_4_deadlock(ctx):
    p = ctx.p
    speed, mtu, wd = p["speed"], p["mtu"], p["watchdog"]
    slack = p["sampling_slack_ms"]
    fab, links = ring_fabric(ctx, speed, mtu)
    cw, ring = clockwise(links)
    ctx.scaling("%d Mb/s links (time x%.0f); %d ms of cyclic traffic before the deadlock is "
                "shown standing for %d ms, then %d ms with the watchdog on (draft: 300 s); "
                "SONiC's watchdog times" % (speed, stretch(speed), p["traffic_ms"],
                                            p["hold_ms"], p["watchdog_traffic_ms"]))
    ctx.config("routes", "each switch sends the host two hops away clockwise through its "
               "ring neighbour (a cyclic buffer dependency; shortest paths would not have one)")
    ctx.config("PFC", "priority 3 lossless on every port")
    ctx.config("PFC watchdog", dict(wd, action=p["action"], ports="both ring ports of each "
                                    "switch, enabled in phase 2"))
    cfgs = switch_configs(ctx, fab)
    for i, s in enumerate(RING):
        far = fab.hosts[(i + 2) % 3]
        nh = side(links[i], RING[(i + 1) % 3])[1]
        cfgs[s]["STATIC_ROUTE"][fab.host_ip(far) + "/32"] = {"nexthop": nh}
    size = int(speed * 1e6 / 8 * max(p["traffic_ms"], p["watchdog_traffic_ms"]) / 1000)
    wl = [{"type": "flow", "src": "h%d" % i, "dst": "h%d" % ((i + 2) % 3), "size": size}
          for i in range(3)]
    tl = {s: {"ports": [cw[s]], "interval_us": 1000, "record": ["events"]} for s in RING}
    sample = sampler(cw)
    with Lab(fab, cfgs, tl) as lab:
        ctx.dut_info(lab)
        # Phase 1: no watchdog; the cycle forms, and stands after the senders stop.
        cfg = fab.host_config({"cc": {"algorithm": "none"}, "rto_us": p["rto_us"]}, wl,
                              {"duration_ms": p["traffic_ms"]})
        res1, rows1, drops1 = trial(lab, cfg, "b74d-1", sample, SAMPLE_S)
        ctx.host_info(res1, cfg)
        t0 = res1["start_unix_ns"] / 1e9
        hold = Sampler(lab.switches, sample, SAMPLE_S)
        hold.start()
        time.sleep(p["hold_ms"] / 1000)
        rows_hold = [(t - t0, r) for t, r in hold.stop()]
        # Phase 2: the watchdog on the standing deadlock.
        before = wd_counts(lab, cw)
        watch = Sampler(lab.switches, sample, SAMPLE_S)
        watch.start()
        t_on = time.time()
        for s, sw in lab.switches.items():
            sw.rpc("config.set", {"config": watchdog_fragment(cfgs[s], ring[s], wd,
                                                              p["action"])})
        settle(watch, wd, p["settle_ms"])
        rows2 = [(t - t_on, r) for t, r in watch.stop()]
        state2 = state(lab, ring)
        t_off = time.time()
        mid = wd_counts(lab, cw)
        # Phase 3: the traffic again, the watchdog on from its start.
        cfg3 = fab.host_config({"cc": {"algorithm": "none"}, "rto_us": p["rto_us"]}, wl,
                               {"duration_ms": p["watchdog_traffic_ms"]})
        res3, rows3, drops3 = trial(lab, cfg3, "b74d-3", sample, SAMPLE_S)
        after = wd_counts(lab, cw)
        files = lab.timelines()
    tls = {s: lswtimeline.read(f) for s, f in files.items()}
    windows = {"1 no watchdog": (t0, t_on), "2 watchdog on the deadlock": (t_on, t_off),
               "3 traffic with the watchdog": (res3["start_unix_ns"] / 1e9, time.time())}

    # Phase 1: when the cycle closed, and that it still stood after the senders stopped.
    st1 = stuck(rows1)
    closed = next((rows1[a][0] for a, b in runs_of(st1) if b == len(st1) - 1), None)
    # Standing: not a byte sent on a ring port while held, every one paused at the end.
    moved = {s: rows_hold[-1][1][s]["tx"] - rows1[-1][1][s]["tx"] for s in RING} \
        if rows_hold else {}
    standing = bool(rows_hold) and not any(moved.values()) and \
        all(rows_hold[-1][1][s]["paused"] for s in RING)
    ctx.kpi("deadlock formed after", None if closed is None else round(closed * 1000),
            "ms from the traffic's start", kpi.DUT, phase=1)
    ctx.kpi("deadlock standing after the senders stopped", round(p["hold_ms"]) if standing
            else 0, "ms", kpi.DUT, phase=1)
    ctx.kpi("messages completed", res1["messages_done"], "of %d" % res1["messages_posted"],
            kpi.TESTER, phase=1)
    ctx.check("7.4 deadlock: every clockwise ring queue paused and silent at the end of the "
              "traffic", "formed", "after %s ms" % (None if closed is None else
                                                   round(closed * 1000)), closed is not None)
    ctx.check("7.4 deadlock: it stands %d ms after the senders stopped (no ring byte sent)"
              % p["hold_ms"], "0 bytes on each", moved, standing)

    # Phase 2: detection from the watchdog being enabled (its first poll only takes a
    # snapshot, so [D, D + poll]), restoration from each queue's pause ending.
    rows = []
    for s in RING:
        on = next((t for t, r in rows2 if r[s]["stormed"]), None)
        off = next((t for t, r in rows2 if on is not None and t > on and
                    not r[s]["stormed"]), None)
        # The pause that ends last before the restoration (the drop drains the peer,
        # which then sends XON; a sample may see it end before it sees the storm state).
        p_end = None
        for (_, a), (tb, b) in zip(rows2, rows2[1:]):
            if on is not None and a[s]["paused"] and not b[s]["paused"] and \
                    (off is None or tb <= off):
                p_end = tb
        detect = None if on is None else round(on * 1000)
        restore = None if off is None or p_end is None else round((off - p_end) * 1000)
        dropped = mid[s].get("PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS", 0) - \
            before[s].get("PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS", 0)
        lbl = {"port": "%s:%s" % (s, cw[s]), "queue": 3, "phase": 2, "action": p["action"]}
        ctx.kpi("watchdog detection time (from enabling)", detect, "ms", kpi.DUT, **lbl)
        ctx.kpi("watchdog restoration time", restore, "ms", kpi.DUT, **lbl)
        ctx.kpi("packets dropped by the watchdog", dropped, "packets", kpi.DUT, **lbl)
        if detect is not None:
            ctx.repetition("detection ms (phase 2)", detect)
        rows.append([2, "%s:%s" % (s, cw[s]), detect, restore,
                     mid[s].get("PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED", 0) -
                     before[s].get("PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED", 0),
                     mid[s].get("PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED", 0) -
                     before[s].get("PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED", 0), dropped])
    det = [r[2] for r in rows if r[2] is not None]
    ctx.check("7.4 deadlock: the watchdog detects a ring queue within [D, D + 2 poll] of "
              "being enabled (+ sampling)", "%d-%d ms" % (
                  wd["detect_ms"] - slack, wd["detect_ms"] + 2 * wd["poll_ms"] + slack),
              min(det) if det else None, bool(det) and wd["detect_ms"] - slack <= min(det) <=
              wd["detect_ms"] + 2 * wd["poll_ms"] + slack)
    # Broken: the ring moves again. What the gone hosts were sent stays queued towards
    # their ports (lsw keeps a port's queue while its link is down), holds its ingress PG
    # and may keep a ring port paused afterwards: reported, not judged.
    broken = bool(rows2) and broke(rows2)
    residual = {k: v for k, v in state2.items()
                if any(x not in (0, False, None, "operational") for x in v.values())}
    ctx.check("7.4 deadlock: broken (a clockwise ring port no longer paused)",
              "broken", "broken" if broken else "standing: %s" % residual, broken)
    ctx.r["state_after_watchdog"] = state2
    held = {k: v["queue3_bytes"] for k, v in state2.items()
            if v["queue3_bytes"] and k.split(":")[1] == fab.port_of(
                fab.hosts[RING.index(k.split(":")[0])])[1]}
    ctx.kpi("bytes still queued towards the gone hosts", sum(held.values()), "bytes",
            kpi.DUT, phase=2, ports=",".join(sorted(held)) or "none")
    if held:
        ctx.anomaly("7.4 deadlock: after the watchdog, %s held packets for hosts that had "
                    "gone (links down): lsw keeps a down link's queue, whose packets hold "
                    "their ingress PG and pause the ring port they came from" % held)
    rest = [r[3] for r in rows if r[3] is not None]
    ctx.check("7.4 deadlock: a queue restored within [R, R + poll] of its pause's end "
              "(+ sampling)", "%d-%d ms" % (wd["restore_ms"] - slack, wd["restore_ms"] +
                                            wd["poll_ms"] + slack), rest,
              any(wd["restore_ms"] - slack <= r <= wd["restore_ms"] + wd["poll_ms"] + slack
                  for r in rest))
    dropped = sum(r[6] for r in rows)
    ctx.check("7.4 deadlock: the watchdog dropped the cycle's packets", "> 0", dropped,
              dropped > 0)

    # Phase 3: traffic with the watchdog on: each cycle broken again.
    st3 = stuck(rows3)
    cycles = runs_of(st3)
    for s in RING:
        lbl = {"port": "%s:%s" % (s, cw[s]), "queue": 3, "phase": 3, "action": p["action"]}
        for k in ("DEADLOCK_DETECTED", "DEADLOCK_RESTORED", "TX_DROPPED_PACKETS"):
            key = "PFC_WD_QUEUE_STATS_" + k
            ctx.kpi(key, after[s].get(key, 0) - mid[s].get(key, 0), "", kpi.DUT, **lbl)
    events = delta(after, mid, "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED")
    for label, res in (("1", res1), ("3", res3)):
        for h, r in sorted(res["hosts"].items()):
            ctx.kpi("goodput", round(r["goodput_bps"] / 1e6, 1), "Mb/s", kpi.TESTER,
                    phase=int(label), host=h)
    good3 = sum(r["goodput_bps"] for r in res3["hosts"].values())
    ctx.kpi("deadlock cycles seen", len(cycles), "", kpi.DUT, phase=3)
    ctx.kpi("retransmitted packets", retransmits(res3), "packets", kpi.TESTER, phase=3)
    ctx.kpi("DUT drops", drops3, "packets", kpi.DUT, phase=3)
    # Whether data gets through between the cycle's re-forming and its breaking depends on
    # the watchdog's times against the trial's length: goodput is reported, not judged.
    ctx.kpi("watchdog detections", events, "", kpi.DUT, phase=3)
    rows.append([3, "every clockwise ring port", None, None, events,
                 delta(after, mid, "PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED"),
                 delta(after, mid, "PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS")])
    ctx.table("watchdog", "7.4 PFC deadlock: the watchdog on each clockwise ring queue (DUT)",
              ["phase", "switch:port", "detection ms", "restoration ms", "detected",
               "restored", "dropped by the watchdog"], rows,
              "Phase 2: the watchdog enabled (config.set) on the standing deadlock; detection "
              "from enabling, restoration from the queue's pause ending (states sampled every "
              "%d ms). Phase 3: the traffic again with the watchdog on: %d cycles closed, "
              "messages %d of %d done, goodput %.0f Mb/s in all (phase 1: %d of %d)." % (
                  SAMPLE_S * 1000, len(cycles), res3["messages_done"],
                  res3["messages_posted"], good3 / 1e6, res1["messages_done"],
                  res1["messages_posted"]))

    # PAUSE events per hop and phase, from the timelines.
    hop = {}
    for ln in fab.links:
        for a, b in (("a", "b"), ("b", "a")):
            if a + "_port" in ln:
                hop[(ln[a], ln[a + "_port"])] = ln[b]
    prow, bars = [], {}
    for name, (a, b) in windows.items():
        frames = pfc_frames(tls, a * 1e9, b * 1e9)
        for key in sorted(frames):
            ev = kpi.pause_events(q for _, q in frames[key])
            paused = kpi.paused_time_us(frames[key], speed * 1e6, b)
            lbl = {"port": "%s:%s" % key, "pauses": hop[key], "priority": 3,
                   "direction": "tx", "phase": int(name[0])}
            ctx.kpi("PFC pause events", ev, "events", kpi.DUT, **lbl)
            ctx.kpi("PFC paused time", round(paused), "us", kpi.DUT, **lbl)
            prow.append([name, "%s:%s" % key, hop[key], ev, round(paused)])
            bars.setdefault(name, {})["%s>%s" % (key[0], hop[key])] = ev
    ctx.table("pauses", "7.4 PAUSE events per hop (DUT, priority 3, sent)",
              ["phase", "switch:port", "pauses", "events (quanta > 0)", "paused us"], prow,
              "Each switch's PAUSE frames with non-zero quanta, from lsw's timeline; the "
              "ring hops pause each other in a circle, the hosts' hops pause the senders.")
    ctx.figure("bars", "hops", "7.4 PAUSE events per hop and phase", bars,
               "Phase 1 closes the circle and then sends no more (a deadlock holds its "
               "pauses by refreshing them); phase 3 breaks and re-forms it.",
               "events (non-zero quanta)")
    xs = [t * 1000 for t, _ in rows1 + rows_hold]
    ctx.figure("lines", "state", "7.4 Clockwise ring ports: paused by the next switch",
               "time (ms)", "paused (stacked)",
               {"%s:%s" % (s, cw[s]): (xs, [i + 0.8 * int(r[s]["paused"]) for _, r in
                                            rows1 + rows_hold])
                for i, s in enumerate(RING)},
               "Phase 1: each ring port paused by its clockwise neighbour; once all three "
               "are, none sends again (the senders stop at %d ms)." % p["traffic_ms"],
               steps=True)
