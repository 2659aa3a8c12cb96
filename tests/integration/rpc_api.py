#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""JSON-RPC over the real socket: every method, every error path, framing, limits
(request size, half-sent requests, connections), the socket lock, a stale socket, and
the command line (config refused at start-up with the JSON path, --help, bad options)."""
import json
import os
import re
import socket
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from lswtest import (LSW, SOURCE, Lsw, RpcError, base_config, run_test, tmpdir,  # noqa: E402
                     wait_until)

METHODS = {"rpc.methods", "switch.info", "port.list", "port.stats", "port.set", "route.list",
           "neighbor.list", "stats.clear", "buffer.pools", "buffer.profiles", "pg.stats",
           "queue.stats", "buffer.stats", "buffer.histogram", "watermark.clear", "config.get",
           "config.validate", "config.set", "pfc.stats", "pfcwd.stats", "drops.list",
           "drops.clear", "ecmp.groups", "ecmp.stats", "stats.get", "config.save",
           "config.diff", "route.add", "route.del", "neighbor.add", "neighbor.del",
           "timeline.start", "timeline.stop", "timeline.status", "timeline.save",
           "capture.start", "capture.stop", "capture.list", "qos.port", "trim.stats"}


class Raw:
    """A bare socket, to send exactly the bytes a test wants."""

    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.settimeout(20)
        self.s.connect(path)
        self.buf = b""

    def send(self, data):
        self.s.sendall(data if isinstance(data, bytes) else data.encode())

    def line(self):
        while b"\n" not in self.buf:
            chunk = self.s.recv(65536)
            if not chunk:
                raise EOFError("closed by lsw")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def closed(self):
        try:
            return self.s.recv(1) == b""
        except ConnectionResetError:
            return True

    def close(self):
        self.s.close()


def req(method, id=1, params=None):
    r = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        r["params"] = params
    return json.dumps(r)


def expect_error(sw, method, params, code, path=None):
    try:
        sw.rpc(method, params)
    except RpcError as e:
        assert e.err["code"] == code, (method, params, e.err)
        if path:
            paths = [x["path"] for x in e.err["data"]["errors"]]
            assert path in paths, (path, paths)
        return e.err
    raise AssertionError("%s %s: no error" % (method, params))


def methods(sw):
    names = {m["name"] for m in sw.rpc("rpc.methods")}
    assert names == METHODS, names
    info = sw.rpc("switch.info")
    assert info["ports"] == 2 and info["workers"][0]["lcore"] == 1
    assert info["workers"][0]["ports"] == ["Ethernet0", "Ethernet4"]
    ports = sw.rpc("port.list")
    assert [p["name"] for p in ports] == ["Ethernet0", "Ethernet4"]
    # the IPv4 address, then the link-local one from the port MAC (EUI-64)
    assert ports[0]["addresses"][0] == "10.0.0.0/31" and ports[0]["driver"] == "net_null"
    ll = ports[0]["addresses"][-1]
    assert ll.startswith("fe80::") and ll.endswith("/64")
    assert ports[0]["mac"] == "02:00:00:00:00:01" and ports[0]["mtu"] == 9100
    st = sw.rpc("port.stats")
    assert set(st["ports"]) == {"Ethernet0", "Ethernet4"} and st["timestamp_ns"] > 0
    assert set(sw.rpc("port.stats", {"port": "Ethernet4"})["ports"]) == {"Ethernet4"}
    routes = {r["prefix"]: r for r in sw.rpc("route.list")}
    assert routes["10.9.0.0/16"]["nexthops"][0]["mac"] == "02:00:00:00:04:01"
    assert routes["10.0.0.0/32"]["type"] == "local"
    assert routes["10.0.1.0/31"]["type"] == "connected"
    nbrs = sw.rpc("neighbor.list")
    assert nbrs == [{"ip": "10.0.1.1", "port": "Ethernet4", "mac": "02:00:00:00:04:01",
                     "family": "IPv4", "state": "static", "age_s": None}], nbrs
    # port.set: down then up, visible in port.list and in the running config.
    assert sw.rpc("port.set", {"port": "Ethernet4", "admin_status": "down"})["admin_status"] == \
        "down"
    assert sw.rpc("port.list")[1]["admin_status"] == "down"
    assert sw.rpc("port.set", {"port": "Ethernet4", "admin_status": "up"})["admin_status"] == "up"
    assert sw.rpc("stats.clear") == {"cleared": True}
    assert sw.rpc("stats.clear", {"port": "Ethernet0"}) == {"cleared": True}
    # Bad params, each named by path.
    expect_error(sw, "port.stats", {"port": "Ethernet99"}, -32602, "$.params.port")
    expect_error(sw, "port.stats", {"port": 3}, -32602, "$.params.port")
    expect_error(sw, "port.stats", {"prot": "Ethernet0"}, -32602, "$.params.prot")
    expect_error(sw, "port.set", {"port": "Ethernet0"}, -32602, "$.params.admin_status")
    expect_error(sw, "port.set", {"admin_status": "up"}, -32602, "$.params.port")
    expect_error(sw, "port.set", {"port": "Ethernet0", "admin_status": "sideways"}, -32602,
                 "$.params.admin_status")
    expect_error(sw, "stats.clear", {"port": "nope"}, -32602, "$.params.port")
    expect_error(sw, "drops.list", {"reason": "NOPE"}, -32602, "$.params.reason")
    expect_error(sw, "drops.list", {"qp": 1 << 24}, -32602, "$.params.qp")
    expect_error(sw, "drops.list", {"kind": "lost"}, -32602, "$.params.kind")
    expect_error(sw, "drops.list", {"limit": 0}, -32602, "$.params.limit")
    expect_error(sw, "drops.clear", {"x": 1}, -32602, "$.params.x")
    # ECMP: no group here (one next hop); bad prefixes and params are refused by path.
    assert sw.rpc("ecmp.groups")["groups"] == [] and sw.rpc("ecmp.stats")["groups"] == []
    assert sw.rpc("ecmp.groups")["quality"]["sample_interval_us"] == 16
    expect_error(sw, "ecmp.stats", {"prefix": "10.9.0.0"}, -32602, "$.params.prefix")
    expect_error(sw, "ecmp.stats", {"prefix": "10.9.0.0/16"}, -32602, "$.params.prefix")
    expect_error(sw, "ecmp.stats", {"x": 1}, -32602, "$.params.x")
    expect_error(sw, "ecmp.groups", {"x": 1}, -32602, "$.params.x")
    expect_error(sw, "config.set", {"config": {"ECMP": {"10.9.0.0/16": {"mode": "fixed"}}}},
                 -32602, "$.ECMP['10.9.0.0/16']")
    expect_error(sw, "config.set", {"config": {"ECMP": {"GLOBAL": {"queue_weight": 10}}}},
                 -32602, "$.ECMP.GLOBAL.queue_weight")
    sw.rpc("config.set", {"config": {"ECMP": {"GLOBAL": {"load_weight": 70,
                                                         "queue_weight": 30}}}})
    assert sw.rpc("ecmp.groups")["quality"]["load_weight"] == 70
    for m in ("pfc.stats", "pfcwd.stats", "queue.stats", "pg.stats", "drops.list"):
        expect_error(sw, m, {"port": "Ethernet99"}, -32602, "$.params.port")
        expect_error(sw, m, {"x": 1}, -32602, "$.params.x")
    for m in ("switch.info", "port.list", "route.list", "neighbor.list", "rpc.methods"):
        expect_error(sw, m, {"x": 1}, -32602, "$.params.x")
    expect_error(sw, "no.such", None, -32601)
    # Run-time configuration: refused changes name their path and change nothing.
    before = sw.rpc("config.get")
    expect_error(sw, "config.set", {"config": {"PORT": {"Ethernet0": {"mtu": "9216"}}}},
                 -32602, "$.PORT.Ethernet0.mtu")
    expect_error(sw, "config.set", {"config": {"LSW_PORT": {"Ethernet0": {
        "devargs": "net_null7"}}}}, -32602, "$.LSW_PORT.Ethernet0")
    expect_error(sw, "config.validate", {"config": {"PORT": {"Ethernet0": {"speed": "0"}}}},
                 -32602, "$.PORT.Ethernet0.speed")
    expect_error(sw, "config.set", {"config": 5}, -32602, "$.params.config")
    expect_error(sw, "config.set", {"config": {"BUFFER_PROFILE": {"egress_lossy_profile": {
        "pool": "egress_lossy_pool", "dynamic_th": "200"}}}}, -32602,
        "$.BUFFER_PROFILE.egress_lossy_profile.dynamic_th")
    expect_error(sw, "config.set", {"config": {"PORT_QOS_MAP": {"Ethernet0": {
        "pfc_enable": "3", "pfcwd_sw_enable": "4"}}}}, -32602,
        "$.PORT_QOS_MAP.Ethernet0.pfcwd_sw_enable")
    expect_error(sw, "config.set", {"config": {"PFC_WD": {"Ethernet0": {
        "detection_time": "20"}}}}, -32602, "$.PFC_WD.Ethernet0.detection_time")
    assert sw.rpc("config.get") == before
    assert sw.rpc("config.validate", {"config": {"PORT": {"Ethernet4": {"speed": "25000"}}}}) \
        == {"valid": True}
    assert sw.rpc("config.set", {"config": {"PORT": {"Ethernet4": {"speed": "25000"}}}}) == \
        {"applied": True}
    assert sw.rpc("port.list")[1]["speed"] == 25000
    assert sw.rpc("config.get")["PORT"]["Ethernet4"]["speed"] == "25000"
    # A smaller MTU restarts that port alone, cleanly.
    assert sw.rpc("config.set", {"config": {"PORT": {"Ethernet4": {"mtu": "1500"}}}}) == \
        {"applied": True}
    assert sw.rpc("port.list")[1]["mtu"] == 1500
    assert sw.rpc("config.get")["PORT"]["Ethernet4"]["mtu"] == "1500"
    # PFC and its watchdog turn on while forwarding.
    assert sw.rpc("config.set", {"config": {
        "PORT_QOS_MAP": {"Ethernet4": {"pfc_enable": "3", "pfc_watchdog_status": "enable"}},
        "PFC_WD": {"Ethernet4": {"detection_time": "200", "restoration_time": "400"}}}}) == \
        {"applied": True}
    assert sw.rpc("pfc.stats", {"port": "Ethernet4"})["ports"]["Ethernet4"]["pfc_enable"] == "3"
    wd = sw.rpc("pfcwd.stats")["ports"]["Ethernet4"]
    assert wd["detection_time"] == 200 and wd["queues"]["3"]["PFC_WD_STATUS"] == "operational"
    # ECN profiles and the snapshot settings too.
    assert sw.rpc("config.set", {"config": {
        "WRED_PROFILE": {"DCQCN": {"ecn": "ecn_green", "green_min_threshold": "5KB",
                                   "green_max_threshold": "200KB"}},
        "QUEUE": {"Ethernet4|3": {"wred_profile": "DCQCN"}},
        "LSW": {"global": {"drop_snapshots": 16, "mark_snapshots": True}}}}) == \
        {"applied": True}
    q3 = sw.rpc("queue.stats", {"port": "Ethernet4"})["ports"]["Ethernet4"]["3"]
    assert q3["wred_profile"] == "DCQCN", q3
    d = sw.rpc("drops.list")
    assert d["capacity"] == 16 and d["marks"], d
    # The deployment guide's snippet: the watchdog on without a PFC_WD entry starts it with
    # SONiC's defaults (pfcwd start_default), shown by config.get and pfcwd.stats.
    assert sw.rpc("config.set", {"config": {"PORT_QOS_MAP": {"Ethernet0": {
        "pfc_enable": "3,4", "pfc_watchdog_status": "enable"}}}}) == {"applied": True}
    assert sw.rpc("config.get")["PFC_WD"]["Ethernet0"] == {
        "action": "drop", "detection_time": "200", "restoration_time": "200"}
    wd = sw.rpc("pfcwd.stats")["ports"]
    assert wd["Ethernet0"]["start_default"] and not wd["Ethernet4"]["start_default"], wd
    assert wd["Ethernet0"]["detection_time"] == 200 and sorted(wd["Ethernet0"]["queues"]) == \
        ["3", "4"], wd


def at_path(doc, path):
    """The value at a JSON path as lsw writes them ($.A.b['x|y'].c), or KeyError."""
    assert path.startswith("$"), path
    for dot, quoted in re.findall(r"\.([A-Za-z0-9_]+)|\['([^']*)'\]", path[1:]):
        doc = doc[dot or quoted]
    return doc


def qos_port(sw):
    """qos.port against the running config: the maps, PFC, queues, PGs and watchdog set in
    methods(), and every path it gives that the config holds leads to the value."""
    cfg = sw.rpc("config.get")
    q = sw.rpc("qos.port", {"port": "Ethernet4"})
    azure = {3: 3, 4: 4, 8: 0, 46: 5, 48: 6}
    assert q["port"] == "Ethernet4" and q["dscp_to_tc_map"] == "AZURE", q
    assert q["dscp_to_tc"] == [azure.get(d, 1) for d in range(64)], q["dscp_to_tc"]
    assert q["tc_to_queue"] == list(range(8)) and q["tc_to_pg"] == [0, 0, 0, 3, 4, 0, 0, 7]
    assert q["dot1p_to_tc_map"] is None and q["dot1p_to_tc"] is None
    assert q["pfc_enable"] == [3] and q["cnp_tc"] == 6, q
    assert q["mtu"] == 1500 and q["speed"] == 25000, q
    q3 = q["queues"]["3"]
    assert q3["wred_profile"] == "DCQCN" and q3["ecn"] and q3["scheduler"] == "default", q3
    # Queue 3 is lossless (pfc_enable): SONiC's egress_lossless_profile, as its templates bind it.
    assert q3["profile"] == "egress_lossless_profile" and q3["type"] == "DWRR", q3
    assert all(q["queues"][str(i)]["wred_profile"] is None and not q["queues"][str(i)]["ecn"]
               for i in range(8) if i != 3), q["queues"]
    assert q["pgs"]["3"] == {"profile": "ingress_lossy_profile", "computed": False,
                             "lossless": False, "headroom": 0, "xon": 0, "size": 0,
                             "paths": {"profile": "$.BUFFER_PG['Ethernet4|3'].profile"}}, q["pgs"]
    wd = q["pfcwd"]
    assert wd["priorities"] == [3] and wd["poll_interval"] == 200, wd
    assert wd["per_priority"]["3"] == {"enabled": True, "queue": 3, "action": "drop",
                                       "detection_time": 200, "restoration_time": 400,
                                       "status": "operational"}, wd
    assert wd["per_priority"]["4"] == {"enabled": False}, wd
    paths = q["paths"]
    assert paths["dscp_to_tc_map"] == "$.DSCP_TO_TC_MAP.AZURE", paths
    assert paths["tc_to_queue_map"] == "$.TC_TO_QUEUE_MAP.AZURE", paths
    assert paths["cnp_tc"] == "$.LSW.global.cnp_tc", paths
    for field, value in (("pfc_enable", "3"), ("pfcwd", "enable"), ("mtu", "1500"),
                         ("speed", "25000")):
        assert at_path(cfg, paths[field]) == value, (field, paths[field])
    assert at_path(cfg, q3["paths"]["wred_profile"]) == "DCQCN", q3["paths"]
    # Ethernet0: the watchdog with SONiC's defaults, on both lossless priorities.
    q0 = sw.rpc("qos.port", {"port": "Ethernet0"})
    assert q0["pfc_enable"] == [3, 4] and q0["pfcwd"]["priorities"] == [3, 4], q0
    assert q0["pfcwd"]["per_priority"]["4"]["restoration_time"] == 200, q0["pfcwd"]
    assert q0["paths"]["pfcwd"] == "$.PORT_QOS_MAP.Ethernet0.pfc_watchdog_status", q0["paths"]
    # lswctl's view of it, per TC.
    r = subprocess.run([os.path.join(SOURCE, "tools", "lswctl"), "-s", sw.sock, "qos", "show",
                        "Ethernet4"], capture_output=True, text=True, timeout=30)
    rows = {line.split()[0]: line.split() for line in r.stdout.splitlines()[3:11]}
    assert r.returncode == 0 and rows["3"][1:3] == ["3", "yes"], r.stdout
    assert "DCQCN ECN" in r.stdout and rows["6"][-1] == "yes", r.stdout
    # A map of its own, bound by a shared PORT_QOS_MAP entry: the answer and its path follow.
    sw.rpc("config.set", {"config": {
        "DSCP_TO_TC_MAP": {"LAB": {"26": "3", "48": "6"}},
        "PORT_QOS_MAP": {"Ethernet0,Ethernet4": {"dscp_to_tc_map": "LAB"}}}})
    q = sw.rpc("qos.port", {"port": "Ethernet4"})
    assert q["dscp_to_tc_map"] == "LAB" and q["paths"]["dscp_to_tc_map"] == \
        "$.DSCP_TO_TC_MAP.LAB", q["paths"]
    assert q["dscp_to_tc"] == [{26: 3, 48: 6}.get(d, 0) for d in range(64)], q["dscp_to_tc"]
    assert q["paths"]["pfc_enable"] == "$.PORT_QOS_MAP.Ethernet4.pfc_enable", q["paths"]
    assert at_path(sw.rpc("config.get"), q["paths"]["dscp_to_tc_map"]) == {"26": "3", "48": "6"}
    sw.rpc("config.set", {"config": {"DSCP_TO_TC_MAP": None,
                                     "PORT_QOS_MAP": {"Ethernet0,Ethernet4": None}}})
    assert sw.rpc("qos.port", {"port": "Ethernet4"})["dscp_to_tc_map"] == "AZURE"
    expect_error(sw, "qos.port", {"port": "Ethernet99"}, -32602, "$.params.port")
    expect_error(sw, "qos.port", {}, -32602, "$.params.port")
    expect_error(sw, "qos.port", None, -32602, "$.params.port")
    expect_error(sw, "qos.port", {"port": "Ethernet0", "x": 1}, -32602, "$.params.x")


def framing(sock):
    c = Raw(sock)
    c.send("hello\n")
    assert c.line()["error"]["code"] == -32700
    c.send("42\n")
    assert c.line()["error"]["code"] == -32600
    c.send('{"jsonrpc": "2.0", "id": 1, "method": }')   # balanced but not JSON
    assert c.line()["error"]["code"] == -32700
    c.send(req("rpc.methods", 2) + req("port.list", 3))   # concatenated, no newline
    assert c.line()["id"] == 2 and c.line()["id"] == 3
    for b in req("switch.info", 4).encode():               # one byte at a time
        c.send(bytes([b]))
    assert c.line()["id"] == 4
    # A notification is not answered: the next line is the request's.
    c.send('{"jsonrpc":"2.0","method":"stats.clear"}\n' + req("rpc.methods", 5) + "\n")
    assert c.line()["id"] == 5
    c.send("[" + req("rpc.methods", 6) + ',{"jsonrpc":"2.0","method":"rpc.methods"},' +
           req("nope", 7) + "]")
    batch = c.line()
    assert [r["id"] for r in batch] == [6, 7] and batch[1]["error"]["code"] == -32601
    c.send("[]")
    assert c.line()["error"]["code"] == -32600
    c.send('{"jsonrpc":"2.0","id":8,"method":"rpc.methods","id":9}')   # duplicate key
    assert c.line()["error"]["code"] == -32700
    c.send(req("rpc.methods", 10))
    assert c.line()["id"] == 10   # still usable after all of the above
    c.close()


def limits(sw, sock):
    # Too large: answered, then closed; others unaffected.
    c = Raw(sock)
    c.send('{"jsonrpc":"2.0","id":1,"method":"rpc.methods","params":{"a":"' + "x" * 5000)
    e = c.line()
    assert e["error"]["code"] == -32600 and "larger" in e["error"]["message"], e
    assert c.closed()
    # A stalled half-request does not block another client, and is dropped after the timeout.
    stalled = Raw(sock)
    stalled.send('{"jsonrpc":"2.0","id":1,"meth')
    other = Raw(sock)
    other.send(req("switch.info", 2))
    assert other.line()["id"] == 2
    other.close()
    e = stalled.line()
    assert e["error"]["code"] == -32002, e
    assert stalled.closed()
    # Connections beyond the limit are closed at once (the harness holds one already).
    extra = [Raw(sock) for _ in range(3)]
    for x in extra:
        x.send(req("rpc.methods"))
        x.line()
    refused = Raw(sock)
    assert refused.closed()
    for x in extra:
        x.close()
    rpc = wait_until(lambda: (lambda r: r["refused"] >= 1 and r)(sw.rpc("switch.info")["rpc"]),
                     what="refused count")
    assert rpc["too_large"] == 1 and rpc["timeouts"] == 1, rpc


def edits(sw, tmp):
    """route/neighbor add and del, config.save and config.diff, stats.get."""
    sw.rpc("route.add", {"prefix": "10.8.0.0/16", "nexthop": ["10.0.1.1"]})
    routes = {r["prefix"]: r for r in sw.rpc("route.list")}
    assert routes["10.8.0.0/16"]["nexthops"][0]["ip"] == "10.0.1.1"
    expect_error(sw, "route.add", {"prefix": "10.8.0.0/16", "nexthop": "10.0.1.1"}, -32602,
                 "$.params.prefix")
    expect_error(sw, "route.add", {"prefix": "10.8.1.0/16", "nexthop": "10.0.1.1"}, -32602,
                 "$.params.prefix")
    expect_error(sw, "route.add", {"prefix": "10.7.0.0/16", "nexthop": "10.66.0.1"}, -32602,
                 "$.STATIC_ROUTE['10.7.0.0/16'].nexthop")
    expect_error(sw, "route.add", {"prefix": "10.7.0.0/16", "nexthop": 5}, -32602,
                 "$.params.nexthop")
    expect_error(sw, "route.add", {"prefix": "10.7.0.0/16"}, -32602, "$.params.nexthop")
    sw.rpc("route.add", {"prefix": "10.8.0.0/16", "blackhole": True, "replace": True})
    assert {r["prefix"]: r for r in sw.rpc("route.list")}["10.8.0.0/16"]["type"] == "blackhole"
    sw.rpc("neighbor.add", {"port": "Ethernet4", "ip": "10.0.1.1", "mac": "02:00:00:00:04:02",
                            "replace": True})
    nb = {n["ip"]: n for n in sw.rpc("neighbor.list")}
    assert nb["10.0.1.1"]["mac"] == "02:00:00:00:04:02" and nb["10.0.1.1"]["state"] == "static"
    expect_error(sw, "neighbor.add", {"port": "Ethernet4", "ip": "10.0.1.1"}, -32602,
                 "$.params.mac")
    expect_error(sw, "neighbor.del", {"port": "Ethernet0", "ip": "10.0.0.1"}, -32602,
                 "$.params.ip")
    # Saved and diffed: the file has what the calls above changed.
    path = os.path.join(tmp, "saved.json")
    assert sw.rpc("config.save", {"path": path}) == {"path": path}
    with open(path) as f:
        assert json.load(f) == sw.rpc("config.get")
    assert sw.rpc("config.diff", {"path": path})["differences"] == []
    sw.rpc("route.del", {"prefix": "10.8.0.0/16"})
    sw.rpc("neighbor.del", {"port": "Ethernet4", "ip": "10.0.1.1"})
    d = {x["path"]: x for x in sw.rpc("config.diff", {"path": path})["differences"]}
    assert d["$.STATIC_ROUTE['10.8.0.0/16']"]["change"] == "removed", d
    assert d["$.NEIGH['Ethernet4|10.0.1.1']"]["change"] == "removed", d
    expect_error(sw, "config.save", {"path": "relative.json"}, -32602, "$.params.path")
    expect_error(sw, "config.save", {"path": tmp}, -32003)
    expect_error(sw, "config.diff", {"path": os.path.join(tmp, "none.json")}, -32003)
    # The previous neighbor back, for what follows.
    sw.rpc("neighbor.add", {"port": "Ethernet4", "ip": "10.0.1.1", "mac": "02:00:00:00:04:01"})
    # The log level changes at run time.
    sw.rpc("config.set", {"config": {"LSW": {"global": {"log_level": "debug"}}}})
    assert sw.rpc("config.get")["LSW"]["global"]["log_level"] == "debug"
    sw.rpc("config.set", {"config": {"LSW": {"global": {"log_level": None}}}})
    # stats.get: every part, one timestamp that moves forward.
    a, b = sw.rpc("stats.get"), sw.rpc("stats.get")
    assert set(a) == {"timestamp_ns", "switch", "port", "pg", "queue", "buffer", "pfc",
                      "pfcwd", "ecmp", "trim"}, set(a)
    assert b["timestamp_ns"] > a["timestamp_ns"]
    assert set(a["port"]["ports"]) == {"Ethernet0", "Ethernet4"}
    assert b["switch"]["rpc"]["requests"] > a["switch"]["rpc"]["requests"]
    expect_error(sw, "stats.get", {"port": "Ethernet0"}, -32602, "$.params.port")


def tcp_and_idle(sw, sock, port):
    """The TCP listener answers on 127.0.0.1; an idle connection is closed and counted."""
    t = socket.create_connection(("127.0.0.1", port), timeout=20)
    t.sendall(req("rpc.methods", 5).encode() + b"\n")
    buf = b""
    while not buf.endswith(b"\n"):
        buf += t.recv(65536)
    assert json.loads(buf)["id"] == 5
    t.close()
    r = subprocess.run([os.path.join(SOURCE, "tools", "lswctl"), "-s", "tcp:127.0.0.1:%d" % port,
                        "call", "route.list"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0 and "10.9.0.0/16" in r.stdout, r
    info = sw.rpc("switch.info")["rpc"]
    assert info["tcp"] == "127.0.0.1:%d" % port and info["tcp_connections"] == 2, info
    idle = Raw(sock)
    e = idle.line()   # nothing sent: closed after rpc_idle_timeout_ms, with a notice
    assert e["error"]["code"] == -32002 and "idle" in e["error"]["message"], e
    assert idle.closed()
    # A client that asks and never reads its answers is closed too, after the same time.
    before = sw.rpc("switch.info")["rpc"]
    deaf = Raw(sock)
    for i in range(300):
        deaf.send(req("stats.get", i))
    wait_until(lambda: sw.rpc("switch.info")["rpc"]["clients"] == before["clients"] + 1)
    wait_until(lambda: sw.rpc("switch.info")["rpc"]["clients"] == before["clients"],
               timeout=30, what="the deaf client closed")
    assert sw.rpc("switch.info")["rpc"]["idle_closed"] > before["idle_closed"]
    deaf.close()


TELEMETRY = {"/lsw/info", "/lsw/ports", "/lsw/port_stats", "/lsw/queue_stats", "/lsw/pg_stats",
             "/lsw/pfc_stats", "/lsw/pfcwd", "/lsw/buffer", "/lsw/ecmp", "/lsw/timeline",
             "/lsw/capture", "/lsw/trim"}


def telemetry(sw, prefix):
    """The /lsw/... telemetry commands, read with Debian's dpdk-telemetry.py."""
    cmds = ["/", "/lsw/port_stats,Ethernet4", "/lsw/queue_stats,Ethernet0", "/lsw/info",
            "/lsw/port_stats,Ethernet99", "/help,/lsw/pfc_stats"]
    before = sw.rpc("port.stats", {"port": "Ethernet4"})["ports"]["Ethernet4"]
    r = subprocess.run(["dpdk-telemetry.py", "-f", prefix], input="\n".join(cmds) + "\n",
                       capture_output=True, text=True, timeout=60)
    after = sw.rpc("port.stats", {"port": "Ethernet4"})["ports"]["Ethernet4"]
    out = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    assert len(out) == len(cmds), r.stdout + r.stderr
    listed = {c for c in out[0]["/"] if c.startswith("/lsw/")}
    assert listed == TELEMETRY, listed
    ps = out[1]["/lsw/port_stats"]
    for k in ("IF_OUT_UCAST_PKTS", "IF_IN_OCTETS"):
        assert before[k] <= ps[k] <= after[k], (k, before[k], ps[k], after[k])
    assert "IF_IN_DISCARDS" in ps and "opackets" in ps["pmd"], ps
    q = out[2]["/lsw/queue_stats"]
    assert set(q) == {str(i) for i in range(8)} and "WATERMARK_BYTES" in q["3"], q
    assert out[3]["/lsw/info"]["ports"] == 2
    assert out[4]["/lsw/port_stats"] is None      # no such port
    assert "priority" in out[5]["/help"]["/lsw/pfc_stats"].lower()


