#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""lsw-agent against the real thing: two lsw-host NICs on veth pairs (net_af_packet on one
end, lsw's net_af_packet port on the other), an agent's BPF program on each host's veth.
h1 writes to h0 faster than h0's port drains, so lsw marks ECN and pauses h1; one packet
leaves h1 with TTL 1, which lsw drops. Then h0 storms priority 3.

Checks: the agents' counts equal lsw-host's own counters and lsw's exactly (per QP: data,
CE marks, CNPs, the one NAK and its out-of-sequence packets; per priority: every PFC frame
lsw sent to h1 and every storm frame h0 sent to lsw); the drop shows in lsw's snapshots of
that QP; the configuration checks pass, and a wrong DSCP map is reported with its JSON path;
bad input (no interface, no switch, an unknown host, no permission) gets a clear error and a
non-zero exit; the programs are gone from the interfaces when the agent exits on SIGINT.

No timing is measured: every check is a count. On a busy machine a process may be off its
CPU for milliseconds, so the packet sockets' rings are deep (4096 frames) and h1's lossless
PG has the headroom of a full ring: a late reader then finds its frames waiting, never lost
in the kernel where neither side would count them. The veths carry no IPv6 chatter."""
import json
import os
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from hosttest import run_hosts, star, start, switch_drops  # noqa: E402
from lswtest import BUILD, run_test, sh, tmpdir  # noqa: E402

AGENT = os.path.join(BUILD, "tools", "lsw-agent")
TAG = "%d" % (os.getpid() % 10000)
VETH = [("ag%sh%d" % (TAG, i), "ag%ss%d" % (TAG, i)) for i in range(2)]


STARTED = []  # every agent started, stopped at the end whatever happened


def agent(iface, sock, port, *extra):
    p = subprocess.Popen([AGENT, "show", "-i", iface, "-s", sock, "--port", port, "--json",
                          *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    STARTED.append(p)
    # It says so once its programs are attached.
    line = p.stderr.readline()
    assert "counting on" in line, line + p.stderr.read()
    return p


def finish(p):
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 0, err
    return json.loads(out)


def flow(doc, direction, qpn):
    return next(f for f in doc["flows"] if f["dir"] == direction and f["qpn"] == qpn)


def attached(iface):
    xdp = "xdp" in sh("ip", "link", "show", iface).stdout
    tc = sh("tc", "filter", "show", "dev", iface, "egress", check=False).stdout.strip() != ""
    return xdp or tc


def test_agent():
    tmp = tmpdir("lsw-agent-")
    try:
        for h, s in VETH:
            sh("ip", "link", "add", h, "type", "veth", "peer", "name", s)
            for i in (h, s):
                # No IPv6 link-local chatter (router solicitations lsw would drop and count).
                sh("sysctl", "-qw", "net.ipv6.conf.%s.disable_ipv6=1" % i)
                sh("ip", "link", "set", i, "up")
        run(tmp)
    finally:
        for h, _ in VETH:
            sh("ip", "link", "del", h, check=False)


def run(tmp):
    sw_cfg, hc = star(tmp, 2, speed=1000, mtu=1024)
    # Rings of 4096 frames (16 ms of h1 at 2 Gb/s): a process descheduled on a busy machine
    # comes back to a full ring rather than to frames the kernel dropped, which neither
    # lsw nor lsw-host would count.
    af = "net_af_packet%d,iface=%s,qdisc_bypass=0,framecnt=4096"
    for i, (h, s) in enumerate(VETH):
        port = "Ethernet%d" % (4 * i)
        sw_cfg["LSW_PORT"][port]["devargs"] = af % (i, s)
        sw_cfg["PORT"][port]["mtu"] = "1500"
        hc["hosts"]["h%d" % i]["port"] = af % (i, h)
    hc["hosts"]["h1"]["speed"] = "2G"        # faster than h0's port: a queue, marks, PFC
    hc["hosts"]["h1"]["ttl_one_psn"] = 500    # one packet lsw must drop
    hc["defaults"] = {"cc": {"algorithm": "dcqcn", "profile": "mlx", "model_speed": "25G"},
                      "rto_us": 200000}
    hc["workload"] = [{"type": "flow", "src": "h1", "dst": "h0", "size": "4MB"}]
    sw_cfg["WRED_PROFILE"] = {"AZURE_LOSSLESS": {
        "ecn": "ecn_green", "wred_green_enable": "true", "green_min_threshold": "10KB",
        "green_max_threshold": "100KB", "green_drop_probability": "10"}}
    sw_cfg["QUEUE"] = {"Ethernet0|3": {"wred_profile": "AZURE_LOSSLESS"},
                       "Ethernet4|3": {"wred_profile": "AZURE_LOSSLESS"}}
    # What arrives after a pause is lsw's whole receive ring, not a 5 m cable's worth: h1's
    # lossless PG gets a headroom of 6 MB (4096 frames of 1 KB, rounded to cells, and what
    # h1 sends before the pause reaches it); h0 sends no data, only its storm.
    sw_cfg["BUFFER_POOL"]["ingress_lossless_pool"]["size"] = "12MB"
    sw_cfg["BUFFER_POOL"]["egress_lossless_pool"]["size"] = "12MB"
    for name, xoff in (("pg_lossless_ring", 6144), ("pg_lossless_small", 1024)):
        sw_cfg["BUFFER_PROFILE"][name] = {
            "pool": "ingress_lossless_pool", "xoff": "%dKB" % xoff, "xon": "32KB",
            "size": "%dKB" % (xoff + 32), "dynamic_th": "-4"}
    sw_cfg["BUFFER_PG"] = {"Ethernet0|3": {"profile": "pg_lossless_small"},
                           "Ethernet4|3": {"profile": "pg_lossless_ring"}}
    key = next(iter(sw_cfg["PORT_QOS_MAP"]))
    sw_cfg["PORT_QOS_MAP"][key]["pfc_watchdog_status"] = "enable"
    sw = start(sw_cfg, tmp)
    try:
        a0 = agent(VETH[0][0], sw.sock, "Ethernet0")
        a1 = agent(VETH[1][0], sw.sock, "Ethernet4")
        res = run_hosts(hc, tmp)
        d0, d1 = finish(a0), finish(a1)
        q0 = sw.rpc("queue.stats", {"port": "Ethernet0"})["ports"]["Ethernet0"]["3"]
        drops = switch_drops(sw)
        for h, _ in VETH:
            assert not attached(h), sh("ip", "link", "show", h).stdout

        h0, h1 = res["hosts"]["h0"]["counters"], res["hosts"]["h1"]["counters"]
        qp = res["qps"][0]["qpn"]
        # Nothing lost but the TTL 1 packet, at lsw (before the counts are compared: another
        # loss would make them disagree for a reason of its own).
        assert drops == {"Ethernet4": {"TTL": 1}}, (drops, res["qps"])
        rx, tx = flow(d0, "rx", qp), flow(d0, "tx", qp)
        # What the receiver got, as its NIC counted it and as the wire did.
        assert rx["data"] == h0["rx_write_requests"] + h0["out_of_sequence"] + \
            h0["duplicate_request"], (rx, h0)
        assert rx["ce"] == h0["np_ecn_marked_roce_packets"] > 0, (rx, h0)
        assert rx["ce"] == q0["WRED_ECN_MARKED_PACKETS"], (rx, q0)
        assert d0["switch"]["queues"]["3"]["WRED_ECN_MARKED_PACKETS"] == rx["ce"], d0["switch"]
        assert tx["cnp"] == h0["np_cnp_sent"] > 0, (tx, h0)
        assert tx["nak_seq"] == h0["resp_nak_sent"] == 1, (tx, h0)
        assert rx["out_of_sequence"] == h0["out_of_sequence"] >= 1, (rx, h0)
        # The one packet lsw dropped, in its snapshots of that QP.
        assert drops == {"Ethernet4": {"TTL": 1}}, drops
        assert d0["switch"]["qps"][str(qp)]["switch_drops"] == {"TTL": 1}, d0["switch"]["qps"]
        # The sender's side: the NAK and the CNPs came back, and lsw's pauses.
        s_rx = flow(d1, "rx", qp)
        assert s_rx["nak_seq"] == h1["packet_seq_err"] == 1, (s_rx, h1)
        assert s_rx["cnp"] == h1["rp_cnp_handled"] + h1["rp_cnp_ignored"], (s_rx, h1)
        p1 = d1["switch"]["pfc"]["3"]
        assert p1["host_rx"] == p1["switch_tx"], p1
        assert d1["pfc"]["rx"].get("3", {}).get("frames", 0) == p1["switch_tx"], d1["pfc"]
        for doc in (d0, d1):
            bad = [c for c in doc["switch"]["checks"] if not c["ok"]]
            assert not bad, bad

        # A storm from h0: every XOFF it sent, lsw received; lsw's pauses of h1 reached it.
        hc2 = dict(hc, workload=[{"type": "flow", "src": "h1", "dst": "h0", "size": "1MB"}])
        hc2["hosts"] = json.loads(json.dumps(hc["hosts"]))
        hc2["hosts"]["h0"]["storm"] = {"priority": 3, "start_ms": 0, "duration_ms": 300}
        hc2["hosts"]["h1"].pop("ttl_one_psn")
        a0 = agent(VETH[0][0], sw.sock, "Ethernet0")
        a1 = agent(VETH[1][0], sw.sock, "Ethernet4")
        res2 = run_hosts(hc2, tmp, name="storm")
        d0, d1 = finish(a0), finish(a1)
        # The first run's drop is not this run's.
        assert all("TTL" not in q["switch_drops"] for q in d0["switch"]["qps"].values()), d0
        p0 = d0["switch"]["pfc"]["3"]
        storm = res2["hosts"]["h0"]["counters"]["tx_pause_storm_frames"]
        assert p0["host_tx"] == p0["switch_rx"] == storm > 0, (p0, storm)
        # h0's storm holds queue 3 of Ethernet0, so lsw pauses h1: every PFC_3_TX_PKTS
        # reached h1.
        p1 = d1["switch"]["pfc"]["3"]
        assert p1["host_rx"] == p1["switch_tx"] > 0, p1

        # The other formats: Prometheus text with the checks, and the table.
        r = subprocess.run([AGENT, "show", "-i", VETH[1][0], "-s", sw.sock, "--port",
                            "Ethernet4", "--seconds", "1", "--prometheus"],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0 and "# TYPE lsw_agent_check_ok gauge" in r.stdout, r
        # The host found by its IP in lsw's neighbor table (its veth's MAC is not lsw-host's).
        r = subprocess.run([AGENT, "check", "-i", VETH[1][0], "-s", sw.sock, "--host-ip",
                            "10.0.1.1", "--dscp", "3"], capture_output=True, text=True,
                           timeout=60)
        assert r.returncode == 0 and "switch port Ethernet4" in r.stdout, r
        assert "ok   data lossless" in r.stdout, r

        # A wrong DSCP map: data DSCP 3 lands in lossy TC 1; the agent names the field.
        sw.rpc("config.set", {"config": {"DSCP_TO_TC_MAP": {"AZURE": {"3": "1"}}}})
        r = subprocess.run([AGENT, "check", "-i", VETH[1][0], "-s", sw.sock, "--port",
                            "Ethernet4", "--dscp", "3", "--priority", "3", "--json"],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
        checks = {c["name"]: c for c in json.loads(r.stdout)["switch"]["checks"]}
        assert not checks["data lossless"]["ok"], checks
        assert "DSCP_TO_TC_MAP" in checks["data priority"]["path"], checks
        assert "TC 1" in checks["data lossless"]["message"], checks

        # Bad input: each a clear message and a non-zero exit, nothing left attached.
        for args, words in (
                (["show", "-i", "nosuchif0", "--seconds", "1"], "no such interface"),
                (["show", "-i", VETH[0][0], "-s", os.path.join(tmp, "none.sock")],
                 "cannot reach lsw"),
                (["show", "-i", VETH[0][0], "-s", sw.sock, "--host-ip", "10.9.9.9"],
                 "does not know this host"),
                (["check", "-i", VETH[0][0]], "needs the switch"),
                (["show", "-i", VETH[0][0], "--dscp", "64"], "expected 0 to 63")):
            r = subprocess.run([AGENT, *args], capture_output=True, text=True, timeout=60)
            assert r.returncode != 0 and words in r.stderr, (args, r.returncode, r.stderr)
        r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                            "--inh-caps=-all", "--bounding-set=-all", AGENT, "show", "-i",
                            VETH[0][0], "--seconds", "1"],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode != 0 and "run as root" in r.stderr, (r.returncode, r.stderr)
        for h, _ in VETH:
            assert not attached(h)
    finally:
        for p in STARTED:
            if p.poll() is None:
                p.send_signal(signal.SIGINT)
                try:
                    p.communicate(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.communicate()
        sw.stop()


if __name__ == "__main__":
    run_test(test_agent)
