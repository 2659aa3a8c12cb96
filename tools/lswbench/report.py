# SPDX-License-Identifier: BSD-3-Clause
"""lsw-bench's report: the eight sections of the draft's §13 from the tests' records, as
report.json, CSV (kpis.csv and a file per table) and one self-contained index.html (figures
inlined). Rebuilt from report.json alone by `lsw-bench report DIR`."""
import base64
import csv
import html
import json
import os
import statistics

from . import catalog, kpi

DRAFT = "draft-calabria-bmwg-ai-fabric-training-bench-04"
TERMS = "draft-calabria-bmwg-ai-fabric-terminology-05"
DEVIATION = ("Software switch, scaled down: the DUT is one or more lsw processes (DPDK, "
             "net_memif links between processes on one 2-CPU machine), the hosts lsw-host's "
             "emulated RoCEv2 NICs. Link speeds are lab speeds (100 Mb/s to 1 Gb/s) standing "
             "for 100GbE with time stretched by the ratio; durations, counts and fabric sizes "
             "are scaled as each test states. Absolute rates measure this machine as much as "
             "the switch; dimensionless KPIs (efficiency, JFI, MMR, ratios) and the switch's "
             "decisions (drops, pauses, marks) are the comparable figures.")


def sections(meta, tests):
    """The draft's §13 items 1-8 from the tests' records."""
    dut = next((t["dut"] for t in tests if t.get("dut")), {}) or {}
    s1 = {"device": "lsw (lossless Ethernet leaf switch in C on DPDK), software",
          "nos_version": dut.get("version"), "source": meta.get("source"),
          "dpdk": dut.get("dpdk"), "asic": "none (x86 CPU, DPDK poll-mode workers)",
          "worker_lcores": dut.get("workers"),
          "buffer_architecture": dut.get("buffer"), "port_speed": "lab speeds, per test",
          "optics": "none: net_memif shared-memory links",
          "nic": "lsw-host emulated RoCEv2 RC NICs (no firmware)",
          "deviation": DEVIATION}
    s2 = [{"test": t["id"], "fabrics": t["fabrics"]} for t in tests]
    s3 = [{"test": t["id"], "variant": t.get("variant"), "config": t["config"],
           "parameters": t["params"]} for t in tests]
    s4 = [{"test": t["id"], "hosts": t["hosts"]} for t in tests]
    s5 = [{"test": t["id"], "section": t["section"], "title": t["title"], "tag": t["tag"],
           "variant": t.get("variant"), "scaling": t["scaling"], "kpis": t["kpis"],
           "tables": [x["name"] + ".csv" for x in t["tables"]], "figures": t["figures"],
           "checks": t["checks"], "error": t.get("error"), "elapsed_s": t.get("elapsed_s")}
          for t in tests]
    s6 = [{"test": t["id"], "variant": t.get("variant"), "anomaly": a}
          for t in tests for a in t["anomalies"]]
    s6 += [{"test": t["id"], "variant": None, "anomaly": "deviation (%s): %s" % (
        t["tag"], t["why"])} for t in (catalog.BY_ID[x["id"]] for x in tests)
        if t["tag"] == catalog.P]
    s7 = []
    for t in tests:
        for metric, xs in t["repetitions"].items():
            s7.append({"test": t["id"], "variant": t.get("variant"), "metric": metric,
                       "repetitions": len(xs), "mean": statistics.mean(xs),
                       "cv": kpi.cv(xs)})
    s8 = comparability(tests)
    return {"1 DUT identification": s1, "2 Topology": s2, "3 DUT configuration": s3,
            "4 Host configuration": s4, "5 Results": s5, "6 Anomalies and deviations": s6,
            "7 Repeatability": s7, "8 Comparability": s8}


def kpi_key(k):
    return (k["kpi"], k["unit"], k["point"]) + tuple(
        sorted((a, str(b)) for a, b in k.items() if a not in ("kpi", "value", "unit", "point")))


def comparability(tests):
    """Per test run more than once (--compare): each KPI side by side across the variants;
    and the parameters §3.2's Table 4 asks to be equal for a direct comparison."""
    out = {"parameters": [{"test": t["id"], "variant": t.get("variant"),
                           "comparability": t["comparability"]} for t in tests],
           "comparisons": []}
    by_test = {}
    for t in tests:
        by_test.setdefault(t["id"], []).append(t)
    for tid, runs in by_test.items():
        if len(runs) < 2:
            continue
        names = [r.get("variant") or "default" for r in runs]
        keys, rows = [], {}
        for i, r in enumerate(runs):
            for k in r["kpis"]:
                key = kpi_key(k)
                if key not in rows:
                    keys.append(key)
                    rows[key] = [None] * len(runs)
                rows[key][i] = k["value"]
        out["comparisons"].append({
            "test": tid, "variants": names,
            "rows": [[describe(k)] + rows[k] for k in keys]})
    return out


