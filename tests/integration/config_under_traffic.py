#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Hitless reconfiguration: while packets flow from a net_tap port to three net_null
uplinks, config.set, route.add, route.del and neighbor.add change buffer thresholds and
sharing policies, ECMP
modes and thresholds, routes (single next hop, ECMP groups of two and three members, a
blackhole) and a neighbor's MAC, again and again. Then every packet sent is accounted for:
forwarded by an uplink, or dropped as the config said (blackhole), and nothing else; and the
mbufs free after the traffic are the mbufs free before it (no leak)."""
import os
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from lswtest import (Lsw, base_config, lossy_buffers, run_test, tap_ready, tmpdir,  # noqa: E402
                     wait_until)

SW_MAC = "02:00:00:00:00:01"
IFACE = "lswcut0"
UPLINKS = ["Ethernet4", "Ethernet8", "Ethernet12"]


def frames():
    from scapy.all import IP, UDP, Ether, Raw
    out = []
    for i in range(64):
        dst = "10.%d.%d.%d" % (100 + i % 2, i // 2, 1 + i % 7)
        p = (Ether(dst=SW_MAC, src="02:00:00:00:00:02") / IP(src="10.0.0.1", dst=dst) /
             UDP(sport=10000 + i, dport=4791 if i % 3 == 0 else 5000) / Raw(b"\x11" * 200))
        out.append(bytes(p))
    return out


class Sender(threading.Thread):
    """Bursts of the 64 flows with a short pause between them: about 20 kpps, slow enough
    for the tap's kernel queue, fast enough for hundreds of packets per change."""

    def __init__(self):
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        self.sock.bind((IFACE, 0))
        self.frames = frames()
        self.stop_ev = threading.Event()
        self.sent = 0

    def run(self):
        while not self.stop_ev.is_set():
            for f in self.frames:
                self.sock.send(f)
                self.sent += 1
            time.sleep(0.003)

    def stop(self):
        self.stop_ev.set()
        self.join()
        self.sock.close()


def changes():
    """One change after another, forever: (method, params)."""
    ecmp_modes = ["flowlet_quality", "packet_quality", "flowlet_random", "hash_qp",
                  "packet_random", "fixed", "hash"]
    # Sharing policies that take the dynamic_th profiles below (static needs static_th).
    policies = ["dt", "abm", "complete_sharing", "hpcc_sim", "partitioned"]
    routes = [{"nexthop": "10.0.2.1"}, {"nexthop": "10.0.1.1,10.0.2.1,10.0.3.1"},
              {"blackhole": True}, {"nexthop": ["10.0.3.1", "10.0.1.1"]},
              {"nexthop": "10.0.1.1"}]
    i = 0
    while True:
        yield "config.set", {"config": {"ECMP": {"GLOBAL": {
            "mode": ecmp_modes[i % len(ecmp_modes)],
            "load_max_threshold": 60 + i % 30, "queue_max_threshold": 1000000 + 1000 * i}}}}
        r = dict(routes[i % len(routes)], prefix="10.101.0.0/16", replace=True)
        yield "route.add", r
        yield "config.set", {"config": {
            "BUFFER_PROFILE": {"egress_lossy_profile": {"dynamic_th": str(i % 4)}},
            "BUFFER_POOL": {"egress_lossy_pool": {"size": "%dMB" % (4 + i % 4),
                                                  "policy": policies[i % len(policies)]},
                            "ingress_lossless_pool": {
                                "policy": policies[(i + 2) % len(policies)]}},
            "SCHEDULER": {"scheduler.0": {"weight": str(1 + i % 50)}}}}
        nh = "10.0.1.1,10.0.2.1,10.0.3.1" if i % 2 else "10.0.2.1,10.0.3.1"
        yield "route.add", {"prefix": "10.100.0.0/16", "nexthop": nh, "replace": True}
        yield "neighbor.add", {"port": "Ethernet12", "ip": "10.0.3.1", "replace": True,
                               "mac": "02:00:00:00:03:%02x" % (i % 256)}
        if i % 5 == 4:  # a route that comes and goes, with an ECMP entry of its own
            yield "route.add", {"prefix": "10.102.0.0/16", "nexthop": "10.0.1.1,10.0.2.1"}
            yield "config.set", {"config": {"ECMP": {"10.102.0.0/16": {"mode": "packet_quality"}}}}
            yield "route.del", {"prefix": "10.102.0.0/16"}
        i += 1


