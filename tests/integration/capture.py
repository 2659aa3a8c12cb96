#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Live capture on net_pcap ports under a replayed pcap. A port restart (an MTU change)
replays its rx_pcap from the start, so the captures begin before a replay:

(a) a capture of each port holds exactly the frames its pcaps hold: the rx pcap as
    received, the tx pcap as sent (rewritten, switch-originated ARP and ICMP included);
    tshark reads the files (interfaces "PORT rx"/"PORT tx", directions, wall-clock times
    within a second of the system clock) and filters select what they say ("udp port 4791",
    "icmp", one matching nothing); a count ends a session by itself; `lswctl capture`
    writes a file with -w and prints the frames without;
(b) the PFC frames lsw sends (pfc_frames.py's setup) are in a tx capture, exactly those of
    the output pcap, and tshark dissects them as PFC;
(c) bad params are refused with their paths, and nothing changes.
"""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from lswtest import (SOURCE, Lsw, RpcError, base_config, port_total, roce_pcap,  # noqa: E402
                     run_test, tmpdir, wait_until)
from pfc_frames import pfc_config  # noqa: E402

from scapy.all import (ARP, ICMP, IP, IPv6, UDP, Dot1Q, Ether, Raw, PcapWriter,  # noqa: E402
                       rdpcap, wrpcap)
from scapy.contrib.roce import BTH  # noqa: E402

SW = "02:00:00:00:00:01"
HOST = "02:00:00:00:01:01"
NH = "02:00:00:00:04:01"
LSWCTL = os.path.join(SOURCE, "tools", "lswctl")


def frames_of(path):
    """The frames of a pcap or pcapng file, as bytes (scapy reads both)."""
    return [bytes(p) for p in rdpcap(path)]


def tshark(path, *fields):
    """One row per frame of @path: the @fields tshark gives them."""
    args = ["tshark", "-r", path, "-T", "fields", "-E", "separator=|"]
    for f in fields:
        args += ["-e", f]
    r = subprocess.run(args, capture_output=True, text=True, check=True)
    return [line.split("|") for line in r.stdout.splitlines() if line]


def restart(sw, port, mtu):
    """Restart @port (an MTU change does): net_pcap replays its rx_pcap from the start and
    truncates its tx_pcap."""
    sw.rpc("config.set", {"config": {"PORT": {port: {"mtu": str(mtu)}}}})


def start(sw, **params):
    return sw.rpc("capture.start", params)["id"]


def check_file(path, t0, t1, n):
    """tshark reads @path: @n frames, interfaces and directions as lsw names them, times
    within a second of [t0, t1] (ns, the system clock) and in order. The rows returned."""
    rows = tshark(path, "frame.interface_name", "frame.packet_flags_direction",
                  "frame.time_epoch", "frame.len", "frame.cap_len")
    assert len(rows) == n, (path, len(rows), n)
    last = 0
    for name, direction, epoch, length, caplen in rows:
        port, way = name.split(" ")
        assert way in ("rx", "tx"), name
        assert int(direction, 0) == (1 if way == "rx" else 2), (name, direction)
        ns = int(epoch.replace(".", ""))  # tshark prints nanoseconds: 9 decimals
        assert t0 - 10**9 <= ns <= t1 + 10**9, (path, ns, t0, t1)
        assert ns >= last, "time went backwards in %s" % path
        last = ns
        assert length == caplen, (length, caplen)
    return rows


def split(path, rows):
    """The frames of @path (bytes, by scapy) that came in and those that went out."""
    frames = frames_of(path)
    assert len(frames) == len(rows)
    rx = [f for f, r in zip(frames, rows) if r[0].endswith(" rx")]
    tx = [f for f, r in zip(frames, rows) if r[0].endswith(" tx")]
    return rx, tx


def refused(sw, params, path, words, code=-32602):
    try:
        sw.rpc("capture.start", params)
    except RpcError as e:
        assert e.err["code"] == code, e.err
        errs = e.err.get("data", {}).get("errors", [])
        assert any(x["path"] == path and words in x["message"] for x in errs), e.err
        return
    raise AssertionError("accepted: %s" % params)


def test_capture_replay():
    tmp = tmpdir("lsw-capture-")
    eth = Ether(dst=SW, src=HOST)
    inp = [Ether(dst="ff:ff:ff:ff:ff:ff", src=HOST) /
           ARP(op=1, hwsrc=HOST, psrc="10.0.0.1", pdst="10.0.0.0")]
    routed = 0
    for i, size in enumerate((0, 64, 256, 1000, 2000, 4096, 0, 100, 512, 1024, 3000, 4000)):
        inp.append(eth / IP(src="10.0.0.1", dst="10.2.%d.%d" % (i, i + 1), tos=26 << 2 | 2) /
                   UDP(sport=49152 + i, dport=4791, chksum=0) / BTH(opcode=0x0A, dqpn=i) /
                   Raw(b"\x5a" * size))
        routed += 1
    for i in range(4):
        inp.append(eth / IP(src="10.0.0.1", dst="10.2.0.5") / UDP(sport=7000 + i, dport=5000) /
                   Raw(b"u" * (50 * i)))
        routed += 1
    inp.append(eth / IP(src="10.0.0.1", dst="10.2.0.6") / UDP(sport=1, dport=2) /
               Raw(b"j" * 8000))  # a jumbo frame: a chain of 2 KB segments in the copies
    inp.append(Ether(dst=SW, src=HOST) / Dot1Q(vlan=0, prio=3) /
               IP(src="10.0.0.1", dst="10.2.0.7") / UDP(sport=3, dport=4791, chksum=0) /
               BTH(opcode=0x04, dqpn=77) / Raw(b"tagged"))
    routed += 2
    inp.append(eth / IP(src="10.0.0.1", dst="10.0.0.0", id=99) / ICMP(id=5, seq=1) /
               Raw(b"x" * 56))
    inp.append(eth / IP(src="10.0.0.1", dst="10.2.0.5", ttl=1) / UDP(sport=3, dport=4) /
               Raw(b"t" * 20))
    inp.append(eth / IP(src="10.0.0.1", dst="172.16.0.1") / UDP())  # LPM4_MISS
    inp.append(eth / IPv6(src="fd00::1", dst="fd00::2") / UDP(sport=9, dport=4791) /
               Raw(b"\x0a" + b"\0" * 11 + b"v6"))  # a BTH, and LPM6_MISS
    n_in, n_out0 = len(inp), 3  # ARP reply, echo reply, time exceeded
    wrpcap(os.path.join(tmp, "in.pcap"), inp)
    PcapWriter(os.path.join(tmp, "empty.pcap"), linktype=1, sync=True).close()
    out0, out1 = os.path.join(tmp, "out0.pcap"), os.path.join(tmp, "out1.pcap")
    cfg = base_config(tmp, {
        "Ethernet0": ("net_pcap0,rx_pcap=%s,tx_pcap=%s" % (os.path.join(tmp, "in.pcap"), out0),
                      "10.0.0.0/31", {"mtu": "9100"}),
        "Ethernet4": ("net_pcap1,rx_pcap=%s,tx_pcap=%s" % (os.path.join(tmp, "empty.pcap"),
                                                          out1), "10.0.1.0/31", {"mtu": "9100"})})
    cfg["STATIC_ROUTE"] = {"10.2.0.0/16": {"nexthop": "10.0.1.1"}}
    cfg["NEIGH"] = {"Ethernet4|10.0.1.1": {"neigh": NH}}
    path = {k: os.path.join(tmp, k + ".pcapng") for k in ("e0", "e4", "roce", "icmp", "none",
                                                          "count", "cli")}

    sw = Lsw(cfg, tmp)
    with sw:
        def replayed(k):
            def done():
                st = sw.rpc("port.stats")
                return (port_total(st, "Ethernet0") == k * n_in and
                        port_total(st, "Ethernet4", "OUT") == k * routed and
                        port_total(st, "Ethernet0", "OUT") == k * n_out0 and st)
            return done
        wait_until(replayed(1), what="the first replay")

        # (a) Four sessions at once, then the replay again.
        t0 = time.time_ns()
        ids = {"e0": start(sw, port="Ethernet0", file=path["e0"]),
               "e4": start(sw, port="Ethernet4", direction="tx", file=path["e4"]),
               "roce": start(sw, port="Ethernet0", direction="rx", filter="udp port 4791",
                             file=path["roce"]),
               "icmp": start(sw, port="Ethernet0", filter="icmp", file=path["icmp"])}
        # (c) Sessions up to max_running (every port of a lab's switch) run at once; one
        # more is refused, and so is every bad param; the four run on.
        most = sw.rpc("capture.list")["max_running"]
        assert most == 16, most
        fill = [start(sw, port="Ethernet4", direction="rx", filter="ether proto 0x88b5",
                      file=os.path.join(tmp, "fill%d.pcapng" % i)) for i in range(most - 4)]
        refused(sw, {"port": "Ethernet0", "file": os.path.join(tmp, "x.pcapng")}, "$.params",
                "capture.stop one first")
        running = sw.rpc("capture.list")["sessions"]
        assert [s["state"] for s in running] == ["running"] * most, running
        # DPDK telemetry shows them too.
        r = subprocess.run(["dpdk-telemetry.py", "-f", cfg["LSW"]["global"]["file_prefix"]],
                           input="/lsw/capture\n", capture_output=True, text=True, timeout=60)
        tel = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
        assert len(tel) == 1, r.stdout + r.stderr
        tel = tel[0]["/lsw/capture"]
        assert tel["max_running"] == most, tel
        assert [tel["sessions"]["%d_state" % i] for i in range(4)] == ["running"] * 4, tel
        assert tel["sessions"]["2_filter"] == "udp port 4791", tel
        for i in fill:
            assert sw.rpc("capture.stop", {"id": i})["frames"] == 0
        restart(sw, "Ethernet0", 9000)
        wait_until(replayed(2), what="the second replay")
        t1 = time.time_ns()
        final = {k: sw.rpc("capture.stop", {"id": i}) for k, i in ids.items()}
        for k, s in final.items():
            assert s["state"] == "done" and s["stopped_by"] == "capture.stop", s
            assert s["missed"] == 0, s  # ~30 frames: no ring fills
        assert sw.rpc("switch.info")["events"]["CAPTURE_MISSED"] == 0

        listed = len(sw.rpc("capture.list")["sessions"])
        for bad, where, words in (
                ({"file": path["cli"]}, "$.params.port", "required"),
                ({"port": "Ethernet0"}, "$.params.file", "required"),
                ({"port": "Ethernet9", "file": path["cli"]}, "$.params.port", "no port"),
                ({"port": "Ethernet0", "direction": "in", "file": path["cli"]},
                 "$.params.direction", "rx"),
                ({"port": "Ethernet0", "filter": "udp prot 4791", "file": path["cli"]},
                 "$.params.filter", "syntax error"),
                ({"port": "Ethernet0", "file": "relative.pcapng"}, "$.params.file",
                 "absolute"),
                ({"port": "Ethernet0", "snaplen": 0, "file": path["cli"]},
                 "$.params.snaplen", ""),
                ({"port": "Ethernet0", "count": "many", "file": path["cli"]},
                 "$.params.count", "")):
            refused(sw, bad, where, words)
        refused(sw, {"port": "Ethernet0", "file": os.path.join(tmp, "no", "such.pcapng")},
                "$.params.file", "No such file or directory", code=-32003)
        assert not os.path.exists(path["cli"])
        assert len(sw.rpc("capture.list")["sessions"]) == listed  # the refused left no trace

        # Phase two: a filter that matches nothing, a count, and lswctl with and without
        # -w, all started before the third replay.
        none_id = start(sw, port="Ethernet0", filter="udp port 9999", file=path["none"])
        count_id = start(sw, port="Ethernet0", direction="rx", count=5, file=path["count"])
        cli = [LSWCTL, "-s", sw.sock, "capture"]
        with_w = subprocess.Popen(cli + ["Ethernet4", "-d", "tx", "-c", "3", "-w", path["cli"]],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        printed = subprocess.Popen(cli + ["Ethernet0", "-d", "tx", "-c", "2"],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_until(lambda: sum(s["state"] == "running" for s in
                               sw.rpc("capture.list")["sessions"]) == 4,
                   what="lswctl's sessions")
        restart(sw, "Ethernet0", 9100)
        wait_until(replayed(3), what="the third replay")
        w_out, w_err = with_w.communicate(timeout=60)
        p_out, p_err = printed.communicate(timeout=60)
        assert with_w.returncode == 0 and printed.returncode == 0, (w_err, p_err)
        s = sw.rpc("capture.list", {"id": count_id})["sessions"][0]
        assert s["state"] == "done" and s["stopped_by"] == "count" and s["frames"] == 5, s
        s = sw.rpc("capture.stop", {"id": none_id})
        assert s["frames"] == 0 and s["missed"] == 0 and s["bytes"] == 0, s
        events = sw.rpc("switch.info")["events"]
        assert events["CAPTURE_MISSED"] == 0
    out0_frames, out1_frames = frames_of(out0), frames_of(out1)
    in_frames = [bytes(f) for f in inp]

    # (a) Each capture holds exactly what the pcaps hold, in order.
    rows = check_file(path["e0"], t0, t1, n_in + n_out0)
    rx, tx = split(path["e0"], rows)
    assert rx == in_frames, "Ethernet0 rx: %d frames, the replay %d" % (len(rx), n_in)
    # out0.pcap was truncated by the restarts: it holds the last replay's frames, which are
    # those of the second one again (same input, same answers).
    assert len(out0_frames) == n_out0 and tx == out0_frames, (len(tx), len(out0_frames))
    assert final["e0"]["frames"] == n_in + n_out0
    assert final["e0"]["bytes"] == sum(map(len, in_frames)) + sum(map(len, out0_frames))
    rows = check_file(path["e4"], t0, t1, routed)
    assert len(out1_frames) == 3 * routed
    assert frames_of(path["e4"]) == out1_frames[routed:2 * routed], "Ethernet4 tx"
    assert all(r[0] == "Ethernet4 tx" for r in rows)
    assert final["e4"]["frames"] == routed
    # Filters: "udp port 4791" is every untagged UDP frame to or from 4791, IPv6 too.
    want = [bytes(f) for f in inp if UDP in f and 4791 in (f[UDP].sport, f[UDP].dport) and
            Dot1Q not in f]
    rows = check_file(path["roce"], t0, t1, len(want))
    assert len(want) == 13 and frames_of(path["roce"]) == want  # 12 RoCEv2, 1 IPv6
    assert final["roce"]["frames"] == 13
    proto = tshark(path["roce"], "_ws.col.Protocol")
    assert proto == [["RRoCE"]] * 13, proto  # tshark decodes RoCEv2
    rows = check_file(path["icmp"], t0, t1, 3)
    rx, tx = split(path["icmp"], rows)
    assert rx == [bytes(f) for f in inp if ICMP in f]
    assert tx == [f for f in out0_frames if ICMP in Ether(f)] and len(tx) == 2
    types = tshark(path["icmp"], "icmp.type")
    assert sorted(t[0] for t in types) == ["0", "11", "8"], types
    assert tshark(path["none"], "frame.len") == []
    assert frames_of(path["count"]) == in_frames[:5]
    # lswctl: -w wrote the next three frames Ethernet4 sent, and said so; without -w it
    # printed Ethernet0's two first frames out (tshark's lines) and removed its file.
    assert frames_of(path["cli"]) == out1_frames[2 * routed:2 * routed + 3]
    assert "3 frames" in w_err and "stopped by count" in w_err, w_err
    lines = [line for line in p_out.splitlines() if line.strip()]
    assert len(lines) == 2 and "ARP" in lines[0], p_out
    assert "2 frames" in p_err, p_err


def test_capture_pfc():
    """(b) pfc_frames.py's setup: the PFC frames of a replay, in a tx capture."""
    quanta, frames = 0x1234, 100
    tmp = tmpdir("lsw-capture-pfc-")
    pcap = roce_pcap(os.path.join(tmp, "in.pcap"), 1024, frames, "10.9.0.0/16", dscp=3)
    out = os.path.join(tmp, "out0.pcap")
    cfg = pfc_config(tmp, pcap, out, quanta)
    cap = os.path.join(tmp, "pfc.pcapng")

    sw = Lsw(cfg, tmp)
    with sw:
        def drained(k):
            def done():
                q = sw.rpc("queue.stats", {"port": "Ethernet4"})["ports"]["Ethernet4"]["3"]
                pfc = sw.rpc("pfc.stats", {"port": "Ethernet0"})["ports"]["Ethernet0"]
                p3 = pfc["priorities"]["3"]
                return q["PACKETS"] == k * frames and not p3["tx_pausing"] and p3
            return done
        first = wait_until(drained(1), timeout=120, what="the first run's XON")
        cid = start(sw, port="Ethernet0", direction="tx", file=cap)
        restart(sw, "Ethernet0", 9000)
        second = wait_until(drained(2), timeout=120, what="the second run's XON")
        s = sw.rpc("capture.stop", {"id": cid})
    sent = second["PFC_3_TX_PKTS"] - first["PFC_3_TX_PKTS"]
    assert sent >= 2 and s["frames"] == sent and s["missed"] == 0, (sent, s)
    # The output pcap, truncated by the restart, holds the second run's frames: the same.
    assert frames_of(cap) == frames_of(out), "the capture is not what the port sent"
    rows = tshark(cap, "frame.interface_name", "frame.packet_flags_direction", "eth.dst",
                  "eth.type", "macc.opcode", "macc.cbfc.enbv", "macc.cbfc.pause_time.c3")
    assert len(rows) == sent
    for row in rows[:-1]:
        assert int(row[1], 0) == 2, row  # outbound
        assert [row[0]] + row[2:] == ["Ethernet0 tx", "01:80:c2:00:00:01", "0x8808", "0x0101",
                                      "0x0008", str(quanta)], row
    assert rows[-1][-1] == "0", rows[-1]  # the XON


def test_capture():
    test_capture_replay()
    test_capture_pfc()


if __name__ == "__main__":
    run_test(test_capture)
