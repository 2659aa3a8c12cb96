#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Two Linux hosts in network namespaces on net_tap ports: they ping the switch, ping each
other through it (ARP resolved on demand, held packets released), see ICMP time exceeded
at TTL 1, and move 20 MB over TCP with iperf3. Leaves no namespace, tap or process."""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from lswtest import Lsw, base_config, ns, run_test, sh, tmpdir, wait_until  # noqa: E402

SKIP = 77


def test_netns():
    if os.geteuid() != 0 or not os.path.exists("/dev/net/tun") or not shutil.which("ip"):
        print("SKIP: needs root, /dev/net/tun and iproute2")
        sys.exit(SKIP)
    if not shutil.which("iperf3"):
        print("SKIP: needs iperf3")
        sys.exit(SKIP)
    tag = "%d" % (os.getpid() % 100000)
    hosts = {
        "a": ("lswa" + tag, "lswt-a-" + tag, "192.168.1.2", "192.168.1.1", "02:aa:00:00:00:02"),
        "b": ("lswb" + tag, "lswt-b-" + tag, "192.168.2.2", "192.168.2.1", "02:bb:00:00:00:02")}
    tmp = tmpdir("lsw-netns-")
    cfg = base_config(tmp, {
        "Ethernet0": ("net_tap0,iface=" + hosts["a"][0], "192.168.1.1/24", {"mtu": "1500"}),
        "Ethernet4": ("net_tap1,iface=" + hosts["b"][0], "192.168.2.1/24", {"mtu": "1500"})})
    sw = Lsw(cfg, tmp)
    server = None
    try:
        sw.start()
        for iface, nsname, ip, gw, mac in hosts.values():
            sh("ip", "netns", "add", nsname)
            sh("ip", "link", "set", iface, "netns", nsname)
            ns(nsname, "ip", "link", "set", "dev", iface, "address", mac)
            ns(nsname, "ip", "addr", "add", ip + "/24", "dev", iface)
            ns(nsname, "ip", "link", "set", "dev", iface, "up")
            ns(nsname, "ip", "link", "set", "dev", "lo", "up")
            ns(nsname, "ip", "route", "add", "default", "via", gw)
        a, b = hosts["a"][1], hosts["b"][1]
        # The switch's own address, then the other host through the switch.
        r = ns(a, "ping", "-c", "3", "-i", "0.2", "-W", "5", "192.168.1.1", check=False)
        assert r.returncode == 0 and " 0% packet loss" in r.stdout, r.stdout + r.stderr
        r = ns(a, "ping", "-c", "5", "-i", "0.2", "-W", "5", "192.168.2.2", check=False)
        assert r.returncode == 0 and " 0% packet loss" in r.stdout, r.stdout + r.stderr
        r = ns(b, "ping", "-c", "1", "-W", "5", "192.168.1.1", check=False)
        assert r.returncode == 0, r.stdout + r.stderr
        # TTL 1: the switch answers time exceeded from its address on the way in.
        r = ns(a, "ping", "-c", "1", "-t", "1", "-W", "5", "192.168.2.2", check=False)
        assert "From 192.168.1.1" in r.stdout and "Time to live exceeded" in r.stdout, r.stdout
        # A smaller MTU on the far port, at run time: that port restarts alone, and a
        # too-large DF packet gets ICMP fragmentation-needed with the new MTU.
        assert sw.rpc("config.set", {"config": {"PORT": {"Ethernet4": {"mtu": "1400"}}}}) \
            == {"applied": True}
        ns(b, "ip", "link", "set", "dev", hosts["b"][0], "mtu", "1400")
        r = ns(a, "ping", "-c", "1", "-W", "5", "-M", "do", "-s", "1450", "192.168.2.2",
               check=False)
        assert "mtu = 1400" in r.stdout + r.stderr, r.stdout + r.stderr
        r = ns(a, "ping", "-c", "2", "-W", "5", "-M", "do", "-s", "1372", "192.168.2.2",
               check=False)
        assert r.returncode == 0, r.stdout + r.stderr
        nbrs = {n["ip"]: n for n in sw.rpc("neighbor.list")}
        assert nbrs["192.168.1.2"]["mac"] == hosts["a"][4], nbrs
        assert nbrs["192.168.2.2"]["mac"] == hosts["b"][4], nbrs
        assert nbrs["192.168.2.2"]["state"] == "learned"
        # 20 MB of TCP through the switch.
        server = subprocess.Popen(["ip", "netns", "exec", b, "iperf3", "-s", "-1", "-B",
                                   "192.168.2.2"], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)

        def client():
            # The server may not listen yet: "connection refused" is retried.
            r = ns(a, "iperf3", "-c", "192.168.2.2", "-n", "20M", "-J", check=False,
                   timeout=120)
            res = json.loads(r.stdout or "{}")
            if "Connection refused" in res.get("error", ""):
                return None
            if "sum_received" not in res.get("end", {}):
                raise AssertionError("iperf3: " + r.stdout[-2000:] + r.stderr)
            return res
        res = wait_until(client, timeout=60, what="iperf3 to connect and finish")
        # iperf3 -n stops at 20 MB written; the server stops counting when the test ends,
        # so what it received is the figure that crossed the switch.
        got = res["end"]["sum_received"]["bytes"]
        assert got >= 10 * 1024 * 1024, got
        print("iperf3: %.1f Mb/s through lsw over net_tap" %
              (res["end"]["sum_received"]["bits_per_second"] / 1e6))
        # The switch counted it all (its last bursts may still be on the way when iperf3 ends).
        wait_until(lambda: sw.rpc("port.stats")["ports"]["Ethernet4"]["IF_OUT_OCTETS"] >= got,
                   what="Ethernet4 to count what iperf3 received")
        ev = sw.rpc("switch.info")["events"]
        assert ev["ARP_REQUEST_TX"] >= 1 and ev["NEIGH_RELEASED"] >= 1, ev
        sw.stop()
        for iface, nsname, *_ in hosts.values():
            r = sh("ip", "-n", nsname, "link", "show", iface, check=False)
            assert r.returncode != 0, "tap %s outlived lsw" % iface
    finally:
        if server is not None and server.poll() is None:
            server.kill()
            server.wait()
        sw.kill()
        for _, nsname, *_ in hosts.values():
            sh("ip", "netns", "del", nsname, check=False)


if __name__ == "__main__":
    run_test(test_netns)