def config(tmp):
    ports = {"Ethernet0": ("net_tap0,iface=%s" % IFACE, "10.0.0.0/31", {"mtu": "1500"})}
    for u, name in enumerate(UPLINKS):
        ports[name] = ("net_null%d,no-rx=1" % u, "10.0.%d.0/31" % (u + 1), {"mtu": "1500"})
    cfg = base_config(tmp, ports, idle_sleep_us=50, mbufs=16384)
    cfg["STATIC_ROUTE"] = {"10.100.0.0/16": {"nexthop": "10.0.1.1,10.0.2.1"},
                           "10.101.0.0/16": {"nexthop": "10.0.1.1"}}
    cfg["NEIGH"] = {"Ethernet%d|10.0.%d.1" % (4 * (u + 1), u + 1):
                    {"neigh": "02:00:00:00:%02x:01" % (u + 1)} for u in range(3)}
    cfg["SCHEDULER"] = {"scheduler.0": {"type": "DWRR", "weight": "10"}}
    lossy_buffers(cfg)
    return cfg


def drops(st, port):
    return st["ports"][port].get("drops", {})


def test_config_under_traffic():
    tmp = tmpdir("lsw-cut-")
    sw = Lsw(config(tmp), tmp)
    with sw:
        free0 = tap_ready(sw, IFACE)
        sender = Sender()
        sender.start()
        n, t_end, gen = 0, time.monotonic() + 6.0, changes()
        while time.monotonic() < t_end or n < 60:
            method, params = next(gen)
            sw.rpc(method, params)
            n += 1
            time.sleep(0.01)  # each state sees a few hundred packets
        sender.stop()
        print("%d changes while %d packets were sent" % (n, sender.sent))
        assert n >= 60 and sender.sent >= 20000, (n, sender.sent)

        def settled():
            st = sw.rpc("port.stats")
            out = sum(st["ports"][p]["IF_OUT_UCAST_PKTS"] for p in UPLINKS)
            bh = drops(st, "Ethernet0").get("BLACKHOLE_ROUTE", 0)
            return (out + bh == sender.sent, st, out, bh)
        try:
            wait_until(lambda: settled()[0], timeout=10, what="every packet accounted for")
        finally:
            ok, st, out, bh = settled()
            print("sent %d, forwarded %d, blackholed %d" % (sender.sent, out, bh))
            print("Ethernet0:", st["ports"]["Ethernet0"])
        # Nothing else dropped anywhere: not in, not out, not by the PMD.
        for p in ["Ethernet0"] + UPLINKS:
            other = {k: v for k, v in drops(st, p).items() if k != "BLACKHOLE_ROUTE" and v}
            assert not other, (p, other)
            assert st["ports"][p]["pmd"]["imissed"] == 0 and st["ports"][p]["IF_OUT_DISCARDS"] == 0
        assert bh > 0 and all(st["ports"][p]["IF_OUT_UCAST_PKTS"] > 0 for p in UPLINKS), st
        # Every mbuf came back.
        wait_until(lambda: sw.rpc("switch.info")["mbufs_free"] == free0, timeout=10,
                   what="mbufs_free back to %d" % free0)
        q = sw.rpc("queue.stats")["ports"]
        assert all(q[p][k]["CURR_OCCUPANCY_BYTES"] == 0 for p in q for k in q[p])
        # ... and every byte charged, whatever policy admitted it, was released.
        pools = sw.rpc("buffer.pools")
        assert all(p["CURR_OCCUPANCY_BYTES"] == 0 and p["SHARED_CURR_OCCUPANCY_BYTES"] == 0
                   for p in pools), pools
        log = sw.read_log()
        assert log.count("configuration changed at run time") >= n - n // 5, n


if __name__ == "__main__":
    run_test(test_config_under_traffic)
