#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every configuration lsw accepts starts: a grid of ports (up to the maximum), workers (up to
16, mapped onto this machine's CPUs as "LCORE@CPU"), MTUs, mbufs and ECMP flowlet tables, each
with the mbufs lsw's own check asks for (its refusal names the number). Each switch starts
with the EAL memory it computes, then takes a capture and a timeline (what it allocates
later); two start with the least memory_mb lsw accepts (its refusal names that number too)."""
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
import lswtest  # noqa: E402
from lswtest import LSW, Lsw  # noqa: E402

MAX_PORTS, MAX_WORKERS = 32, 16


def config(tmp, workers, ports, mtu, **glob):
    cpus = os.cpu_count()
    # lcore i + 1 on CPU (i + 1) mod the CPUs: 16 workers on 2 CPUs share them
    lcores = ["%d@%d" % (i + 1, (i + 1) % cpus) for i in range(workers)]
    g = {"main_lcore": 0, "workers": lcores, "idle_sleep_us": 1000, "mbufs": 1024,
         "rpc_socket": os.path.join(tmp, "lsw.sock"),
         "file_prefix": "lswgrid-%d" % os.getpid()}
    g.update(glob)
    c = {"LSW": {"global": g}, "LSW_PORT": {}, "PORT": {}, "INTERFACE": {}}
    for i in range(ports):
        n = "Ethernet%d" % (4 * i)
        c["LSW_PORT"][n] = {"devargs": "net_null%d,no-rx=1" % i, "lcore": i % workers + 1}
        c["PORT"][n] = {"mtu": mtu}
        c["INTERFACE"]["%s|10.%d.0.1/24" % (n, i)] = {}
    return c


def check(tmp, cfg):
    """lsw --check: (True, its line) or (False, the refusal's lines)."""
    path = os.path.join(tmp, "check.json")
    with open(path, "w") as f:
        json.dump(cfg, f)
    r = subprocess.run([LSW, "-c", path, "--check"], capture_output=True, text=True)
    return r.returncode == 0, r.stdout + r.stderr


def at_least(text, field):
    m = re.search(r"\$\.LSW\.global\.%s: .*?at least (\d+)" % field, text)
    assert m, "no 'at least' for %s in:\n%s" % (field, text)
    return int(m.group(1))


def fit_mbufs(tmp, cfg, mbufs=None):
    """The config with the mbufs the check asks for (or @mbufs, if it accepts them)."""
    ok, out = check(tmp, cfg)
    assert not ok, "1024 mbufs accepted?\n" + out
    cfg["LSW"]["global"]["mbufs"] = max(at_least(out, "mbufs"), mbufs or 0)
    ok, out = check(tmp, cfg)
    assert ok, out
    return cfg


def start(tmp, cfg, later=True):
    """Start lsw with @cfg; with @later, a capture and a timeline too. Stop it cleanly."""
    t0 = time.monotonic()
    sw = Lsw(cfg, tmp)
    with sw:
        info = sw.rpc("switch.info")
        assert len(sw.rpc("port.list")) == len(cfg["PORT"]), info
        if later:
            sw.rpc("capture.start", {"port": "Ethernet0", "count": 1,
                                     "file": os.path.join(tmp, "c.pcapng")})
            sw.rpc("timeline.start", {"file": os.path.join(tmp, "t.tl")})
            sw.rpc("timeline.stop")
    return time.monotonic() - t0


def test_grid():
    tmp = lswtest.tmpdir("lsw-grid-")
    grid = [
        # workers, ports, MTU, descriptors, more mbufs than the least, ECMP table
        (1, 1, 1500, 256, None, None),
        (2, MAX_PORTS, 1500, 256, None, None),
        (8, 16, 9100, 1024, None, None),    # issue 34: "cannot create the IPv6 FIB"
        (12, 24, 9100, 256, None, None),    # and "out of memory (mempool of 80896 mbufs)"
        (MAX_WORKERS, MAX_PORTS, 9216, 256, None, None),
        (4, 4, 1500, 256, 65536, None),
        (3, 6, 4200, 256, None, 65536),
    ]
    for workers, ports, mtu, desc, mbufs, table in grid:
        cfg = fit_mbufs(tmp, config(tmp, workers, ports, mtu, drop_snapshots=65536,
                                    rx_descriptors=desc, tx_descriptors=desc), mbufs)
        if table:  # flowlet ECMP over two next hops for each port's /16
            cfg["ECMP"] = {"GLOBAL": {"mode": "flowlet_quality", "flowlet_table_size": table}}
            cfg["STATIC_ROUTE"] = {"10.%d.0.0/16" % (100 + i): {
                "nexthop": "10.%d.0.2,10.%d.0.3" % (i, i)} for i in range(ports)}
        took = start(tmp, cfg)
        print("  %2d workers, %2d ports, MTU %4d, %6d mbufs: started in %.1f s" % (
            workers, ports, mtu, cfg["LSW"]["global"]["mbufs"], took))
    # The least memory_mb lsw accepts starts; one MB less is refused, naming the field.
    for workers, ports, mtu in [(8, 16, 9100), (2, 2, 1500)]:
        cfg = fit_mbufs(tmp, config(tmp, workers, ports, mtu))
        cfg["LSW"]["global"]["memory_mb"] = 64
        least = at_least(check(tmp, cfg)[1], "memory_mb")
        cfg["LSW"]["global"]["memory_mb"] = least - 1
        assert not check(tmp, cfg)[0]
        cfg["LSW"]["global"]["memory_mb"] = least
        took = start(tmp, cfg, later=False)
        print("  %2d workers, %2d ports: started with the least memory_mb, %d MB, in %.1f s" %
              (workers, ports, least, took))


if __name__ == "__main__":
    lswtest.run_test(test_grid)