def free_tcp_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_rpc_api():
    tmp = tmpdir("lsw-rpc-")
    cfg = base_config(tmp, {
        "Ethernet0": ("net_null0,no-rx=1", "10.0.0.0/31", None),
        "Ethernet4": ("net_null1,no-rx=1", "10.0.1.0/31", None)},
        rpc_max_request_bytes=4096, rpc_timeout_ms=2000, rpc_max_connections=4,
        rpc_idle_timeout_ms=3000, rpc_tcp_port=free_tcp_port())
    cfg["STATIC_ROUTE"] = {"10.9.0.0/16": {"nexthop": "10.0.1.1"}}
    cfg["NEIGH"] = {"Ethernet4|10.0.1.1": {"neigh": "02:00:00:00:04:01"}}
    sock = cfg["LSW"]["global"]["rpc_socket"]
    # A stale socket from a crashed switch is replaced.
    stale = socket.socket(socket.AF_UNIX)
    stale.bind(sock)
    stale.close()
    sw = Lsw(cfg, tmp)
    with sw:
        methods(sw)
        qos_port(sw)
        framing(sock)
        limits(sw, sock)
        edits(sw, tmp)
        tcp_and_idle(sw, sock, cfg["LSW"]["global"]["rpc_tcp_port"])
        telemetry(sw, cfg["LSW"]["global"]["file_prefix"])
        # A second switch on the same socket is refused; the first keeps serving.
        cfg2 = json.loads(json.dumps(cfg))
        cfg2["LSW"]["global"]["file_prefix"] += "-second"
        rc, log = Lsw(cfg2, tmp, "second").start(expect_fail=True)
        assert rc == 1 and "in use by another running lsw" in log, (rc, log)
        assert sw.rpc("rpc.methods")
        # A connection left open at shutdown does not hold the switch up.
        Raw(sock).send('{"jsonrpc"')
    # The command line.
    r = subprocess.run([LSW, "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "usage: lsw -c CONFIG" in r.stdout
    r = subprocess.run([LSW, "--bogus"], capture_output=True, text=True)
    assert r.returncode == 2
    bad = os.path.join(tmp, "bad.json")
    cfg["PORT"]["Ethernet4"]["mtu"] = "99999"
    cfg["PORT"]["Ethernet0"]["fec"] = "rs"
    with open(bad, "w") as f:
        json.dump(cfg, f)
    r = subprocess.run([LSW, "-c", bad], capture_output=True, text=True)
    assert r.returncode == 2, r
    assert "$.PORT.Ethernet4.mtu: 99999 is out of range" in r.stderr, r.stderr
    assert "$.PORT.Ethernet0.fec: unknown field" in r.stderr, r.stderr
    assert not os.path.exists(sock)
    r = subprocess.run([LSW, "-c", bad, "--log-level", "chatty"], capture_output=True, text=True)
    assert r.returncode == 2 and "log_level" in r.stderr, r.stderr


if __name__ == "__main__":
    run_test(test_rpc_api)
