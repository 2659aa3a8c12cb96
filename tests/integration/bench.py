#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""lsw-bench as CI runs it: every [E] test of the draft at --scale quick (tools/lsw-bench
run all --tag E), through real lsw fabrics and lsw-host. Each test must complete and meet
its stated expectations (zero loss with PFC, marks only above kmin, ...); the report must
hold the draft's eight sections, every KPI with its observation point, a CSV per table
and a self-contained index.html (every figure inlined). A broken expectation, PFC turned
off in 7.2, must show as loss and make the run exit 1. Nothing may be left behind.

Usage: bench.py"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from lab import Page, leftovers  # noqa: E402
from lswtest import SOURCE, run_test, tmpdir  # noqa: E402

BENCH = os.path.join(SOURCE, "tools", "lsw-bench")
SECTIONS = ["1 DUT identification", "2 Topology", "3 DUT configuration",
            "4 Host configuration", "5 Results", "6 Anomalies and deviations",
            "7 Repeatability", "8 Comparability"]
POINTS = {"tester", "DUT-reported", "endpoint"}
PARTIAL = ["7.4d"]


def bench(*args):
    return subprocess.run([BENCH, *args], capture_output=True, text=True, timeout=600)


def check_report(out):
    with open(os.path.join(out, "report.json")) as f:
        doc = json.load(f)
    assert list(doc["sections"]) == SECTIONS, list(doc["sections"])
    assert doc["sections"]["1 DUT identification"]["nos_version"], doc["sections"]
    assert "scaled down" in doc["sections"]["1 DUT identification"]["deviation"]
    for t in doc["tests"]:
        assert t["kpis"] and t["scaling"], t["id"]
        for k in t["kpis"]:
            assert k["point"] in POINTS and "unit" in k, k
        for tb in t["tables"]:
            assert os.path.exists(os.path.join(out, tb["name"] + ".csv")), tb["name"]
    assert os.path.exists(os.path.join(out, "kpis.csv"))
    page = Page()
    with open(os.path.join(out, "index.html")) as f:
        text = f.read()
    page.feed(text)
    assert not page.errors and not page.stack, (page.errors, page.stack)
    assert page.images and all(i.startswith("data:image/png;base64,") for i in page.images)
    return doc


def test_bench():
    tmp = tmpdir("benchtest-")
    procs0, dirs0 = leftovers()
    out = os.path.join(tmp, "quick")
    r = bench("run", "all", "--tag", "E", "--scale", "quick", "--out", out)
    doc = check_report(out)
    assert r.returncode == 0 and doc["pass"], r.stdout + r.stderr
    ran = {t["id"] for t in doc["tests"]}
    assert ran >= {"5.1", "5.3", "7.1", "7.2", "7.3", "8.2", "8.3"}, ran
    print(r.stdout)
    # [P] tests that nothing else covers: 7.4's deadlock cycle on a ring of three lsw.
    out = os.path.join(tmp, "partial")
    r = bench("run", ",".join(PARTIAL), "--scale", "quick", "--out", out)
    doc = check_report(out)
    assert r.returncode == 0 and doc["pass"], r.stdout + r.stderr
    print(r.stdout)
    # PFC off in 7.2: the lossless class drops, and the report says so.
    bad = os.path.join(tmp, "pfc-off")
    r = bench("run", "7.2", "--scale", "quick", "--set", "pfc=false", "--set", "n=[4]",
              "--out", bad)
    doc = check_report(bad)
    assert r.returncode == 1 and not doc["pass"], r.stdout
    drops = [k["value"] for k in doc["tests"][0]["kpis"] if k["kpi"] == "DUT drops"]
    assert drops and drops[0] > 0, doc["tests"][0]["kpis"]
    assert any("zero packet loss" in a["anomaly"] for a in
               doc["sections"]["6 Anomalies and deviations"]), doc["sections"]
    r2 = bench("report", bad)
    assert r2.returncode == 1 and "ANOMALY" in r2.stdout, r2.stdout
    procs, dirs = leftovers()
    assert not procs - procs0 and not dirs - dirs0, (procs - procs0, dirs - dirs0)
    # Bad arguments: a clear message, exit 2, nothing run.
    for args in (["run", "nosuch"], ["run", "6.1"], ["run", "7.1", "--set", "nosuch=1"],
                 ["run", "7.1", "--set", "novalue"], ["run", "7.1", "--fabric", "ring"]):
        r = bench(*args)
        assert r.returncode == 2 and "lsw-bench:" in r.stderr, (args, r.returncode, r.stderr)
    r = bench("list")
    assert r.returncode == 0 and "[N]" in r.stdout and "12.2" in r.stdout, r.stdout


if __name__ == "__main__":
    run_test(test_bench)
