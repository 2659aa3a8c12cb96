# SPDX-License-Identifier: BSD-3-Clause
"""Processes of a lab run: every switch an lsw, the hosts one lsw-host; a sampler that reads
the switches' counters while the hosts run; a clean stop that checks what it promises (every
process gone, every socket removed, every lsw's mbufs back in its pool)."""
import json
import os
import re
import threading
import time

from lswpy import proc
# The paths lsw-lab and lsw-bench take from here.
from lswpy.proc import BUILD, LSW, LSW_HOST, SOURCE as ROOT  # noqa: F401
from lswpy.rpc import Client


class LabError(Exception):
    pass


# lsw-lab run --capture: every port of every switch captured both ways while a Lab runs,
# into CAPTURE["dir"] (an absolute path: lsw writes the files), CAPTURE["snaplen"] bytes of
# each frame (None: whole frames). CAPTURED gets each session's final figures.
CAPTURE = None
CAPTURED = []


class Switch(proc.Lsw):
    """One lsw process of the lab."""

    error = LabError
    interval = 0.02

    def __init__(self, name, config, rundir, timeline=None, prefix=None):
        """@timeline: timeline.start's params to record from the first packet (lsw
        --timeline) into PREFIX-NAME.tl beside its config, or None. @prefix (the fabric's
        name) keeps the files of a scenario's runs apart in one directory."""
        self.name = name
        if prefix:
            name_part = re.sub(r"[^A-Za-z0-9_.-]", "_", "%s-%s" % (prefix, name))
        base = os.path.join(rundir, name_part if prefix else name)
        self.timeline, args = None, []
        if timeline is not None:
            self.timeline = base + ".tl"
            self.timeline_params = dict(timeline, file=self.timeline)
            args = ["--timeline", json.dumps(self.timeline_params)]
        super().__init__(config, base + ".json", base + ".log", args, label=name)
        self.write_config()  # every switch's config on disk once the lab is built


class Sampler(threading.Thread):
    """Every @interval seconds, @fn(clients) with connections of its own to each switch
    (a Client is not shared between threads), stamped with the wall-clock time; lab
    code lines samples up with lsw-host's results by their start_unix_ns."""

    def __init__(self, switches, fn, interval=0.01):
        super().__init__(daemon=True)
        self.switches, self.fn, self.interval = switches, fn, interval
        self.rows, self.error = [], None
        self.stopping = threading.Event()

    def run(self):
        try:
            clients = {n: Client(sw.sock) for n, sw in self.switches.items()}
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
    return proc.run_hosts(config, rundir, name, timeout, error=LabError)


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
