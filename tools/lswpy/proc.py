# SPDX-License-Identifier: BSD-3-Clause
"""lsw and lsw-host as processes, for the tests, labs and benchmarks of a source tree.

Lsw starts an lsw on a config, waits until it answers on its socket, and stops it with the
checks a clean exit promises (status 0, every mbuf back in the pool, the socket removed);
a killed one leaves no DPDK runtime directory or socket behind. run_hosts runs lsw-host to
the end of its workload. sh and ns run commands, ns in a network namespace.

The programs are those of the build $LSW_BUILD_ROOT, else build/ in the source tree
($LSW_SOURCE_ROOT, else the tree this file is in).
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

from .rpc import Client

SOURCE = os.environ.get("LSW_SOURCE_ROOT", os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))))
BUILD = os.environ.get("LSW_BUILD_ROOT", os.path.join(SOURCE, "build"))
LSW = os.path.join(BUILD, "control", "lsw")
LSW_HOST = os.path.join(BUILD, "tools", "lsw-host")


class ProcError(Exception):
    """A process did not start, stop or end as promised."""


def wait_until(fn, timeout=60.0, what="condition", interval=0.05, error=ProcError):
    """Poll fn() until it returns something true (that value); @error after @timeout s.
    Generous timeouts: a wait, never a timing test."""
    deadline = time.monotonic() + timeout
    while True:
        v = fn()
        if v:
            return v
        if time.monotonic() > deadline:
            raise error("timed out waiting for " + what)
        time.sleep(interval)


class Lsw:
    """One lsw process: its config written to @path when it starts, its output in
    @log_path, @args more of its command line (e.g. --timeline). A context manager: stopped
    at the end, or killed (its log printed) when the block raised."""

    error = ProcError   # what start and stop raise: the tests make it AssertionError
    interval = 0.05     # how often start asks whether lsw answers

    def __init__(self, config, path, log_path, args=(), label=None):
        """@label: the switch's name in messages (a lab's several switches), or None."""
        self.config, self.path, self.log_path = config, path, log_path
        self.args = list(args)
        self.label = label
        self.sock = config["LSW"]["global"]["rpc_socket"]
        self.proc, self.client, self.log = None, None, None

    def _msg(self, text):
        return "%s: %s" % (self.label, text) if self.label else text

    def command(self):
        return [LSW, "-c", self.path] + self.args

    def write_config(self):
        with open(self.path, "w") as f:
            json.dump(self.config, f, indent=1)

    def start(self, expect_fail=False):
        """Start lsw and wait until it answers; with @expect_fail, wait for it to exit
        instead: (its status, its log)."""
        self.write_config()
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(self.command(), stdout=self.log, stderr=subprocess.STDOUT)
        if expect_fail:
            rc = self.proc.wait(timeout=60)
            self.proc = None
            self.log.close()
            return rc, self.read_log()

        def up():
            if self.proc.poll() is not None:
                raise self.error(self._msg("lsw exited with %d:\n%s" % (
                    self.proc.returncode, self.read_log())))
            try:
                self.client = Client(self.sock)
                self.client.call("switch.info")
                return True
            except OSError:
                return False
        wait_until(up, 60, "%s to answer on %s" % (self.label or "lsw", self.sock),
                   self.interval, self.error)
        return self

    def rpc(self, method, params=None):
        try:
            return self.client.call(method, params)
        except (ConnectionError, BrokenPipeError):
            # lsw closes connections idle for rpc_idle_timeout_ms: connect again.
            self.client = Client(self.sock)
            return self.client.call(method, params)

    def read_log(self):
        with open(self.log_path) as f:
            return f.read()

    def stop(self, check=True):
        """SIGINT; with @check, an error unless lsw exits 0 with every mbuf back in its pool
        and its socket removed. Its log."""
        if self.proc is None:
            return ""
        self.proc.send_signal(signal.SIGINT)
        try:
            rc = self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise self.error(self._msg("lsw did not stop on SIGINT"))
        finally:
            self.proc = None
            self.log.close()
        log = self.read_log()
        if check:
            if rc != 0:
                raise self.error(self._msg("lsw exited with %d:\n%s" % (rc, log)))
            if "mbufs are back in the pool" not in log:
                raise self.error(self._msg("mbufs missing at stop:\n" + log))
            if os.path.exists(self.sock):
                raise self.error(self._msg("socket %s left behind" % self.sock))
        return log

    def kill(self):
        """SIGKILL, and remove what lsw would have removed at a clean exit."""
        if self.proc is None:
            return
        self.proc.kill()
        self.proc.wait()
        self.proc = None
        # A killed lsw cannot remove its DPDK runtime directory (/var/run/dpdk/PREFIX) or
        # its socket. The caller is ending, so another lsw of this prefix is killed too.
        prefix = self.config["LSW"]["global"].get("file_prefix")
        if prefix:
            shutil.rmtree(os.path.join("/var/run/dpdk", prefix), ignore_errors=True)
        if os.path.exists(self.sock):
            os.unlink(self.sock)

    def __enter__(self):
        return self.start()

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None:
            self.kill()
            sys.stderr.write("---- lsw log ----\n" + self.read_log())
        else:
            self.stop()
        return False


def run_hosts(config, rundir, name="hosts", timeout=120, args=(), error=ProcError):
    """lsw-host on @config (written to RUNDIR/NAME.json, its output to NAME.log) until its
    workload is done: (its results, its command)."""
    path = os.path.join(rundir, name + ".json")
    config = dict(config, results=os.path.join(rundir, name + "-results.json"))
    with open(path, "w") as f:
        json.dump(config, f, indent=1)
    cmd = [LSW_HOST, "-q", *args, path]
    for _ in range(3):
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        # DPDK 22.11's af_packet port joins the fanout group (its pid ^ the ifindex) & 0xffff:
        # lsw-host started a few pids after an lsw on af_packet ports of the same namespace
        # may draw an lsw socket's group on another device, which the kernel refuses
        # (EINVAL) before anything is sent. Another launch is another pid.
        if r.returncode == 0 or "could not set PACKET_FANOUT" not in r.stderr:
            break
    with open(os.path.join(rundir, name + ".log"), "w") as f:
        f.write(r.stdout + r.stderr)
    if r.returncode != 0:
        raise error("lsw-host exited with %d:\n%s" % (r.returncode, r.stderr))
    with open(config["results"]) as f:
        return json.load(f), cmd


def sh(*args, check=True, **kw):
    """Run a command; its CompletedProcess with text output (an error unless it exits 0,
    with @check)."""
    return subprocess.run(list(args), check=check, capture_output=True, text=True, **kw)


def ns(name, *args, **kw):
    """sh() in network namespace @name."""
    return sh("ip", "netns", "exec", name, *args, **kw)
