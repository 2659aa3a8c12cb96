# SPDX-License-Identifier: BSD-3-Clause
"""The DCQCN fluid model (Zhu, Ghobadi, Misra, Padhye: "ECN or Delay: Lessons Learnt from
Analysis of DCQCN and TIMELY", CoNEXT 2016, equations 1-5), solved by forward Euler: an
independent prediction of each flow's rate, target rate and alpha, and of the queue, for the
same parameters a lab runs with. Rates are in packets per second, the queue in packets, so
that a marking probability per packet applies as the paper writes it.

    dq/dt    = sum_i RC_i - C                                        (q >= 0)
    p(t)     = RED: 0 to kmin, pmax at kmax linearly, 1 above
    dα/dt    = g/τ' [(1 - (1-p')^(τ' RC')) - α]
    dRT/dt   = -(RT - RC)/τ [1 - (1-p')^(τ RC')]
               + R_AI RC' p' (1-p')^(F B) / ((1-p')^-B - 1)
               + R_AI RC' p' (1-p')^(F T RC') / ((1-p')^(-T RC') - 1)
    dRC/dt   = -RC α/(2τ) [1 - (1-p')^(τ RC')]
               + (RT - RC)/2 RC' p' / ((1-p')^-B - 1)
               + (RT - RC)/2 RC' p' / ((1-p')^(-T RC') - 1)

with x' = x(t - τ*) (the feedback delay), τ the CNP interval, τ' the alpha timer, T the
rate timer, B the byte counter in packets, F the fast-recovery stages. Where p' is 0 the
increase terms take their limits (RC'/B byte-counter events a second, 1/T timer events).

The paper's model is for the paper's parameters (τ' = τ, hyper increase never reached). The
NVIDIA and HPCC-simulator sets are far from that, and the paper's equations starve a flow
under them, so three terms are generalised (solve's rhai_pps, clamp; each reduces to the
paper's with the paper's parameters):
  - alpha rises by CNPs, at most one per τ: with an alpha timer shorter than τ (NVIDIA's
    1 µs against 4 µs) only a fraction τ'/τ of the alpha periods can see one, so the
    "marked" term is (τ'/τ)(1 - (1-p')^(τ RC')) there; the paper's when τ' >= τ;
  - an increase event past F stages of both counters without a mark is hyper (R_HAI), one
    past F of one counter additive (R_AI): the probability of each from (1-p')^(stages
    of packets); with no byte counter (the HPCC simulator) the timer's stage F + 1 is
    additive, later ones hyper. Without R_HAI the target of a cut-down flow climbs at
    R_AI alone (50 kb/s per 30 ms event for NVIDIA's set stretched x100) and never
    catches up: the starved flow the paper's equations predicted;
  - without clamping (NVIDIA, the HPCC simulator) a cut sets RT to RC only if an increase
    event came since the last cut: the reset term is weighted by that probability.
"""
import math


def red(q, kmin, kmax, pmax):
    """Marking probability at queue @q (same unit as the thresholds)."""
    if q <= kmin:
        return 0.0
    if q > kmax:
        return 1.0
    return pmax * (q - kmin) / (kmax - kmin)


def _events(rc, p, n):
    """RC p / ((1-p)^-n - 1): the rate of counter events of n packets (or n = T RC)
    without a mark in between; RC / n as p goes to 0."""
    if n <= 0:
        return 0.0
    if p <= 0.0:
        return rc / n
    if p >= 1.0:
        return 0.0
    d = math.expm1(-n * math.log1p(-p))
    return rc * p / d if d > 0 else rc / n


def _none_in(p, n):
    """(1-p)^n: no mark among n packets."""
    if p <= 0.0:
        return 1.0
    if p >= 1.0:
        return 0.0
    return math.exp(n * math.log1p(-p))


