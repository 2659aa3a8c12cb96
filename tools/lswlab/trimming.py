# SPDX-License-Identifier: BSD-3-Clause
"""trimming (dataplane/TRIMMING.md): an N:1 incast of long and short messages on a lossy
class without congestion control, four ways on the same traffic: drop (go-back-N), trim
(trim-aware hosts: a NACK per trim, that packet resent alone), pfc (lossless), and stock
(trimming on, a stock receiver that drops trims as bad ICRC); then the IETF BMWG AI fabric
benchmark's trimming test, 6.5(b), on a 2:1 bottleneck (bmwg_6_5b, callable alone).

What NDP (Handley et al., SIGCOMM 2017) and Ultra Ethernet's trimming lead to expect, and
what is checked: with trimming every loss is known within a round trip (the trim jumps the
standing queue on the strict trim queue), so a short message's lost tail is resent at once
(its p99 completion far below drop's, which waits for the timeout) and timeouts are rare;
only what was trimmed is resent (selective), where go-back-N resends what followed the loss
too; the trims themselves fit their queue. PFC loses nothing and pauses
instead. A stock receiver gains nothing from trims: it drops every one as a bad ICRC."""
import os

from . import common
from .run import Lab
from .topo import merge, star

import lswtimeline

DATA_DSCP = 3          # the lossy class the switch trims (AZURE: TC 3, queue 3)
RX_PORT = "Ethernet0"  # h0's, the receiver's


def _bytes(s):
    s = str(s)
    for unit, mul in (("KB", 1 << 10), ("MB", 1 << 20), ("GB", 1 << 30)):
        if s.endswith(unit):
            return int(float(s[:-len(unit)]) * mul)
    return int(s)


def switch_fragment(sc, trim, weights=None):
    """The receiver's queue 3 holds queue_limit and drops or trims the rest; the trims go to
    queue 6 with trim_queue_limit of its own (the star's egress pool is static), strict, or
    with @weights [trims, data] a DWRR share of the port beside queue 3 (UEC's models cap
    trimmed traffic at 25%: 1 to 3).
    Packets resent for a trim are data like the others (the hosts could mark them with a
    DSCP of their own, UET's DSCP_RTX: on a queue strict above the data, the resends of N
    senders that never slow down starved the data, which was then all trimmed and resent)."""
    frag = {"BUFFER_PROFILE": {
                "q_data": {"pool": "egress_lossless_pool", "static_th": sc["queue_limit"],
                           "packet_discard_action": "trim" if trim else "drop"},
                "q_trims": {"pool": "egress_lossless_pool",
                            "static_th": sc["trim_queue_limit"]}},
            "BUFFER_QUEUE": {"%s|3" % RX_PORT: {"profile": "q_data"},
                             "%s|6" % RX_PORT: {"profile": "q_trims"}},
            "SCHEDULER": {"trims": {"type": "STRICT"}},
            "QUEUE": {"%s|6" % RX_PORT: {"scheduler": "trims"}}}
    if weights:
        frag["SCHEDULER"] = {"trims": {"type": "DWRR", "weight": str(weights[0])},
                             "data": {"type": "DWRR", "weight": str(weights[1])}}
        frag["QUEUE"]["%s|3" % RX_PORT] = {"scheduler": "data"}
    if trim:
        frag["SWITCH_TRIMMING"] = {"GLOBAL": dict(sc["trimming"])}
    return frag


def host_defaults(sc, kind):
    """plain: no trim support; aware: data marked trimmable, trims known by their DSCP
    (the switch is the receiver's last hop: UET's TRIMMED_LAST_HOP); stock: data marked
    trimmable, the receiver a stock RoCE NIC."""
    d = {"cc": {"algorithm": "none"}, "rto_us": sc["rto_us"], "dscp_data": DATA_DSCP}
    if kind == "aware":
        d["trim"] = {"trimmable_dscp": DATA_DSCP,
                     "last_hop_dscp": [int(sc["trimming"]["dscp_value"])]}
    elif kind == "stock":
        d["trim"] = {"trimmable_dscp": DATA_DSCP}
    return d


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))] if xs else None


