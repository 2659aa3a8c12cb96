# SPDX-License-Identifier: BSD-3-Clause
"""bench-forward: lsw's forwarding rate on one worker, against dpdk-testpmd on the same ports
in the same run.

Ports: net_pcap replaying a pcap of valid RoCEv2 frames forever (infinite_rx=1) into
net_null (no-rx=1). testpmd forwards them in io mode (no packet access) and mac mode
(rewrites MACs). lsw parses, routes (LPM, ECMP hash over 2 next hops on one port),
decrements TTL with an incremental checksum, rewrites MACs and counts everything, then
either sends at once ("direct": the foundation's path) or takes the full path ("queued":
classification, MMU admission and release, egress queues, DWRR, the port shaper at 800G
so that it does not limit).
Both run with the main lcore on CPU 0 and one forwarding lcore on CPU 1.

Usage: tools/bench-forward [--seconds N] [--sizes 60,4154] [--flows N]   (as root, after
tools/setup). Prints packets/s for each and lsw's ratio to testpmd io.

With --ipv6 RUNS it compares IPv4 and IPv6 instead (no testpmd): the same RoCEv2 frames
over each family (a /16 or a /64 ECMP route over 2 next hops), lsw direct and full path,
fresh launches interleaved RUNS times, medians; --base BINARY adds another lsw build's
IPv4 (to show what IPv6 support costs IPv4).
"""
import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LSW = os.path.join(ROOT, "build", "control", "lsw")
sys.path.insert(0, HERE)
from lswpy.proc import wait_until  # noqa: E402
from lswpy.rpc import Client  # noqa: E402

SW_MAC = "02:00:00:00:00:01"


def eal(pcap, mbuf_size):
    return ["-l", "0,1", "--main-lcore", "0", "--no-huge", "--no-shconf", "-m", "1024",
            "--no-pci", "--file-prefix", "bench-%d" % os.getpid(),
            "--vdev", "net_pcap0,rx_pcap=%s,infinite_rx=1" % pcap,
            "--vdev", "net_null0,no-rx=1", "--log-level", "error"]


def testpmd(pcap, mode, seconds, mbuf_size):
    cmd = (["dpdk-testpmd"] + eal(pcap, mbuf_size) +
           ["--", "--forward-mode=" + mode, "--auto-start", "--stats-period", "1",
            "--nb-cores=1", "--rxq=1", "--txq=1", "--rxd=1024", "--txd=1024", "--burst=32",
            "--total-num-mbufs=16384", "--mbuf-size=%d" % mbuf_size, "--no-lsc-interrupt"])
    if mode == "mac":
        cmd.append("--eth-peer=1,02:00:00:00:04:01")
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         stdin=subprocess.DEVNULL)
    time.sleep(seconds + 3)
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=60)
    # Per-port blocks: "NIC statistics for port 1" ... "Tx-pps: N"; port 1 is the sink.
    rates = [int(m) for m in re.findall(
        r"statistics for port 1.*?Tx-pps:\s+(\d+)", out, re.S)]
    rates = [r for r in rates if r > 0][1:]  # skip the first, partial, second
    if not rates:
        sys.exit("testpmd gave no rates:\n" + out[-3000:])
    return statistics.median(rates)


