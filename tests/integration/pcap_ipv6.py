#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""RoCEv2 over IPv6 through lsw, on net_pcap ports: 400 ECT(0) and 100 not-ECT RoCEv2/IPv6
frames (DSCP 3 in the traffic class) flood Ethernet4, shaped to 100 Mb/s, whose queue 3
marks ECN and WRED-drops; tshark reads the output pcap: CE in the traffic class, DSCP 3
kept, hop limit 63, UDP checksums still good (the traffic class and hop limit are outside
them), the RoCE and queue counters agree. The mixed IPv6 profile of lsw-pcapgen goes in on
Ethernet8: the switch answers its neighbor solicitation and ping, and drops the rest, each
for its named reason."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from lswtest import (SOURCE, Lsw, base_config, roce_pcap, run_test, tmpdir,  # noqa: E402
                     wait_until)
from scapy.all import PcapWriter  # noqa: E402

ECT, NOT_ECT, SIZE = 400, 100, 1024


def test_pcap_ipv6():
    tmp = tmpdir("lsw-ipv6-")
    ect = roce_pcap(os.path.join(tmp, "ect.pcap"), SIZE, ECT, "2001:db8:9::/64", dscp=3,
                    ecn="ect0", ipv6=True)
    plain = roce_pcap(os.path.join(tmp, "plain.pcap"), SIZE, NOT_ECT, "2001:db8:9::/64",
                      dscp=3, ecn="not-ect", ipv6=True)
    mixed = os.path.join(tmp, "mixed.pcap")
    subprocess.run([os.path.join(SOURCE, "tools", "lsw-pcapgen"), mixed, "--ipv6",
                    "--src", "2001:db8:8::2", "--switch-ip", "2001:db8:8::1",
                    "--dst-net", "2001:db8:a::/64", "--flows", "2"],
                   check=True, capture_output=True)
    empty = os.path.join(tmp, "empty.pcap")
    PcapWriter(empty, linktype=1, sync=True).close()
    out = os.path.join(tmp, "out.pcap")
    back = os.path.join(tmp, "back.pcap")
    # ECT frames in on Ethernet0, not-ECT ones on Ethernet8, both out of Ethernet4; the
    # mixed profile in on Ethernet12, whose answers land in back.pcap.
    cfg = base_config(tmp, {
        "Ethernet0": ("net_pcap0,rx_pcap=%s" % ect, "2001:db8::1/64", None),
        "Ethernet4": ("net_pcap1,rx_pcap=%s,tx_pcap=%s" % (empty, out), "2001:db8:4::/127",
                      {"speed": "100"}),
        "Ethernet8": ("net_pcap2,rx_pcap=%s" % plain, "2001:db8:7::1/64", None),
        "Ethernet12": ("net_pcap3,rx_pcap=%s,tx_pcap=%s" % (mixed, back), "2001:db8:8::1/64",
                       None)})
    # The mixed profile's traffic leaves by Ethernet8, apart from the queue measured.
    cfg["STATIC_ROUTE"] = {"2001:db8:9::/64": {"nexthop": "2001:db8:4::1"},
                           "2001:db8:a::/64": {"nexthop": "2001:db8:7::2"}}
    cfg["NEIGH"] = {"Ethernet4|2001:db8:4::1": {"neigh": "02:00:00:00:04:01",
                                                "family": "IPv6"},
                    "Ethernet8|2001:db8:7::2": {"neigh": "02:00:00:00:08:02"}}
    cfg["WRED_PROFILE"] = {"LAB": {
        "ecn": "ecn_green", "wred_green_enable": "true", "green_min_threshold": "20KB",
        "green_max_threshold": "1MB", "green_drop_probability": "100"}}
    cfg["QUEUE"] = {"Ethernet4|3": {"wred_profile": "LAB"}}

    with Lsw(cfg, tmp) as sw:
        def drained():
            q = sw.rpc("queue.stats", {"port": "Ethernet4"})["ports"]["Ethernet4"]["3"]
            done = q["PACKETS"] + q["DROPPED_PACKETS"] == ECT + NOT_ECT
            return done and q["CURR_OCCUPANCY_BYTES"] == 0 and q
        q = wait_until(drained, timeout=120, what="every frame sent or dropped")
        ports = sw.rpc("port.stats")["ports"]
        routes = sw.rpc("route.list")
        nbrs = sw.rpc("neighbor.list")
    e4, e12 = ports["Ethernet4"], ports["Ethernet12"]
    # What tshark sees on the wire.
    r = subprocess.run(["tshark", "-r", out, "-o", "udp.check_checksum:TRUE", "-T", "fields",
                        "-E", "separator=,", "-e", "ipv6.tclass.ecn", "-e", "ipv6.tclass.dscp",
                        "-e", "ipv6.hlim", "-e", "udp.dstport", "-e", "udp.checksum.status",
                        "-e", "eth.dst"],
                       capture_output=True, text=True, check=True)
    rows = [line.split(",") for line in r.stdout.split()]
    roce = [row for row in rows if row[3] == "4791"]
    assert len(roce) == q["PACKETS"], (len(roce), q)
    assert all(row[1] == "3" and row[2] == "63" and row[4] == "1" and
               row[5] == "02:00:00:00:04:01" for row in roce), roce[:3]
    ce = sum(row[0] == "3" for row in roce)
    ect0 = sum(row[0] == "2" for row in roce)
    assert ce + ect0 == ECT and 0 < ce < ECT, (ce, ect0)
    assert ce == q["WRED_ECN_MARKED_PACKETS"] == e4["ECN_MARKED_PACKETS"], (ce, q, e4)
    assert ce == e4["ROCE_ECN_MARKED_PKTS"]
    assert 0 < q["WRED_DROPPED_PACKETS"] < NOT_ECT, q
    assert ports["Ethernet0"]["ROCE_IN_PKTS"] == ECT
    # The mixed profile: solicitation and ping answered, the rest dropped by name.
    r = subprocess.run(["tshark", "-r", back, "-T", "fields", "-E", "separator=,",
                        "-e", "icmpv6.type", "-e", "ipv6.src", "-e", "ipv6.dst"],
                       capture_output=True, text=True, check=True)
    types = [line.split(",")[0] for line in r.stdout.split()]
    assert "136" in types and "129" in types, r.stdout
    for reason in ("TTL", "LPM6_MISS", "SIP_LINK_LOCAL", "VLAN_TAG_NOT_ALLOWED",
                   "IPV6_TRUNCATED"):
        assert e12["drops"].get(reason, 0) >= 1, (reason, e12["drops"])
    assert any(x["prefix"] == "2001:db8:9::/64" and x["family"] == "IPv6" for x in routes)
    assert any(n["ip"] == "2001:db8:8::2" and n["state"] == "learned" for n in nbrs), nbrs
    print("%d of %d ECT frames over IPv6 marked CE, %d of %d not-ECT WRED-dropped; "
          "drops on the mixed port: %s" % (ce, ECT, q["WRED_DROPPED_PACKETS"], NOT_ECT,
                                           sorted(e12["drops"])))


if __name__ == "__main__":
    run_test(test_pcap_ipv6)