def first_overflow_ns(tl_path):
    """Unix ns of the first refusal on the receiver's data queue: the first trim event, or
    the end of the first timeline interval whose queue record counts a drop."""
    tl = lswtimeline.read(tl_path)
    ts = [r[0] for r in tl.of_kind("trim") if tl.port_name(r[2]) == RX_PORT]
    ts += [r[0] for r in tl.of_kind("queue") if tl.port_name(r[2]) == RX_PORT and r[3] == 3 and
           tl.values(r)["dropped"] > 0]
    return min(ts) if ts else None


def first_request_ns(res):
    """Unix ns of the first request to send again: a NAK of any kind, or a timeout."""
    ts = [h[k] for h in res["hosts"].values() for k in ("first_nak_us", "first_timeout_us")
          if h.get(k) is not None]
    return res["start_unix_ns"] + int(min(ts) * 1000) if ts else None


def measure(sc, mode, fab, workload, pfc, trim, hosts, name, weights=None):
    """Run one configuration: the figures every mode reports."""
    rx_sw = "leaf"
    tl = {rx_sw: dict(common.timeline([RX_PORT], 50), record=["queues", "events"])}
    hcfg = fab.host_config(host_defaults(sc, hosts), workload)
    frag = switch_fragment(sc, trim, weights)
    with Lab(fab, {rx_sw: fab.switch_config(rx_sw, frag, pfc)}, tl) as lab:
        res, _ = lab.hosts(hcfg)
        sw = lab.switches[rx_sw]
        d = common.drops(sw)
        pauses = common.pfc_sent(sw)
        ts = sw.rpc("trim.stats")
        files = lab.timelines()
    port = ts["ports"][RX_PORT]
    h0 = res["hosts"]["h0"]["counters"]
    msgs = res["messages"]["rows"]
    sizes = sorted({r[2] for r in msgs})
    fct = {s: [r[4] for r in msgs if r[2] == s] for s in sizes}
    over, req = first_overflow_ns(files[rx_sw]), first_request_ns(res)
    resent = sum(q["retransmitted_packets"] for q in res["qps"])
    return {
        "mode": mode, "name": name,
        "messages": res["messages_posted"], "messages_done": res["messages_done"],
        "qps_gave_up": sum(1 for q in res["qps"] if q["error"]),
        "messages_unaccounted": sum(q["messages_posted"] - q["messages_done"]
                                    for q in res["qps"] if not q["error"]),
        "fct_us": {str(s): {"p50": pct(v, 0.5), "p99": pct(v, 0.99), "count": len(v)}
                   for s, v in fct.items()},
        "goodput_fraction": res["hosts"]["h0"]["goodput_bps"] / (sc["speed"] * 1e6),
        # The time the emulator itself stood still (the shared machine held it up): a run
        # that stalled long says less about the transport.
        "stall_ms": res.get("emulator", {}).get("stall_us", 0.0) / 1000,
        "duration_ms": max((r[3] + r[4] for r in msgs), default=0) / 1000,
        "first_overflow_to_request_ms": (req - over) / 1e6 if over and req else None,
        "packets_resent": resent,
        "bytes_resent": resent * sc["mtu"],
        "timeouts": sum(q["timeouts"] for q in res["qps"]),
        "drops": common.total(d), "drop_reasons": d, "pause_frames": pauses,
        "trims": port["TRIM_PACKETS"], "trims_sent": port["TX_TRIM_PACKETS"],
        "trims_dropped": port["DROPPED_TRIM_PACKETS"],
        "switch_trims_sent": ts["switch"]["TX_TRIM_PACKETS"],
        "switch_trims_dropped": ts["switch"]["DROPPED_TRIM_PACKETS"],
        "rx_trims": h0["rx_trimmed_packets"] + h0["rx_trimmed_last_hop_packets"],
        "trim_nacks": h0["resp_nack_trimmed_sent"] + h0["resp_nack_trimmed_last_hop_sent"],
        "rx_icrc_errors": h0["rx_icrc_errors"],
        "rx_trims_stale": h0["rx_trimmed_stale"],
        "selective_resends": sum(h["counters"]["req_selective_retransmits"]
                                 for h in res["hosts"].values()),
        "timeline": files, "t0_ns": res["start_unix_ns"],
    }


