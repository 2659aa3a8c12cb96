#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every frame lsw-host sends is valid RoCEv2: a host on net_pcap writes what it sends (ARP,
WRITEs of every position in a message, SENDs, retransmissions after timeouts) to a pcap;
tshark dissects each RoCE frame as InfiniBand with the opcodes and PSNs it was sent with,
and scapy, an implementation of the ICRC independent of lsw-host's, verifies each one (the
Wireshark of Debian 12 shows the ICRC but does not check it). Also: lsw-host refuses a bad
config with the JSON path and exit 2, and --check counts what a config would run."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from hosttest import LSW_HOST  # noqa: E402
from lswtest import PYTHON, run_test, tmpdir  # noqa: E402

CHECK = r'''
import sys
from scapy.all import Ether, IP, UDP, raw, rdpcap
from scapy.contrib.roce import BTH
bad = n = 0
for p in rdpcap(sys.argv[1]):
    if UDP in p and p[UDP].dport == 4791:
        want = p[BTH].icrc
        del p[BTH].icrc
        n += 1
        bad += Ether(raw(p))[BTH].icrc != want
print(n, bad)
'''


def test_host_frames():
    tmp = tmpdir("lsw-host-frames-")
    empty = os.path.join(tmp, "empty.pcap")
    out = os.path.join(tmp, "out.pcap")
    subprocess.run([PYTHON, "-c", "from scapy.all import wrpcap; wrpcap('%s', [])" % empty],
                   check=True)
    hc = {"hosts": {
        "a": {"port": "net_pcap0,rx_pcap=%s,tx_pcap=%s" % (empty, out), "ip": "10.0.0.1/31",
              "gateway": "10.0.0.0", "gateway_mac": "02:00:00:00:00:01", "speed": "100M",
              "mtu": 1024, "rto_us": 20000, "retry_cnt": 2, "priority_tagging": True},
        "b": {"ip": "10.0.9.1/31", "gateway": "10.0.9.0"}},
        "settle_ms": 0, "linger_ms": 10,
        "workload": [{"type": "flow", "src": "a", "dst": "b", "size": 3000},
                     {"type": "flow", "src": "a", "dst": "b", "size": 100, "op": "send"},
                     {"type": "flow", "src": "a", "dst": "b", "size": 2048, "op": "send"}],
        "results": os.path.join(tmp, "r.json")}
    path = os.path.join(tmp, "hosts.json")
    with open(path, "w") as f:
        json.dump(hc, f)
    r = subprocess.run([LSW_HOST, "-q", "--hosts", "a", path], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    res = json.load(open(hc["results"]))
    # Nobody answers: each QP times out, sends again, and gives up after retry_cnt.
    c = res["hosts"]["a"]["counters"]
    assert c["local_ack_timeout_err"] == 3 * 3 and c["req_transport_retries_exceeded"] == 3, c
    assert res["messages_failed"] == 3 and res["done"], res

    fields = subprocess.run(["tshark", "-r", out, "-Y", "infiniband", "-T", "fields",
                             "-e", "vlan.priority", "-e", "ip.dsfield.dscp",
                             "-e", "infiniband.bth.opcode", "-e", "infiniband.bth.psn",
                             "-e", "infiniband.bth.destqp", "-e", "infiniband.bth.a"],
                            capture_output=True, text=True, check=True).stdout.split("\n")
    rows = [line.split("\t") for line in fields if line]
    # 3000 B in 1 KB packets: FIRST (6), LAST (8) after a MIDDLE (7); 100 B: SEND_ONLY (4);
    # 2 KB: SEND_FIRST (0), SEND_LAST (2). Each sent 3 times (two retries).
    ops = sorted(int(r[2]) for r in rows)
    assert ops == sorted([6, 7, 8, 4, 0, 2] * 3), ops
    for prio, dscp, op, psn, qp, ackreq in rows:
        assert prio == "3" and dscp == "3", (prio, dscp)
        assert int(qp, 16) in (0x100, 0x101, 0x102)
        assert (ackreq in ("1", "True")) == (int(op) in (8, 4, 2)), (op, ackreq)
    n, bad = subprocess.run([PYTHON, "-c", CHECK, out], capture_output=True, text=True,
                            check=True).stdout.split()
    assert int(n) == len(rows) and int(bad) == 0, (n, bad)

    # A config error names its path; nothing starts.
    hc["hosts"]["a"]["mtu"] = 1500
    with open(path, "w") as f:
        json.dump(hc, f)
    r = subprocess.run([LSW_HOST, path], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "$.hosts.a.mtu" in r.stderr, (r.returncode, r.stderr)
    hc["hosts"]["a"]["mtu"] = 1024
    with open(path, "w") as f:
        json.dump(hc, f)
    r = subprocess.run([LSW_HOST, "--check", "--hosts", "a", path], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0 and "2 hosts, 3 QPs, 3 messages" in r.stdout, r.stdout


if __name__ == "__main__":
    run_test(test_host_frames)
