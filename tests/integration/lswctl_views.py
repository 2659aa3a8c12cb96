#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""lswctl's views of stats.get on a switch with traffic: the lab mix replayed into Ethernet0
and routed by ECMP over three uplinks, while the peer on Ethernet4 pauses priority 3 for
ever (so the PFC watchdog storms that queue).

`lswctl stats --prometheus` must be strict Prometheus text (0.0.4: HELP and TYPE once per
family, contiguous samples, no duplicate series, escaped label values, counters named
_total), read back by prometheus_client's parser when it is installed, and agree with
stats.get: each counter lies between two stats.get calls made around it. `lswctl watch -n
2 -i 0.5` prints two frames without ANSI codes into a pipe, with every port, non-zero RX
rates on Ethernet0 and TX on the uplinks, the paused port, the storm and the drop reasons;
Ctrl-C stops it cleanly; `stats`, `stats show` and `stats clear` still work."""
import json
import os
import re
import signal
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from lswtest import (PYTHON, SOURCE, Lsw, base_config, run_test, tmpdir,  # noqa: E402
                     wait_until)

LSWCTL = os.path.join(SOURCE, "tools", "lswctl")
HOSTNAME = 'lab "one" \\ two'  # label values must escape both
PORTS = ["Ethernet0", "Ethernet4", "Ethernet8", "Ethernet12"]
UPLINKS = {"Ethernet4": "10.0.1.1", "Ethernet8": "10.0.1.3", "Ethernet12": "10.0.1.5"}

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r"[a-zA-Z_][a-zA-Z0-9_]*"
LVALUE = r'(?:[^"\\\n]|\\[\\"n])*'
VALUE = r"(?:[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|[+-]Inf|NaN)"
HELP_RE = re.compile(r"# HELP (%s) ((?:[^\\\n]|\\[\\n])*)\Z" % NAME)
TYPE_RE = re.compile(r"# TYPE (%s) (counter|gauge|histogram|summary|untyped)\Z" % NAME)
SAMPLE_RE = re.compile(r'(%s)(?:\{(%s="%s"(?:,%s="%s")*)?\})? (%s)\Z' % (
    NAME, LABEL, LVALUE, LABEL, LVALUE, VALUE))
PAIR_RE = re.compile(r'(%s)="(%s)"' % (LABEL, LVALUE))


def unescape(s):
    return re.sub(r"\\(.)", lambda m: {"n": "\n"}.get(m.group(1), m.group(1)), s)


def parse_strict(text):
    """Families {name: {type, help, samples: {frozenset(labels): value}}}, or an assertion
    naming the first line that breaks the text format."""
    assert text.endswith("\n") and "\n\n" not in text, "blank line or no final newline"
    fams, cur = {}, None
    for n, line in enumerate(text.split("\n")[:-1], 1):
        where = "line %d: %r" % (n, line)
        m = HELP_RE.match(line) or TYPE_RE.match(line)
        if m:
            name = m.group(1)
            assert name.startswith("lsw_"), where
            fam = fams.setdefault(name, {"samples": {}})
            key = "help" if line.startswith("# HELP") else "type"
            assert key not in fam and not fam["samples"], "second %s or after samples: %s" % (
                key, where)
            fam[key] = m.group(2)
            cur = name
            continue
        m = SAMPLE_RE.match(line)
        assert m, "not a sample: " + where
        name, labels, value = m.group(1), m.group(2), float(m.group(3))
        assert name == cur and "type" in fams[name] and "help" in fams[name], \
            "sample outside its family (or before HELP/TYPE): " + where
        pairs = PAIR_RE.findall(labels or "")
        assert ",".join('%s="%s"' % p for p in pairs) == (labels or ""), where
        names = [k for k, _ in pairs]
        assert len(set(names)) == len(names) and not any(k.startswith("__") for k in names), \
            where
        key = frozenset((k, unescape(v)) for k, v in pairs)
        assert key not in fams[name]["samples"], "duplicate series: " + where
        if fams[name]["type"] == "counter":
            assert name.endswith("_total") and value >= 0, "counter: " + where
        fams[name]["samples"][key] = value
    for name, fam in fams.items():
        assert "type" in fam and fam["samples"], "family without TYPE or samples: " + name
    return fams


def check_with_client(text, fams):
    """The official parser, when python3-prometheus-client is installed, reads the same."""
    try:
        from prometheus_client.parser import text_string_to_metric_families
    except ImportError:
        print("prometheus_client not installed: strict checks only")
        return
    parsed = list(text_string_to_metric_families(text))
    assert len(parsed) == len(fams), (len(parsed), len(fams))
    samples = {(s.name, frozenset(s.labels.items())): s.value for f in parsed for s in f.samples}
    ours = {(n, k): v for n, f in fams.items() for k, v in f["samples"].items()}
    assert samples == ours, set(samples) ^ set(ours)
    info = [s for f in parsed for s in f.samples if s.name == "lsw_switch_info"]
    assert info[0].labels["hostname"] == HOSTNAME, info


def between(fams, name, labels, lo, hi, scale=1):
    """The sample exists, of a counter, and lies within [lo, hi] (two stats.get around)."""
    assert name in fams, "no family " + name
    v = fams[name]["samples"].get(frozenset(labels.items()))
    assert v is not None, "no %s%s among %s" % (name, labels,
                                                 list(fams[name]["samples"])[:4])
    assert lo / scale <= v <= hi / scale, (name, labels, lo, v, hi)
    return v


def snake(key):
    return key.lower()


def check_prometheus(fams, s1, s2):
    typ = {n: f["type"] for n, f in fams.items()}
    for n in ("lsw_pg_watermark_bytes", "lsw_queue_curr_occupancy_bytes", "lsw_switch_hugepages",
              "lsw_ecmp_member_quality", "lsw_pfcwd_queue_tx_dropped_packets_last",
              "lsw_pfc_rx_paused", "lsw_switch_uptime_seconds", "lsw_switch_info"):
        assert typ.get(n) == "gauge", (n, typ.get(n))
    assert not [n for n in fams if re.search(r"pfc_\d|pfc_wd_queue_stats", n)], \
        "PFC_<n>_ and PFC_WD_QUEUE_STATS_ must be folded into labels / cut"
    # Every SAI counter of every port, queue and PG, by the naming rule, within bounds.
    for port in PORTS:
        a, b = s1["port"]["ports"][port], s2["port"]["ports"][port]
        for k, v in a.items():
            if isinstance(v, int):
                between(fams, "lsw_port_%s_total" % snake(k), {"port": port}, v, b[k])
        for reason, v in a["drops"].items():
            between(fams, "lsw_port_drops_total", {"port": port, "reason": reason}, v,
                    b["drops"][reason])
        for k, v in a["pmd"].items():
            between(fams, "lsw_port_pmd_%s_total" % k, {"port": port}, v, b["pmd"][k])
        for q, a in s1["queue"]["ports"][port].items():
            b = s2["queue"]["ports"][port][q]
            lab = {"port": port, "queue": q}
            for k, v in a.items():
                if k.isupper() and isinstance(v, int) and "OCCUPANCY" not in k:
                    suffix = "" if "WATERMARK" in k else "_total"
                    between(fams, "lsw_queue_%s%s" % (snake(k), suffix), lab, v, b[k])
            for reason, v in a["drops"].items():
                between(fams, "lsw_queue_drops_total", dict(lab, reason=reason), v,
                        b["drops"][reason])
        for pg, a in s1["pg"]["ports"][port].items():
            b = s2["pg"]["ports"][port][pg]
            lab = {"port": port, "pg": pg}
            between(fams, "lsw_pg_packets_total", lab, a["PACKETS"], b["PACKETS"])
            between(fams, "lsw_pg_watermark_bytes", lab, a["WATERMARK_BYTES"],
                    b["WATERMARK_BYTES"])
        for prio, a in s1["pfc"]["ports"][port]["priorities"].items():
            b = s2["pfc"]["ports"][port]["priorities"][prio]
            lab = {"port": port, "priority": prio}
            pre = "PFC_%s_" % prio
            for k in ("RX_PKTS", "TX_PKTS", "ON2OFF_RX_PKTS"):
                between(fams, "lsw_pfc_%s_total" % snake(k), lab, a[pre + k], b[pre + k])
            between(fams, "lsw_pfc_rx_pause_duration_seconds_total", lab,
                    a[pre + "RX_PAUSE_DURATION_US"], b[pre + "RX_PAUSE_DURATION_US"], 1e6)
    # The storm: Ethernet4 is paused on priority 3 and its queue 3 stormed.
    lab = {"port": "Ethernet4", "priority": "3"}
    assert between(fams, "lsw_pfc_rx_pkts_total", lab, 1, 1 << 62) > 0
    assert fams["lsw_pfc_rx_paused"]["samples"][frozenset(lab.items())] == 1
    status = fams["lsw_pfcwd_queue_status"]["samples"]
    lab = {"port": "Ethernet4", "queue": "3"}
    assert status[frozenset(dict(lab, status="stormed").items())] == 1, status
    assert status[frozenset(dict(lab, status="operational").items())] == 0, status
    pre = "PFC_WD_QUEUE_STATS_"
    a = s1["pfcwd"]["ports"]["Ethernet4"]["queues"]["3"]
    b = s2["pfcwd"]["ports"]["Ethernet4"]["queues"]["3"]
    between(fams, "lsw_pfcwd_queue_deadlock_detected_total", lab, a[pre + "DEADLOCK_DETECTED"],
            b[pre + "DEADLOCK_DETECTED"])
    between(fams, "lsw_pfcwd_queue_tx_dropped_packets_total", lab,
            a[pre + "TX_DROPPED_PACKETS"], b[pre + "TX_DROPPED_PACKETS"])
    assert fams["lsw_pfcwd_port_detection_time_seconds"]["samples"][
        frozenset({"port": "Ethernet4"}.items())] == 0.2
    # ECMP members, switch events, the RPC transport.
    moved = 0
    for g1, g2 in zip(s1["ecmp"]["groups"], s2["ecmp"]["groups"]):
        for m1, m2 in zip(g1["members"], g2["members"]):
            lab = {"prefix": g1["prefix"], "member": m1["ip"], "port": m1["port"]}
            moved += between(fams, "lsw_ecmp_member_bytes_total", lab, m1["BYTES"], m2["BYTES"])
            between(fams, "lsw_ecmp_member_flowlets_total", lab, m1["FLOWLETS"],
                    m2["FLOWLETS"])
    assert moved > 0
    for ev, v in s1["switch"]["events"].items():
        between(fams, "lsw_switch_events_total", {"event": ev}, v, s2["switch"]["events"][ev])
    r1, r2 = s1["switch"]["rpc"], s2["switch"]["rpc"]
    between(fams, "lsw_rpc_requests_total", {}, r1["requests"], r2["requests"])
    between(fams, "lsw_rpc_connections_total", {}, r1["connections"], r2["connections"])
    between(fams, "lsw_stats_monotonic_seconds", {}, s1["timestamp_ns"], s2["timestamp_ns"],
            1e9)
    hw = fams["lsw_switch_hugepages"]["samples"][frozenset()]
    assert hw == int(s1["switch"]["hugepages"]), hw
    info = list(fams["lsw_switch_info"]["samples"])[0]
    assert dict(info)["hostname"] == HOSTNAME, info


def rate_value(cell):
    """'8.81Mpps' or '84.15Gb/s' -> a number."""
    m = re.fullmatch(r"([\d.]+)([KMG]?)(pps|b/s)", cell)
    assert m, cell
    return float(m.group(1)) * {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}[m.group(2)]


def section(frame, first_header):
    """The rows of the table whose header line starts with first_header."""
    lines = frame.split("\n")
    i = next((i for i, s in enumerate(lines) if s.startswith(first_header)), None)
    assert i is not None, "no %r table in:\n%s" % (first_header, frame)
    rows = []
    for s in lines[i + 2:]:
        if not s.strip():
            break
        rows.append(s)
    return rows


def check_watch(out, avg):
    """avg: Ethernet0's mean frame size so far; the mix repeats, so each frame's rates have
    about that ratio (in bits)."""
    assert "\x1b" not in out, "ANSI codes into a pipe"
    heads = [i for i, line in enumerate(out.split("\n")) if "mbufs free" in line]
    assert len(heads) == 2, out
    frames = out.split("\n" + HOSTNAME + "  up ")
    assert len(frames) == 2 and out.startswith(HOSTNAME + "  up "), out
    for frame in frames:
        rows = {r.split()[0]: r.split() for r in section(frame, "PORT  ")}
        assert sorted(rows) == sorted(PORTS), rows
        for port, r in rows.items():
            assert len(r) == 7 and r[1] == "up", r
        rx_pps, rx_bps = rate_value(rows["Ethernet0"][2]), rate_value(rows["Ethernet0"][3])
        assert rx_pps > 0 and rx_bps > 0, rows["Ethernet0"]
        # Bits, not bytes (the pcap loops many times a second: a loose bound is enough).
        assert 4 * avg <= rx_bps / rx_pps <= 16 * avg, (avg, rows["Ethernet0"])
        assert sum(rate_value(rows[p][4]) for p in UPLINKS) > 0, rows
        assert rate_value(rows["Ethernet0"][6]) > 0, rows["Ethernet0"]  # the mix's drops
        queues = section(frame, "QUEUE (busiest)")
        assert 0 < len(queues) <= 5 and all(":UC" in q for q in queues), queues
        pfc = {r.split()[0]: r.split() for r in section(frame, "PFC PORT")}
        assert pfc["Ethernet4"][1] == "3,4" and "3" in pfc["Ethernet4"][3].split(","), pfc
        assert rate_value(pfc["Ethernet4"][4]) > 0, pfc  # the peer's XOFFs, per second
        wd = [r.split() for r in section(frame, "WATCHDOG QUEUE")]
        assert ["Ethernet4:UC3", "stormed", "drop"] == wd[0][:3] and int(wd[0][3]) >= 1, wd
        drops = [r.split() for r in section(frame, "DROP REASON")]
        assert drops and all(r[1] in PORTS for r in drops), drops
        assert rate_value(drops[0][2]) > 0, drops


def pfc_xoff_pcap(path, prio, quanta=0xffff):
    """One PFC XOFF frame for @prio (802.1Qbb), as a pcap that net_pcap replays for ever."""
    frame = bytes.fromhex("0180c2000001" "020000000401" "8808" "0101") + \
        struct.pack(">H", 1 << prio) + b"".join(struct.pack(">H", quanta if i == prio else 0)
                                                for i in range(8))
    frame += bytes(60 - len(frame))
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        f.write(struct.pack("<IIII", 0, 0, len(frame), len(frame)) + frame)
    return path


def lswctl(sock, *args, **kw):
    return subprocess.run([PYTHON, LSWCTL, "-s", sock] + list(args), capture_output=True,
                          text=True, timeout=60, **kw)


def test_lswctl_views():
    tmp = tmpdir("lsw-views-")
    storm = pfc_xoff_pcap(os.path.join(tmp, "storm.pcap"), 3)
    mix = os.path.join(SOURCE, "configs", "traffic", "default.pcap")
    cfg = base_config(tmp, {
        "Ethernet0": ("net_pcap0,rx_pcap=%s,infinite_rx=1" % mix, "10.0.0.0/31", None),
        "Ethernet4": ("net_pcap1,rx_pcap=%s,infinite_rx=1" % storm, "10.0.1.0/31", None),
        "Ethernet8": ("net_null0,no-rx=1", "10.0.1.2/31", None),
        "Ethernet12": ("net_null1,no-rx=1", "10.0.1.4/31", None)}, mbufs=16384)
    cfg["DEVICE_METADATA"]["localhost"]["hostname"] = HOSTNAME
    cfg["STATIC_ROUTE"] = {"10.1.0.0/16": {"nexthop": ",".join(UPLINKS.values()),
                                           "ifname": ",".join(UPLINKS)}}
    cfg["NEIGH"] = {"%s|%s" % (p, ip): {"neigh": "02:00:00:00:%02x:01" % int(p[8:])}
                    for p, ip in UPLINKS.items()}
    cfg["PORT_QOS_MAP"] = {"Ethernet4": {"pfc_enable": "3,4", "pfc_watchdog_status": "enable"}}
    cfg["PFC_WD"] = {"Ethernet4": {"action": "drop", "detection_time": "200",
                                   "restoration_time": "400"}}

    sw = Lsw(cfg, tmp)
    with sw:
        def busy():
            st = sw.rpc("stats.get")
            wd = st["pfcwd"]["ports"]["Ethernet4"]["queues"]["3"]
            tx = sum(st["port"]["ports"][p]["IF_OUT_OCTETS"] for p in UPLINKS)
            return wd["PFC_WD_STATUS"] == "stormed" and tx > 0
        wait_until(busy, what="traffic on the uplinks and the storm detected")

        s1 = sw.rpc("stats.get")
        r = lswctl(sw.sock, "stats", "--prometheus")
        s2 = sw.rpc("stats.get")
        assert r.returncode == 0 and not r.stderr, r
        fams = parse_strict(r.stdout)
        check_with_client(r.stdout, fams)
        check_prometheus(fams, s1, s2)
        assert lswctl(sw.sock, "stats", "show", "--prometheus").stdout.startswith("# HELP ")
        assert lswctl(sw.sock, "stats", "--prometheus", "show").stdout.startswith("# HELP ")
        for args in (["stats"], ["stats", "show"], ["--json", "stats"]):
            r = lswctl(sw.sock, *args)
            assert r.returncode == 0 and set(json.loads(r.stdout)) == set(s1), (args, r)

        t = time.monotonic()
        r = lswctl(sw.sock, "watch", "-n", "2", "-i", "0.5")
        assert r.returncode == 0 and not r.stderr, r
        assert time.monotonic() - t >= 1.0, "two frames 0.5 s apart, after a first sample"
        e0 = sw.rpc("port.stats", {"port": "Ethernet0"})["ports"]["Ethernet0"]
        check_watch(r.stdout, e0["IF_IN_OCTETS"] / (e0["IF_IN_UCAST_PKTS"] +
                                                  e0["IF_IN_NON_UCAST_PKTS"]))
        r = lswctl(sw.sock, "--json", "watch", "-n", "1", "-i", "0.1")
        assert set(json.loads(r.stdout)) == set(s1), r

        # Ctrl-C: a clean exit, no traceback (SIGINT back to default for the child, in case
        # this runs with it ignored).
        p = subprocess.Popen([PYTHON, LSWCTL, "-s", sw.sock, "watch", "-i", "0.2"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        assert "mbufs free" in p.stdout.readline()
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
        assert p.returncode == 0 and not err, (p.returncode, err)

        r = lswctl(sw.sock, "stats", "clear", "Ethernet8")
        assert r.returncode == 0 and r.stdout == "counters cleared on Ethernet8\n", r


if __name__ == "__main__":
    run_test(test_lswctl_views)
