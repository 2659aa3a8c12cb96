#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Packet trimming through real DPDK ports (dataplane/TRIMMING.md), as sonic-mgmt's test plan
checks it with a traffic generator and captures: a net_pcap replay floods Ethernet0 towards
Ethernet4 (net_pcap out, shaped to 1 Gb/s), whose queue 3 holds little and trims the rest
to 256 bytes, DSCP 48, queue 6; its queue 4 holds nothing and trims all.

1. Exact: 4 KB RoCE writes (DSCP 3) and 104-byte frames (DSCP 4) from 10.0.0.1, and 4 KB
   writes from 10.0.0.9, which an ACL rule exempts (DISABLE_TRIM). tshark reads the output
   pcap: every trim is 256 bytes (a 104-byte frame re-marked whole), DSCP 48, ECN ECT(0)
   kept, a valid IPv4 checksum, the original's UDP length; none comes from 10.0.0.9. The
   counters agree:
   TRIM = TX_TRIM + DROPPED_TRIM on the port, the queues and the switch; each original
   counted dropped by its reason; the trims in the pcap are TX_TRIM; drop snapshots of kind
   trim, the timeline's trim events, and lswctl's views (trim show, port trim, queue show
   --trim, Prometheus) say the same.
2. Toggled: the replay loops (net_pcap infinite_rx) while config.set switches both
   profiles between drop and trim ten times: trims in every trim phase, none in a drop phase;
   then, the input stopped, no queue nor pool holds a byte, and every mbuf is back.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from lswtest import (PYTHON, SOURCE, Lsw, base_config, lossy_buffers, run_test,  # noqa: E402
                     tmpdir, wait_until)

from scapy.all import IP, UDP, Ether, PcapWriter, Raw, wrpcap  # noqa: E402
from scapy.contrib.roce import BTH  # noqa: E402

sys.path.insert(0, os.path.join(SOURCE, "tools"))
import lswtimeline  # noqa: E402

LSWCTL = os.path.join(SOURCE, "tools", "lswctl")
SW = "02:00:00:00:00:01"
HOST = "02:00:00:00:01:01"
NH = "02:00:00:00:04:01"
SIZE = 256


def frames():
    """(frames, how many of each kind): 4 KB writes from .1, 100-byte frames from .1, 4 KB
    writes from .9 (exempt), interleaved."""
    out = []
    for i in range(600):
        for src, payload in (("10.0.0.1", 4096), ("10.0.0.1", 46), ("10.0.0.9", 4096)):
            if payload == 46 and i % 3:
                continue
            if src == "10.0.0.9" and i % 3 != 1:
                continue
            out.append(Ether(dst=SW, src=HOST) /
                       IP(src=src, dst="10.2.0.%d" % (i % 200 + 1),
                          tos=(3 if payload > 46 else 4) << 2 | 2) /
                       UDP(sport=49152 + i % 64, dport=4791, chksum=0) /
                       BTH(opcode=0x07, dqpn=i % 64, psn=i) / Raw(b"\x5a" * payload))
    return out


def config(tmp, rx, tx, infinite=False):
    def pcap(n, rxf, txf):
        return "net_pcap%d,rx_pcap=%s,tx_pcap=%s%s" % (n, rxf, txf,
                                                       ",infinite_rx=1" if infinite and n == 0
                                                       else "")
    empty = os.path.join(tmp, "empty.pcap")
    # Without @tx, Ethernet4 is a sink (a looping replay would write a pcap at 1 Gb/s).
    cfg = base_config(tmp, {
        "Ethernet0": (pcap(0, rx, os.path.join(tmp, "back.pcap")), "10.0.0.0/31", None),
        "Ethernet4": (pcap(1, empty, tx) if tx else "net_null1", "10.0.1.0/31",
                      {"speed": "1000"})},
        drop_snapshots=64)
    cfg["STATIC_ROUTE"] = {"10.2.0.0/16": {"nexthop": "10.0.1.1"}}
    cfg["NEIGH"] = {"Ethernet4|10.0.1.1": {"neigh": NH}}
    lossy_buffers(cfg, egress_th="3")
    # Queue 3 of Ethernet4: a reserve of 8 frames, no shared buffer, trims the rest.
    cfg["BUFFER_PROFILE"]["q_trim"] = {"pool": "egress_lossy_pool", "size": "32KB",
                                       "dynamic_th": "-8", "packet_discard_action": "trim"}
    cfg["BUFFER_PROFILE"]["q_trim_all"] = {"pool": "egress_lossy_pool", "size": "0",
                                           "dynamic_th": "-8", "packet_discard_action": "trim"}
    cfg["BUFFER_QUEUE"] = {"Ethernet4|3": {"profile": "q_trim"},
                           "Ethernet4|4": {"profile": "q_trim_all"}}
    cfg["SWITCH_TRIMMING"] = {"GLOBAL": {"size": str(SIZE), "dscp_value": "48",
                                         "queue_index": "6"}}
    cfg["ACL_TABLE"] = {"TRIM_TABLE": {"type": "TRIMMING_L3", "stage": "ingress",
                                       "ports": ["Ethernet0"]}}
    cfg["ACL_RULE"] = {"TRIM_TABLE|EXEMPT": {"PRIORITY": "999", "SRC_IP": "10.0.0.9/32",
                                             "PACKET_ACTION": "DISABLE_TRIM"}}
    return cfg


