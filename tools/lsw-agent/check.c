/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The host against its switch (issue: the host agent): which lsw port the host is on, whether
 * the switch's config carries the host's classes as the host sends them (lossless data with
 * PFC on its priority, CNPs in a class of their own, ECN on the data queue, MTUs, the PFC
 * watchdog), and what the switch counted for the host's QPs and priorities meanwhile. Each
 * mismatch names the switch field by its JSON path and says what the host does.
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "agent_user.h"

/* The port the host is on: given, or the neighbor entry with its MAC or IP. */
static int
find_port(struct agent_rpc *r, struct agent_host *h, char *err, size_t len)
{
	char ip[INET_ADDRSTRLEN] = "";
	json_t *n, *e;
	size_t i;

	if (h->port[0] != '\0')
		return 0;
	if (h->ip)
		inet_ntop(AF_INET, &h->ip, ip, sizeof(ip));
	if ((n = agent_rpc_call(r, "neighbor.list", NULL, err, len)) == NULL)
		return -1;
	json_array_foreach(n, i, e) {
		const char *mac = json_string_value(json_object_get(e, "mac"));
		const char *nip = json_string_value(json_object_get(e, "ip"));
		if ((h->mac[0] && mac && strcasecmp(mac, h->mac) == 0) ||
		    (ip[0] && nip && strcmp(nip, ip) == 0)) {
			snprintf(h->port, sizeof(h->port), "%s",
				 json_string_value(json_object_get(e, "port")));
			json_decref(n);
			return 0;
		}
	}
	json_decref(n);
	snprintf(err, len, "the switch does not know this host (%s%s%s): give --port, or "
		 "--host-ip/--host-mac as its neighbor table has them", h->mac,
		 h->mac[0] && ip[0] ? ", " : "", ip);
	return -1;
}

static json_t *
port_counters(struct agent_rpc *r, const char *port, char *err, size_t len)
{
	json_t *q = agent_rpc_call(r, "queue.stats", json_pack("{s:s}", "port", port), err, len);
	json_t *p = q ? agent_rpc_call(r, "pfc.stats", json_pack("{s:s}", "port", port), err,
					len) : NULL;
	if (p == NULL) {
		json_decref(q);
		return NULL;
	}
	json_t *out = json_pack("{s:O, s:O}", "queues",
				json_object_get(json_object_get(q, "ports"), port), "pfc",
				json_object_get(json_object_get(json_object_get(p, "ports"), port),
						"priorities"));
	json_decref(q);
	json_decref(p);
	return out;
}

json_t *
agent_switch_before(struct agent_rpc *r, struct agent_host *h, char *err, size_t len)
{
	if (find_port(r, h, err, len) != 0)
		return NULL;
	json_t *out = port_counters(r, h->port, err, len);
	json_t *d = out ? agent_rpc_call(r, "drops.list", json_pack("{s:i}", "limit", 1), err,
					 len) : NULL;
	if (d == NULL) {
		json_decref(out);
		return NULL;
	}
	/* The newest drop snapshot now: those after it are the ones of the time counted. */
	json_t *last = json_array_get(json_object_get(d, "snapshots"), 0);
	json_object_set_new(out, "drops_seq", json_integer(json_integer_value(
		json_object_get(last, "seq"))));
	json_decref(d);
	return out;
}

