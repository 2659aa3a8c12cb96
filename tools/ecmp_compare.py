# SPDX-License-Identifier: BSD-3-Clause
"""ecmp-compare: how evenly each ECMP mode spreads a few elephant flows over K uplinks.

The low-entropy case of hash ECMP: N long-lived RoCEv2 flows
from one source IP to one destination, differing only in UDP source port and QP, through a
real lsw: a net_tap port in (this script writes the frames into its kernel side, paced) and
K net_null uplinks shaped to --speed Mb/s each, behind one ECMP route. Every flow sends the
same rate, so that perfect balance loads each uplink to --load of its speed (one flow per
uplink when N = K, two when N = 2K), and an uplink carrying more flows than its share is
overloaded. The flows never pause: the inactivity time is set far above their packet
spacing, so flowlet modes choose at a flow's start (or when reactive rebalance moves it).

For each mode it reports the bytes each uplink got (the group's per-member counters, at the
ECMP decision), max/mean (how much longer than ideal the slowest uplink takes to carry its
flows: the "CCT/ideal" of the reference's table) and Jain's fairness index (sum x)^2 /
(K sum x^2). `hash` and `hash_qp` are deterministic for a seed, so they are run over
--seeds seeds (a few packets per flow each) and averaged; the other modes run --seconds of
traffic after every flow has started. Flows start --stagger ms apart ("staggered"), or
together.

Usage: tools/ecmp-compare [--k 4] [--seeds 20] [--seconds 2] [--json]   (as root, after
tools/setup). Takes about a minute for K = 4.
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))
from lswtest import Lsw, base_config, tmpdir  # noqa: E402

SW_MAC = "02:00:00:00:00:01"
HOST_MAC = "02:00:00:00:00:02"
SRC_IFACE = "lswecmp0"
FRAME = 1000  # bytes without FCS


def roce_frame(i, dscp, size=FRAME, dst="10.100.0.1"):
    from scapy.all import IP, UDP, Ether, Raw
    from scapy.contrib.roce import BTH
    hdr = (Ether(dst=SW_MAC, src=HOST_MAC) / IP(src="10.0.0.1", dst=dst, tos=dscp << 2 | 2) /
           UDP(sport=49152 + i, dport=4791, chksum=0) / BTH(opcode=0x0A, dqpn=0x100 + i))
    return bytes(hdr / Raw(b"\x5a" * max(0, size - len(hdr))))


def link_up(iface):
    subprocess.run(["sysctl", "-qw", "net.ipv6.conf.%s.disable_ipv6=1" % iface],
                   capture_output=True)
    subprocess.run(["ip", "link", "set", iface, "up"], check=True)


class Sender(threading.Thread):
    """Round-robin over the started flows at @pps packets/s per flow; flow i starts at
    i * stagger seconds. Equal rates hold whatever Python's timing does: a late round sends
    every flow's packet late together."""

    def __init__(self, iface, frames, pps, stagger=0.0):
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        self.sock.bind((iface, 0))
        self.frames, self.period, self.stagger = frames, 1.0 / pps, stagger
        self.stop_ev = threading.Event()
        self.sent = 0

    def run(self):
        t0 = next_t = time.monotonic()
        while not self.stop_ev.is_set():
            now = time.monotonic()
            if next_t > now:
                time.sleep(next_t - now)
            elif now - next_t > 0.05:  # far behind (the machine was busy): do not burst
                next_t = now
            started = len(self.frames) if self.stagger == 0 else \
                min(len(self.frames), int((next_t - t0) / self.stagger) + 1)
            for f in self.frames[:started]:
                self.sock.send(f)
                self.sent += 1
            next_t += self.period

    def all_started_at(self):
        return self.stagger * (len(self.frames) - 1)

    def stop(self):
        self.stop_ev.set()
        self.join()
        self.sock.close()


def jain(xs):
    s = sum(xs)
    q = sum(x * x for x in xs)
    return s * s / (len(xs) * q) if q else 0.0


def max_mean(xs):
    s = sum(xs)
    return max(xs) * len(xs) / s if s else 0.0


