# SPDX-License-Identifier: BSD-3-Clause
"""rail: a rail-optimized fabric, 2 servers x 2 NICs, NIC r of each
server on rail leaf r, the rail leaves on one spine. A ring all-reduce within each rail
never touches the spine; an all-to-all across the NICs does, and takes longer for it."""
from . import common
from .run import Lab
from .topo import rail


def spine_bytes(lab):
    s = lab.switches["spine0"].rpc("port.stats")["ports"]
    return sum(p["IF_OUT_OCTETS"] for p in s.values())


def run(sc, rep, rundir, quick):
    q = sc["quick"] if quick else {}
    size = q.get("size", sc["size"])
    fab = rail("rail", rundir, 2, 2, sc["speed"], sc["mtu"])
    cfgs = {s: fab.switch_config(s) for s in fab.switches}
    phases = {
        "rail-local ring all-reduce": [
            {"type": "ring_allreduce", "hosts": ["s0n0", "s1n0"], "size": size},
            {"type": "ring_allreduce", "hosts": ["s0n1", "s1n1"], "size": size}],
        "cross-rail all-to-all": [
            {"type": "all_to_all", "hosts": ["s0n0", "s0n1", "s1n0", "s1n1"],
             "size": size}]}
    out = {}
    with Lab(fab, cfgs) as lab:
        for name, wl in phases.items():
            before = spine_bytes(lab)
            res, _ = lab.hosts(fab.host_config({"cc": {"algorithm": "none"}}, wl),
                               name="hosts-" + name.split()[0])
            out[name] = {"spine_bytes": spine_bytes(lab) - before,
                         "messages_done": res["messages_done"],
                         "messages": res["messages_posted"],
                         "jct_us": [j for c in res["collectives"] for j in c["jct_us"]],
                         "fct_max_us": max(x["fct_us"].get("max", 0) for x in res["qps"])}
        d = {s: common.drops(sw) for s, sw in lab.switches.items()}
        rep.commands.extend(lab.commands)
    rep.metrics["phases"] = out
    loc, cross = out["rail-local ring all-reduce"], out["cross-rail all-to-all"]
    for name, o in out.items():
        rep.check("%s: every message completes" % name, o["messages"], o["messages_done"],
                  o["messages"] == o["messages_done"])
    rep.check("rail-local: nothing through the spine", 0, loc["spine_bytes"],
              loc["spine_bytes"] == 0)
    rep.check("cross-rail: the spine carries it", "> 0", cross["spine_bytes"],
              cross["spine_bytes"] > 0)
    rep.check("no drop anywhere", 0, sum(common.total(x) for x in d.values()),
              sum(common.total(x) for x in d.values()) == 0)
    rep.bars("spine", "Bytes through the spine", {n: {"bytes": o["spine_bytes"] / 2**20}
                                                    for n, o in out.items()},
             "Rails keep a collective's traffic on its own leaf: the spine sees only what "
             "crosses rails.", "MB")
