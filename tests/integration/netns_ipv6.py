#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""IPv6 between two Linux hosts in network namespaces on net_tap ports: they ping the
switch's global and link-local addresses (its NDP answers), ping each other through it
(NDP resolution on demand, held packets released; one host routes by the switch's
link-local address, as routers advertise it), see ICMPv6 time exceeded at hop limit 1 and
packet too big after a run-time MTU change, and move 20 MB over TCP with iperf3 -6. Leaves
no namespace, tap or process."""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from lswtest import Lsw, base_config, ns, run_test, sh, tmpdir, wait_until  # noqa: E402

SKIP = 77
SWITCH_LL = "fe80::ff:fe00:1"  # EUI-64 of the ports' MAC, 02:00:00:00:00:01


def ping(nsname, *args):
    return ns(nsname, "ping", "-6", *args, check=False)


def test_netns_ipv6():
    if os.geteuid() != 0 or not os.path.exists("/dev/net/tun") or not shutil.which("ip"):
        print("SKIP: needs root, /dev/net/tun and iproute2")
        sys.exit(SKIP)
    if not shutil.which("iperf3"):
        print("SKIP: needs iperf3")
        sys.exit(SKIP)
    tag = "%d" % (os.getpid() % 100000)
    hosts = {
        "a": ("lswa" + tag, "lsw6-a-" + tag, "2001:db8:1::2", "2001:db8:1::1",
              "02:aa:00:00:00:02"),
        "b": ("lswb" + tag, "lsw6-b-" + tag, "2001:db8:2::2", SWITCH_LL,
              "02:bb:00:00:00:02")}
    tmp = tmpdir("lsw-netns6-")
    cfg = base_config(tmp, {
        "Ethernet0": ("net_tap0,iface=" + hosts["a"][0], "2001:db8:1::1/64", {"mtu": "1500"}),
        "Ethernet4": ("net_tap1,iface=" + hosts["b"][0], "2001:db8:2::1/64", {"mtu": "1500"})})
    sw = Lsw(cfg, tmp)
    server = None
    try:
        sw.start()
        for iface, nsname, ip, gw, mac in hosts.values():
            sh("ip", "netns", "add", nsname)
            sh("ip", "link", "set", iface, "netns", nsname)
            ns(nsname, "ip", "link", "set", "dev", iface, "address", mac)
            # nodad: the address is usable at once (duplicate detection takes a second).
            ns(nsname, "ip", "-6", "addr", "add", ip + "/64", "dev", iface, "nodad")
            ns(nsname, "ip", "link", "set", "dev", iface, "up")
            ns(nsname, "ip", "link", "set", "dev", "lo", "up")
            ns(nsname, "ip", "-6", "route", "add", "default", "via", gw, "dev", iface)
        a, b = hosts["a"][1], hosts["b"][1]
        ia, ib = hosts["a"][0], hosts["b"][0]
        # The kernel's own link-local address needs its duplicate detection to finish.
        wait_until(lambda: "tentative" not in ns(a, "ip", "-6", "addr", "show", ia).stdout and
                   "tentative" not in ns(b, "ip", "-6", "addr", "show", ib).stdout,
                   what="the hosts' link-local addresses")
        r = ping(a, "-c", "3", "-i", "0.2", "-W", "5", "2001:db8:1::1")
        assert r.returncode == 0 and " 0% packet loss" in r.stdout, r.stdout + r.stderr
        r = ping(a, "-c", "2", "-i", "0.2", "-W", "5", SWITCH_LL + "%" + ia)
        assert r.returncode == 0, r.stdout + r.stderr
        r = ping(a, "-c", "5", "-i", "0.2", "-W", "5", "2001:db8:2::2")
        assert r.returncode == 0 and " 0% packet loss" in r.stdout, r.stdout + r.stderr
        r = ping(b, "-c", "2", "-i", "0.2", "-W", "5", "2001:db8:1::2")
        assert r.returncode == 0, r.stdout + r.stderr
        # Hop limit 1: time exceeded from the switch's address towards the sender.
        r = ping(a, "-c", "1", "-t", "1", "-W", "5", "2001:db8:2::2")
        assert "From 2001:db8:1::1" in r.stdout and "Time exceeded" in r.stdout, r.stdout
        # A smaller MTU on the far port at run time: packet too big with the new MTU.
        assert sw.rpc("config.set", {"config": {"PORT": {"Ethernet4": {"mtu": "1400"}}}}) \
            == {"applied": True}
        ns(b, "ip", "link", "set", "dev", ib, "mtu", "1400")
        r = ping(a, "-c", "1", "-W", "5", "-M", "do", "-s", "1420", "2001:db8:2::2")
        assert "mtu=1400" in r.stdout + r.stderr or "mtu = 1400" in r.stdout + r.stderr, \
            r.stdout + r.stderr
        r = ping(a, "-c", "2", "-W", "5", "-s", "1300", "2001:db8:2::2")
        assert r.returncode == 0, r.stdout + r.stderr
        nbrs = {n["ip"]: n for n in sw.rpc("neighbor.list")}
        assert nbrs["2001:db8:1::2"]["mac"] == hosts["a"][4], nbrs
        assert nbrs["2001:db8:2::2"]["mac"] == hosts["b"][4], nbrs
        assert nbrs["2001:db8:2::2"]["family"] == "IPv6"
        # 20 MB of TCP through the switch.
        server = subprocess.Popen(["ip", "netns", "exec", b, "iperf3", "-s", "-1", "-B",
                                   "2001:db8:2::2"], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)

        def client():
            r = ns(a, "iperf3", "-6", "-c", "2001:db8:2::2", "-n", "20M", "-J", check=False,
                   timeout=120)
            res = json.loads(r.stdout or "{}")
            if "Connection refused" in res.get("error", ""):
                return None
            if "sum_received" not in res.get("end", {}):
                raise AssertionError("iperf3: " + r.stdout[-2000:] + r.stderr)
            return res
        res = wait_until(client, timeout=60, what="iperf3 to connect and finish")
        got = res["end"]["sum_received"]["bytes"]
        assert got >= 10 * 1024 * 1024, got
        print("iperf3 -6: %.1f Mb/s through lsw over net_tap" %
              (res["end"]["sum_received"]["bits_per_second"] / 1e6))
        wait_until(lambda: sw.rpc("port.stats")["ports"]["Ethernet4"]["IF_OUT_OCTETS"] >= got,
                   what="Ethernet4 to count what iperf3 received")
        ev = sw.rpc("switch.info")["events"]
        assert ev["NDP_NS_RX"] >= 1 and ev["NDP_NA_TX"] >= 1, ev
        assert ev["NDP_NA_UNSOLICITED_TX"] >= 4 and ev["ICMP6_ECHO_REPLY_TX"] >= 5, ev
        assert ev["ICMP6_ERROR_TX"] >= 2, ev
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
    run_test(test_netns_ipv6)
