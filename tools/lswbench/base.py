# SPDX-License-Identifier: BSD-3-Clause
"""What every lsw-bench test shares: its parameters (the draft's, scaled, then --set), the
fabric it asks lsw-lab for, and the record it leaves for the report (KPIs with their
observation points, tables, scalings, anomalies, repetitions, the DUT's identity)."""
import copy
import json
import math
import os
import subprocess
import tempfile

from lswlab import topo
from lswlab.run import ROOT

from . import kpi

LABS = os.path.join(ROOT, "configs", "labs")
REFERENCE_SPEED = 100000  # Mb/s: the 100GbE port a lab link stands for (time stretch)


class BenchError(Exception):
    """A bad parameter or an impossible request: exit 2 with this message."""


def size_bytes(s):
    """"5KB" -> 5120, "1MB", "4096", 64: binary units, as lsw and lsw-host read them."""
    s = str(s).strip()
    for unit, mult in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10), ("B", 1)):
        if s.upper().endswith(unit):
            return int(float(s[:-len(unit)]) * mult)
    return int(s)


def speed_mbps(s):
    """"40G", "100M", 1000 -> Mb/s (lsw-host's speeds)."""
    s = str(s).strip().upper()
    if s.endswith("G"):
        return int(float(s[:-1]) * 1000)
    if s.endswith("M"):
        return int(float(s[:-1]))
    return int(s)


