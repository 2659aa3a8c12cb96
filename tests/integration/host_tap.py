#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""lsw-host on a kernel interface: a host on net_tap whose other side is in a network
namespace, where Linux tools see it. The namespace pings the host (ARP and ICMP echo
answered), tshark in the namespace captures the RoCE WRITEs the host sends there and
dissects them, scapy verifies their ICRC; SIGINT stops lsw-host cleanly, and the results
it writes say it was interrupted."""
import json
import os
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from hosttest import LSW_HOST  # noqa: E402
from host_frames import CHECK  # noqa: E402
from lswtest import PYTHON, run_test, sh, tmpdir, wait_until  # noqa: E402

NS = "lswhosttap%d" % os.getpid()
IFACE = "lhtap%d" % (os.getpid() % 10000)


def roce_rows(cap):
    out = sh("tshark", "-r", cap, "-Y", "infiniband", "-T", "fields", "-e",
             "infiniband.bth.opcode", "-e", "infiniband.bth.psn", check=False).stdout
    return [r.split("\t") for r in out.split("\n") if r]


def test_host_tap():
    tmp = tmpdir("lsw-host-tap-")
    cap = os.path.join(tmp, "cap.pcap")
    hc = {"hosts": {
        "t": {"port": "net_tap0,iface=%s" % IFACE, "mac": "02:00:00:00:99:02",
              "ip": "10.99.0.2/24", "gateway": "10.99.0.1", "speed": "100M", "mtu": 1024,
              "rto_us": 1000000},
        "k": {"ip": "10.99.0.1/24", "gateway": "10.99.0.2"}},
        "settle_ms": 0, "linger_ms": 60000,
        "workload": [{"type": "flow", "src": "t", "dst": "k", "size": 8192,
                      "start_us": 5000000}],
        "results": os.path.join(tmp, "r.json")}
    path = os.path.join(tmp, "hosts.json")
    with open(path, "w") as f:
        json.dump(hc, f)
    proc = subprocess.Popen([LSW_HOST, "-q", "--hosts", "t", path], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    tshark = None
    try:
        # lsw-host has started its port once the tap is promiscuous: then it may move.
        wait_until(lambda: "PROMISC" in sh("ip", "link", "show", IFACE, check=False).stdout,
                   what="the tap interface, started")
        sh("ip", "netns", "add", NS)
        sh("ip", "link", "set", IFACE, "netns", NS)
        sh("ip", "-n", NS, "addr", "add", "10.99.0.1/24", "dev", IFACE)
        sh("ip", "-n", NS, "link", "set", IFACE, "up")
        tshark = subprocess.Popen(["ip", "netns", "exec", NS, "tshark", "-i", IFACE, "-w", cap,
                                   "-c", "8", "-f", "udp port 4791"], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True)
        for line in tshark.stderr:  # tshark takes a while to start
            if "Capturing on" in line:
                break
        ping = wait_until(lambda: (lambda r: r.returncode == 0 and r)(
            sh("ip", "netns", "exec", NS, "ping", "-c", "3", "-i", "0.2", "-W", "1",
               "10.99.0.2", check=False)), timeout=30, what="ping answered by the host")
        assert "3 received" in ping.stdout, ping.stdout
        # The host's WRITE (8 packets) reaches the namespace: tshark stops after them.
        tshark.wait(timeout=60)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if tshark is not None and tshark.poll() is None:
            tshark.kill()
            tshark.wait()
        sh("ip", "netns", "del", NS, check=False)
    res = json.load(open(hc["results"]))
    assert res["interrupted"], res
    c = res["hosts"]["t"]["counters"]
    assert c["icmp_echo_replies_sent"] >= 3 and c["arp_requests_sent"] >= 1, c
    rows = roce_rows(cap)
    assert len(rows) >= 8 and {r[0] for r in rows} == {"6", "7", "8"}, rows
    n, bad = subprocess.run([PYTHON, "-c", CHECK, cap], capture_output=True, text=True,
                            check=True).stdout.split()
    assert int(n) == len(rows) and int(bad) == 0, (n, bad)
    assert sh("ip", "link", "show", IFACE, check=False).returncode != 0  # gone with it


if __name__ == "__main__":
    run_test(test_host_tap)