static void
add_check(json_t *checks, const char *name, bool ok, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void
add_check(json_t *checks, const char *name, bool ok, const char *path, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	json_array_append_new(checks, json_pack("{s:s, s:b, s:s, s:s}", "name", name, "ok", ok,
						"path", path ? path : "", "message", msg));
}

/* The lowest bit set of @mask, or -1. */
static int
first_bit(uint64_t mask)
{
	return mask ? __builtin_ctzll(mask) : -1;
}

static int
int_at(json_t *a, int i)
{
	json_t *v = json_array_get(a, (size_t)i);
	return v ? (int)json_integer_value(v) : -1;
}

static bool
in_list(json_t *a, int x)
{
	size_t i;
	json_t *v;

	json_array_foreach(a, i, v)
		if (json_integer_value(v) == x)
			return true;
	return false;
}

static uint64_t
num(json_t *o, const char *k)
{
	return (uint64_t)json_integer_value(json_object_get(o, k));
}

json_t *
agent_compare(struct agent_rpc *r, struct agent_host *h, const struct agent_view *v,
	      json_t *before, char *err, size_t len)
{
	json_t *q = agent_rpc_call(r, "qos.port", json_pack("{s:s}", "port", h->port), err, len);
	if (q == NULL)
		return NULL;
	json_t *after = port_counters(r, h->port, err, len);
	if (after == NULL) {
		json_decref(q);
		return NULL;
	}
	json_t *paths = json_object_get(q, "paths"), *checks = json_array();
	char p[256];

	/* The host's classes: given, or what its traffic carried. A host that only receives
	 * (a responder) is checked with the data it receives: that data's class is the one
	 * its port's queue marks, and the one its peers must keep lossless. */
	uint64_t data_dscp = 0, rx_dscp = 0, cnp_dscp = 0, pcp = 0;
	unsigned int max_frame = 0;
	for (unsigned int i = 0; i < v->n_flows; i++) {
		const struct agent_flow_ctr *c = &v->flows[i].c;
		if (v->flows[i].k.dir != AGENT_TX) {
			if (c->data)
				rx_dscp |= c->dscp_seen;
			continue;
		}
		if (c->data)
			data_dscp |= c->dscp_seen, pcp |= c->pcp_seen;
		if (c->cnp)
			cnp_dscp |= c->dscp_seen;
		if (c->data && c->packets && c->bytes / c->packets > max_frame)
			max_frame = (unsigned int)(c->bytes / c->packets);
	}
	const char *does = "sends";
	if (data_dscp == 0 && rx_dscp != 0 && h->dscp < 0) {
		data_dscp = rx_dscp;
		does = "receives";
	}
	int dscp = h->dscp >= 0 ? h->dscp : first_bit(data_dscp);
	int cdscp = h->cnp_dscp >= 0 ? h->cnp_dscp : first_bit(cnp_dscp);
	int prio = h->prio >= 0 ? h->prio : (pcp & 0xff) ? first_bit(pcp & 0xff) : -1;
	json_t *tc_of = json_object_get(q, "dscp_to_tc"), *tcq = json_object_get(q, "tc_to_queue");
	json_t *lossless = json_object_get(q, "pfc_enable");

	if (dscp < 0) {
		add_check(checks, "data class", false, NULL, "the host sent and received no RoCE "
			  "data: give --dscp (and --priority) to check its classes");
	} else {
		int tc = int_at(tc_of, dscp);
		snprintf(p, sizeof(p), "%s.%d", json_string_value(json_object_get(paths,
							"dscp_to_tc_map")), dscp);
		add_check(checks, "data lossless", in_list(lossless, tc),
			  json_string_value(json_object_get(paths, "pfc_enable")),
			  "the host %s data with DSCP %d; %s maps it to TC %d, which is %s on %s",
			  does, dscp, p, tc,
			  in_list(lossless, tc) ? "lossless (PFC on)" : "lossy (no PFC)", h->port);
		if (prio >= 0)
			add_check(checks, "data priority", prio == tc, p,
				  "the host tags data with priority %d and obeys PFC on it; the "
				  "switch classifies it as TC %d and pauses priority %d",
				  prio, tc, tc);
		int qn = int_at(tcq, tc);
		char qname[16];
		snprintf(qname, sizeof(qname), "%d", qn);
		json_t *qc = json_object_get(json_object_get(q, "queues"), qname);
		bool ecn = json_is_true(json_object_get(qc, "ecn"));
		/* The QUEUE entry that binds it (a range key included), as lsw names it. */
		const char *wp = json_string_value(json_object_get(json_object_get(qc, "paths"),
								   "wred_profile"));
		if (wp != NULL)
			snprintf(p, sizeof(p), "%s", wp);
		else
			snprintf(p, sizeof(p), "$.QUEUE['%s|%d'].wred_profile", h->port, qn);
		add_check(checks, "data ECN", ecn, p,
			  "the host's data goes to queue %d of %s, which %s", qn, h->port,
			  ecn ? "marks ECN" : "has no ECN profile: no CE, so no CNP and no DCQCN");
		json_t *wd = json_object_get(q, "pfcwd");
		bool watched = wd && in_list(json_object_get(wd, "priorities"), tc);
		add_check(checks, "PFC watchdog", watched,
			  json_string_value(json_object_get(paths, "pfcwd")),
			  "priority %d on %s is %swatched by the PFC watchdog", tc, h->port,
			  watched ? "" : "not ");
		int ctc = (int)json_integer_value(json_object_get(q, "cnp_tc"));
		if (ctc < 0 && cdscp >= 0)
			ctc = int_at(tc_of, cdscp);
		if (ctc >= 0) {
			snprintf(qname, sizeof(qname), "%d", int_at(tcq, ctc));
			bool cnp_ok = ctc != tc && !in_list(lossless, ctc) &&
				      !json_is_true(json_object_get(json_object_get(
					      json_object_get(q, "queues"), qname), "ecn"));
			char from[48] = "";
			if (cdscp >= 0)
				snprintf(from, sizeof(from), " (DSCP %d at the host)", cdscp);
			add_check(checks, "CNP class", cnp_ok,
				  json_string_value(json_object_get(paths, "cnp_tc")),
				  "CNPs%s ride TC %d: %s", from, ctc,
				  cnp_ok ? "apart from data, not paused, not marked" :
				  ctc == tc ? "behind the data they are about" :
				  in_list(lossless, ctc) ? "a paused class" : "a marked queue");
		}
	}
	unsigned int mtu = (unsigned int)num(q, "mtu");
	unsigned int frame = max_frame ? max_frame : h->mtu + 18;
	add_check(checks, "MTU", frame <= mtu + 18 + 4,
		  json_string_value(json_object_get(paths, "mtu")),
		  "the host's largest frame is %u bytes (%s); %s carries IP packets of up to %u",
		  frame, max_frame ? "seen" : "its interface's MTU", h->port, mtu);

	/* Correlation: what each side counted over the same time. */
	const json_int_t since = json_integer_value(json_object_get(before, "drops_seq"));
	json_t *qps = json_object(), *bq = json_object_get(before, "queues"),
	       *aq = json_object_get(after, "queues");
	for (unsigned int i = 0; i < v->n_flows; i++) {
		const struct agent_flow *f = &v->flows[i];
		char key[16], sip[INET_ADDRSTRLEN], dip[INET_ADDRSTRLEN];
		snprintf(key, sizeof(key), "%u", f->k.dqpn);
		json_t *e = json_object_get(qps, key);
		if (e == NULL) {
			json_t *dl = agent_rpc_call(r, "drops.list", json_pack("{s:I}", "qp",
							(json_int_t)f->k.dqpn), err, len);
			json_t *reasons = json_object();
			size_t j;
			json_t *s;
			json_array_foreach(json_object_get(dl, "snapshots"), j, s) {
				if (strcmp(json_string_value(json_object_get(s, "kind")),
					   "drop") != 0 ||
				    json_integer_value(json_object_get(s, "seq")) <= since)
					continue;
				const char *why = json_string_value(json_object_get(s, "reason"));
				json_object_set_new(reasons, why, json_integer(
					json_integer_value(json_object_get(reasons, why)) + 1));
			}
			json_decref(dl);
			e = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o}",
				      "host_rx_packets", 0, "host_tx_packets", 0, "host_rx_ce", 0,
				      "host_rx_cnp", 0, "host_tx_cnp", 0, "host_nak", 0,
				      "host_out_of_sequence", 0, "host_duplicates", 0,
				      "switch_drops", reasons);
			json_object_set_new(qps, key, e);
		}
		inet_ntop(AF_INET, &f->k.sip, sip, sizeof(sip));
		inet_ntop(AF_INET, &f->k.dip, dip, sizeof(dip));
#define ADD(k, x) json_object_set_new(e, k, json_integer((json_int_t)(num(e, k) + (x))))
		if (f->k.dir == AGENT_RX) {
			ADD("host_rx_packets", f->c.packets);
			ADD("host_rx_ce", f->c.ce);
			ADD("host_rx_cnp", f->c.cnp);
			ADD("host_out_of_sequence", f->c.out_of_sequence);
			ADD("host_duplicates", f->c.duplicate);
		} else {
			ADD("host_tx_packets", f->c.packets);
			ADD("host_tx_cnp", f->c.cnp);
			ADD("host_nak", f->c.nak_seq);
		}
#undef ADD
	}
	json_t *qdelta = json_object(), *pdelta = json_object();
	const char *qk;
	json_t *qv;
	json_object_foreach(aq, qk, qv) {
		json_t *b = json_object_get(bq, qk);
		json_object_set_new(qdelta, qk, json_pack(
			"{s:I, s:I, s:I}",
			"PACKETS", (json_int_t)(num(qv, "PACKETS") - num(b, "PACKETS")),
			"WRED_ECN_MARKED_PACKETS", (json_int_t)(num(qv, "WRED_ECN_MARKED_PACKETS") -
								num(b, "WRED_ECN_MARKED_PACKETS")),
			"DROPPED_PACKETS", (json_int_t)(num(qv, "DROPPED_PACKETS") -
							num(b, "DROPPED_PACKETS"))));
	}
	for (int n = 0; n < 8; n++) {
		char k[4], tx[24], rx[24];
		snprintf(k, sizeof(k), "%d", n);
		snprintf(tx, sizeof(tx), "PFC_%d_TX_PKTS", n);
		snprintf(rx, sizeof(rx), "PFC_%d_RX_PKTS", n);
		json_t *a = json_object_get(json_object_get(after, "pfc"), k);
		json_t *b = json_object_get(json_object_get(before, "pfc"), k);
		if (a == NULL)
			continue;
		json_object_set_new(pdelta, k, json_pack(
			"{s:I, s:I, s:I, s:I}",
			"switch_tx", (json_int_t)(num(a, tx) - num(b, tx)),
			"host_rx", (json_int_t)v->pfc[AGENT_RX][n].frames,
			"switch_rx", (json_int_t)(num(a, rx) - num(b, rx)),
			"host_tx", (json_int_t)v->pfc[AGENT_TX][n].frames));
	}
	json_t *out = json_pack("{s:s, s:o, s:o, s:o, s:o}", "port", h->port, "checks", checks,
				"qps", qps, "queues", qdelta, "pfc", pdelta);
	json_decref(q);
	json_decref(after);
	return out;
}
