#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""ECN end to end: 400 ECT(0) RoCE frames and 100 not-ECT ones (DSCP 3) flood a port shaped
to 100 Mb/s whose queue 3 marks and WRED-drops between 20 KB and 1 MB (the burst peaks near
half a megabyte, so both stay partial). The output pcap
holds CE-marked frames whose IPv4 checksums tshark verifies; not-ECT frames are never
marked, some are WRED-dropped; the queue, port and RoCE counters agree with the pcap. Drop
and mark snapshots name each WRED drop and mark with its ports, queue and BTH; saved as
pcapng, tshark reads them back with the reasons in the comments."""
import os
import subprocess
import time
import sys

sys.path.insert(0, os.path.dirname(__file__))
from lswtest import (SOURCE, Lsw, base_config, roce_pcap, run_test, tmpdir,  # noqa: E402
                     wait_until)
from scapy.all import PcapWriter  # noqa: E402

ECT, NOT_ECT, SIZE = 400, 100, 1024


def test_ecn_marking():
    tmp = tmpdir("lsw-ecn-")
    ect = roce_pcap(os.path.join(tmp, "ect.pcap"), SIZE, ECT, "10.9.0.0/24", dscp=3, ecn="ect0")
    plain = roce_pcap(os.path.join(tmp, "plain.pcap"), SIZE, NOT_ECT, "10.9.0.0/24", dscp=3,
                      ecn="not-ect")
    empty = os.path.join(tmp, "empty.pcap")
    PcapWriter(empty, linktype=1, sync=True).close()
    out = os.path.join(tmp, "out.pcap")
    cfg = base_config(tmp, {
        "Ethernet0": ("net_pcap0,rx_pcap=%s" % ect, "10.0.0.0/31", None),
        "Ethernet4": ("net_pcap1,rx_pcap=%s,tx_pcap=%s" % (empty, out), "10.0.1.0/31",
                      {"speed": "100"}),
        "Ethernet8": ("net_pcap2,rx_pcap=%s" % plain, "10.0.2.0/31", None)})
    cfg["STATIC_ROUTE"] = {"10.9.0.0/24": {"nexthop": "10.0.1.1"}}
    cfg["NEIGH"] = {"Ethernet4|10.0.1.1": {"neigh": "02:00:00:00:04:01"}}
    cfg["WRED_PROFILE"] = {"LAB": {
        "ecn": "ecn_green", "wred_green_enable": "true", "green_min_threshold": "20KB",
        "green_max_threshold": "1MB", "green_drop_probability": "100"}}
    cfg["QUEUE"] = {"Ethernet4|3": {"wred_profile": "LAB"}}
    cfg["LSW"]["global"]["mark_snapshots"] = True
    saved = os.path.join(tmp, "drops.pcapng")

    sw = Lsw(cfg, tmp)
    started = time.time()
    with sw:
        def drained():
            q = sw.rpc("queue.stats", {"port": "Ethernet4"})["ports"]["Ethernet4"]["3"]
            done = q["PACKETS"] + q["DROPPED_PACKETS"] == ECT + NOT_ECT
            return done and q["CURR_OCCUPANCY_BYTES"] == 0 and q
        q = wait_until(drained, timeout=120, what="every frame sent or dropped")
        ports = sw.rpc("port.stats")["ports"]
        snaps = sw.rpc("drops.list")
        wred = sw.rpc("drops.list", {"reason": "WRED_DROP", "port": "Ethernet8"})["snapshots"]
        subprocess.run([os.path.join(SOURCE, "tools", "lswctl"), "-s", sw.sock, "drops",
                        "save", saved], check=True, capture_output=True)
        sw.rpc("drops.clear")
        assert sw.rpc("drops.list")["snapshots"] == []
    ended = time.time()
    e4 = ports["Ethernet4"]
    assert q["DROPPED_PACKETS"] == q["WRED_DROPPED_PACKETS"] == e4["drops"].get("WRED_DROP")
    assert 0 < q["WRED_DROPPED_PACKETS"] < NOT_ECT, q
    assert q["WATERMARK_BYTES"] > 20 * 1024, q  # the queue went past kmin
    # What tshark sees on the wire: ECN codepoint, IPv4 checksum status (1 = good).
    r = subprocess.run(["tshark", "-r", out, "-o", "ip.check_checksum:TRUE", "-T", "fields",
                        "-E", "separator=,", "-e", "ip.dsfield.ecn", "-e", "ip.checksum.status",
                        "-e", "ip.dsfield.dscp", "-e", "udp.dstport"],
                       capture_output=True, text=True, check=True)
    rows = [line.split(",") for line in r.stdout.split()]
    assert len(rows) == q["PACKETS"], (len(rows), q)
    assert all(row[1] == "1" and row[2] == "3" and row[3] == "4791" for row in rows), rows[:3]
    ce = sum(row[0] == "3" for row in rows)
    ect0 = sum(row[0] == "2" for row in rows)
    plain_out = sum(row[0] == "0" for row in rows)
    assert ce + ect0 == ECT and 0 < ce < ECT, (ce, ect0)
    assert plain_out == NOT_ECT - q["WRED_DROPPED_PACKETS"]
    assert ce == q["WRED_ECN_MARKED_PACKETS"] == e4["ECN_MARKED_PACKETS"], (ce, q, e4)
    assert ce == e4["ROCE_ECN_MARKED_PKTS"]
    assert q["WRED_ECN_MARKED_BYTES"] == ce * SIZE
    assert ports["Ethernet0"]["ROCE_IN_PKTS"] == ECT
    assert ports["Ethernet0"]["ROCE_IN_OCTETS"] == ECT * SIZE
    # Snapshots: every WRED drop and every mark, with where it was and its BTH.
    assert snaps["missed"] == 0 and snaps["marks"], snaps["missed"]
    kinds = [s["kind"] for s in snaps["snapshots"]]
    assert kinds.count("drop") == q["WRED_DROPPED_PACKETS"] == len(wred), (kinds, q)
    assert kinds.count("mark") == ce
    for s in snaps["snapshots"]:
        # Wall-clock time: the drop happened while the switch ran (within a second).
        assert started - 1 <= s["time_ns"] / 1e9 <= ended + 1, (started, s["time_ns"], ended)
        assert s["out_port"] == "Ethernet4" and s["queue"] == 3 and s["len"] == SIZE, s
        assert s["roce"]["opcode"] == 0x0A and s["caplen"] == 128, s
        assert s["in_port"] == ("Ethernet8" if s["kind"] == "drop" else "Ethernet0"), s
    r = subprocess.run(["tshark", "-r", saved, "-T", "fields", "-E", "separator=;",
                        "-e", "frame.comment", "-e", "frame.len", "-e", "udp.dstport",
                        "-e", "frame.time_epoch"],
                       capture_output=True, text=True, check=True)
    lines = r.stdout.splitlines()
    assert len(lines) == len(snaps["snapshots"]), (len(lines), r.stderr)
    assert sum("drop WRED_DROP port=Ethernet4 in=Ethernet8 out=Ethernet4 queue=3" in line
               for line in lines) == len(wred), lines[:3]
    assert all(";%d;4791;" % SIZE in line for line in lines), lines[:3]
    assert all(started - 1 <= float(line.split(";")[-1]) <= ended + 1 for line in lines), lines[:3]
    print("%d of %d ECT frames marked CE, %d of %d not-ECT WRED-dropped; watermark %d B" % (
        ce, ECT, q["WRED_DROPPED_PACKETS"], NOT_ECT, q["WATERMARK_BYTES"]))


if __name__ == "__main__":
    run_test(test_ecn_marking)
