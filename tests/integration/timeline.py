#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The timeline recorder end to end: the pfc_lossless setup (S replays lossless frames to B
over memif, B's egress shaped to 100 Mb/s), both switches recording from their first
packet (lsw --timeline). From the two files alone, read with tools/lswtimeline.py: B's PG
fills its shared part and then its headroom (its XOFF point); B's XOFF is recorded, and
its reception on S follows within the link's delay; S stops sending while paused and its
queue rises; both drain after the XON; samples keep to the interval; nothing is lost
silently. Then the RPC side: memory windows, limits, and bad params refused by path."""
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
import lswtimeline  # noqa: E402
import pfc_lossless  # noqa: E402
from lswtest import Lsw, RpcError, roce_pcap, run_test, tmpdir, wait_until  # noqa: E402

FRAMES = 2000
PRIO = 3
# A pause reaches S this long after B decided it at most: memif hands the frame over at
# once, but either worker may wait for its CPU (the test machine is shared).
MAX_DELAY_NS = 20_000_000
CLOCK_SLACK_NS = 200_000  # two processes' clocks, each calibrated (control/time.c)


def configs(tmp):
    """pfc_lossless's, with B the memif server: B starts first, so that S's frames meet a
    link that is up, and S's queue builds while B pauses it, not before."""
    s, b = pfc_lossless.configs(tmp, None, "in.pcap", 16384)
    sp, bp = s["LSW_PORT"]["Ethernet4"], b["LSW_PORT"]["Ethernet0"]
    sp["devargs"] = sp["devargs"].replace("role=server", "role=client")
    bp["devargs"] = bp["devargs"].replace("role=client", "role=server")
    return s, b


def pause_windows(tl, port):
    """[(start, end)] in ns of the pauses @port honoured on PRIO, from its pfc_rx events: an
    XOFF holds for its quanta at the port's speed, a refresh extends it, an XON ends it."""
    # In the order recorded (read() sorts by time only): two frames of one burst share
    # their time, and an XOFF then an XON is not an XON then an XOFF.
    ev = [(r[0], tl.values(r)["quanta"]) for r in tl.of_kind("pfc_rx")
          if r[2] == port and r[3] == PRIO]
    bit_ns = 1e9 / (int(pfc_lossless.LINK["speed"]) * 1e6)
    out = []
    for i, (t, quanta) in enumerate(ev):
        if quanta == 0:
            continue
        end = t + quanta * 512 * bit_ns
        if i + 1 < len(ev):
            end = min(end, ev[i + 1][0])
        if out and out[-1][1] == t:
            out[-1] = (out[-1][0], end)  # refreshed before it ran out
        else:
            out.append((t, end))
    return out


