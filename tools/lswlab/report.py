# SPDX-License-Identifier: BSD-3-Clause
"""What a lab run leaves in its directory: results.json, CSV time series, PNG plots
(matplotlib's Agg backend) and a self-contained index.html (plots, what to look for in each,
the checks with expected, measured and pass)."""
import csv
import html
import json
import os

import matplotlib

from .common import lswtimeline  # tools/lswtimeline.py, put on the path there

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


class Report:
    def __init__(self, outdir, scenario, quick):
        self.dir, self.scenario, self.quick = outdir, scenario, quick
        self.checks, self.metrics, self.plots, self.notes, self.csvs = [], {}, [], [], []
        self.tables = []
        self.commands = []
        self.fabric = None

    # --- checks and metrics ---------------------------------------------------------------

    def check(self, name, expected, measured, ok, rate=False):
        """@rate: a figure the machine's speed moves (a rate, a goodput, a completion time)
        rather than what the switch decides (drops, pauses, counts). Both decide the run's
        pass; the test suite, on a machine shared with other work, requires only the
        others (tests/integration/lab.py)."""
        self.checks.append({"name": name, "expected": expected, "measured": measured,
                            "pass": bool(ok), "rate": bool(rate)})

    def note(self, text):
        self.notes.append(text)

    # --- data -----------------------------------------------------------------------------

    def csv(self, name, header, rows):
        path = os.path.join(self.dir, name + ".csv")
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(header)
            w.writerows(rows)
        self.csvs.append(name + ".csv")
        return path

    def table(self, name, title, header, rows, about):
        """A table shown in index.html (and kept as NAME.csv); cells as they should read."""
        self.csv(name, header, rows)
        self.tables.append({"title": title, "header": header, "rows": rows, "about": about})

    def lines(self, name, title, xlabel, ylabel, series, about, steps=False, marks=None,
              ylim=None, log="", model_dashed=False, hlines=None):
        """@series: {label: (xs, ys)}; @marks: [(x, label)] drawn as vertical lines; @log:
        the axes drawn on a log scale ("x", "y", "xy"); @model_dashed: series labelled
        "model ..." dashed in the colour of the series they model (same order);
        @hlines: [(y, label)] horizontal reference lines."""
        fig, ax = plt.subplots(figsize=(8, 4))
        if "x" in log:
            ax.set_xscale("log")
        if "y" in log:
            ax.set_yscale("log")
        colour = {}
        for k, (label, (xs, ys)) in enumerate(series.items()):
            model = model_dashed and (label.startswith("model ") or label == "fluid model")
            c = colour.get(label[6:], "black" if label == "fluid model" else None)
            if steps:
                ax.step(xs, ys, where="post", label=label)
            else:
                (ln,) = ax.plot(xs, ys, label=label, color=c,
                                linestyle="--" if model else "-",
                                linewidth=1.2 if model else 1.5,
                                marker="o" if len(xs) < 12 else None)
                colour[label] = ln.get_color()
        self._marks(ax, marks, hlines)
        if ylim:
            ax.set_ylim(*ylim)
        self._finish(fig, ax, name, title, xlabel, ylabel, about, len(series) > 1)

    def rates(self, name, title, series, model, marks, about, line=None, smooth_ms=20):
        """Rates in Mb/s over time (ms): each series' raw samples faint and its moving
        average over @smooth_ms bold, so that a projector shows the trend and the room sees
        the noise; @model {"model LABEL": (xs, ys)} dashed in LABEL's colour; @line, the
        link's rate, as a reference line and the top of the axis."""
        fig, ax = plt.subplots(figsize=(9, 4.5))
        for label, (xs, ys) in series.items():
            step = (xs[1] - xs[0]) if len(xs) > 1 else 1
            k = max(1, int(round(smooth_ms / step)))
            avg = [sum(ys[max(0, i - k + 1):i + 1]) / len(ys[max(0, i - k + 1):i + 1])
                   for i in range(len(ys))]
            (ln,) = ax.plot(xs, ys, linewidth=0.6, alpha=0.25)
            ax.plot(xs, avg, color=ln.get_color(), linewidth=2, label=label)
            m = model.get("model " + label)
            if m:
                ax.plot(m[0], m[1], color=ln.get_color(), linestyle="--", linewidth=1.2,
                        label="model " + label)
        hl = [(line, "line rate")] if line else []
        self._marks(ax, marks, hl)
        if line:
            ax.set_ylim(0, line * 1.08)
        self._finish(fig, ax, name, title, "time (ms)", "Mb/s", about, True)

    @staticmethod
    def _marks(ax, marks, hlines):
        for x, label in marks or []:
            ax.axvline(x, color="gray", linestyle=":", linewidth=1)
            ax.annotate(label, (x, 1), xycoords=("data", "axes fraction"), rotation=90,
                        va="top", ha="right", fontsize=9)
        for y, label in hlines or []:
            ax.axhline(y, color="gray", linestyle="-.", linewidth=0.8)
            ax.annotate(label, (1, y), xycoords=("axes fraction", "data"), va="bottom",
                        ha="right", fontsize=9, color="dimgray")

    def topology(self, fab):
        """Keep the largest fabric a run used; write() draws it (topology.png)."""
        size = len(fab.switches) + len(fab.hosts)
        if self.fabric is None or size > len(self.fabric.switches) + len(self.fabric.hosts):
            self.fabric = fab

    def _draw_topology(self):
        """The fabric as the scenario built it: spines on top, other switches below, each
        host under its switch; every link with its ports and speed."""
        fab = self.fabric
        tiers = [[s for s in fab.switches if s.startswith("spine")],
                 [s for s in fab.switches if not s.startswith("spine")], list(fab.hosts)]
        tiers = [t for t in tiers if t]
        width = max(len(t) for t in tiers)
        pos = {}
        for row, names in enumerate(tiers):
            for i, nm in enumerate(names):
                pos[nm] = ((i + 0.5) * width / len(names), len(tiers) - 1 - row)
        fig, ax = plt.subplots(figsize=(max(6, 1.3 * width), 1.6 * len(tiers) + 0.8))
        for ln in fab.links:
            (x0, y0), (x1, y1) = pos[ln["a"]], pos[ln["b"]]
            ax.plot([x0, x1], [y0, y1], color="gray", linewidth=1, zorder=1)
            for side, (x, y), (xo, yo) in (("a", (x0, y0), (x1, y1)), ("b", (x1, y1), (x0, y0))):
                port = ln.get(side + "_port")
                if port:
                    ax.annotate(port.replace("Ethernet", "Eth"),
                                (x + (xo - x) * 0.22, y + (yo - y) * 0.22), fontsize=7,
                                ha="center", va="center", color="dimgray",
                                bbox={"boxstyle": "round,pad=0.1", "fc": "white", "lw": 0})
        for nm, (x, y) in pos.items():
            sw = fab.is_switch(nm)
            ax.annotate(nm, (x, y), ha="center", va="center", fontsize=10, zorder=2,
                        bbox={"boxstyle": "round,pad=0.4",
                              "fc": "#cfe2f3" if sw else "#fce5cd", "ec": "black"})
        speeds = sorted({ln["speed"] for ln in fab.links})
        ax.set_title("Topology: %d switch%s (lsw), %d host%s (lsw-host), links %s Mb/s" % (
            len(fab.switches), "es" if len(fab.switches) > 1 else "", len(fab.hosts),
            "s" if len(fab.hosts) > 1 else "", "/".join(map(str, speeds))), fontsize=10)
        ax.set_xlim(-0.2, width + 0.2)
        ax.set_ylim(-0.6, len(tiers) - 0.4)
        ax.axis("off")
        fig.tight_layout()
        fig.savefig(os.path.join(self.dir, "topology.png"), dpi=90)
        plt.close(fig)
        self.plots.insert(0, {"file": "topology.png", "title": "Topology",
                              "about": "The switches and hosts this lab starts, each link "
                                       "with its ports (net_memif between processes)."})

    def lanes(self, name, title, lanes, about, t_max):
        """Pause-state lanes: @lanes {label: [(start, end)]}, one row each."""
        fig, ax = plt.subplots(figsize=(8, 0.4 * len(lanes) + 1.5))
        labels = list(lanes)
        for i, label in enumerate(labels):
            ax.broken_barh([(a, b - a) for a, b in lanes[label]], (i - 0.4, 0.8),
                           facecolors="tab:red")
        ax.set_yticks(range(len(labels)), labels=labels)
        ax.set_xlim(0, t_max)
        self._finish(fig, ax, name, title, "time (ms)", "", about, False)

    def bars(self, name, title, groups, about, ylabel):
        """@groups: {group: {bar: value}}: bars side by side per group."""
        fig, ax = plt.subplots(figsize=(8, 4))
        names = list(groups)
        bars = sorted({b for g in groups.values() for b in g})
        width = 0.8 / max(1, len(bars))
        for k, b in enumerate(bars):
            ax.bar([i + k * width for i in range(len(names))],
                   [groups[g].get(b, 0) for g in names], width, label=str(b))
        ax.set_xticks([i + width * (len(bars) - 1) / 2 for i in range(len(names))],
                      labels=names)
        self._finish(fig, ax, name, title, "", ylabel, about, len(bars) > 1)

    def cdf(self, name, title, xlabel, samples, about):
        fig, ax = plt.subplots(figsize=(8, 4))
        for label, xs in samples.items():
            xs = sorted(xs)
            ax.step(xs, [(i + 1) / len(xs) for i in range(len(xs))], where="post",
                    label=label)
        self._finish(fig, ax, name, title, xlabel, "fraction", about, True)

    def timeline(self, name, title, files, about, t0_ns, ports=None, window_ms=None):
        """The switches' timelines (@files {switch: path}) on one axis, in ms from the
        workload's start @t0_ns: queue, PG, pause, mark and rate lanes of @ports
        ("switch:port"; None: all). tools/lswtimeline.py draws it."""
        names = sorted(files)
        tl = lswtimeline.merge([lswtimeline.read(files[n]) for n in names], names)
        tl.header["start_ns"] = t0_ns
        lswtimeline.plot(tl, os.path.join(self.dir, name + ".png"), ports, title, window_ms)
        self.plots.append({"file": name + ".png", "title": title, "about": about})
        return tl

    def _finish(self, fig, ax, name, title, xlabel, ylabel, about, legend):
        ax.set_title(title)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.grid(True, alpha=0.3)
        if legend:
            ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(self.dir, name + ".png"), dpi=90)
        plt.close(fig)
        self.plots.append({"file": name + ".png", "title": title, "about": about})

    # --- the end --------------------------------------------------------------------------

    def passed(self):
        return all(c["pass"] for c in self.checks)

    def write(self, extra):
        if self.fabric is not None:
            self._draw_topology()
        doc = {"scenario": self.scenario["name"], "title": self.scenario.get("title", ""),
               "quick": self.quick, "pass": self.passed(), "checks": self.checks,
               "metrics": self.metrics, "plots": [p["file"] for p in self.plots],
               "csv": self.csvs, "notes": self.notes, "commands": self.commands}
        doc.update(extra)
        with open(os.path.join(self.dir, "results.json"), "w") as f:
            json.dump(doc, f, indent=1)
        with open(os.path.join(self.dir, "commands.sh"), "w") as f:
            f.write("#!/bin/sh\n# The processes of this run, as started (from the source "
                    "tree's root).\n" + "\n".join(self.commands) + "\n")
        self._html(doc)
        self._summary(doc)
        return doc

    def _summary(self, doc):
        """summary.png: the report at a glance, the checks over the first plot."""
        rows = [[c["name"][:60], str(c["expected"])[:26], str(c["measured"])[:26],
                 "pass" if c["pass"] else "FAIL"] for c in self.checks[:14]]
        fig = plt.figure(figsize=(9, 3 + 0.28 * len(rows) + (4 if self.plots else 0)))
        ax = fig.add_axes([0.02, 0.55 if self.plots else 0.05, 0.96,
                           0.4 if self.plots else 0.85])
        ax.axis("off")
        ax.set_title("%s: %s" % (doc["scenario"], "every check passed" if doc["pass"] else
                                 "a check failed"), loc="left")
        if rows:
            t = ax.table(cellText=rows, colLabels=["check", "expected", "measured", ""],
                         loc="upper left", cellLoc="left", colWidths=[0.55, 0.18, 0.18, 0.07])
            t.auto_set_font_size(False)
            t.set_fontsize(7)
            for i, c in enumerate(self.checks[:14], 1):
                for j in range(4):
                    t[i, j].set_facecolor("#e8f5e8" if c["pass"] else "#fbdada")
        data = [p for p in self.plots if p["file"] != "topology.png"] or self.plots
        if data:
            img = plt.imread(os.path.join(self.dir, data[0]["file"]))
            ax2 = fig.add_axes([0.02, 0.02, 0.96, 0.5])
            ax2.imshow(img)
            ax2.axis("off")
        fig.savefig(os.path.join(self.dir, "summary.png"), dpi=90)
        plt.close(fig)

    def _html(self, doc):
        e = html.escape
        rows = "".join(
            "<tr class='%s'><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>" % (
                "pass" if c["pass"] else "fail", e(c["name"]), e(str(c["expected"])),
                e(str(c["measured"])), "pass" if c["pass"] else "FAIL")
            for c in self.checks)
        plots = "".join(
            "<figure><img src='%s' alt='%s'><figcaption><b>%s.</b> %s</figcaption></figure>" % (
                e(p["file"]), e(p["title"]), e(p["title"]), e(p["about"]))
            for p in self.plots)
        notes = "".join("<p>%s</p>" % e(n) for n in self.notes)
        tables = "".join(
            "<h2>%s</h2><p>%s</p><table><tr>%s</tr>%s</table>" % (
                e(t["title"]), e(t["about"]), "".join("<th>%s</th>" % e(h) for h in t["header"]),
                "".join("<tr>%s</tr>" % "".join("<td>%s</td>" % e(str(c)) for c in r)
                        for r in t["rows"]))
            for t in self.tables)
        files = " ".join("<a href='%s'>%s</a>" % (e(f), e(f)) for f in
                         ["results.json", "commands.sh", "scenario.json"] + self.csvs)
        page = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>%(title)s</title>
<style>body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}
tr.fail{background:#fdd}tr.pass{background:#efe}img{max-width:100%%}
figure{margin:1.5em 0}figcaption{margin-top:.4em}</style></head>
<body><h1>%(title)s</h1><p>Scenario <code>%(name)s</code>%(quick)s: <b>%(verdict)s</b>.</p>
%(about)s%(notes)s
<h2>Checks against theory</h2>
<table><tr><th>check</th><th>expected</th><th>measured</th><th></th></tr>%(rows)s</table>
%(tables)s<h2>Plots</h2>%(plots)s
<h2>Files</h2><p>%(files)s</p></body></html>
""" % {"title": e(doc["title"] or doc["scenario"]), "name": e(doc["scenario"]),
       "quick": " (quick run)" if self.quick else "",
       "verdict": "every check passed" if doc["pass"] else "a check failed",
       "about": "<p>%s</p>" % e(self.scenario.get("about", "")), "notes": notes,
       "rows": rows, "tables": tables, "plots": plots, "files": files}
        with open(os.path.join(self.dir, "index.html"), "w") as f:
            f.write(page)