def aware_checks(rep, exp, tag, t, dr, short):
    """The checks of a run with trim-aware hosts @t against drop's @dr on the same traffic."""
    rep.check(tag + "every trim reached the receiver and was NACKed (but those of what had "
              "arrived), none a bad ICRC",
              "%d = NACKs + stale, 0 ICRC errors" % t["trims_sent"],
              "%d + %d, %d ICRC errors" % (t["trim_nacks"], t["rx_trims_stale"],
                                           t["rx_icrc_errors"]),
              t["trim_nacks"] + t["rx_trims_stale"] == t["rx_trims"] == t["trims_sent"] and
              t["rx_icrc_errors"] == 0)
    # Every loss is known by a NACK: no timeout is needed. But without congestion control N
    # senders keep the queue full, a resent packet may be trimmed again and again, and a
    # host process the shared machine holds up 50 ms times out: a rate check, measured
    # beside drop's.
    rep.check(tag + "timeouts, at most a quarter of drop's", "<= %d / 4" % dr["timeouts"],
              t["timeouts"], 4 * t["timeouts"] <= dr["timeouts"], rate=True)
    per = t["packets_resent"] / max(1, t["trims_sent"])
    rep.check(tag + "only what was trimmed is resent (packets resent per trim)",
              "<= %.1f" % exp["resent_per_trim_max"], round(per, 2),
              per <= exp["resent_per_trim_max"])
    # The shape in time (the machine's speed moves these: rate checks, each with a margin
    # far from where noise would put it).
    tp99, dp99 = t["fct_us"][short]["p99"], dr["fct_us"][short]["p99"]
    rep.check(tag + "short messages' p99 completion, against drop's (drop waits for the "
              "timeout)", "< %.1f x drop's" % exp["short_p99_ratio"],
              "%.0f us vs %.0f us" % (tp99, dp99), tp99 < exp["short_p99_ratio"] * dp99,
              rate=True)
    fr, dfr = t["first_overflow_to_request_ms"], dr["first_overflow_to_request_ms"]
    rep.check(tag + "first overflow to first retransmission request (about a round trip)",
              "< %g ms and < %.1f x drop's (%s)" % (
                  exp["first_request_ms"], exp["request_ratio"],
                  "%.2f ms" % dfr if dfr is not None else "none"),
              "%.2f ms" % fr if fr is not None else "none",
              fr is not None and fr < exp["first_request_ms"] and
              (dfr is None or fr < exp["request_ratio"] * dfr), rate=True)
    # A margin in points of the link, not a ratio: drop's goodput may come near the link's
    # at small N, where no ratio is reachable.
    rep.check(tag + "goodput of the receiver's link, against drop's",
              ">= drop's %.3f + %g" % (dr["goodput_fraction"], exp["goodput_margin"]),
              round(t["goodput_fraction"], 3),
              t["goodput_fraction"] >= dr["goodput_fraction"] + exp["goodput_margin"],
              rate=True)


