#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Seed corpus for tests/fuzz/fuzz_packets.c: one input per frame kind the parser knows, as
raw frames (scapy), and the same kinds through the fuzzer's FRAME op; plus bursts that fill
a lossless PG until it pauses, a peer's PFC storm, ECN-marked RoCE, every ECMP route and
clock steps. Usage: packets_seeds.py DIR
"""
import os
import struct
import sys

from scapy.all import (ARP, ICMP, IP, TCP, UDP, Dot1Q, Ether, IPv6, Raw)  # noqa: E402
from scapy.all import (ICMPv6EchoRequest, ICMPv6ND_NA, ICMPv6ND_NS,  # noqa: E402
                       ICMPv6NDOptDstLLAddr, ICMPv6NDOptSrcLLAddr)
from scapy.contrib.roce import BTH  # noqa: E402

OP_RAW, OP_FRAME, OP_BURST, OP_CLOCK, OP_LOOP, OP_ADMIN, OP_LINK = range(7)
SW, HOST = "02:00:00:00:00:01", "02:00:00:00:01:01"


def raw(port, frame):
    b = bytes(frame)
    return bytes([OP_RAW, port]) + struct.pack("<H", len(b)) + b


def op(code, arg=0):
    return bytes([code | arg << 3])


def clock(v, shift):
    return op(OP_CLOCK, shift) + struct.pack("<H", v)


def fr(kind, port=0, dst=0, src=0, tos=0, ttl=64, size=128, b7=0, rest=b"\0\0\0\0", flags=0):
    return op(OP_FRAME) + bytes([kind | flags << 4, port, dst | src << 4, tos, ttl]) + \
        struct.pack("<H", size) + bytes([b7]) + rest


def roce(dst, opcode=0x0A, ecn=2, dscp=3, size=1024, sport=49152, qp=0x100):
    f = (Ether(dst=SW, src=HOST) / IP(src="10.0.0.1", dst=dst, tos=dscp << 2 | ecn) /
         UDP(sport=sport, dport=4791, chksum=0) / BTH(opcode=opcode, dqpn=qp))
    return f / Raw(b"\x5a" * max(0, size - len(f)))


def pfc(enable, times):
    body = struct.pack("!HH8H", 0x0101, enable, *times)
    return Ether(dst="01:80:c2:00:00:01", src=HOST, type=0x8808) / Raw(body.ljust(46, b"\0"))


def main(out):
    os.makedirs(out, exist_ok=True)
    seeds = {}
    e = Ether(dst=SW, src=HOST)
    kinds = {
        "udp": e / IP(src="10.0.0.1", dst="10.3.0.9") / UDP(sport=1, dport=2) / Raw(b"x" * 60),
        "tcp": e / IP(src="10.0.0.1", dst="10.1.0.9") / TCP(sport=1, dport=2),
        "icmp-echo": e / IP(src="10.0.0.1", dst="10.0.0.0") / ICMP() / Raw(b"ping"),
        "ttl": e / IP(src="10.0.0.1", dst="10.3.0.9", ttl=1) / UDP(),
        "df-big": e / IP(src="10.0.0.1", dst="10.3.0.9", flags="DF") / UDP() / Raw(b"y" * 1600),
        "bad-csum": e / IP(src="10.0.0.1", dst="10.3.0.9", chksum=1) / UDP(),
        "options": e / IP(src="10.0.0.1", dst="10.3.0.9", options=[b"\x01" * 4]) / UDP(),
        "frag": e / IP(src="10.0.0.1", dst="10.3.0.9", frag=10) / Raw(b"z" * 40),
        "martian": e / IP(src="127.0.0.1", dst="10.3.0.9") / UDP(),
        "miss": e / IP(src="10.0.0.1", dst="192.0.2.1") / UDP(),
        "blackhole": e / IP(src="10.0.0.1", dst="10.4.0.9") / UDP(),
        "unresolved": e / IP(src="10.0.0.1", dst="10.10.0.9") / UDP(),
        "vlan0": e / Dot1Q(vlan=0, prio=3) / IP(src="10.0.0.1", dst="10.3.0.9") / UDP(),
        "vlan100": e / Dot1Q(vlan=100) / IP(src="10.0.0.1", dst="10.3.0.9") / UDP(),
        "arp-req": Ether(dst="ff:ff:ff:ff:ff:ff", src=HOST) /
        ARP(op=1, hwsrc=HOST, psrc="10.0.0.1", pdst="10.0.0.0"),
        "arp-reply": e / ARP(op=2, hwsrc=HOST, psrc="10.0.0.1", pdst="10.0.0.0"),
        "arp-garp": Ether(dst="ff:ff:ff:ff:ff:ff", src=HOST) /
        ARP(op=1, hwsrc=HOST, psrc="10.0.0.1", pdst="10.0.0.1"),
        "ipv6": e / IPv6(src="2001:db8::2", dst="2001:db8::1") / UDP(),
        # IPv6 (tests/fuzz/packets.json routes it): forwarded by ECMP and by the default
        # route's link-local next hop, RoCEv2, hop limit, too big, martians, NDP, ping.
        "ipv6-ecmp": e / IPv6(src="2001:db8::2", dst="2001:db8:100::9", fl=7) /
        UDP(sport=49152, dport=4791) / BTH(opcode=0x0A, dqpn=0x100) / Raw(b"r" * 64),
        "ipv6-default": e / IPv6(src="2001:db8::2", dst="3fff::9", tc=0x0e) / TCP(),
        "ipv6-hlim": e / IPv6(src="2001:db8::2", dst="3fff::9", hlim=1) / UDP(),
        "ipv6-big": e / IPv6(src="2001:db8::2", dst="3fff::9") / UDP() / Raw(b"b" * 1600),
        "ipv6-blackhole": e / IPv6(src="2001:db8::2", dst="2001:db8:300::1") / UDP(),
        "ipv6-glean": e / IPv6(src="2001:db8:100::2", dst="2001:db8::99") / UDP(),
        "ipv6-ll-src": e / IPv6(src="fe80::2", dst="3fff::9") / UDP(),
        "ipv6-ll-dst": e / IPv6(src="2001:db8::2", dst="fe80::ff:fe00:1") /
        ICMPv6EchoRequest(),
        "ipv6-mc": Ether(dst="33:33:00:00:00:01", src=HOST) /
        IPv6(src="2001:db8::2", dst="ff01::1") / UDP(),
        "ipv6-echo": e / IPv6(src="2001:db8::2", dst="2001:db8::1") / ICMPv6EchoRequest(),
        "ipv6-ns": Ether(dst="33:33:ff:00:00:01", src=HOST) /
        IPv6(src="2001:db8::2", dst="ff02::1:ff00:1", hlim=255) / ICMPv6ND_NS(tgt="2001:db8::1") /
        ICMPv6NDOptSrcLLAddr(lladdr=HOST),
        "ipv6-ns-dad": Ether(dst="33:33:ff:00:00:01", src=HOST) /
        IPv6(src="::", dst="ff02::1:ff00:1", hlim=255) / ICMPv6ND_NS(tgt="fe80::ff:fe00:1"),
        "ipv6-na": e / IPv6(src="2001:db8::99", dst="2001:db8::1", hlim=255) /
        ICMPv6ND_NA(tgt="2001:db8::99", S=1, O=1) / ICMPv6NDOptDstLLAddr(lladdr=HOST),
        "ipv6-short": Raw(bytes(e / IPv6(src="2001:db8::2", dst="3fff::9") / UDP())[:50]),
        "roce-write": roce("10.1.0.9"),
        "roce-ce": roce("10.2.0.9", ecn=3),
        "roce-ack": roce("10.5.0.9", opcode=0x11, size=60),
        "cnp": roce("10.6.0.9", opcode=0x81, dscp=48, ecn=0, size=74),
        "bth-short": e / IP(src="10.0.0.1", dst="10.3.0.9") / UDP(dport=4791) / Raw(b"\x0a"),
        "pfc": pfc(0x18, [0, 0, 0, 0xffff, 0xffff, 0, 0, 0]),
        "pfc-xon": pfc(0x08, [0] * 8),
        "pfc-short": Ether(dst="01:80:c2:00:00:01", src=HOST, type=0x8808) /
        Raw(b"\x01\x01\x00"),
        "pause": Ether(dst="01:80:c2:00:00:01", src=HOST, type=0x8808) /
        Raw(struct.pack("!HH", 1, 0x100).ljust(46, b"\0")),
        "macctl-unknown": Ether(dst="01:80:c2:00:00:01", src=HOST, type=0x8808) /
        Raw(b"\x00\x02".ljust(46, b"\0")),
        "mc-src": Ether(dst=SW, src="03:00:00:00:00:01") / IP(dst="10.3.0.9") / UDP(),
        "other-dmac": Ether(dst="02:00:00:00:99:99", src=HOST) / IP(dst="10.3.0.9") / UDP(),
        "unknown-ethertype": Ether(dst=SW, src=HOST, type=0x88b5) / Raw(b"q" * 46),
        "runt": Raw(b"\x02\x00\x00"),
    }
    for name, f in kinds.items():
        port = 3 if name == "pause" else 0
        seeds["raw-" + name] = raw(port, f) + op(OP_LOOP) + clock(1000, 10) + op(OP_LOOP)
    for kind in range(16):
        seeds["frame-%d" % kind] = b"".join(
            fr(kind, dst=d, b7=0x0a if kind == 1 else 0x18) for d in range(16)) + op(OP_LOOP)
    # IPv6 through the FRAME op: every L4 kind to every destination; every ICMPv6 type;
    # solicitations for every target (to the group and unicast, with and without the
    # source address option) and advertisements (solicited, override); an unresolved next
    # hop that a later advertisement resolves.
    seeds["frame-ipv6"] = b"".join(fr(8, dst=d, b7=k, rest=bytes([k, 1, 2, 3]))
                                   for d in range(16) for k in range(4)) + op(OP_LOOP)
    seeds["frame-icmp6"] = b"".join(fr(9, dst=d, b7=t) for d in (5, 6, 7, 4)
                                    for t in range(16)) + op(OP_LOOP)
    seeds["frame-nd"] = b"".join(fr(10, b7=t, tos=o) + fr(11, b7=t, tos=o, rest=b"\x60\0\0\0")
                                 for t in range(16) for o in (0, 1, 2, 3)) + op(OP_LOOP)
    seeds["frame-nd-resolve"] = fr(8, dst=3) + op(OP_LOOP) + clock(100, 10) + \
        fr(11, port=3, b7=9, tos=1, rest=b"\x60\0\0\0") + op(OP_LOOP) + clock(1000, 10) + \
        op(OP_LOOP)
    # A lossless burst into a slow port (Ethernet8, 1 Gb/s): PG 3 pauses its sender.
    burst = b"".join(raw(i % 2, roce("10.3.0.9", size=4096, sport=49152 + i))
                     for i in range(64))
    seeds["lossless-burst"] = burst + op(OP_LOOP, 3) + clock(200, 10) + op(OP_LOOP, 3)
    # The peer storms priority 3 on Ethernet0 (watchdog action drop) and on Ethernet8
    # (alert) while data waits there.
    for port, dst in ((0, "10.0.0.1"), (2, "10.3.0.9")):
        storm = b"".join(raw(port, pfc(0x08, [0, 0, 0, 0xffff, 0, 0, 0, 0])) +
                         clock(3000, 10) + op(OP_LOOP) for _ in range(100))
        seeds["storm-%d" % port] = raw(1, roce(dst)) + storm + raw(1, roce(dst)) + storm
    # An uplink goes down under traffic and comes back.
    seeds["admin"] = b"".join(raw(0, roce("10.%d.0.9" % n, sport=49152 + n)) for n in (1, 3, 5)) + \
        op(OP_ADMIN, 4 | 1) + op(OP_LOOP) + b"".join(
            raw(0, roce("10.%d.0.9" % n, sport=49152 + n)) for n in (1, 3, 5)) + \
        op(OP_LOOP) + op(OP_ADMIN, 1) + op(OP_LOOP)
    # An uplink's link fails under traffic of every ECMP route and comes back.
    flows = b"".join(raw(0, roce("10.%d.0.9" % n, sport=49152 + n, qp=n))
                     for n in (1, 2, 5, 6, 7, 8, 9))
    seeds["link"] = flows + op(OP_BURST) + op(OP_LINK, 4 | 1) + flows + op(OP_BURST) + \
        op(OP_LOOP) + op(OP_LINK, 1) + flows + op(OP_LOOP)
    # Every ECMP route, ECN-capable, in one burst, then time.
    seeds["ecmp"] = b"".join(raw(0, roce("10.%d.0.9" % n, sport=49152 + n, qp=n))
                             for n in (1, 2, 5, 6, 7, 8, 9)) + op(OP_BURST) + op(OP_LOOP, 1) + \
        clock(100, 10) + op(OP_LOOP)
    for name, data in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    print("%d seeds in %s" % (len(seeds), out))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: packets_seeds.py DIR")
    main(sys.argv[1])