def config(tmp, k, speed, dscp_lossless=False, tap_uplink0=False):
    ports = {"Ethernet0": ("net_tap0,iface=%s" % SRC_IFACE, "10.0.0.0/31", {"mtu": "1500"})}
    route, neigh = [], {}
    for u in range(k):
        name = "Ethernet%d" % (4 * (u + 1))
        dev = "net_tap%d,iface=lswup%d" % (u + 1, u) if (tap_uplink0 and u == 0) else \
            "net_null%d,no-rx=1" % u
        ports[name] = (dev, "10.0.%d.0/31" % (u + 1), {"speed": str(speed), "mtu": "1500"})
        route.append("10.0.%d.1" % (u + 1))
        neigh["%s|10.0.%d.1" % (name, u + 1)] = {"neigh": "02:00:00:00:%02x:01" % (u + 1)}
    cfg = base_config(tmp, ports, idle_sleep_us=50, mbufs=16384)
    cfg["STATIC_ROUTE"] = {"10.100.0.0/16": {"nexthop": ",".join(route)}}
    cfg["NEIGH"] = neigh
    # Slow lab uplinks: a sample must hold a few frames (1 ms at 20 Mb/s is 2.5 frames), and
    # the EWMA (16 samples) and the rebalance interval (100 ms) follow. Queue thresholds are
    # given for 10 Gb/s: 500 KB..4 MB there is one to eight 1000-byte frames at 20 Mb/s.
    cfg["ECMP"] = {"GLOBAL": {"sample_interval": 1000, "ewma_exponent": 4,
                              "queue_min_threshold": "500KB", "queue_max_threshold": "4MB",
                              "inactivity_time": 50000, "rebalance_interval": 100000}}
    return cfg


def member_bytes(sw):
    g = sw.rpc("ecmp.stats", {"prefix": "10.100.0.0/16"})["groups"][0]
    return g["members"]


def delta(a, b, key):
    return [y[key] - x[key] for x, y in zip(a, b)]


def set_group(sw, **fields):
    sw.rpc("config.set", {"config": {"ECMP": {"10.100.0.0/16": fields}}})


