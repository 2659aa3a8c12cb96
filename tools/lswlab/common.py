# SPDX-License-Identifier: BSD-3-Clause
"""Figures every scenario reads from the switches' and hosts' own counters."""


def drops(sw):
    """{port: {reason: count}} of every drop an lsw counted."""
    out = {}
    for port, s in sw.rpc("port.stats")["ports"].items():
        d = {k: v for k, v in s.get("drops", {}).items() if v}
        if d:
            out[port] = d
    return out


def total(d):
    return sum(n for reasons in d.values() for n in reasons.values())


def drops_measured(d):
    """A drop check's measured figure: the count, and where there are drops, their ports
    and reasons, so that a failed run's summary names them (CI keeps only the summary)."""
    n = total(d)
    if n == 0:
        return 0
    return "%d (%s)" % (n, ", ".join("%s %s %d" % (p, r, c) for p, rs in sorted(d.items())
                                     for r, c in sorted(rs.items())))


LOSSLESS_DROPS = ("HEADROOM_OVERFLOW", "INGRESS_PG_THRESHOLD", "EGRESS_QUEUE_THRESHOLD",
                  "MBUF_LIMIT", "WRED_DROP", "TX_RING_FULL", "TX_QUEUE_FULL")


def pfc_sent(sw, prio=3):
    """PFC frames an lsw sent on @prio, over every port."""
    ports = sw.rpc("pfc.stats")["ports"]
    return sum(p["priorities"][str(prio)]["PFC_%d_TX_PKTS" % prio] for p in ports.values()
               if str(prio) in p["priorities"])


def jain(xs):
    xs = list(xs)
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs)) if any(xs) else 0.0


def rates_last_half(res):
    """Each QP's mean sent rate (bits/s) over the last half of the time any QP sent."""
    rows = res["samples"]["rows"]
    sending = [r for r in rows if r[3] > 0]
    if not sending:
        return {}
    t0, t1 = min(r[0] for r in sending), max(r[0] for r in sending)
    mid = (t0 + t1) / 2
    by = {}
    for t, qpn, _rate, tx, _alpha in rows:
        if mid <= t <= t1:
            by.setdefault(qpn, []).append(tx)
    return {q: sum(v) / len(v) for q, v in by.items()}


def series(res, column):
    """{qpn: (t_ms, values)} of a sample column (rate_bps, tx_bps or alpha)."""
    i = res["samples"]["columns"].index(column)
    out = {}
    for row in res["samples"]["rows"]:
        xs, ys = out.setdefault(row[1], ([], []))
        xs.append(row[0] / 1000)
        ys.append(row[i])
    return out


def queue_sampler(switch, port, queue="3"):
    """A sampler of one queue's occupancy (bytes) on one switch."""
    def fn(clients):
        q = clients[switch].call("queue.stats", {"port": port})["ports"][port][queue]
        return q["CURR_OCCUPANCY_BYTES"]
    return fn


def timeline(ports, interval_us=200):
    """timeline.start's params for a lab switch: @ports' queues, PGs, counters and the
    events. 200 us at 1 Gb/s is 2 us of a 100G fabric (labs.md: time slowed down 100 times);
    a few ports keep the file to about 10 MB a second."""
    return {"ports": list(ports), "interval_us": interval_us,
            "record": ["queues", "pgs", "ports", "events"]}
