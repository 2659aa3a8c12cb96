# SPDX-License-Identifier: BSD-3-Clause
"""Closed-loop tests: lsw-host's emulated RoCE NICs on net_memif ports of a real lsw.

star() builds a switch with one memif port per host (host i on Ethernet<4i>, 10.0.i.0/31,
the host at 10.0.i.1) and lsw-host's config for the hosts; run() starts lsw, runs lsw-host
until its workload is done, and returns the host results with lsw's counters read after.
"""
import os

from lswtest import Lsw, base_config  # first: it puts tools/ on the path
from lswpy import proc
from lswpy.proc import LSW_HOST  # noqa: F401  (the host tests')
# The figures a lab reads from lsw-host's results, as the labs compute them (one copy).
from lswlab.common import jain, rates_together  # noqa: F401  (host_incast's)


def star(tmp, n, speed=1000, mtu=4096, pfc=True, workers=None):
    """lsw's config and lsw-host's for @n hosts at @speed Mb/s with RoCE MTU @mtu."""
    ports, hosts = {}, {}
    for i in range(n):
        sock = os.path.join(tmp, "h%d.sock" % i)
        # 8 slots: 150 us of 4 KB frames at 1 Gb/s, what lsw-host needs; both ends say so,
        # so that lsw's headroom counts the ring the client (lsw-host) makes.
        memif = "net_memif%d,role=%s,socket=%s,socket-abstract=no,id=0,rsize=3"
        ports["Ethernet%d" % (4 * i)] = (memif % (i, "server", sock), "10.0.%d.0/31" % i,
                                          {"speed": str(speed), "mtu": "4200"})
        hosts["h%d" % i] = {"port": memif % (i, "client", sock), "ip": "10.0.%d.1/31" % i,
                            "gateway": "10.0.%d.0" % i, "speed": "%dM" % speed, "mtu": mtu}
    glob = {"idle_sleep_us": 100}
    if workers:
        glob["workers"] = workers
    sw = base_config(tmp, ports, **glob)
    # A buffer sized for the link speed: 2 MB hold 16 ms at 1 Gb/s (a 16 MB switch holds
    # 1.3 ms at 100G); lossless PGs pause at about 1/16 of what is free, as SONiC's AZURE
    # default (-4) says, so that the queues stay well under the hosts' RTO. Port MTUs fit
    # the RoCE frames (4 KB MTU), so that the computed headroom counts 4 KB frames.
    sw["BUFFER_POOL"] = {
        "ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "size": "2MB"},
        "egress_lossless_pool": {"type": "egress", "mode": "static", "size": "2MB"}}
    sw["BUFFER_PROFILE"] = {
        "ingress_lossy_profile": {"pool": "ingress_lossless_pool", "dynamic_th": "0"},
        "egress_lossy_profile": {"pool": "egress_lossless_pool", "static_th": "2MB"}}
    sw["DEFAULT_LOSSLESS_BUFFER_PARAMETER"] = {"AZURE": {"default_dynamic_th": "-4"}}
    if pfc:
        names = ",".join(ports)
        sw["PORT_QOS_MAP"] = {names: {"pfc_enable": "3"}}
        sw["CABLE_LENGTH"] = {"AZURE": {p: "5m" for p in ports}}
        sw["BUFFER_PG"] = {"%s|3" % p: {"profile": "NULL"} for p in ports}
    hc = {"hosts": hosts, "cpu": 0, "workload": [],
          "results": os.path.join(tmp, "results.json")}
    return sw, hc


def run_hosts(hc, tmp, name="hosts", timeout=120, args=()):
    """Run lsw-host on @hc until its work is done; its results."""
    return proc.run_hosts(hc, tmp, name, timeout, args, error=AssertionError)[0]


def switch_drops(sw):
    """Every drop lsw counted, by port and reason (nothing when none)."""
    out = {}
    for port, s in sw.rpc("port.stats")["ports"].items():
        d = {k: v for k, v in s.get("drops", {}).items() if v}
        if d:
            out[port] = d
    return out


def pfc(sw, port, prio=3):
    return sw.rpc("pfc.stats", {"port": port})["ports"][port]["priorities"][str(prio)]


def start(sw_cfg, tmp, name="s"):
    return Lsw(sw_cfg, tmp, name).start()
