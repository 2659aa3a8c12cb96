# SPDX-License-Identifier: BSD-3-Clause
"""§6.5(b) packet trimming, before and after: lsw-lab's trimming scenario's 2:1 bottleneck
(lswlab.trimming.bmwg_6_5b: two senders into one receiver's lossy queue, no congestion
control), once with trimming off (the switch drops, go-back-N) and once on (the switch
trims, the trim-aware hosts NACK each trim and resend that packet alone), repeated."""
import json
import os

from lswlab import trimming

from . import kpi
from .base import LABS, stretch


def t6_5b(ctx):
    p = ctx.p
    with open(os.path.join(LABS, "trimming.json")) as f:
        sc = json.load(f)
    speed, mtu = p["speed"], p["mtu"]
    ctx.scaling("%d Mb/s links (time x%.0f), 2:1 (two senders at line rate into one), %s per "
                "sender, the receiver's queue %s, %d repetitions; the timeout %d ms" % (
                    speed, stretch(speed), p["size"], sc["queue_limit"], p["repetitions"],
                    sc["rto_us"] / 1000))
    ctx.config("trimming", dict(sc["trimming"], queue_limit=sc["queue_limit"],
                                trim_queue=sc["trim_queue_limit"] + ", strict"))
    ctx.config("UET/host state (§13 item 4)", "software-emulated trimming (lsw) and "
               "trim-aware RoCE hosts (lsw-host: a NACK per trim, selective resend); "
               "before: trimming off, go-back-N")
    ctx.config("congestion onset", "the switch's first refusal on the receiver's queue (its "
               "timeline: a trim or a drop), to the hosts' first NAK or timeout; one clock "
               "(one machine), so the two observation points share a time base")
    ctx.r["fabrics"].append({"name": "trimming 6.5(b) (lsw-lab)", "switches": ["leaf"],
                             "hosts": ["h0", "h1", "h2"],
                             "links": [{"a": "leaf", "b": h, "speed_mbps": speed}
                                       for h in ("h0", "h1", "h2")]})
    exp = sc["expect"]
    rows = []
    for i in range(p["repetitions"]):
        bm = {on: trimming.bmwg_6_5b(ctx.rundir, speed, mtu, p["size"], on, sc)
              for on in (False, True)}
        d, t = bm[False], bm[True]
        saved = t["goodput_fraction"] - d["goodput_fraction"]
        for r in (d, t):
            lbl = {"mode": r["mode"], "repetition": i + 1}
            ctx.kpi("congestion onset to first retransmission request",
                    None if r["first_overflow_to_request_ms"] is None else
                    round(r["first_overflow_to_request_ms"], 3), "ms", kpi.TESTER, **lbl)
            ctx.kpi("goodput of the bottleneck", round(100 * r["goodput_fraction"], 2),
                    "% of line", kpi.TESTER, **lbl)
            ctx.kpi("bytes resent", r["bytes_resent"], "bytes", kpi.TESTER, **lbl)
            ctx.kpi("retransmission timeouts", r["timeouts"], "", kpi.TESTER, **lbl)
            ctx.kpi("DUT drops", r["drops"], "packets", kpi.DUT, **lbl)
            ctx.kpi("trims sent", r["trims_sent"], "packets", kpi.DUT, **lbl)
            ctx.repetition("goodput " + r["mode"], r["goodput_fraction"])
            rows.append([i + 1, r["mode"], None if r["first_overflow_to_request_ms"] is None
                         else round(r["first_overflow_to_request_ms"], 3),
                         round(r["goodput_fraction"], 3), r["bytes_resent"], r["timeouts"],
                         r["drops"], r["trims_sent"], r["trims_dropped"],
                         "%d/%d" % (r["messages_done"], r["messages"])])
        ctx.kpi("bandwidth saved vs drops", round(100 * saved, 1), "% of the bottleneck",
                kpi.TESTER, repetition=i + 1)
        ctx.repetition("bandwidth saved", saved)
        ctx.check("6.5(b) #%d: trim: every message completes" % (i + 1), t["messages"],
                  t["messages_done"], t["messages_done"] == t["messages"])
        ctx.check("6.5(b) #%d: drop: every message completes or its QP gave up, none hung"
                  % (i + 1), 0, d["messages_unaccounted"], d["messages_unaccounted"] == 0)
        ctx.check("6.5(b) #%d: bandwidth saved vs drops (goodput, trim - drop)" % (i + 1),
                  ">= %g" % exp["bmwg_saved_min"], round(saved, 3),
                  saved >= exp["bmwg_saved_min"])
        a, b = t["first_overflow_to_request_ms"], d["first_overflow_to_request_ms"]
        ctx.check("6.5(b) #%d: onset to first retransmission request, trim against drop" % (
            i + 1), "trim < %.1f x drop's" % exp["request_ratio"], "%s vs %s ms" % (a, b),
            a is not None and b is not None and a < exp["request_ratio"] * b)
    ctx.table("trimming", "6.5(b) trimming on a 2:1 bottleneck, before (drop) and after "
              "(trim), software emulated",
              ["repetition", "mode", "onset to request ms", "goodput (of line)",
               "bytes resent", "timeouts", "DUT drops", "trims sent", "trims dropped",
               "messages done"], rows,
              "Onset: the switch's first refusal on the receiver's queue (lsw's timeline); "
              "request: the hosts' first NAK or timeout (lsw-host). With trimming the loss "
              "is known within a round trip (the trim jumps the queue on a strict one) and "
              "only the trimmed packet is resent; with drops go-back-N resends what followed "
              "too, and a lost tail waits for the timeout.")
    modes = {}
    for r in rows:
        modes.setdefault(r[1], []).append(r[3])
    ctx.figure("bars", "goodput", "6.5(b) goodput of the bottleneck, drop vs trim",
               {"repetition %d" % (i + 1): {m: 100 * v[i] for m, v in modes.items()}
                for i in range(p["repetitions"])},
               "The bottleneck's payload rate as a share of its line: what trimming saves.",
               "% of line")
