/* SPDX-License-Identifier: BSD-3-Clause */
/* The results of a run as one JSON document (README, "lsw-host": results). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "jsonv.h"
#include "results.h"

static int
dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* count, mean, p50, p99, max of @n values (sorted in place). */
static json_t *
summary(double *v, size_t n)
{
	double sum = 0;

	if (n == 0)
		return json_pack("{s:i}", "count", 0);
	qsort(v, n, sizeof(*v), dcmp);
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	return json_pack("{s:I, s:f, s:f, s:f, s:f}", "count", (json_int_t)n, "mean", sum / n,
			 "p50", v[(n - 1) / 2], "p99", v[(size_t)ceil(0.99 * n) - 1], "max",
			 v[n - 1]);
}

static json_t *
host_json(const struct lsw_hosts *e, const struct lsw_host *h, uint64_t elapsed)
{
	json_t *ctr = json_object(), *port = json_object(), *drops = json_object();
	char ip[20], gw[20], mac[24], name[48];

	for (int i = 0; i < LSW_HC_MAX; i++)
		json_object_set_new(ctr, lsw_host_ctr_names[i],
				    json_integer((json_int_t)h->ctr[i]));
	json_object_set_new(port, "tx_packets", json_integer((json_int_t)h->ps.tx_packets));
	json_object_set_new(port, "tx_bytes", json_integer((json_int_t)h->ps.tx_bytes));
	json_object_set_new(port, "rx_packets", json_integer((json_int_t)h->ps.rx_packets));
	json_object_set_new(port, "rx_bytes", json_integer((json_int_t)h->ps.rx_bytes));
	for (int p = 0; p < 8; p++) {
		/* ethtool's mlx5 names; durations in microseconds as mlx5 counts them. */
		snprintf(name, sizeof(name), "rx_prio%d_pause", p);
		json_object_set_new(port, name, json_integer((json_int_t)h->ps.rx_pause[p]));
		snprintf(name, sizeof(name), "tx_prio%d_pause", p);
		json_object_set_new(port, name, json_integer((json_int_t)h->ps.tx_pause[p]));
		snprintf(name, sizeof(name), "rx_prio%d_pause_duration", p);
		json_object_set_new(port, name,
				    json_integer((json_int_t)(h->ps.rx_pause_ns[p] / 1000)));
		snprintf(name, sizeof(name), "tx_prio%d_pause_duration", p);
		json_object_set_new(port, name,
				    json_integer((json_int_t)(h->ps.tx_pause_ns[p] / 1000)));
	}
	for (int d = 1; d < LSW_DROP_MAX; d++)
		if (h->ps.rx_drop[d])
			json_object_set_new(drops, lsw_drop_name(d),
					    json_integer((json_int_t)h->ps.rx_drop[d]));
	lsw_fmt_ipv4(ip, sizeof(ip), h->c.ip);
	lsw_fmt_ipv4(gw, sizeof(gw), h->c.gw);
	lsw_fmt_mac(mac, sizeof(mac), &h->c.mac);
	/* Goodput: RoCE payload accepted in order by this host's responders, over the time
	 * from the first such packet to the last (not the run's, which has idle ends). */
	uint64_t payload = 0, active = h->rx_last - h->rx_first;
	for (uint32_t i = 0; i < e->n_qps; i++)
		if (e->qp[i].dst == h->idx)
			payload += e->qp[i].st.rx_bytes;
	(void)elapsed;
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:s, s:o, s:o, s:o, s:I, s:f}",
			 "port", h->c.port, "mac", mac, "ip", ip, "gateway", gw,
			 "speed_bps", (json_int_t)h->c.speed_bps, "mtu", (json_int_t)h->c.mtu,
			 "cc", h->c.cc == LSW_CC_NONE ? "none" : "dcqcn", "counters", ctr,
			 "port_counters", port, "rx_drops", drops, "rx_payload_bytes",
			 (json_int_t)payload, "goodput_bps",
			 active ? (double)payload * 8e9 / (double)active : 0.0);
	if (o == NULL)
		return NULL;
	/* How soon a loss was asked for again: the first NAK this host sent (any kind) and
	 * its first timeout, in microseconds of the workload (start_unix_ns is its 0). */
	json_object_set_new(o, "first_nak_us", h->first_nak_ns ? json_real(
			    (double)(h->first_nak_ns - e->start_ns) / 1000) : json_null());
	json_object_set_new(o, "first_timeout_us", h->first_timeout_ns ?
			    json_real((double)(h->first_timeout_ns - e->start_ns) / 1000) :
			    json_null());
	json_object_set_new(o, "trim_aware", json_boolean(h->c.trim_aware));
	/* DCQCN's parameters as the host runs them (stretched to its link), for tools that
	 * model the same run (lsw-lab's fluid model). */
	const struct lsw_dcqcn_conf *d = &h->c.dcqcn;
	if (h->c.cc != LSW_CC_NONE)
		json_object_set_new(o, "dcqcn", json_pack(
			"{s:f, s:f, s:f, s:f, s:I, s:I, s:f, s:f, s:f, s:f, s:f, s:I, s:b, s:f}",
			"g", d->g, "initial_alpha", d->initial_alpha,
			"alpha_timer_us", (double)d->alpha_timer_ns / 1000,
			"rate_timer_us", (double)d->rate_timer_ns / 1000,
			"byte_counter", (json_int_t)d->byte_counter,
			"fast_recovery", (json_int_t)d->fast_recovery,
			"rai_bps", (double)d->rai_bps, "rhai_bps", (double)d->rhai_bps,
			"min_rate_bps", (double)d->min_rate_bps,
			"cnp_interval_us", (double)d->cnp_interval_ns / 1000,
			"rate_reduce_us", (double)d->rate_reduce_ns / 1000,
			"min_dec_fac", (json_int_t)d->min_dec_fac,
			"clamp_tgt_rate", d->clamp_tgt_rate,
			"rate_on_first_cnp_bps", (double)d->rate_on_first_cnp_bps));
	return o;
}