def bmwg_6_5b(rundir, speed=500, mtu=4096, size="2MB", trimming=True, sc=None):
    """The BMWG AI fabric benchmark's trimming test, 6.5(b): two senders through a 2:1
    bottleneck (two links into one), each writing @size; @trimming on or off (go-back-N on
    drops). Returns what the test reports: the time from congestion onset (the first
    refusal) to the first retransmission request, the bytes resent, the goodput. Another
    tool may call it alone (@sc: a trimming scenario, for its buffer and host settings)."""
    sc = merge({"speed": speed, "mtu": mtu, "rto_us": 20000, "queue_limit": "128KB",
                "trim_queue_limit": "64KB",
                "trimming": {"size": "128", "dscp_value": "48", "queue_index": "6"}},
               sc or {})
    sc["speed"], sc["mtu"] = speed, mtu
    mode = "trim" if trimming else "drop"
    fab = star("trimming-6_5b-%s" % mode, rundir, 3, speed, mtu)
    work = [{"type": "incast", "senders": ["h1", "h2"], "receiver": "h0", "size": size}]
    r = measure(sc, mode, fab, work, False, trimming, "aware" if trimming else "plain",
                "6.5(b) %s" % mode)
    r["bytes_offered"] = 2 * _bytes(size)
    return r