def check_files(s_tl, b_tl, s_status, b_status):
    s, b = lswtimeline.read(s_tl), lswtimeline.read(b_tl)
    s_p4, b_p0 = s.ports.index("Ethernet4"), b.ports.index("Ethernet0")

    # B's PG fills its shared part up to the XOFF point, and only then its headroom.
    pg = [(r[0], b.values(r)) for r in b.of_kind("pg") if r[2] == b_p0 and r[3] == PRIO]
    xoff = [r for r in b.of_kind("pfc_tx") if r[2] == b_p0 and r[3] == PRIO and
            b.values(r)["quanta"] > 0]
    xon = [r for r in b.of_kind("pfc_tx") if r[2] == b_p0 and r[3] == PRIO and
           b.values(r)["quanta"] == 0]
    assert xoff and xon, ("B sent no XOFF or no XON", len(xoff), len(xon))
    first = xoff[0][0]
    before = [v for t, v in pg if t < first]
    assert before and all(v["headroom"] == 0 for v in before), "headroom used before XOFF"
    peak_shared = max(v["shared"] for t, v in pg)
    assert max(v["headroom"] for t, v in pg) > 0, "headroom never used"
    # Sampled every 100 us, the PG may go from its reserve to the XOFF point between two
    # samples; but the first sample that holds headroom holds shared bytes too.
    first_hr = next(v for t, v in pg if v["headroom"] > 0)
    assert first_hr["shared"] > 0, ("headroom used with the shared part empty", first_hr)
    print("B: PG %d shared peak %d B, headroom peak %d B; %d XOFF, %d XON" % (
        PRIO, peak_shared, max(v["headroom"] for t, v in pg), len(xoff), len(xon)))

    # Every XOFF B sent arrives at S, in order, within the link's delay.
    rx = [r[0] for r in s.of_kind("pfc_rx") if r[2] == s_p4 and r[3] == PRIO and
          s.values(r)["quanta"] > 0]
    assert len(rx) == len(xoff), ("XOFF sent by B, received by S", len(xoff), len(rx))
    delays = [r - t[0] for r, t in zip(rx, xoff)]
    assert all(-CLOCK_SLACK_NS <= d <= MAX_DELAY_NS for d in delays), delays
    print("S received each XOFF %.0f us (median) after B sent it, %.0f us at most" % (
        statistics.median(delays) / 1e3, max(delays) / 1e3))

    # S obeys: between two samples taken while a pause held (from its XOFF's reception
    # until its time ran out, a refresh continuing it, or an XON), S's queue sends
    # nothing, so it does not drain, and it rises by what arrives meanwhile (when the
    # replay still runs: on a busy machine it may be over before the first pause).
    q = {r[0]: s.values(r) for r in s.of_kind("queue") if r[2] == s_p4 and r[3] == PRIO}
    s_p0 = s.ports.index("Ethernet0")
    fed_by = {r[0]: s.values(r)["rx_pkts"] for r in s.of_kind("port") if r[2] == s_p0}
    held = pause_windows(s, s_p4)
    assert held, "S recorded no pause"
    ts = sorted(q)
    pairs = fed = 0
    for a, z in zip(ts, ts[1:]):
        if not any(x <= a and z <= y for x, y in held):
            continue
        pairs += 1
        assert q[z]["tx_pkts"] == 0, ("S sent while paused", a, z, q[z])
        grew = q[z]["bytes"] - q[a]["bytes"]
        assert grew >= 0, ("S's queue drained while paused", a, z, grew)
        if fed_by.get(z, 0):
            fed += 1
            assert grew > 0, ("S's queue did not rise while fed and paused", a, z)
    assert pairs > 0, "no two samples inside one pause"
    last_q = max(q.items())[1]
    last_pg = [v for t, v in pg][-1]
    assert last_q["bytes"] == 0 and last_q["pkts"] == 0, last_q
    assert last_pg["shared"] == 0 and last_pg["headroom"] == 0, last_pg
    assert xon[-1][0] > xoff[-1][0], "B's last PFC frame is not an XON"
    print("S: %d pauses, %d sample intervals inside them (fed during %d): nothing sent, "
          "the queue never fell" % (len(held), pairs, fed))

    # Samples keep to the interval: one per interval, or counted as skipped (when each is
    # taken depends on the machine; their exact spacing is the unit test's, on a fake
    # clock).
    for tl, st, name in ((s, s_status, "S"), (b, b_status, "B")):
        iv = tl.header["interval_ns"]
        p0 = tl.ports.index("Ethernet0")
        ts = [r[0] for r in tl.of_kind("port") if r[2] == p0]
        span = (ts[-1] - ts[0]) / iv
        # Each worker's skipped intervals count once per worker, not per port.
        assert abs(len(ts) - 1 + st["skipped"] - span) <= 0.01 * span + 2, \
            (name, len(ts), st["skipped"], span)
        lost = sum(tl.values(r)["records"] for r in tl.of_kind("lost"))
        assert lost == st["lost"], (name, lost, st["lost"])
        assert st["records"] == len(tl.records), (name, st["records"], len(tl.records))
        print("%s: %d samples of a port over %.0f intervals (%d skipped), %d records, "
              "%d lost" % (name, len(ts), span, st["skipped"], st["records"], st["lost"]))


