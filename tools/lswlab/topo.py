# SPDX-License-Identifier: BSD-3-Clause
"""Fabrics on one machine: switches (each its own lsw process), hosts (lsw-host's emulated
NICs) and the links between them, turned into one lsw config per switch and one lsw-host
config.

Every link is net_memif with a socket of its own (socket-abstract=no) and a /31: the side
listed first takes the even address. A host's gateway is its switch's address on their link.
Each switch routes to every host it is not attached to over all shortest paths (equal-cost
next hops: ECMP), and knows its neighbours' MACs statically, so that no packet waits for ARP.
"""
import copy
import json
import os

PORT_STEP = 4  # Ethernet0, Ethernet4, ...
CATCHUP_US = 2000  # a scheduler tick (4 ms at HZ 250) half covered; larger bursts fill the ring


def merge(base, patch):
    """RFC 7386 merge patch of @patch onto @base (a new dict)."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = copy.deepcopy(base) if isinstance(base, dict) else {}
    for k, v in patch.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = merge(out.get(k), v)
    return out


def log2_slots(speed_mbps, frame, micros, low=3, high=10):
    """Ring slots (log2) for @micros of frames of @frame bytes at @speed_mbps."""
    frames = speed_mbps * micros // 8 // frame + 1
    n = low
    while n < high and (1 << n) < frames:
        n += 1
    return n


class Fabric:
    """Switches, hosts and links; then configs() gives every process's config."""

    def __init__(self, name, rundir, speed=1000, mtu=4096, cable="5m"):
        self.name, self.dir = name, rundir
        self.speed, self.mtu, self.cable = speed, mtu, cable
        self.switches = []   # names, in order
        self.hosts = []      # names, in order
        self.links = []      # dicts: a, b, speed, cable, a_port, b_port, a_ip, b_ip
        self.ports = {}      # switch -> next port index

    def switch(self, name):
        self.switches.append(name)
        self.ports[name] = 0
        return name

    def host(self, name, switch, speed=None):
        self.hosts.append(name)
        self.link(switch, name, speed)
        return name

    def link(self, a, b, speed=None, cable=None):
        i = len(self.links)
        ln = {"id": i, "a": a, "b": b, "speed": speed or self.speed, "cable": cable or self.cable,
              "a_ip": "10.%d.%d.0" % (100 + i // 256, i % 256),
              "b_ip": "10.%d.%d.1" % (100 + i // 256, i % 256),
              "sock": os.path.join(self.dir, "link%d.sock" % i)}
        for side in ("a", "b"):
            node = ln[side]
            if node in self.ports:
                ln[side + "_port"] = "Ethernet%d" % (PORT_STEP * self.ports[node])
                self.ports[node] += 1
        self.links.append(ln)
        return ln

    # --- derived facts -------------------------------------------------------------------

    def is_switch(self, n):
        return n in self.ports

    def host_link(self, h):
        return next(ln for ln in self.links if ln["b"] == h)

    def host_ip(self, h):
        return self.host_link(h)["b_ip"]

    def port_of(self, h):
        """(switch, port) a host is attached to."""
        ln = self.host_link(h)
        return ln["a"], ln["a_port"]

    def mac(self, node, port=None):
        if self.is_switch(node):
            s = self.switches.index(node)
            return "02:%02x:00:00:%02x:00" % (0x10 + s, int(port[8:]) // PORT_STEP)
        return "02:aa:00:00:%02x:01" % (self.hosts.index(node) + 1)

    def frame(self):
        return self.mtu + 58 + 4  # Ethernet, tag, IPv4, UDP, BTH, RETH, ICRC (4 KB: 4154)

    def routes(self, sw):
        """{host ip/32: [next-hop ips]} over every shortest path from @sw."""
        adj = {s: [] for s in self.switches}
        for ln in self.links:
            if self.is_switch(ln["a"]) and self.is_switch(ln["b"]):
                adj[ln["a"]].append((ln["b"], ln["b_ip"]))
                adj[ln["b"]].append((ln["a"], ln["a_ip"]))
        out = {}
        for h in self.hosts:
            home, _ = self.port_of(h)
            if home == sw:
                continue
            dist, frontier = {home: 0}, [home]
            while frontier:
                nxt = []
                for u in frontier:
                    for v, _ in adj[u]:
                        if v not in dist:
                            dist[v] = dist[u] + 1
                            nxt.append(v)
                frontier = nxt
            if sw not in dist:
                continue
            hops = sorted(ip for v, ip in adj[sw] if dist.get(v, 1 << 30) == dist[sw] - 1)
            out[self.host_ip(h) + "/32"] = hops
        return out

    # --- configs --------------------------------------------------------------------------

    def switch_config(self, sw, fragment=None, lossless=True):
        s = self.switches.index(sw)
        ports, iface, neigh, port_cfg = {}, {}, {}, {}
        for ln in self.links:
            for side, other in (("a", "b"), ("b", "a")):
                if ln[side] != sw:
                    continue
                port = ln[side + "_port"]
                # The memif server is the link's first side: switches before hosts, the
                # lower switch first. A host link's ring is the host's (lsw-host's) size,
                # said on both ends so that lsw's headroom counts it.
                role = "server" if side == "a" else "client"
                dev = "net_memif%d,role=%s,socket=%s,socket-abstract=no,id=0" % (
                    int(port[8:]) // PORT_STEP, role, ln["sock"])
                ports[port] = {"devargs": dev, "mac": self.mac(sw, port)}
                if not self.is_switch(ln[other]):
                    ports[port]["devargs"] += ",rsize=%d" % log2_slots(ln["speed"], self.frame(),
                                                                      150)
                    # Towards a host the port makes up the line time a late worker owes
                    # (lsw's LSW_PORT.shaper_catchup_us): a hardware port never wakes
                    # late, and time lost leaves a standing queue behind a flow at the
                    # line rate. Not between switches: a peer's headroom does not count
                    # a burst above the line rate.
                    ports[port]["shaper_catchup_us"] = CATCHUP_US
                port_cfg[port] = {"speed": str(ln["speed"]), "mtu": str(self.mtu + 104)}
                iface["%s|%s/31" % (port, ln[side + "_ip"])] = {}
                peer_mac = self.mac(ln[other], ln.get(other + "_port"))
                neigh["%s|%s" % (port, ln[other + "_ip"])] = {"neigh": peer_mac}
        names = ",".join(sorted(ports, key=lambda p: int(p[8:])))
        routes = {p: {"nexthop": ",".join(nh)} for p, nh in self.routes(sw).items()}
        cfg = {
            "DEVICE_METADATA": {"localhost": {"hostname": sw,
                                              "mac": "02:%02x:00:00:00:01" % (0x10 + s)}},
            "LSW": {"global": {"main_lcore": 0, "workers": [1], "idle_sleep_us": 100,
                               "rx_descriptors": 256, "tx_descriptors": 256,
                               "rpc_socket": os.path.join(self.dir, sw + ".sock"),
                               "file_prefix": "lab-%s-%s-%d" % (self.name, sw, os.getpid())}},
            "LSW_PORT": ports, "PORT": port_cfg, "INTERFACE": iface, "NEIGH": neigh,
            "STATIC_ROUTE": routes,
            # A buffer sized for lab speeds: 2 MB hold 16 ms at 1 Gb/s (a 16 MB switch
            # holds 1.3 ms at 100G); lossless PGs pause at 1/16 of what is free (SONiC's
            # AZURE default), so that queues stay under the hosts' timeouts.
            "BUFFER_POOL": {
                "ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "size": "2MB"},
                "egress_lossless_pool": {"type": "egress", "mode": "static", "size": "2MB"}},
            "BUFFER_PROFILE": {
                "ingress_lossy_profile": {"pool": "ingress_lossless_pool", "dynamic_th": "0"},
                "egress_lossy_profile": {"pool": "egress_lossless_pool", "static_th": "2MB"}},
            "DEFAULT_LOSSLESS_BUFFER_PARAMETER": {"AZURE": {"default_dynamic_th": "-4"}},
        }
        # Lab speeds (500 Mb/s, 2 Gb/s) are not in 802.3's table of pause response times,
        # so the headroom takes the peer's response from here: what a software host on a
        # shared 2-CPU machine takes to stop once paused, about a millisecond (64 KB at
        # 500 Mb/s). With 0 a preempted host overflows the headroom now and then. At 1 Gb/s
        # (in the table) this is not used: the ring counted twice covers a late worker
        # (control/config/inflight.c).
        cfg["LSW"]["buffer"] = {"peer_response_time": "64KB"}
        if lossless:
            cfg["PORT_QOS_MAP"] = {names: {"pfc_enable": "3"}}
            cfg["CABLE_LENGTH"] = {"AZURE": {p: self.cable for p in ports}}
            cfg["BUFFER_PG"] = {"%s|3" % p: {"profile": "NULL"} for p in ports}
        return merge(cfg, fragment or {})

    def host_config(self, defaults=None, workload=(), extra=None):
        hosts = {}
        for h in self.hosts:
            ln = self.host_link(h)
            sw, port = ln["a"], ln["a_port"]
            hosts[h] = {
                "port": "net_memif0,role=client,socket=%s,socket-abstract=no,id=0,rsize=%d" % (
                    ln["sock"], log2_slots(ln["speed"], self.frame(), 150)),
                "mac": self.mac(h), "ip": ln["b_ip"] + "/31", "gateway": ln["a_ip"],
                "gateway_mac": self.mac(sw, port), "speed": "%dM" % ln["speed"],
                "mtu": self.mtu}
        # One lsw-host process: its ports are numbered in its own EAL.
        for i, h in enumerate(self.hosts):
            hosts[h]["port"] = hosts[h]["port"].replace("net_memif0,", "net_memif%d," % i, 1)
        cfg = {"hosts": hosts, "cpu": 0, "defaults": defaults or {}, "workload": list(workload)}
        return merge(cfg, extra or {})


def star(name, rundir, n_hosts, speed=1000, mtu=4096):
    f = Fabric(name, rundir, speed, mtu)
    f.switch("leaf")
    for i in range(n_hosts):
        f.host("h%d" % i, "leaf")
    return f


def leaf_spine(name, rundir, leaves=2, spines=2, hosts_per_leaf=2, parallel=1, speed=1000,
               uplink_speed=None, mtu=4096):
    f = Fabric(name, rundir, speed, mtu)
    for i in range(leaves):
        f.switch("leaf%d" % i)
    for j in range(spines):
        f.switch("spine%d" % j)
    for i in range(leaves):
        for j in range(spines):
            for _ in range(parallel):
                f.link("leaf%d" % i, "spine%d" % j, uplink_speed or speed)
    for i in range(leaves):
        for k in range(hosts_per_leaf):
            f.host("h%d" % (i * hosts_per_leaf + k), "leaf%d" % i)
    return f


def rail(name, rundir, servers=2, nics=2, speed=1000, mtu=4096):
    """Rail-optimized: NIC r of every server on rail leaf r; the leaves on one spine."""
    f = Fabric(name, rundir, speed, mtu)
    for r in range(nics):
        f.switch("rail%d" % r)
    f.switch("spine0")
    for r in range(nics):
        f.link("rail%d" % r, "spine0")
    for s in range(servers):
        for r in range(nics):
            f.host("s%dn%d" % (s, r), "rail%d" % r)
    return f


def dump(obj, path):
    with open(path, "w") as fh:
        json.dump(obj, fh, indent=1)
