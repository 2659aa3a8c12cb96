#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""net_pcap in, net_pcap out: a pcap of mixed traffic goes through lsw and each output pcap
holds exactly the expected frames, rewritten, in order; every other frame is a named drop;
the counters agree with the pcaps."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from lswtest import Lsw, base_config, port_total, run_test, tmpdir, wait_until  # noqa: E402

from scapy.all import (ARP, ICMP, IP, IPv6, UDP, Dot1Q, Ether, Raw, PcapWriter,  # noqa: E402
                       rdpcap, wrpcap)
from scapy.contrib.roce import BTH  # noqa: E402

SW = "02:00:00:00:00:01"
HOST = "02:00:00:00:01:01"
NH = {"Ethernet4": ("10.0.1.1", "02:00:00:00:04:01"),
      "Ethernet8": ("10.0.1.3", "02:00:00:00:08:01")}


def routed(pkt, port):
    """pkt as lsw sends it out of port: untagged, new MACs, TTL - 1, checksum redone."""
    ip = pkt[IP].copy()
    ip.ttl -= 1
    del ip.chksum
    return bytes(Ether(dst=NH[port][1], src=SW) / ip)


def test_pcap_forward():
    tmp = tmpdir("lsw-pcap-")
    inp, exp = [], {"Ethernet0": [], "Ethernet4": [], "Ethernet8": [], "Ethernet12": []}
    ecmp = []          # indexes into inp that may leave on either uplink
    drops = {}

    def add(pkt, port=None, out=None, drop=None):
        inp.append(pkt)
        if port:
            exp[port].append(out)
        if drop:
            drops[drop] = drops.get(drop, 0) + 1

    eth = Ether(dst=SW, src=HOST)
    arp_req = Ether(dst="ff:ff:ff:ff:ff:ff", src=HOST) / ARP(op=1, hwsrc=HOST, psrc="10.0.0.1",
                                                              pdst="10.0.0.0")
    add(arp_req, "Ethernet0", bytes(Ether(dst=HOST, src=SW) /
                                    ARP(op=2, hwsrc=SW, psrc="10.0.0.0", hwdst=HOST,
                                        pdst="10.0.0.1")))
    for i in range(16):  # RoCEv2 flows over the ECMP group, small and 4 KB frames
        for size in (0, 4096):
            p = (eth / IP(src="10.0.0.1", dst="10.1.%d.%d" % (i, i + 1), tos=26 << 2) /
                 UDP(sport=49152 + i, dport=4791, chksum=0) / BTH(opcode=0x0A, dqpn=i) /
                 Raw(b"\x5a" * size))
            ecmp.append(len(inp))
            inp.append(p)
    p = Ether(dst=SW, src=HOST) / Dot1Q(vlan=0, prio=3) / IP(src="10.0.0.1", dst="10.2.0.5") / \
        UDP(sport=1, dport=2) / Raw(b"tagged")
    add(p, "Ethernet4", routed(p, "Ethernet4"))
    echo = eth / IP(src="10.0.0.1", dst="10.0.1.2", id=99) / ICMP(id=5, seq=1) / Raw(b"x" * 56)
    reply = echo.copy()
    reply[Ether].dst, reply[Ether].src = HOST, SW
    reply[IP].src, reply[IP].dst, reply[IP].ttl = "10.0.1.2", "10.0.0.1", 64
    reply[ICMP].type = 0
    del reply[IP].chksum, reply[ICMP].chksum
    add(echo, "Ethernet0", bytes(reply))
    ttl1 = eth / IP(src="10.0.0.1", dst="10.2.0.5", ttl=1) / UDP(sport=3, dport=4) / Raw(b"t" * 20)
    te = (Ether(dst=HOST, src=SW) / IP(src="10.0.0.0", dst="10.0.0.1", ttl=64, id=0, flags=0) /
          ICMP(type=11, code=0) / Raw(bytes(ttl1[IP])))
    add(ttl1, "Ethernet0", bytes(te), drop="TTL")
    add(eth / IP(src="10.0.0.1", dst="10.2.0.5", chksum=0x1234) / UDP(), drop="IPV4_BAD_CHECKSUM")
    add(eth / IP(src="10.0.0.1", dst="10.3.0.1") / UDP(), drop="BLACKHOLE_ROUTE")
    add(eth / IP(src="10.0.0.1", dst="172.16.0.1") / UDP(), drop="LPM4_MISS")
    add(eth / IPv6(src="fd00::1", dst="fd00::2") / UDP(), drop="LPM6_MISS")  # no IPv6 route
    add(eth / Dot1Q(vlan=100) / IP(src="10.0.0.1", dst="10.2.0.5") / UDP(),
        drop="VLAN_TAG_NOT_ALLOWED")
    add(Ether(bytes(eth / IP(src="10.0.0.1", dst="10.2.0.5") / UDP())[:30]),
        drop="IPV4_TRUNCATED")
    add(eth / IP(src="224.0.0.9", dst="10.2.0.5") / UDP(), drop="SIP_MC")
    add(Ether(dst="02:00:00:00:00:99", src=HOST) / IP(src="10.0.0.1", dst="10.2.0.5") / UDP(),
        drop="DMAC_MISMATCH")
    add(eth / IP(src="10.0.0.1", dst="10.0.0.0") / UDP(dport=9), drop="LOCAL_UNSUPPORTED")
    # A connected destination nobody answers for: two ARP requests, then a drop.
    add(eth / IP(src="10.0.0.1", dst="192.168.5.9") / UDP(), drop="UNRESOLVED_NEXT_HOP")
    who = bytes(Ether(dst="ff:ff:ff:ff:ff:ff", src=SW) /
                ARP(op=1, hwsrc=SW, psrc="192.168.5.1", hwdst="00:00:00:00:00:00",
                    pdst="192.168.5.9"))
    exp["Ethernet12"] += [who + b"\0" * (60 - len(who))] * 2

    wrpcap(os.path.join(tmp, "in.pcap"), inp)
    PcapWriter(os.path.join(tmp, "empty.pcap"), linktype=1, sync=True).close()

    def pcap(n, rx):
        return "net_pcap%d,rx_pcap=%s,tx_pcap=%s" % (n, os.path.join(tmp, rx),
                                                     os.path.join(tmp, "out%d.pcap" % n))
    cfg = base_config(tmp, {
        "Ethernet0": (pcap(0, "in.pcap"), "10.0.0.0/31", None),
        "Ethernet4": (pcap(1, "empty.pcap"), "10.0.1.0/31", None),
        "Ethernet8": (pcap(2, "empty.pcap"), "10.0.1.2/31", None),
        "Ethernet12": (pcap(3, "empty.pcap"), "192.168.5.1/24", None)},
        arp_retry_ms=100, arp_tries=2)
    cfg["STATIC_ROUTE"] = {"10.1.0.0/16": {"nexthop": "10.0.1.1,10.0.1.3"},
                           "10.2.0.0/16": {"nexthop": "10.0.1.1"},
                           "10.3.0.0/16": {"blackhole": "true"}}
    cfg["NEIGH"] = {"Ethernet4|10.0.1.1": {"neigh": NH["Ethernet4"][1]},
                    "Ethernet8|10.0.1.3": {"neigh": NH["Ethernet8"][1]}}

    sw = Lsw(cfg, tmp)
    with sw:
        def done():
            st = sw.rpc("port.stats")
            return (port_total(st, "Ethernet0") == len(inp) and
                    st["ports"]["Ethernet0"]["drops"].get("UNRESOLVED_NEXT_HOP") == 1 and st)
        stats = wait_until(done, what="all frames in and the ARP give-up")
        assert stats["ports"]["Ethernet0"]["drops"] == drops, stats["ports"]["Ethernet0"]["drops"]
        for p in ("Ethernet4", "Ethernet8", "Ethernet12"):
            assert stats["ports"][p]["drops"] == {}, (p, stats["ports"][p]["drops"])
        events = sw.rpc("switch.info")["events"]
        assert events["ARP_REPLY_TX"] == 1 and events["ICMP_ECHO_REPLY_TX"] == 1
        assert events["ICMP_ERROR_TX"] == 1 and events["ARP_REQUEST_TX"] == 2
    out = {p: [bytes(f) for f in rdpcap(os.path.join(tmp, "out%d.pcap" % n))]
           for n, p in enumerate(("Ethernet0", "Ethernet4", "Ethernet8", "Ethernet12"))}
    # Ports with a fixed expectation: exactly these frames, in this order.
    for p in ("Ethernet0", "Ethernet12"):
        assert out[p] == exp[p], "%s: got %d frames, expected %d" % (p, len(out[p]), len(exp[p]))
    # ECMP: every flow's frames leave rewritten for exactly one uplink, in order per uplink.
    uplinks = {"Ethernet4": list(out["Ethernet4"]), "Ethernet8": list(out["Ethernet8"])}
    tagged = exp["Ethernet4"][0]
    uplinks["Ethernet4"].remove(tagged)
    used = {}
    for i in ecmp:
        for port in uplinks:
            if uplinks[port] and uplinks[port][0] == routed(inp[i], port):
                uplinks[port].pop(0)
                flow = inp[i][UDP].sport
                assert used.setdefault(flow, port) == port, "flow %d on two uplinks" % flow
                break
        else:
            raise AssertionError("ECMP frame %d not found rewritten on either uplink" % i)
    assert not uplinks["Ethernet4"] and not uplinks["Ethernet8"], "unexpected frames"
    assert set(used.values()) == {"Ethernet4", "Ethernet8"}, "ECMP used one uplink only"
    # The counters agree with the pcaps.
    for p in out:
        assert port_total(stats, p, "OUT") == len(out[p]), p
        assert stats["ports"][p]["IF_OUT_OCTETS"] == sum(len(f) for f in out[p]), p
    assert stats["ports"]["Ethernet0"]["IF_IN_OCTETS"] == sum(len(bytes(f)) for f in inp)


if __name__ == "__main__":
    run_test(test_pcap_forward)