def tshark(path, *fields):
    args = ["tshark", "-r", path, "-o", "ip.check_checksum:TRUE", "-T", "fields",
            "-E", "separator=|"]
    for f in fields:
        args += ["-e", f]
    r = subprocess.run(args, capture_output=True, text=True, check=True)
    return [line.split("|") for line in r.stdout.splitlines() if line]


def lswctl(sw, *args):
    return subprocess.run([PYTHON, LSWCTL, "-s", sw.sock] + list(args), capture_output=True,
                          text=True, check=True).stdout


def check_counters(sw, n_in, n_small, n_exempt):
    port = sw.rpc("port.stats", {"port": "Ethernet4"})["ports"]["Ethernet4"]
    trim = port["TRIM_PACKETS"]
    assert trim > 100, port
    assert trim == port["TX_TRIM_PACKETS"] + port["DROPPED_TRIM_PACKETS"], port
    # Every refused original is one drop, by its reason: the trimmed and the exempt ones.
    assert port["drops"] == {"EGRESS_QUEUE_THRESHOLD": trim + n_exempt}, port["drops"]
    q = sw.rpc("queue.stats", {"port": "Ethernet4"})["ports"]["Ethernet4"]
    assert q["4"]["TRIM_PACKETS"] == n_small and q["4"]["PACKETS"] == 0, q["4"]
    assert q["3"]["TRIM_PACKETS"] + n_small == trim, (q["3"], trim)
    assert q["3"]["DROPPED_PACKETS"] == q["3"]["TRIM_PACKETS"] + n_exempt, q["3"]
    assert q["6"]["TX_TRIM_PACKETS"] == port["TX_TRIM_PACKETS"], q["6"]
    assert q["6"]["DROPPED_TRIM_PACKETS"] == port["DROPPED_TRIM_PACKETS"], q["6"]
    assert q["3"]["PACKETS"] + trim + n_exempt == n_in, (q["3"], trim, n_exempt, n_in)
    st = sw.rpc("trim.stats")
    assert st["switch"] == {"TX_TRIM_PACKETS": port["TX_TRIM_PACKETS"],
                            "DROPPED_TRIM_PACKETS": port["DROPPED_TRIM_PACKETS"]}, st
    assert st["settings"]["size"] == SIZE and st["settings"]["dscp_value"] == 48, st
    assert st["ports"]["Ethernet4"]["trim_queues"] == [3, 4], st
    return port, q


def check_views(sw, port, small_len):
    out = lswctl(sw, "trim", "show")
    assert "Packet trimming size" in out and str(port["TX_TRIM_PACKETS"]) in out, out
    assert "TRIM_TABLE|EXEMPT" in out and "SRC_IP=10.0.0.9/32" in out, out
    out = lswctl(sw, "port", "trim", "Ethernet4")
    row = [r.split() for r in out.splitlines() if r.startswith("Ethernet4")][0]
    assert row[2:5] == [str(port["TRIM_PACKETS"]), str(port["TX_TRIM_PACKETS"]),
                        str(port["DROPPED_TRIM_PACKETS"])], out
    out = lswctl(sw, "queue", "show", "--trim", "Ethernet4")
    rows = {r.split()[1]: r.split() for r in out.splitlines() if r.startswith("Ethernet4")}
    assert int(rows["UC3"][2]) + int(rows["UC4"][2]) == port["TRIM_PACKETS"], out
    assert rows["UC6"][3] == str(port["TX_TRIM_PACKETS"]), out
    prom = lswctl(sw, "stats", "--prometheus")
    want = 'lsw_port_trim_packets_total{port="Ethernet4"} %d' % port["TRIM_PACKETS"]
    assert want in prom, want
    assert "lsw_trim_switch_tx_trim_packets_total %d" % port["TX_TRIM_PACKETS"] in prom
    snaps = sw.rpc("drops.list", {"kind": "trim"})["snapshots"]
    assert snaps, "no trim snapshots"
    for s in snaps:
        assert s["len"] in (SIZE, small_len), s
        assert s["queue"] == 6 and s["out_port"] == "Ethernet4" and s["reason"] is None, s
        assert int(s["data"][30:32], 16) >> 2 == 48, s  # the TOS byte of the trim


def check_capture(tx, port, n_small, big_udp, small_len, small_udp):
    rows = tshark(tx, "frame.len", "ip.dsfield.dscp", "ip.dsfield.ecn", "ip.len",
                  "ip.checksum.status", "ip.src", "udp.length")
    trims = [r for r in rows if r[1] == "48"]
    data = [r for r in rows if r[1] == "3"]
    assert len(trims) + len(data) == len(rows), set(r[1] for r in rows)
    assert len(trims) == port["TX_TRIM_PACKETS"], (len(trims), port)
    small = 0
    for r in trims:
        flen, _, ecn, iplen, ck, src, udplen = r
        assert ecn == "2" and ck == "1" and src == "10.0.0.1", r  # ECT(0); 1: "Good"
        assert int(iplen) == int(flen) - 14, r
        if int(flen) == SIZE:  # cut: the UDP length is the original's
            assert int(udplen) == big_udp, r
        else:
            assert int(flen) == small_len and int(udplen) == small_udp, r  # re-marked whole
            small += 1
    assert small == n_small, (small, n_small)
    assert all(r[5] != "10.0.0.9" or r[1] == "3" for r in rows)
    assert all(r[4] == "1" for r in data), "tshark verified no checksum"