static json_t *
qp_json(const struct lsw_hosts *e, const struct lsw_qp *qp)
{
	const struct lsw_qp_stats *s = &qp->st;
	double *fct = malloc((qp->st.msgs_done + 1) * sizeof(double));
	double *slow = malloc((qp->st.msgs_done + 1) * sizeof(double));
	size_t n = 0;
	json_t *o;

	for (uint32_t i = 0; fct && slow && i < e->n_fct; i++)
		if (e->fct[i].qp == qp->idx && n < qp->st.msgs_done + 1) {
			fct[n] = (double)e->fct[i].fct_ns / 1000;
			slow[n++] = (double)e->fct[i].fct_ns / (double)e->fct[i].ideal_ns;
		}
	o = json_pack("{s:I, s:s, s:s, s:I, s:s, s:b, s:f, s:f}",
		      "qpn", (json_int_t)qp->qpn, "src", e->host[qp->src].c.name,
		      "dst", e->host[qp->dst].c.name, "udp_sport", (json_int_t)qp->sport,
		      "op", qp->op == LSW_OPK_WRITE ? "write" : "send", "error", qp->error,
		      "rate_bps", e->host[qp->src].c.cc == LSW_CC_NONE ?
				  (double)e->host[qp->src].c.speed_bps : qp->rp.rc,
		      "alpha", qp->rp.alpha);
#define N(k, v) json_object_set_new(o, k, json_integer((json_int_t)(v)))
	N("messages_posted", s->msgs_posted);
	N("messages_done", s->msgs_done);
	N("bytes_done", s->bytes_done);
	N("packets_sent", s->packets_sent);
	N("bytes_sent", s->bytes_sent);
	N("retransmitted_packets", s->retransmitted);
	N("naks_received", s->naks);
	N("timeouts", s->timeouts);
	N("cnp_handled", s->cnp_handled);
	N("cnp_ignored", s->cnp_ignored);
	N("rate_decreases", qp->rp.decreases);
	N("rx_packets", s->rx_packets);
	N("rx_bytes", s->rx_bytes);
	N("out_of_sequence", s->out_of_sequence);
	N("duplicates", s->duplicates);
	N("naks_sent", s->naks_sent);
	N("acks_sent", s->acks_sent);
	N("ce_marked", s->ce_marked);
	N("cnps_sent", s->cnps_sent);
#undef N
	json_object_set_new(o, "fct_us", summary(fct, fct ? n : 0));
	json_object_set_new(o, "slowdown", summary(slow, slow ? n : 0));
	free(fct);
	free(slow);
	return o;
}

