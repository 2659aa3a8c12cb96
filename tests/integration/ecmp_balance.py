#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Utilization-based ECMP with real ports (hash collisions of few elephant flows).

1. tools/ecmp-compare with K = 4 uplinks and N = K and 2K elephant flows from one source
   IP: `hash` averaged over 20 seeds lands near the reference's random-hashing figures
   (K = N = 4: max/mean 2.13, 68% of uplinks in use), and the adaptive modes (flowlet_quality
   with staggered starts, flowlet_quality with reactive rebalance and packet_quality with
   flows that start together) reach a Jain index of at least 0.95.
2. A paused uplink: its peer sends PFC XOFF for priority 3; while the pause lasts no new
   flowlet of priority-3 traffic goes to it, and once XON comes it takes flowlets again.
3. A failed uplink (P3): the kernel side of its tap goes down; once lsw's link poll sees
   it, the surviving members carry its flows (hash: only its flows move) and nothing is
   dropped as L3_EGRESS_LINK_DOWN; when the link comes back its flows return to it.
"""
import os
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from lswtest import Lsw, run_test, tmpdir, wait_until  # noqa: E402
import ecmp_compare as ec  # noqa: E402  (tools/, on the path lswtest made)


def row(res, mode, start, n):
    return next(r for r in res if r["mode"] == mode and r["start"].startswith(start)
                and r["n"] == n)


def test_compare():
    print(ec.HEADER)
    res = ec.compare(k=4, seeds=20, seconds=1.5)
    # hash: near the analytic K = N = 4 values (max/mean 2.13, 68% of uplinks used), with
    # the spread 20 seeds leave.
    h = row(res, "hash", "20", 4)
    assert 1.7 <= h["max_mean"] <= 2.6 and 0.55 <= h["used"] <= 0.8, h
    assert row(res, "hash", "20", 8)["jain"] < 0.95
    for n in (4, 8):
        for mode, start in (("flowlet_quality", "staggered"),
                            ("flowlet_quality + rebalance", "together"),
                            ("packet_quality", "together")):
            r = row(res, mode, start, n)
            assert r["jain"] >= 0.95, r
        # packet_random sprays evenly; flowlet modes counted a flowlet per flow at least
        assert row(res, "packet_random", "together", n)["jain"] >= 0.95
        assert row(res, "flowlet_quality", "staggered", n)["flowlets"] >= n


def pfc_frame(prio, quanta):
    body = struct.pack("!HH", 0x0101, 1 << prio) + b"".join(
        struct.pack("!H", quanta if i == prio else 0) for i in range(8))
    return (bytes.fromhex("0180c2000001") + bytes.fromhex("020000000101") +
            struct.pack("!H", 0x8808) + body + bytes(26))


def test_paused_uplink():
    tmp = tmpdir("lsw-ecmp-pause-")
    cfg = ec.config(tmp, 4, 20, tap_uplink0=True)
    cfg["ECMP"]["GLOBAL"].update({"mode": "flowlet_quality", "inactivity_time": 256})
    cfg["PORT_QOS_MAP"] = {"Ethernet4": {"pfc_enable": "3"}}
    with Lsw(cfg, tmp) as sw:
        ec.link_up(ec.SRC_IFACE)
        ec.link_up("lswup0")
        # 8 flows of DSCP 3 (TC 3, queue 3), each packet 2 ms apart: a new flowlet each.
        s = ec.Sender(ec.SRC_IFACE, [ec.roce_frame(i, 3) for i in range(8)], 500)
        s.start()
        peer = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        peer.bind(("lswup0", 0))
        try:
            m = lambda: ec.member_bytes(sw)  # noqa: E731
            wait_until(lambda: all(x["FLOWLETS"] > 0 for x in m()), what="all members used")
            # XOFF for 65535 quanta at 20 Mb/s (1.68 s), refreshed every 0.3 s.
            peer.send(pfc_frame(3, 0xffff))
            wait_until(lambda: m()[0]["paused_queues"] == [3], what="member 0 paused")
            a = m()
            for _ in range(5):
                time.sleep(0.3)
                peer.send(pfc_frame(3, 0xffff))
            b = m()
            pfc = sw.rpc("pfc.stats", {"port": "Ethernet4"})["ports"]["Ethernet4"]
            assert pfc["priorities"]["3"]["rx_paused"], pfc
            got = ec.delta(a, b, "FLOWLETS")
            assert got[0] == 0 and all(x > 0 for x in got[1:]), got
            assert b[0]["paused_queues"] == [3] and b[0]["quality"] >= 0
            # XON: the pause ends, and the member takes new flowlets again.
            peer.send(pfc_frame(3, 0))
            wait_until(lambda: m()[0]["paused_queues"] == [], what="pause over")
            c = m()
            wait_until(lambda: m()[0]["FLOWLETS"] > c[0]["FLOWLETS"], what="member 0 again")
        finally:
            s.stop()
            peer.close()


def test_failed_uplink():
    tmp = tmpdir("lsw-ecmp-fail-")
    cfg = ec.config(tmp, 4, 20, tap_uplink0=True)
    with Lsw(cfg, tmp) as sw:
        ec.link_up(ec.SRC_IFACE)
        ec.link_up("lswup0")
        s = ec.Sender(ec.SRC_IFACE, [ec.roce_frame(i, 0) for i in range(16)], 40)
        s.start()
        m = lambda: ec.member_bytes(sw)  # noqa: E731

        def window(seconds=1.0):
            a = m()
            time.sleep(seconds)
            return ec.delta(a, m(), "PACKETS")

        def link_drops():
            st = sw.rpc("port.stats")["ports"]
            return sum(p["drops"].get("L3_EGRESS_LINK_DOWN", 0) for p in st.values())
        try:
            wait_until(lambda: m()[0]["live"] and m()[0]["PACKETS"] > 0, what="member 0 used")
            before = window()
            assert all(x > 0 for x in before), before  # 16 flows on every member
            subprocess.run(["ip", "link", "set", "lswup0", "down"], check=True)
            wait_until(lambda: not m()[0]["live"], what="member 0 seen down")
            drops = link_drops()
            after = window()
            assert after[0] == 0 and all(x > 0 for x in after[1:]), (before, after)
            assert link_drops() == drops == 0, link_drops()
            # Hash: the other members' flows stayed put, they only gained member 0's.
            for i in (1, 2, 3):
                assert after[i] >= before[i] * 0.7, (before, after)
            subprocess.run(["ip", "link", "set", "lswup0", "up"], check=True)
            wait_until(lambda: m()[0]["live"], what="member 0 back up")
            again = window()
            assert again[0] > 0, again
        finally:
            s.stop()


def test_ecmp_balance():
    test_failed_uplink()
    test_paused_uplink()
    test_compare()


if __name__ == "__main__":
    run_test(test_ecmp_balance)