def describe(key):
    name, unit, point = key[:3]
    labels = ", ".join("%s %s" % (a, b) for a, b in key[3:])
    return "%s%s [%s] (%s)" % (name, " " + labels if labels else "", unit, point)


def write(out, meta, tests):
    doc = {"benchmark": DRAFT, "terminology": TERMS, "tool": "lsw-bench", "meta": meta,
           "observation_points": kpi.POINTS, "choices": kpi.CHOICES, "tests": tests,
           "not_implemented": [{"section": t["section"], "tag": t["tag"], "title": t["title"],
                                "why": t["why"]} for t in catalog.TESTS
                               if "run" not in t and "within" not in t]}
    doc["pass"] = all(not t.get("error") and all(c["pass"] for c in t["checks"])
                      for t in tests)
    doc["sections"] = sections(meta, tests)
    with open(os.path.join(out, "report.json"), "w") as f:
        json.dump(doc, f, indent=1)
    render(out, doc)
    return doc


def rebuild(out):
    with open(os.path.join(out, "report.json")) as f:
        doc = json.load(f)
    return write(out, doc["meta"], doc["tests"])


def render(out, doc):
    with open(os.path.join(out, "kpis.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["test", "variant", "kpi", "value", "unit", "observation point", "labels"])
        for t in doc["tests"]:
            for k in t["kpis"]:
                w.writerow([t["id"], t.get("variant") or "", k["kpi"], k["value"], k["unit"],
                            k["point"], "; ".join("%s=%s" % (a, b) for a, b in k.items()
                                                  if a not in ("kpi", "value", "unit",
                                                               "point"))])
    for t in doc["tests"]:
        for tb in t["tables"]:
            with open(os.path.join(out, tb["name"] + ".csv"), "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(tb["header"])
                w.writerows(tb["rows"])
    with open(os.path.join(out, "index.html"), "w") as f:
        f.write(page(out, doc))


def table(header, rows, cls=None):
    e = html.escape
    return "<table>%s%s</table>" % (
        "<tr>%s</tr>" % "".join("<th>%s</th>" % e(str(h)) for h in header),
        "".join("<tr%s>%s</tr>" % (
            " class='%s'" % cls[i] if cls else "",
            "".join("<td>%s</td>" % e(fmt(c)) for c in r)) for i, r in enumerate(rows)))


def fmt(v):
    if v is None:
        return "-"
    if isinstance(v, float):
        return "%.4g" % v
    if isinstance(v, (dict, list)):
        return json.dumps(v)
    return str(v)


def image(out, name):
    try:
        with open(os.path.join(out, name), "rb") as f:
            data = base64.b64encode(f.read()).decode()
    except OSError:
        return "<p>(figure %s missing)</p>" % html.escape(name)
    return "<img src='data:image/png;base64,%s' alt='%s'>" % (data, html.escape(name))


def page(out, doc):
    e = html.escape
    s = doc["sections"]
    m = doc["meta"]
    parts = ["<h1>lsw-bench: %s</h1>" % e(DRAFT),
             "<p>%s. Scale <b>%s</b>; %s; %s s. <b>%s</b>.</p>" % (
                 e(m["command"]), e(m["scale"]), e(m["started"]), m["elapsed_s"],
                 "every test ran and met its expectations" if doc["pass"] else
                 "an anomaly: see section 6"),
             "<p class='dev'>%s</p>" % e(DEVIATION)]
    parts.append("<h2>1 DUT identification</h2>" + table(
        ["field", "value"], [[k, v] for k, v in s["1 DUT identification"].items()]))
    rows = []
    for x in s["2 Topology"]:
        for fab in x["fabrics"]:
            rows.append([x["test"], fab["name"], ", ".join(fab["switches"]),
                         len(fab["hosts"]), "; ".join("%s-%s %d Mb/s" % (
                             ln["a"], ln["b"], ln["speed_mbps"]) for ln in fab["links"]
                             if ":" in ln["b"])])
    parts.append("<h2>2 Topology and cabling</h2><p>Every switch an lsw process, every host "
                 "an lsw-host port; links net_memif. Switch-to-switch links listed (host "
                 "links are one per host at the test's speed).</p>" + table(
                     ["test", "fabric", "switches", "hosts", "inter-switch links"], rows))
    parts.append("<h2>3 DUT configuration</h2>" + table(
        ["test", "variant", "settings", "parameters (draft's, scaled)"],
        [[x["test"], x["variant"], x["config"], x["parameters"]]
         for x in s["3 DUT configuration"]]))
    parts.append("<h2>4 Host configuration</h2>" + table(
        ["test", "hosts"], [[x["test"], x["hosts"]] for x in s["4 Host configuration"]]))
    parts.append("<h2>5 Results</h2><p>Observation points: %s. Choices where the drafts are "
                 "open:</p><ul>%s</ul>" % (
                     "; ".join("<b>%s</b> = %s" % (e(k), e(v))
                               for k, v in doc["observation_points"].items()),
                     "".join("<li>%s</li>" % e(c) for c in doc["choices"])))
    for t in doc["tests"]:
        parts.append("<h3>§%s %s [%s]%s</h3>" % (
            e(t["section"]), e(t["title"]), t["tag"],
            " &mdash; " + e(t["variant"]) if t.get("variant") else ""))
        if t["scaling"]:
            parts.append("<p><i>Scaling:</i> %s</p>" % e("; ".join(t["scaling"])))
        if t.get("error"):
            parts.append("<p class='fail'>Did not complete: %s</p>" % e(t["error"]))
        for tb in t["tables"]:
            parts.append("<h4>%s</h4><p>%s</p>" % (e(tb["title"]), e(tb["about"])) +
                         table(tb["header"], tb["rows"]))
        if t["checks"]:
            parts.append(table(["expectation", "expected", "measured", ""],
                               [[c["name"], c["expected"], c["measured"],
                                 "met" if c["pass"] else "NOT MET"] for c in t["checks"]],
                               ["pass" if c["pass"] else "fail" for c in t["checks"]]))
        parts.append("<details><summary>every KPI with its observation point (%d)</summary>"
                     "%s</details>" % (len(t["kpis"]), table(
                         ["kpi", "value", "unit", "point", "labels"],
                         [[k["kpi"], k["value"], k["unit"], k["point"],
                           ", ".join("%s=%s" % (a, b) for a, b in k.items()
                                     if a not in ("kpi", "value", "unit", "point"))]
                          for k in t["kpis"]])))
        for fig in t["figures"]:
            parts.append("<figure>%s</figure>" % image(out, fig))
    parts.append("<h2>6 Anomalies and deviations</h2>" + table(
        ["test", "variant", "anomaly or deviation"],
        [[x["test"], x["variant"], x["anomaly"]] for x in s["6 Anomalies and deviations"]]))
    parts.append("<h2>7 Repeatability</h2><p>CV = sample σ / mean over the repetitions of "
                 "each primary metric (5 %% is only typical, §13).</p>" + table(
                     ["test", "variant", "metric", "repetitions", "mean", "CV"],
                     [[x["test"], x["variant"], x["metric"], x["repetitions"], x["mean"],
                       x["cv"]] for x in s["7 Repeatability"]]))
    s8 = s["8 Comparability"]
    parts.append("<h2>8 Comparability</h2><p>§3.2 Table 4's parameters per test; where a "
                 "test ran once per variant (--compare), its KPIs side by side.</p>" + table(
                     ["test", "variant", "parameters"],
                     [[x["test"], x["variant"], x["comparability"]]
                      for x in s8["parameters"]]))
    for c in s8["comparisons"]:
        parts.append("<h3>§%s compared</h3>" % e(c["test"]) +
                     table(["KPI"] + c["variants"], c["rows"]))
    parts.append("<h2>Not implemented</h2>" + table(
        ["section", "tag", "test", "why"],
        [[x["section"], x["tag"], x["title"], x["why"]] for x in doc["not_implemented"]]))
    return """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>lsw-bench report</title>
<style>body{font-family:sans-serif;max-width:72em;margin:2em auto;padding:0 1em}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .5em;
text-align:left;font-size:90%%;vertical-align:top}tr.fail,p.fail{background:#fdd}
tr.pass{background:#efe}img{max-width:100%%}p.dev{background:#ffe;padding:.5em}</style>
</head><body>%s</body></html>
""" % "\n".join(parts)


def summary(doc, out):
    print("lsw-bench: %s (%s scale) in %s s: %s" % (
        DRAFT, doc["meta"]["scale"], doc["meta"]["elapsed_s"],
        "PASS" if doc["pass"] else "ANOMALY"))
    for t in doc["tests"]:
        ok = not t.get("error") and all(c["pass"] for c in t["checks"])
        print("  §%-6s [%s] %-44s %s%s" % (t["section"], t["tag"], t["title"][:44],
                                           "ok " if ok else "ANOMALY",
                                           " (%s)" % t["variant"] if t.get("variant") else ""))
        for c in t["checks"]:
            if not c["pass"]:
                print("      not met: %s: expected %s, measured %s" % (
                    c["name"], c["expected"], c["measured"]))
        if t.get("error"):
            print("      " + t["error"].splitlines()[0][:200])
    print("  report: %s" % os.path.join(out, "index.html"))
