#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Read lsw timeline files (timeline.start's output), without lsw: records, CSV, a plot.

The format: a line "LSWTIMELINE 1", a line of JSON (the header: ports, interval, what was
recorded, and each record kind's name and fields), then 64-byte little-endian records
(struct lsw_tl_rec: u64 time in Unix ns, u8 kind, u8 port, u8 index, u8 flags, u32 v0,
6 x u64 v). Records are in time order per worker, not across workers: read() sorts them.

    python3 tools/lswtimeline.py csv FILE [--kind queue] [-o OUT.csv]
    python3 tools/lswtimeline.py plot FILE... [-o OUT.png] [--port NAME ...]
"""
import argparse
import csv
import json
import os
import struct
import sys

MAGIC = b"LSWTIMELINE 1\n"
REC = struct.Struct("<QBBBBI6Q")
NONE = 0xFF


class Timeline:
    """A timeline file: its header and its records, sorted by time."""

    def __init__(self, header, records):
        self.header = header
        self.records = records
        self.kinds = [k["name"] for k in header["kinds"]]
        self.fields = {k["name"]: k["fields"] for k in header["kinds"]}
        self.ports = header["ports"]

    def port_name(self, p):
        return self.ports[p] if p != NONE and p < len(self.ports) else ""

    def kind_of(self, r):
        return self.kinds[r[1]] if r[1] < len(self.kinds) else "unknown"

    def values(self, r):
        """{field: value} of record @r, the fields its kind names ("-" left out)."""
        vals = (r[5],) + tuple(r[6:12])
        return {f: v for f, v in zip(self.fields.get(self.kind_of(r), ()), vals) if f != "-"}

    def of_kind(self, kind):
        k = self.kinds.index(kind)
        return [r for r in self.records if r[1] == k]


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(MAGIC):
        raise ValueError("%s: not an lsw timeline (no LSWTIMELINE 1 line)" % path)
    end = data.index(b"\n", len(MAGIC))
    header = json.loads(data[len(MAGIC):end])
    if header.get("record_size") != REC.size:
        raise ValueError("%s: records of %s bytes, this reader knows %d" %
                         (path, header.get("record_size"), REC.size))
    body = data[end + 1:]
    body = body[:len(body) - len(body) % REC.size]  # a run cut off mid-record
    # Stable: records of one time keep the order their worker wrote them in.
    records = sorted(REC.iter_unpack(body), key=lambda r: r[0])
    return Timeline(header, records)


def merge(timelines, names):
    """One timeline of several switches' (their ports named NAME:PORT), on one time axis
    from the earliest start: what happens between two switches, on one plot."""
    kinds = []
    for tl in timelines:
        kinds += [k for k in tl.header["kinds"] if k["name"] not in [x["name"] for x in kinds]]
    index = {k["name"]: i for i, k in enumerate(kinds)}
    ports, records, speeds = [], [], []
    for tl, name in zip(timelines, names):
        base = len(ports)
        ports += ["%s:%s" % (name, p) for p in tl.ports]
        speeds += tl.header.get("speed_mbps", [0] * len(tl.ports))
        for r in tl.records:
            port = r[2] if r[2] == NONE else r[2] + base
            records.append((r[0], index[tl.kind_of(r)], port) + r[3:])
    if len(ports) >= NONE:
        raise ValueError("too many ports to merge")
    h = dict(timelines[0].header)
    h.update(kinds=kinds, ports=ports, speed_mbps=speeds,
             start_ns=min(t.header["start_ns"] for t in timelines),
             interval_ns=min(t.header["interval_ns"] for t in timelines))
    return Timeline(h, sorted(records, key=lambda r: r[0]))


def read_many(paths):
    """One file's timeline, or several merged, each switch named by its file's name."""
    if len(paths) == 1:
        return read(paths[0])
    names = [os.path.splitext(os.path.basename(p))[0] for p in paths]
    return merge([read(p) for p in paths], names)


def write_csv(tl, out, kind=None):
    """Long format (time_ns,kind,port,index,field,value), or with @kind one row per record
    of that kind with a column per field."""
    w = csv.writer(out)
    if kind is None:
        w.writerow(["time_ns", "kind", "port", "index", "field", "value"])
        for r in tl.records:
            idx = "" if r[3] == NONE else r[3]
            for f, v in tl.values(r).items():
                w.writerow([r[0], tl.kind_of(r), tl.port_name(r[2]), idx, f, v])
        return
    if kind not in tl.kinds:
        raise ValueError("no record kind %r (kinds: %s)" % (kind, ", ".join(tl.kinds)))
    names = [f for f in tl.fields[kind] if f != "-"]
    w.writerow(["time_ns", "port", "index"] + names)
    for r in tl.of_kind(kind):
        v = tl.values(r)
        w.writerow([r[0], tl.port_name(r[2]), "" if r[3] == NONE else r[3]] +
                   [v[n] for n in names])


def _series(tl, kind, key, field, ports):
    """{key(r): ([t], [v])} of @field in records of @kind on @ports."""
    out = {}
    t0 = tl.header["start_ns"]
    for r in tl.of_kind(kind):
        if ports and tl.port_name(r[2]) not in ports:
            continue
        ts, vs = out.setdefault(key(r), ([], []))
        ts.append((r[0] - t0) / 1e6)
        vs.append(tl.values(r)[field])
    return out


def _pause_spans(tl, field, ports):
    """{(port, prio): [(start_ms, length_ms)]} of pauses: from the PFC events when they were
    recorded (exact: an XOFF holds for its quanta at the port's speed unless refreshed or
    ended by an XON), else from the PORT samples' pause bits."""
    t0 = tl.header["start_ns"]
    speeds = tl.header.get("speed_mbps")
    kind = "pfc_rx" if field == "paused_by_peer" else "pfc_tx"
    spans = {}
    if "pfc_tx" in tl.kinds and speeds:
        cur = {}
        for r in tl.of_kind(kind):
            name = tl.port_name(r[2])
            if ports and name not in ports:
                continue
            key, t, q = (name, r[3]), (r[0] - t0) / 1e6, tl.values(r)["quanta"]
            lst = spans.setdefault(key, [])
            c = cur.get(key)
            if c and t >= c[1]:  # it ran out before this frame
                lst.append((c[0], c[1] - c[0]))
                c = None
            if q and speeds[r[2]]:  # XOFF: starts a pause, or renews the running one
                c = (c[0] if c else t, t + q * 512 / (speeds[r[2]] * 1e3))
            elif c:  # XON
                lst.append((c[0], t - c[0]))
                c = None
            cur[key] = c
        for key, c in cur.items():
            if c:
                spans[key].append((c[0], c[1] - c[0]))
        return {k: v for k, v in spans.items() if v}
    step = tl.header["interval_ns"] / 1e6
    for r in tl.of_kind("port"):
        name = tl.port_name(r[2])
        if ports and name not in ports:
            continue
        bits = tl.values(r)[field]
        t = (r[0] - t0) / 1e6
        for prio in range(8):
            if bits >> prio & 1:
                lst = spans.setdefault((name, prio), [])
                if lst and abs(lst[-1][0] + lst[-1][1] - t) <= 1.5 * step:
                    lst[-1] = (lst[-1][0], t + step - lst[-1][0])
                else:
                    lst.append((t, step))
    return spans


def _steps(ax, s, scale, style, label, step_ms):
    """Samples as steps (a value holds until the next sample), broken where many samples
    in a row are missing (a worker that slept or was preempted), so that a long gap is
    not drawn as if it had been seen."""
    xs, ys = [], []
    for i, (t, v) in enumerate(zip(*s)):
        if i and t - s[0][i - 1] > max(10 * step_ms, 1.0):
            xs.append(s[0][i - 1] + step_ms)
            ys.append(float("nan"))
        xs.append(t)
        ys.append(v * scale)
    ax.plot(xs, ys, style, drawstyle="steps-post", label=label)


def active_window(tl, ports=None):
    """(first, last) ms from the start where anything happened on @ports: a queue or PG
    not empty, a pause, a packet, an event; None if nothing did."""
    t0 = tl.header["start_ns"]
    ts = []
    for r in tl.records:
        if ports and r[2] != NONE and tl.port_name(r[2]) not in ports:
            continue
        kind = tl.kind_of(r)
        if kind in ("pool", "ecmp", "config", "lost"):
            continue
        if kind in ("queue", "pg", "port") and not any(tl.values(r).values()):
            continue
        ts.append((r[0] - t0) / 1e6)
    return (min(ts), max(ts)) if ts else None


MARKS_MAX = 150  # PFC frames in a lane beyond which they are counted, not marked


def plot(tl, out, ports=None, title=None, window=None):
    """Lanes on one time axis (ms from the start): queues, PGs, pauses with the PFC frames,
    ECN marks and drops, port rates. Written to @out (PNG, SVG or PDF by its name). The
    axis covers @window (start_ms, end_ms), by default where something happened."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(5, 1, figsize=(12, 13), sharex=True,
                           gridspec_kw={"height_ratios": [3, 2, 2, 2, 2]})
    busy = lambda s: any(v for v in s[1])  # noqa: E731
    step = tl.header["interval_ns"] / 1e6

    q = _series(tl, "queue", lambda r: (tl.port_name(r[2]), r[3]), "bytes", ports)
    for (p, i), s in sorted(q.items()):
        if busy(s):
            _steps(ax[0], s, 1 / 1024, "-", "%s q%d" % (p, i), step)
    ax[0].set_ylabel("queued (KiB)")

    for part, style in (("shared", "-"), ("headroom", "--")):
        g = _series(tl, "pg", lambda r: (tl.port_name(r[2]), r[3]), part, ports)
        for (p, i), s in sorted(g.items()):
            if busy(s):
                _steps(ax[1], s, 1 / 1024, style, "%s pg%d %s" % (p, i, part), step)
    ax[1].set_ylabel("PG use (KiB)")

    lanes = []
    for field, color in (("paused_by_peer", "tab:red"), ("pausing_peer", "tab:blue")):
        for (p, prio), spans in sorted(_pause_spans(tl, field, ports).items()):
            y = len(lanes)
            lanes.append("%s p%d %s" % (p, prio, "paused" if field == "paused_by_peer"
                                         else "pausing"))
            ax[2].broken_barh(spans, (y - 0.35, 0.7), color=color, alpha=0.6)
    t0 = tl.header["start_ns"]
    # A mark per PFC frame, unless a lane has so many that the marks would merge into one
    # block over its bar: then its frames are counted in its label instead.
    frames = {}
    for kind, marker in (("pfc_tx", "v"), ("pfc_rx", "^")):
        for r in tl.of_kind(kind):
            name = tl.port_name(r[2])
            if ports and name not in ports:
                continue
            lane = "%s p%d %s" % (name, r[3], "pausing" if kind == "pfc_tx" else "paused")
            frames.setdefault(lane, []).append((r, marker))
    for lane, rs in frames.items():
        if lane not in lanes:
            lanes.append(lane)
        if len(rs) > MARKS_MAX:
            continue
        for r, marker in rs:
            xoff = tl.values(r)["quanta"] != 0
            ax[2].plot((r[0] - t0) / 1e6, lanes.index(lane), marker,
                       color="black" if xoff else "green", markersize=5)
    # Packet trimming: a lane per trim queue, a mark per trim (x taken, red x refused).
    for r in tl.of_kind("trim") if "trim" in tl.kinds else ():
        name = tl.port_name(r[2])
        if ports and name not in ports:
            continue
        lane = "%s q%d trims" % (name, r[3])
        if lane not in lanes:
            lanes.append(lane)
        ax[2].plot((r[0] - t0) / 1e6, lanes.index(lane), "x", markersize=4,
                   color="red" if tl.values(r)["dropped"] else "purple")
    ax[2].set_yticks(range(len(lanes)))
    ax[2].set_yticklabels(["%s (%d frames)" % (ln, len(frames[ln]))
                           if len(frames.get(ln, ())) > MARKS_MAX else ln for ln in lanes],
                          fontsize=7)
    ax[2].set_ylabel("PFC (v sent, ^ received;\nblack XOFF, green XON);\ntrims (x; red: refused)")

    for field, style in (("ecn_marked", "-"), ("dropped", ":")):
        m = _series(tl, "queue", lambda r: (tl.port_name(r[2]), r[3]), field, ports)
        for (p, i), s in sorted(m.items()):
            if busy(s):
                _steps(ax[3], s, 1, style, "%s q%d %s" % (p, i, field), step)
    ax[3].set_ylabel("packets / interval")

    iv = tl.header["interval_ns"]
    for field, style in (("rx_bytes", "-"), ("tx_bytes", "--")):
        r_ = _series(tl, "port", lambda r: tl.port_name(r[2]), field, ports)
        for p, s in sorted(r_.items()):
            if busy(s):
                # Bytes since the previous sample, over the time since (skipped
                # intervals make it longer than one), drawn over that time.
                ts, vs = s
                rate = ([ts[i - 1] for i in range(1, len(ts))],
                        [vs[i] / ((ts[i] - ts[i - 1]) * 1e6) for i in range(1, len(ts))])
                _steps(ax[4], rate, 8, style, "%s %s" % (p, field[:2]), step)
    ax[4].set_ylabel("Gb/s")
    # Say so rather than leave an empty panel.
    for a, what in ((ax[0], "no queue held a byte"), (ax[1], "no PG held a byte"),
                    (ax[2], "no pause and no PFC frame"),
                    (ax[3], "no ECN mark and no drop"), (ax[4], "no traffic")):
        if not a.lines and not a.collections:
            a.text(0.5, 0.5, what + " in this window", transform=a.transAxes,
                   ha="center", va="center", color="grey")
    ax[4].set_xlabel("time since the timeline started (ms); samples every %g us" % (iv / 1e3))

    if window is None:
        w = active_window(tl, ports)
        if w is not None:
            pad = max((w[1] - w[0]) * 0.05, 0.5)
            window = (w[0] - pad, w[1] + pad)
    if window is not None:
        ax[4].set_xlim(*window)
    for a in ax:
        if a.get_legend_handles_labels()[0]:
            a.legend(fontsize=7, loc="upper right", ncol=2)
        a.grid(alpha=0.3)
    fig.suptitle(title or "lsw timeline")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("csv", help="the records as CSV")
    c.add_argument("file")
    c.add_argument("--kind", help="one kind, a column per field (queue, pg, port, ...)")
    c.add_argument("-o", "--output", help="default: standard output")
    p = sub.add_parser("plot", help="queue, PG, pause, mark and rate lanes on one time axis")
    p.add_argument("file", nargs="+", help="one switch's timeline, or several (on one axis, "
                   "their ports named FILE:PORT)")
    p.add_argument("-o", "--output", help="default: FILE.png")
    p.add_argument("--port", action="append", help="only these ports (repeatable)")
    p.add_argument("--window", nargs=2, type=float, metavar=("START_MS", "END_MS"),
                   help="the time axis (default: where something happened)")
    a = ap.parse_args(argv)
    try:
        if a.cmd == "csv":
            tl = read(a.file)
            if a.output:
                with open(a.output, "w", newline="") as f:
                    write_csv(tl, f, a.kind)
            else:
                write_csv(tl, sys.stdout, a.kind)
        else:
            out = a.output or a.file[0] + ".png"
            plot(read_many(a.file), out, a.port, window=a.window)
            print(out)
    except (OSError, ValueError) as e:
        print("lswtimeline: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