json_t *
lsw_host_results(const struct lsw_hosts *e, const struct lsw_host_run_state *st)
{
	json_t *hosts = json_object(), *qps = json_array(), *msgs = json_array();
	json_t *colls = json_array(), *rows = json_array();
	uint64_t elapsed = st->end_ns - e->start_ns;

	for (uint16_t i = 0; i < e->n_hosts; i++)
		if (e->host[i].local)
			json_object_set_new(hosts, e->host[i].c.name,
					    host_json(e, &e->host[i], elapsed));
	for (uint32_t i = 0; i < e->n_qps; i++) {
		const struct lsw_qp *qp = &e->qp[i];
		if (e->host[qp->src].local || e->host[qp->dst].local)
			json_array_append_new(qps, qp_json(e, qp));
	}
	for (uint32_t i = 0; i < e->n_fct; i++) {
		const struct lsw_fct *f = &e->fct[i];
		json_array_append_new(msgs, json_pack("[I, I, I, f, f, f]",
			(json_int_t)e->qp[f->qp].qpn, (json_int_t)f->seq, (json_int_t)f->size,
			(double)f->post_ns / 1000, (double)f->fct_ns / 1000,
			(double)f->fct_ns / (double)f->ideal_ns));
	}
	for (uint32_t i = 0; i < e->n_coll; i++) {
		const struct lsw_coll *c = &e->coll[i];
		json_t *hs = json_array(), *jct = json_array();
		for (uint32_t k = 0; k < c->n; k++)
			json_array_append_new(hs,
					      json_string(e->host[e->qp[c->qps[k]].src].c.name));
		for (uint32_t k = 0; k < c->iter; k++)
			json_array_append_new(jct, json_real((double)c->jct_ns[k] / 1000));
		json_array_append_new(colls, json_pack("{s:s, s:o, s:I, s:I, s:I, s:f, s:o}",
			"type", "ring_allreduce", "hosts", hs, "chunk_bytes", (json_int_t)c->chunk,
			"steps", (json_int_t)c->steps, "iterations_done", (json_int_t)c->iter,
			"compute_us", (double)c->compute_ns / 1000, "jct_us", jct));
	}
	for (uint32_t i = 0; i < e->n_samples; i++) {
		const struct lsw_sample *s = &e->sample[i];
		json_array_append_new(rows, json_pack("[f, I, f, f, f, f]", (double)s->t_ns / 1000,
			(json_int_t)e->qp[s->qp].qpn, (double)s->rate_bps, (double)s->tx_bps,
			(double)s->alpha, (double)s->stall_us));
	}
	return json_pack("{s:i, s:I, s:f, s:b, s:b, s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o,"
			 " s:o}",
		"version", 1, "start_unix_ns", (json_int_t)st->start_unix_ns,
		"elapsed_us", (double)elapsed / 1000, "done", st->done,
		"interrupted", st->interrupted,
		"messages_posted", (json_int_t)e->msgs_posted,
		"messages_done", (json_int_t)e->msgs_done,
		"messages_failed", (json_int_t)e->msgs_failed,
		"hosts", hosts, "qps", qps,
		"messages", json_pack("{s:[s,s,s,s,s,s], s:o}", "columns", "qpn", "seq", "size",
				      "post_us", "fct_us", "slowdown", "rows", msgs),
		"collectives", colls,
		"samples", json_pack("{s:[s,s,s,s,s,s], s:o}", "columns", "t_us", "qpn", "rate_bps",
				     "tx_bps", "alpha", "stall_us", "rows", rows),
		"emulator", json_pack("{s:I, s:f, s:f, s:f}", "stalls", (json_int_t)e->stalls,
				      "stall_us", (double)e->stall_ns / 1000,
				      "stall_max_us", (double)e->stall_max_ns / 1000,
				      "ring_full_us", (double)e->ring_full_ns / 1000),
		"memory", json_pack("{s:I, s:I, s:I, s:I}", "peak_rss_bytes",
				    (json_int_t)st->peak_rss, "qps", (json_int_t)e->n_qps,
				    "qp_struct_bytes", (json_int_t)sizeof(struct lsw_qp),
				    "message_bytes", (json_int_t)sizeof(struct lsw_msg)));
}