def quiet(sw):
    """Let queues drain and the qualities decay to idle before the next run."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if all(m["quality"] == 7 and m["queue_bytes"] == 0 for m in member_bytes(sw)):
            return
        time.sleep(0.1)


def run_seeds(sw, mode, n, seeds, per_flow=5):
    """hash modes: the same flows under each seed; a few packets per flow show placement."""
    frames = [roce_frame(i, 0) for i in range(n)]
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    sock.bind((SRC_IFACE, 0))
    res = []
    for seed in range(1, seeds + 1):
        set_group(sw, mode=mode, seed=seed)
        a = member_bytes(sw)
        for _ in range(per_flow):
            for f in frames:
                sock.send(f)
            time.sleep(0.002)
        want = n * per_flow

        def arrived():
            return sum(delta(a, member_bytes(sw), "PACKETS")) >= want
        deadline = time.monotonic() + 10
        while not arrived():
            if time.monotonic() > deadline:
                raise AssertionError("frames did not all arrive (seed %d)" % seed)
            time.sleep(0.02)
        res.append(delta(a, member_bytes(sw), "BYTES"))
    sock.close()
    return res


_runs = [0]


def run_traffic(sw, mode, n, k, load, speed, seconds, stagger, rebalance=False):
    # A new seed each run: fresh flowlet tables, so no run inherits the last one's placement.
    _runs[0] += 1
    set_group(sw, mode=mode, seed=1000 + _runs[0], rebalance=rebalance)
    quiet(sw)
    pps = load * speed * 1e6 * k / n / 8 / (FRAME + 24)  # 24: preamble, FCS, gap
    s = Sender(SRC_IFACE, [roce_frame(i, 0) for i in range(n)], pps, stagger)
    a0 = member_bytes(sw)
    s.start()
    # Settle: every flow started, the EWMAs caught up, rebalance had time to act.
    time.sleep(s.all_started_at() + (2.5 if rebalance else 0.5))
    a = member_bytes(sw)
    time.sleep(seconds)
    b = member_bytes(sw)
    s.stop()
    return {"bytes": delta(a, b, "BYTES"),
            "flowlets": sum(delta(a0, b, "FLOWLETS")),
            "moves": sum(delta(a0, b, "REBALANCES")) + sum(delta(a0, b, "PATH_REASSIGNMENTS"))}


ROWS = [
    # mode, start, rebalance
    ("hash", "-", False),
    ("hash_qp", "-", False),
    ("fixed", "staggered", False),
    ("flowlet_random", "staggered", False),
    ("flowlet_quality", "staggered", False),
    ("flowlet_quality", "together", False),
    ("flowlet_quality", "together", True),
    ("packet_quality", "together", False),
    ("packet_random", "together", False),
]


def compare(k=4, seeds=20, seconds=2.0, load=0.6, speed=20, stagger=0.1, ns=None, log=print):
    """Run every row for N in @ns (default K and 2K); returns a list of result dicts."""
    tmp = tmpdir("lsw-ecmp-")
    out = []
    with Lsw(config(tmp, k, speed), tmp) as sw:
        link_up(SRC_IFACE)
        for n in ns or (k, 2 * k):
            for mode, start, reb in ROWS:
                if start == "-":
                    per_seed = run_seeds(sw, mode, n, seeds)
                    j = [jain(x) for x in per_seed]
                    mm = [max_mean(x) for x in per_seed]
                    used = [sum(1 for v in x if v) / k for x in per_seed]
                    tot = [sum(x[i] for x in per_seed) for i in range(k)]
                    r = {"mode": mode, "start": "%d seeds" % seeds, "n": n, "bytes": tot,
                         "jain": sum(j) / len(j), "jain_min": min(j),
                         "max_mean": sum(mm) / len(mm), "used": sum(used) / len(used),
                         "flowlets": None, "moves": None}
                else:
                    t = run_traffic(sw, mode, n, k, load, speed, seconds,
                                    stagger if start == "staggered" else 0.0, reb)
                    x = t["bytes"]
                    r = {"mode": mode + (" + rebalance" if reb else ""), "start": start,
                         "n": n, "bytes": x, "jain": jain(x), "jain_min": jain(x),
                         "max_mean": max_mean(x), "used": sum(1 for v in x if v) / k,
                         "flowlets": t["flowlets"], "moves": t["moves"]}
                out.append(r)
                log(fmt_row(r))
    return out


HEADER = "%-28s %-10s %3s  %-24s %8s %6s %6s %9s %6s" % (
    "mode", "start", "N", "uplink bytes (% of total)", "max/mean", "Jain", "used",
    "flowlets", "moves")


def fmt_row(r):
    tot = sum(r["bytes"]) or 1
    shares = "/".join("%d" % round(100 * b / tot) for b in r["bytes"])
    return "%-28s %-10s %3d  %-24s %8.2f %6.3f %5.0f%% %9s %6s" % (
        r["mode"], r["start"], r["n"], shares, r["max_mean"], r["jain"], 100 * r["used"],
        "-" if r["flowlets"] is None else r["flowlets"],
        "-" if r["moves"] is None else r["moves"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, default=4, help="uplinks (2..16)")
    ap.add_argument("--seeds", type=int, default=20, help="hash seeds per N")
    ap.add_argument("--seconds", type=float, default=2.0, help="measured time per run")
    ap.add_argument("--load", type=float, default=0.6,
                    help="each uplink's load under perfect balance (share of its speed)")
    ap.add_argument("--speed", type=int, default=20, help="uplink speed, Mb/s")
    ap.add_argument("--stagger", type=float, default=0.1, help="s between flow starts")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("ecmp-compare: run as root (net_tap)")
    print(HEADER)
    res = compare(args.k, args.seeds, args.seconds, args.load, args.speed, args.stagger,
                  log=(lambda s: None) if args.json else print)
    if args.json:
        print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
