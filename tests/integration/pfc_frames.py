#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""PFC on the wire: lossless traffic (DSCP 3) into a port whose egress is shaped slow makes
the switch pause its sender: the output pcap holds XOFF frames (DA 01:80:C2:00:00:01,
opcode 0x0101, class-enable vector 0x08, the configured quanta on priority 3), refreshed,
then one XON (time 0) once the queue drained; tshark dissects them so. No packet is lost,
the headroom watermark stays within xoff, and the counters agree with the pcap."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from lswtest import Lsw, base_config, roce_pcap, run_test, tmpdir, wait_until  # noqa: E402

QUANTA = 0x1234
FRAMES = 100
SIZE = 1024


def pfc_config(tmp, pcap, out, quanta):
    """A replay of @pcap into Ethernet0 (output pcap @out), routed to Ethernet4 shaped to
    10 Mb/s: PG 3 of Ethernet0 is lossless with @quanta, 16 KB of shared buffer, then 128
    KB of headroom (the pcap sender does not obey pauses: the headroom takes the rest of
    its burst). Also capture.py's."""
    cfg = base_config(tmp, {
        "Ethernet0": ("net_pcap0,rx_pcap=%s,tx_pcap=%s" % (pcap, out), "10.0.0.0/31", None),
        "Ethernet4": ("net_null0,no-rx=1", "10.0.1.0/31", {"speed": "10"})})
    cfg["LSW_PORT"]["Ethernet0"]["pfc_quanta"] = quanta
    cfg["STATIC_ROUTE"] = {"10.9.0.0/16": {"nexthop": "10.0.1.1"}}
    cfg["NEIGH"] = {"Ethernet4|10.0.1.1": {"neigh": "02:00:00:00:04:01"}}
    cfg["BUFFER_POOL"] = {
        "ingress_lossless_pool": {"type": "ingress", "mode": "static"},
        "egress_lossless_pool": {"type": "egress", "mode": "static"}}
    cfg["BUFFER_PROFILE"] = {
        "ingress_lossy_profile": {"pool": "ingress_lossless_pool", "static_th": "1MB"},
        "pg_lossless": {"pool": "ingress_lossless_pool", "size": "128KB", "xoff": "128KB",
                        "static_th": "16KB"},
        "egress_lossy_profile": {"pool": "egress_lossless_pool", "static_th": "4MB"}}
    cfg["BUFFER_PG"] = {"Ethernet0|3": {"profile": "pg_lossless"}}
    cfg["PORT_QOS_MAP"] = {"Ethernet0,Ethernet4": {"pfc_enable": "3,4"}}
    return cfg


def test_pfc_frames():
    tmp = tmpdir("lsw-pfc-")
    pcap = os.path.join(tmp, "in.pcap")
    roce_pcap(pcap, SIZE, FRAMES, "10.9.0.0/16", dscp=3)
    out = os.path.join(tmp, "out0.pcap")
    cfg = pfc_config(tmp, pcap, out, QUANTA)

    sw = Lsw(cfg, tmp)
    with sw:
        def drained():
            q = sw.rpc("queue.stats", {"port": "Ethernet4"})["ports"]["Ethernet4"]["3"]
            pfc = sw.rpc("pfc.stats", {"port": "Ethernet0"})["ports"]["Ethernet0"]
            return q["PACKETS"] == FRAMES and not pfc["priorities"]["3"]["tx_pausing"] and pfc
        pfc = wait_until(drained, timeout=120, what="all frames out and an XON sent")
        p3 = pfc["priorities"]["3"]
        pg = sw.rpc("pg.stats", {"port": "Ethernet0"})["ports"]["Ethernet0"]["3"]
        assert pg["lossless"] and pg["DROPPED_PACKETS"] == 0, pg
        assert 0 < pg["XOFF_ROOM_WATERMARK_BYTES"] <= 128 * 1024, pg
        assert sw.rpc("port.stats", {"port": "Ethernet0"})["ports"]["Ethernet0"]["drops"] == {}
        assert p3["PFC_3_TX_PAUSE_DURATION_US"] > 0
        assert all(pfc["priorities"][n]["PFC_%s_TX_PKTS" % n] == 0 for n in "0124567")
    # What tshark makes of the frames the switch sent.
    r = subprocess.run(["tshark", "-r", out, "-T", "fields", "-E", "separator=,",
                        "-e", "eth.dst", "-e", "eth.type", "-e", "macc.opcode",
                        "-e", "macc.cbfc.enbv", "-e", "macc.cbfc.pause_time.c3",
                        "-e", "frame.len"], capture_output=True, text=True, check=True)
    rows = [line.split(",") for line in r.stdout.split()]
    assert len(rows) == p3["PFC_3_TX_PKTS"] >= 2, (len(rows), p3)
    for row in rows:
        assert row[:4] == ["01:80:c2:00:00:01", "0x8808", "0x0101", "0x0008"], row
        assert row[5] == "60", row
    times = [int(row[4]) for row in rows]
    assert times[:-1] == [QUANTA] * (len(times) - 1), times  # XOFF, then its refreshes
    assert times[-1] == 0, times                              # one XON at the end


if __name__ == "__main__":
    run_test(test_pfc_frames)