def lsw(pcap, seconds, tmp, forwarding, args=(), binary=LSW, ipv6=False):
    """lsw's median rate over @seconds; @args: more of its command line."""
    sock = os.path.join(tmp, "bench.sock")
    cfg = {
        "DEVICE_METADATA": {"localhost": {"mac": SW_MAC}},
        "LSW": {"global": {"main_lcore": 0, "workers": [1], "idle_sleep_us": 0,
                           "forwarding": forwarding,
                           "mbufs": 16384, "rpc_socket": sock, "log_level": "error",
                           "file_prefix": "bench-lsw-%d" % os.getpid()}},
        "LSW_PORT": {"Ethernet0": {"devargs": "net_pcap0,rx_pcap=%s,infinite_rx=1" % pcap},
                     "Ethernet4": {"devargs": "net_null0,no-rx=1"}},
        # 800G: the shaper must not be what limits the rate here.
        "PORT": {"Ethernet0": {"mtu": "9100", "speed": "800000"},
                 "Ethernet4": {"mtu": "9100", "speed": "800000"}},
        "INTERFACE": {"Ethernet0|10.0.0.0/31": {}, "Ethernet4|10.0.1.254/24": {}},
        "STATIC_ROUTE": {"10.1.0.0/16": {"nexthop": "10.0.1.1,10.0.1.2"}},
        "NEIGH": {"Ethernet4|10.0.1.1": {"neigh": "02:00:00:00:04:01"},
                  "Ethernet4|10.0.1.2": {"neigh": "02:00:00:00:04:02"}},
    }
    if ipv6:  # the same shape over IPv6
        cfg["INTERFACE"] = {"Ethernet0|2001:db8::1/64": {}, "Ethernet4|2001:db8:4::1/64": {}}
        cfg["STATIC_ROUTE"] = {"2001:db8:1::/64": {"nexthop": "2001:db8:4::2,2001:db8:4::3"}}
        cfg["NEIGH"] = {"Ethernet4|2001:db8:4::2": {"neigh": "02:00:00:00:04:01"},
                        "Ethernet4|2001:db8:4::3": {"neigh": "02:00:00:00:04:02"}}
    path = os.path.join(tmp, "bench.json")
    with open(path, "w") as f:
        json.dump(cfg, f)
    log = open(os.path.join(tmp, "lsw.log"), "w")
    p = subprocess.Popen([binary, "-c", path] + list(args), stdout=log,
                         stderr=subprocess.STDOUT)
    try:
        def client():
            try:
                c = Client(sock)
                c.call("switch.info")
                return c
            except OSError:
                if p.poll() is not None:
                    sys.exit("lsw exited:\n" + open(log.name).read())
                return None
        c = wait_until(client, what="lsw")
        time.sleep(1)
        rates = []
        prev = c.call("port.stats")
        for _ in range(seconds):
            time.sleep(1)
            cur = c.call("port.stats")
            dt = (cur["timestamp_ns"] - prev["timestamp_ns"]) / 1e9
            a, b = cur["ports"]["Ethernet4"], prev["ports"]["Ethernet4"]
            rates.append((a["IF_OUT_UCAST_PKTS"] - b["IF_OUT_UCAST_PKTS"]) / dt)
            drops = cur["ports"]["Ethernet0"]["drops"]
            if drops:
                sys.exit("lsw dropped packets in the benchmark: %s" % drops)
            prev = cur
        return statistics.median(rates)
    finally:
        p.send_signal(signal.SIGINT)
        p.wait(timeout=60)


def pcap_of(tmp, size, flows, ipv6):
    pcap = os.path.join(tmp, "roce%d%s.pcap" % (size, "v6" if ipv6 else ""))
    cmd = [os.path.join(HERE, "lsw-pcapgen"), pcap, "--profile", "roce", "--size", str(size),
           "--flows", str(flows), "--dmac", SW_MAC]
    cmd += ["--ipv6", "--dst-net", "2001:db8:1::/64"] if ipv6 else ["--dst-net", "10.1.0.0/16"]
    subprocess.run(cmd, check=True, capture_output=True)
    return pcap


