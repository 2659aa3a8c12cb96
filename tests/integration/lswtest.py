# SPDX-License-Identifier: BSD-3-Clause
"""Helpers for lsw's integration tests: run a real lsw, talk to it, stop it cleanly.

Every test leaves nothing behind: the switch is stopped (and killed if it will not stop),
and stopping checks that every mbuf came back to the pool and the socket is gone.
"""
import importlib.machinery
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

BUILD = os.environ.get("LSW_BUILD_ROOT", os.path.join(os.path.dirname(__file__), "../../build"))
SOURCE = os.environ.get("LSW_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "../.."))
LSW = os.path.join(BUILD, "control", "lsw")
PYTHON = "/usr/bin/python3"


def _load_lswctl():
    path = os.path.join(SOURCE, "tools", "lswctl")
    loader = importlib.machinery.SourceFileLoader("lswctl", path)
    spec = importlib.util.spec_from_loader("lswctl", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


lswctl = _load_lswctl()
RpcError = lswctl.RpcError


def wait_until(fn, timeout=60.0, what="condition"):
    """Poll fn() until it returns something true. Generous timeouts: never a timing test."""
    deadline = time.monotonic() + timeout
    while True:
        v = fn()
        if v:
            return v
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for " + what)
        time.sleep(0.05)


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


class Lsw:
    """A running lsw. Use as a context manager, or call start() and stop()."""

    def __init__(self, config, tmp, name="lsw", args=()):
        self.config = config
        self.args = list(args)  # more of lsw's command line, e.g. --timeline
        self.tmp = tmp
        self.path = os.path.join(tmp, name + ".json")
        self.log_path = os.path.join(tmp, name + ".log")
        self.sock = config["LSW"]["global"]["rpc_socket"]
        self.proc = None
        self.client = None

    def start(self, expect_fail=False):
        with open(self.path, "w") as f:
            json.dump(self.config, f, indent=1)
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen([LSW, "-c", self.path] + self.args, stdout=self.log,
                                     stderr=subprocess.STDOUT)
        if expect_fail:
            rc = self.proc.wait(timeout=60)
            self.proc = None
            return rc, self.read_log()

        def up():
            if self.proc.poll() is not None:
                raise AssertionError("lsw exited with %d:\n%s" % (self.proc.returncode,
                                                                  self.read_log()))
            try:
                self.client = lswctl.Client(self.sock)
                self.client.call("switch.info")
                return True
            except OSError:
                return False
        wait_until(up, what="lsw to answer on " + self.sock)
        return self

    def rpc(self, method, params=None):
        try:
            return self.client.call(method, params)
        except (ConnectionError, BrokenPipeError):
            # lsw closes connections idle for rpc_idle_timeout_ms: connect again.
            self.client = lswctl.Client(self.sock)
            return self.client.call(method, params)

    def read_log(self):
        with open(self.log_path) as f:
            return f.read()

    def stop(self, check=True):
        """SIGINT, then check the clean-shutdown promises."""
        if self.proc is None:
            return ""
        self.proc.send_signal(signal.SIGINT)
        try:
            rc = self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError("lsw did not stop on SIGINT")
        finally:
            self.proc = None
            self.log.close()
        log = self.read_log()
        if check:
            assert rc == 0, "lsw exited with %d:\n%s" % (rc, log)
            assert "mbufs are back in the pool" in log, "mbuf leak:\n" + log
            assert not os.path.exists(self.sock), "socket left behind"
        return log

    def kill(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            # A killed lsw cannot remove its DPDK runtime directory: a failed test left
            # /var/run/dpdk/lswtest-PID behind. The test is ending, so the other lsw of
            # this prefix (if any) is being killed too.
            prefix = self.config["LSW"]["global"].get("file_prefix")
            if prefix:
                shutil.rmtree(os.path.join("/var/run/dpdk", prefix), ignore_errors=True)
            self.proc = None

    def __enter__(self):
        return self.start()

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None:
            self.kill()
            sys.stderr.write("---- lsw log ----\n" + self.read_log())
        else:
            self.stop()
        return False


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