def run(sc, rep, rundir, quick):
    q = sc["quick"] if quick else {}
    ns = q.get("n", sc["n"])
    lng, sht = q.get("long", sc["long"]), q.get("short", sc["short"])
    exp = sc["expect"]
    # --quick leaves out the weighted trim queue (trim_share), which full runs compare with
    # the strict one.
    modes = q.get("modes", list(sc["modes"]))
    runs = []
    for n in ns:
        senders = ["h%d" % i for i in range(1, n + 1)]
        work = [{"type": "incast", "senders": senders, "receiver": "h0", "size": lng["size"],
                 "count": lng["count"]},
                {"type": "incast", "senders": senders, "receiver": "h0", "size": sht["size"],
                 "count": sht["count"], "gap_us": sht["gap_us"]}]
        for mode in modes:
            m = sc["modes"][mode]
            fab = star("trimming-%s-%d" % (mode, n), rundir, n + 1, sc["speed"], sc["mtu"])
            r = measure(sc, mode, fab, work, m["pfc"], m["trim"], m["hosts"],
                        "%s N=%d" % (mode, n), m.get("trim_weights"))
            r["n"] = n
            runs.append(r)
    short, long_ = str(_bytes(sht["size"])), str(_bytes(lng["size"]))
    for n in ns:
        by = {r["mode"]: r for r in runs if r["n"] == n}
        for mode, r in by.items():
            tag = r["name"]
            m = sc["modes"][mode]
            if m["pfc"] or m["hosts"] == "aware":
                rep.check(tag + ": every message completes", r["messages"],
                          r["messages_done"], r["messages_done"] == r["messages"])
            else:
                rep.check(tag + ": every message completes or its QP gave up (retries out)",
                          "%d, 0 hung" % r["messages"], "%d done, %d QPs gave up, %d hung" % (
                              r["messages_done"], r["qps_gave_up"],
                              r["messages_unaccounted"]), r["messages_unaccounted"] == 0)
            if m["trim"]:
                rep.check(tag + ": the switch trims, TRIM = TX_TRIM + DROPPED_TRIM",
                          "> 0, equal", "%d = %d + %d" % (r["trims"], r["trims_sent"],
                                                         r["trims_dropped"]),
                          r["trims"] > 0 and r["trims"] == r["trims_sent"] + r["trims_dropped"]
                          and r["trims_sent"] == r["switch_trims_sent"])
            else:
                rep.check(tag + ": no trim", 0, r["trims"], r["trims"] == 0)
        dr, pf, st = by["drop"], by["pfc"], by["stock"]
        tag = "N=%d: " % n
        for mode, t in by.items():
            if sc["modes"][mode]["hosts"] == "aware":
                aware_checks(rep, exp, "N=%d: %s: " % (n, mode), t, dr, short)
        rep.check(tag + "drop: drops, and go-back-N resends more than what was dropped",
                  "drops > 0, resent > drops", "%d dropped, %d resent" % (
                      dr["drops"], dr["packets_resent"]),
                  dr["drops"] > 0 and dr["packets_resent"] > dr["drops"])
        rep.check(tag + "pfc: no drop, pauses sent", "0 drops, pauses > 0", "%d, %d pauses" % (
            pf["drops"], pf["pause_frames"]), pf["drops"] == 0 and pf["pause_frames"] > 0)
        rep.check(tag + "stock: every trim dropped as a bad ICRC, none NACKed",
                  "%d ICRC errors, 0 NACKs" % st["trims_sent"],
                  "%d ICRC errors, %d NACKs" % (st["rx_icrc_errors"], st["trim_nacks"]),
                  st["rx_icrc_errors"] == st["trims_sent"] > 0 and st["trim_nacks"] == 0)
        # A stock receiver gains nothing from trims: a short message whose tail was trimmed
        # waits for the timeout, as with drops (a slower machine only lengthens it).
        sp99 = st["fct_us"][short]["p99"]
        rep.check(tag + "stock: short messages' p99 completion includes a timeout, as drop's",
                  ">= %d us (drop's: %.0f us)" % (sc["rto_us"], dr["fct_us"][short]["p99"]),
                  "%.0f us" % sp99, sp99 >= sc["rto_us"], rate=True)

    # 6.5(b): before and after trimming on a 2:1 bottleneck.
    size = sc["bmwg_6_5b"]["quick_size" if quick else "size"]
    bm = {on: bmwg_6_5b(rundir, sc["speed"], sc["mtu"], size, on, sc) for on in (False, True)}
    for r in bm.values():
        if r["mode"] == "trim":
            rep.check(r["name"] + ": every message completes", r["messages"],
                      r["messages_done"], r["messages_done"] == r["messages"])
        else:  # go-back-N may run a QP out of retries, as a NIC's: none may hang
            rep.check(r["name"] + ": every message completes or its QP gave up (retries out)",
                      "%d, 0 hung" % r["messages"], "%d done, %d QPs gave up, %d hung" % (
                          r["messages_done"], r["qps_gave_up"], r["messages_unaccounted"]),
                      r["messages_unaccounted"] == 0)
    # The bandwidth trimming saves: what the bottleneck carries as new data rather than
    # copies of what it carried (go-back-N) or waited out (timeouts).
    saved = bm[True]["goodput_fraction"] - bm[False]["goodput_fraction"]
    rep.check("6.5(b): bandwidth saved vs drops (goodput of the bottleneck, trim - drop)",
              ">= %g" % exp["bmwg_saved_min"], round(saved, 3), saved >= exp["bmwg_saved_min"],
              rate=True)
    a, b = bm[True]["first_overflow_to_request_ms"], bm[False]["first_overflow_to_request_ms"]
    rep.check("6.5(b): congestion onset to first retransmission request, trim against drop",
              "trim < %.1f x drop's" % exp["request_ratio"],
              "%s vs %s ms" % ("%.2f" % a if a is not None else "none",
                               "%.2f" % b if b is not None else "none"),
              a is not None and b is not None and a < exp["request_ratio"] * b, rate=True)
    rep.table("bmwg_6_5b", "IETF BMWG AI fabric benchmark 6.5(b): trimming on a 2:1 "
              "bottleneck, software emulated",
              ["", "drop (before)", "trim (after)"],
              [["congestion onset to first retransmission request (ms)",
                "%.3f" % b if b is not None else "-", "%.3f" % a if a is not None else "-"],
               ["bytes resent", bm[False]["bytes_resent"], bm[True]["bytes_resent"]],
               ["bandwidth saved vs drops (% of the bottleneck)", "",
                "%.1f" % (100.0 * saved)],
               ["goodput (fraction of the bottleneck)", "%.3f" % bm[False]["goodput_fraction"],
                "%.3f" % bm[True]["goodput_fraction"]],
               ["trims sent / dropped", "-", "%d / %d" % (bm[True]["trims_sent"],
                                                          bm[True]["trims_dropped"])],
               ["retransmission timeouts", bm[False]["timeouts"], bm[True]["timeouts"]]],
              "Two senders at the bottleneck's speed, one receiver: the draft's 2:1 case. "
              "The switch is lsw, the hosts lsw-host's emulated RoCE NICs (software "
              "emulated, as the draft asks to state). Onset is the switch's first refusal "
              "(its timeline), the request the hosts' first NAK or timeout.")

    def plain(r):
        return {k: v for k, v in r.items() if k not in ("timeline", "t0_ns")}
    rep.metrics["runs"] = [plain(r) for r in runs]
    rep.metrics["bmwg_6_5b"] = {("trim" if k else "drop"): plain(v) for k, v in bm.items()}
    rows = []
    for r in runs:
        for s, label in ((short, "short"), (long_, "long")):
            f = r["fct_us"].get(s, {})
            rows.append([r["name"], label, f.get("p50"), f.get("p99"), f.get("count")])
    rep.table("fct", "Message completion times by size (us)",
              ["run", "messages", "p50", "p99", "count"], rows,
              "From each message's post to the ACK of its last packet (lsw-host).")
    rep.table("figures", "Per run", ["run", "goodput", "overflow to request (ms)",
                                     "packets resent", "MB resent", "timeouts", "drops",
                                     "trims sent",
                                     "trims dropped", "pauses", "emulator stalled (ms)"],
              [[r["name"], "%.3f" % r["goodput_fraction"],
                "%.3f" % r["first_overflow_to_request_ms"]
                if r["first_overflow_to_request_ms"] is not None else "-",
                r["packets_resent"], "%.2f" % (r["bytes_resent"] / 1e6), r["timeouts"],
                r["drops"], r["trims_sent"], r["trims_dropped"], r["pause_frames"],
                "%.1f of %.0f" % (r["stall_ms"], r["duration_ms"])] for r in runs],
              "Goodput of the receiver's link; the time from the switch's first refusal to "
              "the hosts' first NAK or timeout; what the hosts sent again; the switch's drops, "
              "trims and pauses; how long the emulator stood still (held up by the shared "
              "machine) in the run's time.")
    big = max(ns)
    rep.bars("p99_short", "Short messages' p99 completion time, N=%d" % big,
             {r["mode"]: {"p50": r["fct_us"][short]["p50"] / 1000,
                          "p99": r["fct_us"][short]["p99"] / 1000}
              for r in runs if r["n"] == big},
             "With drops a short message whose tail is lost waits for the timeout (%d ms); "
             "with trims its receiver asks again within a round trip; with PFC nothing is lost "
             "but the message waits behind the paused traffic; a stock receiver gains nothing "
             "from trims." % (sc["rto_us"] // 1000), "ms")
    rep.bars("goodput", "Goodput of the receiver's link, N=%d" % big,
             {r["mode"]: {"goodput": r["goodput_fraction"]} for r in runs if r["n"] == big},
             "Trimming keeps the link carrying new data (only what was trimmed is sent again); "
             "go-back-N sends what followed a loss again.", "fraction of the link")
    for r in runs:
        if r["n"] == big and r["mode"] in ("trim", "drop"):
            rep.timeline("timeline_" + r["mode"], "The switch's timeline, %s" % r["name"],
                         r["timeline"], "The receiver's queue 3 (data) and 6 (trims) from "
                         "lsw's timeline recorder every 50 us, and with trimming a mark per "
                         "trim on the trim queue's lane: the trims leave at once, ahead of "
                         "the standing data queue, which is why their NACKs come within a "
                         "round trip.", r["t0_ns"], ["leaf:" + RX_PORT])
    rep.note("Bytes resent are packets resent times the path MTU (every resent packet of "
             "these messages is a full one but a message's last).")
    os.makedirs(rundir, exist_ok=True)
