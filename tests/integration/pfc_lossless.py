#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Lossless end to end (buffers.md T3): two lsw linked by net_memif with its default ring
(lsw sizes it: control/config/inflight.c). S replays 2000 lossless frames (DSCP 3) towards B,
whose egress is shaped to 100 Mb/s. B's PG 3 has the headroom SONiC's formula computes for
its speed and cable (profile NULL), plus what a software link has in flight; it crosses its
XOFF point and pauses S; S obeys (its queue holds the rest) and resumes on XON. Every frame
arrives, nothing is dropped anywhere, B's headroom peak stays within its xoff. With a
quarter of that headroom, overflows appear: the test can fail.

Each switch's worker has a CPU of its own: a worker that shares its CPU with a busy
neighbour waits a scheduler time slice (milliseconds) to poll, and what arrives meanwhile
is more than any headroom formula allows for."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from lswtest import (Lsw, base_config, roce_pcap, run_test, test_workers, tmpdir,  # noqa: E402
                     wait_until)

FRAMES = 2000
SIZE = 1024
B_MAC = "02:00:00:00:0b:00"
# net_memif reports a 1518-byte max frame, so the link between S and B runs MTU 1500.
LINK = {"speed": "10000", "mtu": "1500"}


def configs(tmp, quarter, pcap="in.pcap", s_mbufs=None):
    sock = os.path.join(tmp, "memif.sock")
    memif = "net_memif0,role=%s,socket=%s,socket-abstract=no,id=0"
    pcap = os.path.join(tmp, pcap)
    s = base_config(tmp, {
        "Ethernet0": ("net_pcap0,rx_pcap=%s" % pcap, "10.0.0.0/31", None),
        "Ethernet4": (memif % ("server", sock), "10.0.1.0/31", LINK)},
        rpc_socket=os.path.join(tmp, "s.sock"), file_prefix="lsw-s-%d" % os.getpid())
    if s_mbufs:
        s["LSW"]["global"]["mbufs"] = s_mbufs
    s["STATIC_ROUTE"] = {"10.9.0.0/16": {"nexthop": "10.0.1.1"}}
    s["NEIGH"] = {"Ethernet4|10.0.1.1": {"neigh": B_MAC}}
    s["PORT_QOS_MAP"] = {"Ethernet0,Ethernet4": {"pfc_enable": "3"}}
    b = base_config(tmp, {
        "Ethernet0": (memif % ("client", sock), "10.0.1.1/31", LINK),
        "Ethernet4": ("net_null0,no-rx=1", "10.0.2.0/31", {"speed": "100"})},
        rpc_socket=os.path.join(tmp, "b.sock"), file_prefix="lsw-b-%d" % os.getpid(),
        main_lcore=1, workers=test_workers(cpu=0))
    b["LSW_PORT"]["Ethernet0"]["mac"] = B_MAC
    b["STATIC_ROUTE"] = {"10.9.0.0/16": {"nexthop": "10.0.2.1"}}
    b["NEIGH"] = {"Ethernet4|10.0.2.1": {"neigh": "02:00:00:00:0c:01"}}
    # A 1 MB pool with alpha 1/16: PG 3's XOFF point is near 60 KB, well before 2000 frames.
    b["BUFFER_POOL"] = {
        "ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "size": "1MB"},
        "egress_lossless_pool": {"type": "egress", "mode": "static"}}
    b["BUFFER_PROFILE"] = {
        "ingress_lossy_profile": {"pool": "ingress_lossless_pool", "dynamic_th": "3"},
        "egress_lossy_profile": {"pool": "egress_lossless_pool", "static_th": "8MB"}}
    b["DEFAULT_LOSSLESS_BUFFER_PARAMETER"] = {"AZURE": {"default_dynamic_th": "-4"}}
    b["CABLE_LENGTH"] = {"AZURE": {"Ethernet0": "5m"}}
    b["BUFFER_PG"] = {"Ethernet0|3": {"profile": "NULL"}}
    if quarter:  # the computed profile, with a quarter of its headroom
        b["BUFFER_PROFILE"]["pg_small"] = {"pool": "ingress_lossless_pool", "xoff": quarter,
                                           "size": quarter, "dynamic_th": "-4"}
        b["BUFFER_PG"] = {"Ethernet0|3": {"profile": "pg_small"}}
    b["PORT_QOS_MAP"] = {"Ethernet0,Ethernet4": {"pfc_enable": "3"}}
    return s, b