def solve(c_pps, starts, dur, kmin, kmax, pmax, g, tau, tau_a, t_rate, b_pkts, f, rai_pps,
          delay=100e-6, dt=10e-6, sample=5e-3, ends=None, rhai_pps=None, clamp=True):
    """Flows i = 0.. start at @starts[i] seconds (at the line rate, alpha 1, as a flow meets
    its first CNP) and stop at @ends[i] (None: run to @dur). Returns {"t": [...], "q": [...],
    "rc": [[...] per flow], "rt": [...], "alpha": [...], "p": [...]} sampled every @sample
    seconds; rates in packets/s, q in packets. @rhai_pps None: the paper's model, without
    hyper increase; @clamp False: RT kept across cuts with no increase between them."""
    n = len(starts)
    ends = ends or [None] * n
    rc, rt, al = [c_pps] * n, [c_pps] * n, [1.0] * n
    q = 0.0
    lag = max(1, int(round(delay / dt)))
    hist_p = [0.0] * lag          # ring of p and each RC, delay steps back
    hist_rc = [[c_pps] * n for _ in range(lag)]
    out = {"t": [], "q": [], "p": [], "rc": [[] for _ in range(n)], "rt": [[] for _ in range(n)],
           "alpha": [[] for _ in range(n)]}
    steps, every = int(dur / dt), max(1, int(round(sample / dt)))
    for k in range(steps):
        t = k * dt
        active = [starts[i] <= t and (ends[i] is None or t < ends[i]) for i in range(n)]
        p = red(q, kmin, kmax, pmax)
        pd, rcd = hist_p[k % lag], hist_rc[k % lag]
        hist_p[k % lag] = p
        hist_rc[k % lag] = list(rc)
        if k % every == 0:
            out["t"].append(t)
            out["q"].append(q)
            out["p"].append(p)
            for i in range(n):
                out["rc"][i].append(rc[i] if active[i] else 0.0)
                out["rt"][i].append(rt[i] if active[i] else 0.0)
                out["alpha"][i].append(al[i] if active[i] else None)
        arrive = 0.0
        for i in range(n):
            if not active[i]:
                continue
            r = rcd[i]
            cnp = 1.0 - _none_in(pd, tau * r)          # a CNP in an interval tau
            if tau_a >= tau:
                mark_a = 1.0 - _none_in(pd, tau_a * r)  # a mark in an alpha period
            else:
                mark_a = tau_a / tau * cnp             # a CNP in it: one per tau at most
            ev_b = _events(r, pd, b_pkts)              # byte-counter events a second
            ev_t = _events(r, pd, t_rate * r)          # timer events a second
            da = g / tau_a * (mark_a - al[i])
            past_b = _none_in(pd, f * b_pkts) if b_pkts else 0.0
            past_t = _none_in(pd, f * t_rate * r)
            if rhai_pps is None:
                hyper = 0.0
            elif b_pkts:
                hyper = _none_in(pd, max(f * b_pkts, f * t_rate * r))
            else:
                hyper = _none_in(pd, (f + 1) * t_rate * r)
            inc = (ev_b * (rai_pps * max(0.0, past_b - hyper) + (rhai_pps or 0) * hyper) +
                   ev_t * (rai_pps * max(0.0, past_t - hyper) + (rhai_pps or 0) * hyper))
            reset = cnp
            if not clamp and cnp > 0:
                # An increase event since the last cut, cuts tau / cnp apart.
                reset *= -math.expm1(-(ev_b + ev_t) * tau / cnp)
            drt = -(rt[i] - rc[i]) / tau * reset + inc
            drc = -rc[i] * al[i] / (2 * tau) * cnp + (rt[i] - rc[i]) / 2 * (ev_b + ev_t)
            al[i] = min(1.0, max(0.0, al[i] + da * dt))
            rt[i] = min(c_pps, max(0.0, rt[i] + drt * dt))
            rc[i] = min(c_pps, max(1e-9, rc[i] + drc * dt))
            arrive += rc[i]
        q = max(0.0, q + (arrive - c_pps) * dt)
        # A flow not yet started waits at the line rate, alpha 1 (its first CNP's state).
        for i in range(n):
            if not active[i]:
                rc[i] = rt[i] = c_pps
                al[i] = 1.0
    return out


def for_lab(conf, line_bps, frame_bytes, wire_bytes, starts, dur, ecn, delay=100e-6,
            ends=None):
    """The model for a lab's DCQCN parameters (@conf: lsw-host's stretched values, as its
    results give them: g, alpha_timer_us, rate_timer_us, byte_counter, fast_recovery,
    rai_bps, rhai_bps, cnp_interval_us, rate_reduce_us, clamp_tgt_rate), a link of
    @line_bps carrying frames of @wire_bytes on the wire (@frame_bytes of it queued), and
    the switch's ECN profile @ecn (kmin, kmax bytes, pmax as a fraction). Rates come back
    in bits/s of wire, the queue in bytes."""
    c_pps = line_bps / 8 / wire_bytes
    # A cut at most once per CNP interval at the receiver and once per rate-reduce period at
    # the sender (NVIDIA's and the simulator's rate_reduce_monitor_period): τ is the longer.
    tau = max(conf["cnp_interval_us"], conf.get("rate_reduce_us") or 0) * 1e-6
    o = solve(c_pps, starts, dur, ecn["kmin"] / frame_bytes, ecn["kmax"] / frame_bytes,
              ecn["pmax"], conf["g"], tau,
              conf["alpha_timer_us"] * 1e-6, conf["rate_timer_us"] * 1e-6,
              conf["byte_counter"] / wire_bytes if conf["byte_counter"] else 0,
              conf["fast_recovery"], conf["rai_bps"] / 8 / wire_bytes, delay=delay, ends=ends,
              rhai_pps=conf["rhai_bps"] / 8 / wire_bytes if "rhai_bps" in conf else None,
              clamp=conf.get("clamp_tgt_rate", True))
    bits = 8 * wire_bytes
    o["rc"] = [[r * bits for r in f] for f in o["rc"]]
    o["rt"] = [[r * bits for r in f] for f in o["rt"]]
    o["q"] = [x * frame_bytes for x in o["q"]]
    return o