def human(n):
    for unit, mult in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= mult and n % mult == 0:
            return "%d%s" % (n // mult, unit)
    return "%dB" % n


def set_param(params, expr):
    """--set KEY=VALUE on @params: KEY a dotted path whose first part the test has; the
    value JSON, or a string when it is not JSON."""
    if "=" not in expr:
        raise BenchError("--set %s: expected KEY=VALUE" % expr)
    key, value = expr.split("=", 1)
    try:
        value = json.loads(value)
    except ValueError:
        pass
    parts = key.split(".")
    if parts[0] not in params:
        raise BenchError("--set %s: $.%s is not a parameter of this test (it has %s)" % (
            expr, parts[0], ", ".join(sorted(params))))
    node = params
    for p in parts[:-1]:
        if not isinstance(node.get(p), dict):
            node[p] = {}
        node = node[p]
    node[parts[-1]] = value


def ecn_fragment(kmin, kmax, pmax, queues):
    """A WRED/ECN profile on @queues ("Ethernet0|3"), as lsw-lab's labs write it."""
    return {"WRED_PROFILE": {"BENCH": {
        "ecn": "ecn_green", "wred_green_enable": "true", "green_min_threshold": str(kmin),
        "green_max_threshold": str(kmax), "green_drop_probability": str(pmax)}},
        "QUEUE": {q: {"wred_profile": "BENCH"} for q in queues}}


def policy_fragment(name):
    """The switch fragment of a buffer policy, as lsw-lab's policies lab defines it."""
    if not name:
        return {}
    with open(os.path.join(LABS, "policies.json")) as f:
        pols = json.load(f)["policies"]
    if name not in pols:
        raise BenchError("policy %r: expected one of %s (configs/labs/policies.json)" % (
            name, ", ".join(pols)))
    return pols[name]["switch"]


class Ctx:
    """One run of one test: its parameters and everything it reports."""

    def __init__(self, spec, scale, sets, rundir, rep, fabric=None, variant=None):
        self.spec, self.scale, self.rep = spec, scale, rep
        p = self.params(spec, scale, sets, fabric)
        # A directory of its own per test: a test that fails may leave its link sockets
        # behind (Lab.kill removes what lsw would), and the next fabric reuses their names.
        self.rundir = tempfile.mkdtemp(dir=rundir, prefix="t")
        self.p = p
        self.variant = variant
        self.r = {"id": spec["id"], "section": spec["section"], "title": spec["title"],
                  "tag": spec["tag"], "scale": scale, "variant": variant, "params": p,
                  "kpis": [], "tables": [], "scaling": [], "anomalies": [], "checks": [],
                  "repetitions": {}, "fabrics": [], "dut": None, "hosts": None,
                  "config": {}, "figures": [], "comparability": {}}

    @staticmethod
    def params(spec, scale, sets, fabric=None):
        """The test's parameters for @scale with --set @sets and --fabric @fabric; a
        BenchError (exit 2) for anything wrong, before anything runs."""
        # Every test takes a buffer policy, an ECMP mode and a switch fragment, so that
        # --compare can put any test side by side across them.
        p = dict({"policy": None, "ecmp_mode": None, "switch": {}},
                 **copy.deepcopy(spec["params"]))
        if scale == "quick":
            p = topo.merge(p, spec.get("quick", {}))
        for s in sets:
            set_param(p, s)
        if fabric:
            if fabric not in spec.get("fabrics", ("star",)):
                raise BenchError("%s: --fabric %s: this test runs on %s" % (
                    spec["id"], fabric, ", ".join(spec.get("fabrics", ("star",)))))
            p["fabric"] = fabric
        policy_fragment(p.get("policy"))  # an unknown policy: exit 2 before anything runs
        return p

    # --- what the report gets --------------------------------------------------------------

    def tag(self, name):
        """A file name unique to this test and variant."""
        base = "t%s_%s" % (self.spec["id"].replace(".", "_"), name)
        if self.variant:
            base += "_" + "".join(c if c.isalnum() else "_" for c in self.variant)
        return base

    def kpi(self, name, value, unit, point, **labels):
        self.r["kpis"].append(kpi.kv(name, value, unit, point, **labels))

    def scaling(self, text):
        self.r["scaling"].append(text)

    def anomaly(self, text):
        self.r["anomalies"].append(text)

    def check(self, name, expected, measured, ok):
        """A stated expectation (App. B's indicative numbers, or the test's own); a failed
        one is an anomaly too, and makes lsw-bench exit 1."""
        self.r["checks"].append({"name": name, "expected": expected, "measured": measured,
                                 "pass": bool(ok)})
        if not ok:
            self.anomaly("expectation not met: %s (expected %s, measured %s)" % (
                name, expected, measured))

    def repetition(self, metric, value):
        """One repetition's value of a primary metric (the report's CV, §13 item 7)."""
        self.r["repetitions"].setdefault(metric, []).append(value)

    def table(self, name, title, header, rows, about):
        self.rep.csv(self.tag(name), header, rows)
        self.r["tables"].append({"name": self.tag(name), "title": title, "header": header,
                                 "rows": rows, "about": about})

    def figure(self, kind, name, *args, **kw):
        """A figure drawn by lsw-lab's Report (lines, bars, cdf) under this test's name."""
        before = len(self.rep.plots)
        getattr(self.rep, kind)(self.tag(name), *args, **kw)
        self.r["figures"].extend(p["file"] for p in self.rep.plots[before:])

    def fabric_info(self, fab):
        self.r["fabrics"].append({
            "name": fab.name, "switches": list(fab.switches), "hosts": list(fab.hosts),
            "links": [{"a": ln["a"] + (":" + ln["a_port"] if "a_port" in ln else ""),
                       "b": ln["b"] + (":" + ln["b_port"] if "b_port" in ln else ""),
                       "speed_mbps": ln["speed"]} for ln in fab.links]})

    def dut_info(self, lab):
        """The DUT's identity once per test (§3.3): lsw's version, DPDK, buffer."""
        if self.r["dut"]:
            return
        sw = next(iter(lab.switches.values()))
        info = sw.rpc("switch.info")
        buf = sw.rpc("buffer.stats")
        self.r["dut"] = {
            "switches": sorted(lab.switches), "version": info.get("version"),
            "dpdk": info.get("dpdk"), "workers": len(info.get("workers", [])),
            "buffer": {"size": buf.get("buffer_size"), "cell": buf.get("cell"),
                       "pools": [{k: p.get(k) for k in ("name", "type", "mode", "size",
                                                         "policy")}
                                 for p in buf.get("pools", [])]}}

    def host_info(self, res, cfg):
        if self.r["hosts"]:
            return
        hosts = cfg["hosts"]
        one = next(iter(hosts.values()))
        cc = cfg.get("defaults", {}).get("cc", {"algorithm": "dcqcn", "profile": "mlx"})
        self.r["hosts"] = {"emulator": "lsw-host (emulated RoCEv2 RC NICs, one lcore)",
                           "hosts": len(hosts), "speed": one.get("speed"),
                           "mtu": one.get("mtu"), "cc": cc,
                           "qps": len(res.get("qps", [])),
                           "memory_peak_bytes": res.get("memory", {}).get("peak_rss_bytes")}

    def config(self, key, value):
        """A DUT setting the report's section 3 lists (ECN thresholds, PFC, LB mode...)."""
        self.r["config"][key] = value


def switch_configs(ctx, fab, frag=None, lossless=True):
    """Every switch's config: lsw-lab's, the test's fragment, the buffer policy asked for
    (param policy) and the user's own fragment (param switch), in that order."""
    frag = topo.merge(frag or {}, policy_fragment(ctx.p.get("policy")))
    if ctx.p.get("ecmp_mode"):
        frag = topo.merge(frag, {"ECMP": {"GLOBAL": {"mode": ctx.p["ecmp_mode"]}}})
        ctx.config("ECMP mode", ctx.p["ecmp_mode"])
    frag = topo.merge(frag, ctx.p.get("switch") or {})
    if ctx.p.get("policy"):
        ctx.config("BUFFER_POOL.policy", ctx.p["policy"])
    return {s: fab.switch_config(s, frag, lossless) for s in fab.switches}


def fabric(ctx, name, n_hosts, speed, uplink_speed=None):
    """lsw-lab's fabric for @n_hosts hosts h0..: one leaf (star) or two leaves and two
    spines (leaf-spine, hosts split between the leaves)."""
    kind = ctx.p.get("fabric", "star")
    if kind == "star":
        fab = topo.star(name, ctx.rundir, n_hosts, speed, ctx.p.get("mtu", 4096))
    elif kind == "leaf-spine":
        fab = topo.leaf_spine(name, ctx.rundir, 2, 2, int(math.ceil(n_hosts / 2)), 1, speed,
                              uplink_speed, ctx.p.get("mtu", 4096))
        # leaf_spine names hosts by leaf; only the first n_hosts are used.
    else:
        raise BenchError("fabric %r: expected star or leaf-spine" % kind)
    ctx.fabric_info(fab)
    return fab


def stretch(speed_mbps):
    return REFERENCE_SPEED / speed_mbps


def git_describe():
    try:
        return subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"],
                              capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None