def check_rpc(sw, tmp):
    """Limits, the memory window and refusals, on a running switch."""
    def refused(params, path):
        try:
            sw.rpc("timeline.start", params)
        except RpcError as e:
            paths = [x["path"] for x in e.err["data"]["errors"]]
            assert path in paths, (params, paths)
            return
        raise AssertionError("accepted: %s" % params)
    refused({"ports": ["Ethernet9"]}, "$.params.ports[0]")
    refused({"record": ["queues", "bananas"]}, "$.params.record[1]")
    refused({"interval_us": 5}, "$.params.interval_us")
    refused({"file": "relative.tl"}, "$.params.file")
    refused({"file": "/nonexistent/dir/t.tl"}, "$.params.file")
    refused({"colour": "blue"}, "$.params.colour")
    assert not sw.rpc("timeline.status")["running"]

    # One run at a time (a run that lasts until stopped: one with a small size limit may be
    # over before the second start arrives).
    sw.rpc("timeline.start", {"interval_us": 1000})
    try:
        sw.rpc("timeline.start", {})
        raise AssertionError("a second timeline started")
    except RpcError as e:
        assert e.err["code"] == -32004, e.err
    assert sw.rpc("timeline.stop")["stop_reason"] == "rpc"

    # A size limit: the run stops itself, its file holds exactly that many records.
    path = os.path.join(tmp, "small.tl")
    sw.rpc("timeline.start", {"file": path, "max_bytes": 64 * 1000, "interval_us": 10})
    st = wait_until(lambda: (lambda x: not x["running"] and x)(sw.rpc("timeline.status")),
                    what="the timeline to stop at its size")
    assert st["stop_reason"] == "size" and st["records"] == 1000, st
    assert len(lswtimeline.read(path).records) == 1000

    # A duration, into memory; saved while running and after.
    sw.rpc("timeline.start", {"duration_ms": 300, "record": ["ports", "events"]})
    st = wait_until(lambda: (lambda x: not x["running"] and x)(sw.rpc("timeline.status")),
                    what="the timeline to stop at its duration")
    assert st["stop_reason"] == "duration" and st["target"] == "memory", st
    mem = os.path.join(tmp, "mem.tl")
    assert sw.rpc("timeline.save", {"file": mem})["records"] == st["records"]
    t = lswtimeline.read(mem)
    kinds = {t.kind_of(r) for r in t.records}
    assert kinds <= {"port", "config", "pfc_tx", "pfc_rx", "lost"} and "port" in kinds, kinds
    try:
        sw.rpc("timeline.stop")
        raise AssertionError("stopped a timeline that was not running")
    except RpcError as e:
        assert e.err["code"] == -32004, e.err
    print("limits: size stop at %d records, duration stop after %d ms" % (
        1000, st["elapsed_ms"]))


def test_timeline():
    tmp = tmpdir("lsw-timeline-")
    roce_pcap(os.path.join(tmp, "in.pcap"), pfc_lossless.SIZE, FRAMES, "10.9.0.0/16", dscp=3)
    s_cfg, b_cfg = configs(tmp)
    s_tl, b_tl = os.path.join(tmp, "s.tl"), os.path.join(tmp, "b.tl")
    s = Lsw(s_cfg, tmp, "s", ["--timeline", json.dumps({"file": s_tl})])
    b = Lsw(b_cfg, tmp, "b", ["--timeline", json.dumps({"file": b_tl})])
    try:
        b.start()
        s.start()

        def done():
            bo = b.rpc("queue.stats", {"port": "Ethernet4"})["ports"]["Ethernet4"][str(PRIO)]
            so = s.rpc("queue.stats", {"port": "Ethernet4"})["ports"]["Ethernet4"][str(PRIO)]
            return bo["PACKETS"] >= FRAMES and bo["CURR_OCCUPANCY_BYTES"] == 0 and \
                so["CURR_OCCUPANCY_BYTES"] == 0
        wait_until(done, timeout=120, what="every frame through S and B")
        assert b.rpc("timeline.status")["running"]
        s_st, b_st = s.rpc("timeline.stop"), b.rpc("timeline.stop")
        check_files(s_tl, b_tl, s_st, b_st)
        check_rpc(s, tmp)
        s.stop()
        b.stop()
    finally:
        s.kill()
        b.kill()


if __name__ == "__main__":
    run_test(test_timeline)
