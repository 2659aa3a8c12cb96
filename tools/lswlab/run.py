# SPDX-License-Identifier: BSD-3-Clause
"""Processes of a lab run: every switch an lsw, the hosts one lsw-host; a sampler that reads
the switches' counters while the hosts run; a clean stop that checks what it promises (every
process gone, every socket removed, every lsw's mbufs back in its pool)."""
import importlib.machinery
import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get("LSW_BUILD_ROOT", os.path.join(ROOT, "build"))
LSW = os.path.join(BUILD, "control", "lsw")
LSW_HOST = os.path.join(BUILD, "tools", "lsw-host")


def _lswctl():
    loader = importlib.machinery.SourceFileLoader("lswctl", os.path.join(ROOT, "tools", "lswctl"))
    spec = importlib.util.spec_from_loader("lswctl", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


lswctl = _lswctl()


class LabError(Exception):
    pass


# lsw-lab run --capture: every port of every switch captured both ways while a Lab runs,
# into CAPTURE["dir"] (an absolute path: lsw writes the files), CAPTURE["snaplen"] bytes of
# each frame (None: whole frames). CAPTURED gets each session's final figures.
CAPTURE = None
CAPTURED = []


def wait_until(fn, timeout, what):
    end = time.monotonic() + timeout
    while True:
        v = fn()
        if v:
            return v
        if time.monotonic() > end:
            raise LabError("timed out waiting for " + what)
        time.sleep(0.02)


class Switch:
    """One lsw process of the lab."""

    def __init__(self, name, config, rundir, timeline=None, prefix=None):
        """@timeline: timeline.start's params to record from the first packet (lsw
        --timeline) into PREFIX-NAME.tl beside its config, or None. @prefix (the fabric's
        name) keeps the files of a scenario's runs apart in one directory."""
        self.name, self.config = name, config
        if prefix:
            name_part = re.sub(r"[^A-Za-z0-9_.-]", "_", "%s-%s" % (prefix, name))
        base = os.path.join(rundir, name_part if prefix else name)
        self.path = base + ".json"
        self.timeline = None
        if timeline is not None:
            self.timeline = base + ".tl"
            self.timeline_params = dict(timeline, file=self.timeline)
        self.log_path = base + ".log"
        self.sock = config["LSW"]["global"]["rpc_socket"]
        self.proc, self.client = None, None
        with open(self.path, "w") as f:
            json.dump(config, f, indent=1)

    def command(self):
        if self.timeline is None:
            return [LSW, "-c", self.path]
        return [LSW, "-c", self.path, "--timeline", json.dumps(self.timeline_params)]

    def start(self):
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(self.command(), stdout=self.log, stderr=subprocess.STDOUT)

        def up():
            if self.proc.poll() is not None:
                raise LabError("%s: lsw exited with %d:\n%s" % (self.name, self.proc.returncode,
                                                                self.read_log()))
            try:
                self.client = lswctl.Client(self.sock)
                self.client.call("switch.info")
                return True
            except OSError:
                return False
        wait_until(up, 60, "%s to answer on %s" % (self.name, self.sock))

    def rpc(self, method, params=None):
        try:
            return self.client.call(method, params)
        except (ConnectionError, BrokenPipeError):
            self.client = lswctl.Client(self.sock)
            return self.client.call(method, params)

    def read_log(self):
        with open(self.log_path) as f:
            return f.read()

    def stop(self):
        """SIGINT; an error if lsw does not stop cleanly, leaks an mbuf or leaves its socket."""
        if self.proc is None:
            return
        self.proc.send_signal(signal.SIGINT)
        try:
            rc = self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise LabError("%s: lsw did not stop on SIGINT" % self.name)
        finally:
            self.proc = None
            self.log.close()
        log = self.read_log()
        if rc != 0:
            raise LabError("%s: lsw exited with %d:\n%s" % (self.name, rc, log))
        if "mbufs are back in the pool" not in log:
            raise LabError("%s: mbufs missing at stop:\n%s" % (self.name, log))
        if os.path.exists(self.sock):
            raise LabError("%s: socket %s left behind" % (self.name, self.sock))

    def kill(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None
            # What lsw would have removed at a clean exit.
            prefix = self.config["LSW"]["global"]["file_prefix"]
            shutil.rmtree(os.path.join("/var/run/dpdk", prefix), ignore_errors=True)
            for p in (self.sock,):
                if os.path.exists(p):
                    os.unlink(p)


class Sampler(threading.Thread):
    """Every @interval seconds, @fn(clients) with connections of its own to each switch
    (lswctl.Client is not shared between threads), stamped with the wall-clock time; lab
    code lines samples up with lsw-host's results by their start_unix_ns."""

    def __init__(self, switches, fn, interval=0.01):
        super().__init__(daemon=True)
        self.switches, self.fn, self.interval = switches, fn, interval
        self.rows, self.error = [], None
        self.stopping = threading.Event()

    def run(self):
        try:
            clients = {n: lswctl.Client(sw.sock) for n, sw in self.switches.items()}
            while not self.stopping.is_set():
                self.rows.append((time.time(), self.fn(clients)))
                self.stopping.wait(self.interval)
        except Exception as e:  # noqa: BLE001 - reported by stop()
            self.error = e

    def stop(self):
        self.stopping.set()
        self.join()
        if self.error is not None:
            raise LabError("sampling failed: %s" % self.error)
        return self.rows


def run_hosts(config, rundir, name="hosts", timeout=300):
    """lsw-host on @config until its work is done: its results, and the command."""
    path = os.path.join(rundir, name + ".json")
    config = dict(config, results=os.path.join(rundir, name + "-results.json"))
    with open(path, "w") as f:
        json.dump(config, f, indent=1)
    cmd = [LSW_HOST, "-q", path]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    with open(os.path.join(rundir, name + ".log"), "w") as f:
        f.write(r.stdout + r.stderr)
    if r.returncode != 0:
        raise LabError("lsw-host exited with %d:\n%s" % (r.returncode, r.stderr))
    with open(config["results"]) as f:
        return json.load(f), cmd


class Lab:
    """Start every switch, run the hosts while sampling, stop everything; a context manager
    that stops (or kills) whatever it started, whatever happens."""

    def __init__(self, fabric, switch_configs, timeline=None):
        """@timeline: {switch: timeline.start params} to record on those switches (their
        files: Lab.timelines())."""
        self.fabric = fabric
        timeline = timeline or {}
        self.switches = {n: Switch(n, c, fabric.dir, timeline.get(n), fabric.name)
                         for n, c in switch_configs.items()}
        self.commands = []

    def __enter__(self):
        self.captures = []
        try:
            for sw in self.switches.values():
                sw.start()
                self.commands.append(" ".join(sw.command()) + " &")
            if CAPTURE is not None:
                self._capture()
        except Exception:
            self.kill()
            raise
        return self

    def _capture(self):
        """One session per port of every switch, both ways, before any host sends."""
        os.makedirs(CAPTURE["dir"], exist_ok=True)
        for name, sw in self.switches.items():
            for port in sorted(sw.config["LSW_PORT"], key=lambda p: int(p[8:])):
                f = os.path.join(CAPTURE["dir"], re.sub(r"[^A-Za-z0-9_.-]", "_", "%s-%s-%s" % (
                    self.fabric.name, name, port)) + ".pcapng")
                params = {"port": port, "direction": "both", "file": f}
                if CAPTURE.get("snaplen"):
                    params["snaplen"] = CAPTURE["snaplen"]
                self.captures.append((name, sw.rpc("capture.start", params)["id"]))

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None:
            self.kill()
            return False
        errors = []
        for name, sid in self.captures:
            s = self.switches[name].rpc("capture.stop", {"id": sid})
            CAPTURED.append({"switch": name, "fabric": self.fabric.name, "port": s["port"],
                             "file": s["file"], "frames": s["frames"], "bytes": s["bytes"],
                             "missed": s["missed"], "elapsed_ms": s["elapsed_ms"]})
            if s.get("error"):
                errors.append("%s: capture of %s: %s" % (name, s["port"], s["error"]))
        for sw in self.switches.values():
            try:
                sw.stop()
            except LabError as e:
                errors.append(str(e))
        left = [ln["sock"] for ln in self.fabric.links if os.path.exists(ln["sock"])]
        if left:
            errors.append("link sockets left behind: %s" % left)
        if errors:
            raise LabError("\n".join(errors))
        return False

    def kill(self):
        for sw in self.switches.values():
            sw.kill()

    def timelines(self):
        """{switch: its timeline file} of those that recorded one (complete once stopped)."""
        return {n: sw.timeline for n, sw in self.switches.items() if sw.timeline}

    def hosts(self, config, name=None, sample=None, interval=0.01, timeout=300):
        """Run lsw-host on @config; @sample(clients) is read every @interval meanwhile. The
        samples' times are seconds from the workload's time 0 (negative before it)."""
        sampler = Sampler(self.switches, sample, interval) if sample else None
        if sampler:
            sampler.start()
        try:
            res, cmd = run_hosts(config, self.fabric.dir, name or re.sub(
                r"[^A-Za-z0-9_.-]", "_", self.fabric.name + "-hosts"), timeout)
        finally:
            rows = sampler.stop() if sampler else []
        self.commands.append(" ".join(cmd))
        t0 = res["start_unix_ns"] / 1e9
        return res, [(t - t0, r) for t, r in rows]
