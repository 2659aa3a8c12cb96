# SPDX-License-Identifier: BSD-3-Clause
"""Helpers for lsw's integration tests: run a real lsw, talk to it, stop it cleanly.

Every test leaves nothing behind: the switch is stopped (and killed if it will not stop),
and stopping checks that every mbuf came back to the pool and the socket is gone.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

# lsw's Python package (tools/lswpy): the RPC client and the process wrapper.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "tools"))
from lswpy import proc  # noqa: E402
from lswpy.proc import BUILD, LSW, SOURCE, ns, sh  # noqa: E402,F401  (the tests')
from lswpy.rpc import Client, RpcError  # noqa: E402,F401

PYTHON = "/usr/bin/python3"


def wait_until(fn, timeout=60.0, what="condition"):
    """Poll fn() until it returns something true. Generous timeouts: never a timing test."""
    return proc.wait_until(fn, timeout, what, error=AssertionError)


def lossy_buffers(cfg, egress_th="0"):
    """BUFFER_POOL and BUFFER_PROFILE tables of two dynamic pools, lossy profiles on them."""
    cfg["BUFFER_POOL"] = {"ingress_lossless_pool": {"type": "ingress", "mode": "dynamic"},
                          "egress_lossy_pool": {"type": "egress", "mode": "dynamic"}}
    cfg["BUFFER_PROFILE"] = {
        "ingress_lossy_profile": {"pool": "ingress_lossless_pool", "size": "0",
                                  "dynamic_th": "3"},
        "egress_lossy_profile": {"pool": "egress_lossy_pool", "size": "0",
                                 "dynamic_th": egress_th}}


def test_workers(cpu=1):
    """Worker lcores for the tests: $LSW_TEST_WORKERS of them (default 1), the first on
    @cpu and the others placed on it too ("LCORE@CPU"), so that tests of several workers
    run on a 2-CPU machine. The ports go to them round-robin, so traffic crosses workers."""
    n = int(os.environ.get("LSW_TEST_WORKERS", "1"))
    return [cpu] + ["%d@%d" % (2 + i, cpu) for i in range(n - 1)]


def base_config(tmp, ports, **glob):
    """A config dict: ports is {name: (devargs, "a.b.c.d/len" or None, extra PORT fields)}."""
    workers = test_workers()
    g = {"main_lcore": 0, "workers": workers, "idle_sleep_us": 100,
         "mbufs": 8192 if len(workers) == 1 else 16384,
         "rx_descriptors": 256, "tx_descriptors": 256,
         "rpc_socket": os.path.join(tmp, "lsw.sock"),
         "file_prefix": "lswtest-%d" % os.getpid()}
    g.update(glob)
    cfg = {"DEVICE_METADATA": {"localhost": {"hostname": "lsw-test", "mac": "02:00:00:00:00:01"}},
           "LSW": {"global": g}, "LSW_PORT": {}, "PORT": {}, "INTERFACE": {}}
    for name, (devargs, addr, extra) in ports.items():
        cfg["LSW_PORT"][name] = {"devargs": devargs}
        cfg["PORT"][name] = dict(extra or {})
        if addr:
            cfg["INTERFACE"]["%s|%s" % (name, addr)] = {}
    return cfg


class Lsw(proc.Lsw):
    """A running lsw, its config and log in @tmp as NAME.json and NAME.log. Use as a
    context manager, or call start() and stop(); its failures fail the test."""

    error = AssertionError

    def __init__(self, config, tmp, name="lsw", args=()):
        super().__init__(config, os.path.join(tmp, name + ".json"),
                         os.path.join(tmp, name + ".log"), args)
        self.tmp = tmp


def tap_ready(sw, iface):
    """Bring net_tap @iface up without the kernel's IPv6 chatter, clear the counters; the
    mbufs free then (every one must be back at the end)."""
    os.system("sysctl -qw net.ipv6.conf.%s.disable_ipv6=1; ip link set %s up" % (iface, iface))
    time.sleep(0.5)
    sw.rpc("stats.clear")
    return sw.rpc("switch.info")["mbufs_free"]


def port_total(stats, port, direction="IN"):
    s = stats["ports"][port]
    return s["IF_%s_UCAST_PKTS" % direction] + s["IF_%s_NON_UCAST_PKTS" % direction]


_tmpdirs = []


def roce_pcap(path, size, flows, dst_net, dscp=None, ecn=None, ipv6=False):
    """Write @flows RoCEv2 frames of @size bytes to @dst_net (tools/lsw-pcapgen) into @path."""
    cmd = [os.path.join(SOURCE, "tools", "lsw-pcapgen"), path, "--profile", "roce",
           "--size", str(size), "--flows", str(flows), "--dst-net", dst_net]
    if ipv6:
        cmd.append("--ipv6")
    if dscp is not None:
        cmd += ["--dscp", str(dscp)]
    if ecn is not None:
        cmd += ["--ecn", ecn]
    subprocess.run(cmd, check=True, capture_output=True)
    return path


def tmpdir(prefix):
    d = tempfile.mkdtemp(prefix=prefix)
    _tmpdirs.append(d)
    return d


def run_test(fn):
    """Run fn() and print a one-line result; exit 1 on failure. Temporary directories are
    removed after a pass and kept (and named) after a failure."""
    try:
        fn()
    except Exception:
        import traceback
        traceback.print_exc()
        print("FAIL", fn.__name__, "(files kept in %s)" % " ".join(_tmpdirs))
        sys.exit(1)
    for d in _tmpdirs:
        shutil.rmtree(d, ignore_errors=True)
    print("PASS", fn.__name__)