def check_timeline(path, port):
    tl = lswtimeline.read(path)
    ev = tl.of_kind("trim")
    assert len(ev) == port["TRIM_PACKETS"], (len(ev), port)
    for r in ev:
        v = tl.values(r)
        assert r[3] == 6 and v["from_queue"] in (3, 4) and v["dropped"] == 0, v
        assert v["len"] == (SIZE if v["orig_len"] > SIZE else v["orig_len"]), v


def exact(tmp):
    inp = frames()
    small_len = min(len(f) for f in inp)
    n_small = sum(1 for f in inp if len(f) == small_len)
    big_udp = max(len(f[UDP]) for f in inp)
    small_udp = min(len(f[UDP]) for f in inp)
    n_exempt_max = sum(1 for f in inp if f[IP].src == "10.0.0.9")
    rx, tx = os.path.join(tmp, "in.pcap"), os.path.join(tmp, "out.pcap")
    wrpcap(rx, inp)
    PcapWriter(os.path.join(tmp, "empty.pcap"), linktype=1, sync=True).close()
    tl = os.path.join(tmp, "trim.tl")
    sw = Lsw(config(tmp, rx, tx), tmp, args=["--timeline", json.dumps(
        {"file": tl, "record": ["events"]})])
    with sw:
        def drained():
            st = sw.rpc("port.stats")["ports"]
            q = sw.rpc("queue.stats", {"port": "Ethernet4"})["ports"]["Ethernet4"]
            return (st["Ethernet0"]["IF_IN_UCAST_PKTS"] == len(inp) and
                    all(q[i]["CURR_OCCUPANCY_PACKETS"] == 0 for i in q))
        wait_until(drained, what="every frame in and out")
        q3 = sw.rpc("queue.stats", {"port": "Ethernet4"})["ports"]["Ethernet4"]["3"]
        n_exempt = q3["DROPPED_PACKETS"] - q3["TRIM_PACKETS"]
        assert 0 < n_exempt <= n_exempt_max, (n_exempt, n_exempt_max)
        port, _ = check_counters(sw, len(inp), n_small, n_exempt)
        check_views(sw, port, small_len)
        sw.rpc("timeline.stop")
    check_capture(tx, port, n_small, big_udp, small_len, small_udp)
    check_timeline(tl, port)


def toggled(tmp):
    rx = os.path.join(tmp, "in.pcap")
    sw = Lsw(config(tmp, rx, None, infinite=True), tmp, "loop")
    with sw:
        def trims():
            return sw.rpc("port.stats", {"port": "Ethernet4"})["ports"]["Ethernet4"][
                "TRIM_PACKETS"]
        for i in range(20):
            action = "trim" if i % 2 == 0 else "drop"
            sw.rpc("config.set", {"config": {"BUFFER_PROFILE": {
                p: {"packet_discard_action": action} for p in ("q_trim", "q_trim_all")}}})
            # config.set returns after the workers' grace period: the new profile holds.
            before = trims()
            drops = sw.rpc("port.stats", {"port": "Ethernet4"})["ports"]["Ethernet4"][
                "IF_OUT_DISCARDS"]
            wait_until(lambda: sw.rpc("port.stats", {"port": "Ethernet4"})["ports"][
                "Ethernet4"]["IF_OUT_DISCARDS"] > drops + 500, what="refusals")
            after = trims()
            if action == "trim":
                assert after > before, (i, before, after)
            else:
                assert after == before, (i, before, after)
        port = sw.rpc("port.stats", {"port": "Ethernet4"})["ports"]["Ethernet4"]
        assert port["TRIM_PACKETS"] == port["TX_TRIM_PACKETS"] + port["DROPPED_TRIM_PACKETS"]
        # Nothing leaked: with the input stopped (its port down), once Ethernet4 has sent
        # what it holds, no queue and no pool holds a byte.
        sw.rpc("port.set", {"port": "Ethernet0", "admin_status": "down"})

        def empty():
            q = sw.rpc("queue.stats", {"port": "Ethernet4"})["ports"]["Ethernet4"]
            return all(q[i]["CURR_OCCUPANCY_BYTES"] == 0 for i in q)
        wait_until(empty, what="Ethernet4's queues empty")
        pools = sw.rpc("buffer.stats")["pools"]
        assert all(p["CURR_OCCUPANCY_BYTES"] == 0 for p in pools), pools
    # Lsw.stop checked that every mbuf came back.


def test_trim():
    tmp = tmpdir("lsw-trim-")
    exact(tmp)
    toggled(tmp)


if __name__ == "__main__":
    run_test(test_trim)