def run(tmp, quarter=None, pcap="in.pcap", frames=FRAMES,
        s_mbufs=16384 + 2048 * (len(test_workers()) - 1)):
    """S's mbufs by default hold its 2000 frames, though its lossy ingress PG may hold only
    half of what its pool leaves (include/lsw/buffer.h)."""
    s_cfg, b_cfg = configs(tmp, quarter, pcap, s_mbufs)
    s, b = Lsw(s_cfg, tmp, "s"), Lsw(b_cfg, tmp, "b")
    try:
        s.start()
        b.start()
        # S has sent everything; B has received all of it (or dropped some).
        def done():
            so = s.rpc("port.stats", {"port": "Ethernet4"})["ports"]["Ethernet4"]
            bi = b.rpc("port.stats", {"port": "Ethernet0"})["ports"]["Ethernet0"]
            bo = b.rpc("queue.stats", {"port": "Ethernet4"})["ports"]["Ethernet4"]["3"]
            got = bi["IF_IN_UCAST_PKTS"]
            si = s.rpc("port.stats", {"port": "Ethernet0"})["ports"]["Ethernet0"]
            s_dropped = sum(si["drops"].values())
            return si["IF_IN_UCAST_PKTS"] >= frames and \
                so["IF_OUT_UCAST_PKTS"] + s_dropped >= frames and \
                got >= so["IF_OUT_UCAST_PKTS"] and bo["CURR_OCCUPANCY_BYTES"] == 0 and \
                (so, bi, bo)
        so, bi, bo = wait_until(done, timeout=120, what="every frame through S and B")
        res = {
            "b_drops": b.rpc("port.stats")["ports"],
            "s_drops": s.rpc("port.stats")["ports"],
            "b_pg": b.rpc("pg.stats", {"port": "Ethernet0"})["ports"]["Ethernet0"]["3"],
            "b_pfc": b.rpc("pfc.stats", {"port": "Ethernet0"})["ports"]["Ethernet0"]
            ["priorities"]["3"],
            "s_pfc": s.rpc("pfc.stats", {"port": "Ethernet4"})["ports"]["Ethernet4"]
            ["priorities"]["3"],
            "s_q": s.rpc("queue.stats", {"port": "Ethernet4"})["ports"]["Ethernet4"]["3"],
            "b_profile": [p for p in b.rpc("buffer.profiles")
                          if p["name"].startswith("pg_lossless_")],
            "b_out": bo,
        }
        s.stop()
        b.stop()
        return res
    finally:
        s.kill()
        b.kill()


def test_pfc_lossless():
    tmp = tmpdir("lsw-lossless-")
    roce_pcap(os.path.join(tmp, "in.pcap"), SIZE, FRAMES, "10.9.0.0/16", dscp=3)
    r = run(tmp)
    # The computed profile: 10G, 5 m, MTU 1500, and the link's in flight.
    prof = r["b_profile"]
    assert len(prof) == 1 and prof[0]["name"] == "pg_lossless_10000_5m_profile", prof
    xoff = prof[0]["xoff"]
    for who in ("b_drops", "s_drops"):
        for port, st in r[who].items():
            assert st["drops"] == {}, (who, port, st["drops"])
    assert r["b_out"]["PACKETS"] == FRAMES, r["b_out"]
    # B paused S, S obeyed: S's queue held what B could not take yet.
    assert r["b_pfc"]["PFC_3_TX_PKTS"] > 0 and r["s_pfc"]["PFC_3_RX_PKTS"] > 0, r
    assert r["s_pfc"]["PFC_3_RX_PAUSE_DURATION_US"] > 0, r["s_pfc"]
    assert r["s_q"]["WATERMARK_BYTES"] > xoff, r["s_q"]
    # B's headroom absorbed what was in flight, within the computed xoff.
    pg = r["b_pg"]
    assert 0 < pg["XOFF_ROOM_WATERMARK_BYTES"] <= xoff, (pg, xoff)
    assert pg["DROPPED_PACKETS"] == 0, pg
    print("computed xoff %d bytes, headroom used: %d; S paused %d us by %d PFC frames" % (
        xoff, pg["XOFF_ROOM_WATERMARK_BYTES"], r["s_pfc"]["PFC_3_RX_PAUSE_DURATION_US"],
        r["s_pfc"]["PFC_3_RX_PKTS"]))

    # A quarter of that headroom is less than what is in flight: the lossless PG overflows.
    r = run(tmp, str(xoff // 4))
    overflow = r["b_drops"]["Ethernet0"]["drops"].get("HEADROOM_OVERFLOW", 0)
    assert overflow > 0, r["b_drops"]
    assert r["b_pg"]["DROPPED_PACKETS"] == overflow
    print("with %d bytes of headroom: %d headroom overflows" % (xoff // 4, overflow))

    # Small frames: S's pool runs out of mbufs long before its buffer's bytes do. The MMU
    # counts mbufs too, so S drops what it cannot hold, by name (MBUF_LIMIT; its ingress
    # is lossy: a pcap obeys no pause), its NIC never runs dry (rx_nombuf 0), and B, whose
    # lossless PG pauses S, loses nothing.
    small = 8000
    roce_pcap(os.path.join(tmp, "small.pcap"), 128, small, "10.9.0.0/16", dscp=3)
    # S's mbufs leave 4608 packets for its buffer, whatever the number of workers.
    r = run(tmp, pcap="small.pcap", frames=small,
            s_mbufs=8192 + 2048 * (len(test_workers()) - 1))
    assert all(st["drops"] == {} for st in r["b_drops"].values()), r["b_drops"]
    si = r["s_drops"]["Ethernet0"]
    assert si["pmd"]["rx_nombuf"] == 0 and si["pmd"]["imissed"] == 0, si["pmd"]
    assert set(si["drops"]) <= {"MBUF_LIMIT"} and si["drops"].get("MBUF_LIMIT", 0) > 0, si
    assert si["IF_IN_UCAST_PKTS"] == small, si
    assert r["b_out"]["PACKETS"] + si["drops"]["MBUF_LIMIT"] == small, (r["b_out"], si)
    print("%d frames of 128 B: S held %d and dropped %d by name, B lost none" % (
        small, r["b_out"]["PACKETS"], si["drops"]["MBUF_LIMIT"]))


if __name__ == "__main__":
    run_test(test_pfc_lossless)