def families(args, tmp):
    """IPv4 against IPv6, fresh launches interleaved, medians of --ipv6 runs."""
    print("frame (B)  path    %sIPv4      IPv6      IPv6/IPv4" %
          ("IPv4 base  " if args.base else ""))
    for size in [int(s) for s in args.sizes.split(",")]:
        p4, p6 = pcap_of(tmp, size, args.flows, False), pcap_of(tmp, size, args.flows, True)
        for fwd in ("direct", "queued"):
            r4, r6, rb = [], [], []
            for run in range(args.ipv6):
                if args.base:
                    rb.append(lsw(p4, args.seconds, tmp, fwd, binary=args.base))
                r4.append(lsw(p4, args.seconds, tmp, fwd))
                r6.append(lsw(p6, args.seconds, tmp, fwd, ipv6=True))
                print("  %5d B %s run %d: IPv4 %.2f, IPv6 %.2f Mpps%s" % (
                    size, fwd, run + 1, r4[-1] / 1e6, r6[-1] / 1e6,
                    ", base IPv4 %.2f" % (rb[-1] / 1e6) if rb else ""), file=sys.stderr)
            m4, m6 = statistics.median(r4), statistics.median(r6)
            base = "%7.2f M  " % (statistics.median(rb) / 1e6) if rb else ""
            print("%9d  %-6s  %s%6.2f M  %6.2f M  %8.0f%%" % (
                size, "full" if fwd == "queued" else fwd, base, m4 / 1e6, m6 / 1e6,
                100 * m6 / m4))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--sizes", default="60,4154", help="frame sizes without FCS")
    ap.add_argument("--flows", type=int, default=64)
    ap.add_argument("--ipv6", type=int, metavar="RUNS", default=0,
                    help="compare IPv4 and IPv6 over RUNS interleaved launches")
    ap.add_argument("--base", help="with --ipv6: another lsw binary's IPv4 too")
    args = ap.parse_args()
    if args.ipv6:
        if not os.path.exists(LSW) or (args.base and not os.path.exists(args.base)):
            sys.exit("bench-forward: no lsw binary (run tools/setup; --base must exist)")
        tmp = tempfile.mkdtemp(prefix="lsw-bench-")
        try:
            families(args, tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return
    if not shutil.which("dpdk-testpmd") or not os.path.exists(LSW):
        sys.exit("bench-forward: run tools/setup first (needs dpdk-testpmd and build/)")
    tmp = tempfile.mkdtemp(prefix="lsw-bench-")
    rows = []
    try:
        for size in [int(s) for s in args.sizes.split(",")]:
            pcap = os.path.join(tmp, "roce%d.pcap" % size)
            subprocess.run([os.path.join(HERE, "lsw-pcapgen"), pcap, "--profile", "roce",
                            "--size", str(size), "--flows", str(args.flows), "--dmac", SW_MAC,
                            "--dst-net", "10.1.0.0/16"], check=True, capture_output=True)
            mbuf = max(2176, size + 256)
            io = testpmd(pcap, "io", args.seconds, mbuf)
            mac = testpmd(pcap, "mac", args.seconds, mbuf)
            direct = lsw(pcap, args.seconds, tmp, "direct")
            queued = lsw(pcap, args.seconds, tmp, "queued")
            rows.append((size, io, mac, direct, queued))
            print("  %5d B: testpmd io %.2f Mpps, mac %.2f Mpps, lsw direct %.2f Mpps, "
                  "lsw full path %.2f Mpps" % (size, io / 1e6, mac / 1e6, direct / 1e6,
                                               queued / 1e6), file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        # testpmd leaves its EAL runtime directory (--file-prefix bench-PID) behind.
        shutil.rmtree("/var/run/dpdk/bench-%d" % os.getpid(), ignore_errors=True)
    print("frame (B)  testpmd io  testpmd mac  lsw direct  lsw full  direct/io  full/io"
          "  full/direct")
    for size, io, mac, direct, full in rows:
        print("%9d  %8.2f M  %9.2f M  %8.2f M  %6.2f M  %8.0f%%  %6.0f%%  %10.0f%%" %
              (size, io / 1e6, mac / 1e6, direct / 1e6, full / 1e6, 100 * direct / io,
               100 * full / io, 100 * full / direct))


if __name__ == "__main__":
    main()
