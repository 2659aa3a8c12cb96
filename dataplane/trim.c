/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packet trimming, the worker's side (include/lsw/trim.h; dataplane/TRIMMING.md says what
 * and why). lsw_admit_flush calls it for a packet the buffer refused on a queue whose
 * profile says trim: the original's drop is counted by its reason as any drop, then the
 * packet itself, already routed and rewritten, becomes the trim. It is cut in place (an
 * mbuf holds one packet: the "copy" of the SAI model costs nothing to make here), re-marked
 * and offered to the trim queue under that queue's own buffer profile.
 */
#include <rte_ip.h>
#include "lsw/dataplane.h"
#include "lsw/trim.h"

/* The IP header of a routed frame (untagged, or priority-tagged: lsw_l2_routed): its offset,
 * and whether it is IPv6; 0 when the frame is not IPv4 or IPv6 unicast. */
static uint16_t
ip_unicast(const uint8_t *eth, uint32_t len, bool *v6)
{
	uint16_t off = RTE_ETHER_HDR_LEN, type = (uint16_t)(eth[12] << 8 | eth[13]);

	if (type == RTE_ETHER_TYPE_VLAN) {
		type = (uint16_t)(eth[16] << 8 | eth[17]);
		off += 4;
	}
	*v6 = type == RTE_ETHER_TYPE_IPV6;
	if (*v6)
		return len >= off + sizeof(struct rte_ipv6_hdr) && eth[off + 24] != 0xff ? off : 0;
	/* Routed IPv4 is never multicast or broadcast (ipv4.c refuses those); the check is
	 * what SAI's "IPv4/IPv6 unicast only" says, kept where it costs nothing. */
	if (type == RTE_ETHER_TYPE_IPV4 && len >= off + sizeof(struct rte_ipv4_hdr) &&
	    eth[off + 16] < 224)
		return off;
	return 0;
}

/* The DSCP of the IP header at @ip. */
static inline uint8_t
dscp_of(const uint8_t *ip, bool v6)
{
	/* IPv6: version (4 bits), traffic class (8); IPv4: the TOS byte. */
	return v6 ? (uint8_t)((ip[0] & 0xf) << 2 | ip[1] >> 6) : ip[1] >> 2;
}

/* Whether the first @plen bits of @a and @b agree. */
static bool
prefix_match(const uint8_t *a, const uint8_t *b, uint8_t plen)
{
	uint8_t full = plen / 8, rest = plen % 8;

	if (memcmp(a, b, full) != 0)
		return false;
	return rest == 0 || ((a[full] ^ b[full]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

/* An ACL rule with PACKET_ACTION DISABLE_TRIM that the packet matches. */
static bool
exempt(const struct lsw_trim_dp *t, uint16_t in_port, const uint8_t *ip, bool v6, uint8_t dscp)
{
	const uint8_t *src = ip + (v6 ? 8 : 12), *dst = ip + (v6 ? 24 : 16);

	for (uint8_t i = 0; i < t->n_rules; i++) {
		const struct lsw_trim_rule *r = &t->rule[i];
		bool addrs = r->src_plen || r->dst_plen;
		if ((r->in_ports >> in_port & 1) && !(addrs && r->v6 != v6) &&
		    (r->dscp == 0 || (r->dscp >> dscp & 1)) &&
		    prefix_match(src, r->src, r->src_plen) &&
		    prefix_match(dst, r->dst, r->dst_plen))
			return true;
	}
	return false;
}

/* The trim DSCP into the IP header at @ip, its ECN bits kept; the lengths say @len bytes
 * of IP packet when @cut. The UDP length stays the original's: the receiver learns from it
 * how much was cut (as UEC's trimmed packets keep it). */
static void
remark(uint8_t *ip, bool v6, uint8_t dscp, bool cut, uint32_t len)
{
	if (v6) {
		/* Version (4 bits), traffic class (8), flow label (20). */
		uint8_t tc = (uint8_t)(dscp << 2 | (ip[1] >> 4 & 3));
		ip[0] = (uint8_t)(0x60 | tc >> 4);
		ip[1] = (uint8_t)((tc & 0xf) << 4 | (ip[1] & 0xf));
		if (cut) {
			uint16_t pl = (uint16_t)(len - sizeof(struct rte_ipv6_hdr));
			pl = rte_cpu_to_be_16(pl);
			memcpy(ip + 4, &pl, sizeof(pl));
		}
		return;
	}
	struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)ip;
	h->type_of_service = (uint8_t)(dscp << 2 | (h->type_of_service & 3));
	if (cut)
		h->total_length = rte_cpu_to_be_16((uint16_t)len);
	/* A trim is rare: the whole sum, not an update of each word changed. */
	h->hdr_checksum = 0;
	h->hdr_checksum = rte_ipv4_cksum(h);
}

/* The trim's record for drop snapshots and the timeline: taken by the trim queue, or
 * refused by it (@why). */
static void
record(struct lsw_worker *w, const struct lsw_snapshot *conf, struct rte_mbuf *m,
       uint16_t out, uint8_t from_q, uint32_t orig_len, enum lsw_drop why)
{
	if (unlikely(lsw_load_relaxed(&w->dp->dropsnap_mode) & LSW_DROPSNAP_DROPS))
		lsw_dropsnap_take(w, out, LSW_DROPSNAP_TRIM, (uint16_t)why, m);
	if (lsw_timeline_events(conf)) {
		const struct lsw_tl_rec r = {
			.t = rte_rdtsc(), .kind = LSW_TL_TRIM, .port = (uint8_t)out,
			.idx = lsw_meta(m)->queue, .v0 = orig_len,
			.v = {m->pkt_len, from_q, why != LSW_DROP_NONE},
		};
		lsw_timeline_put(w, &r);
	}
}

void
lsw_trim(struct lsw_worker *w, const struct lsw_snapshot *conf, struct rte_mbuf *m,
	 enum lsw_drop d)
{
	const struct lsw_trim_dp *t = &conf->trim;
	const struct lsw_buffer_dp *mc = &conf->buffer;
	struct lsw_pkt_meta *meta = lsw_meta(m);
	const uint16_t out = meta->out_port, in = meta->in_port;
	const uint8_t from_q = meta->queue;
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);
	bool v6;

	/* The original is dropped, and counted so, whatever becomes of its trim. */
	lsw_drop_note(w, lsw_drop_is_egress(d) ? out : in, d, m);
	uint16_t l3 = ip_unicast(eth, m->pkt_len, &v6);
	/* Not trimmed: anything but IP unicast, CNPs (the notification must arrive whole, as
	 * Cumulus excludes them), lossless traffic (its drops are a headroom overflow, never a
	 * lossy queue's admission), and what an ACL rule exempts. */
	uint8_t *ip = eth + l3;
	if (l3 == 0 || (meta->flags & LSW_META_CNP) || mc->pg[in][meta->pg].lossless ||
	    (t->n_rules && exempt(t, in, ip, v6, dscp_of(ip, v6)))) {
		rte_pktmbuf_free(m);
		return;
	}
	/* Cut to size, but never into the IP header or the 8 bytes after it (a UDP header):
	 * what is left must still parse as what it was. */
	const uint32_t orig_len = m->pkt_len;
	const uint32_t iph = v6 ? sizeof(struct rte_ipv6_hdr) : (uint32_t)(ip[0] & 0xf) * 4;
	const uint32_t keep = RTE_MAX((uint32_t)t->size, l3 + iph + 8);
	const bool cut = orig_len > keep;
	if (cut)
		rte_pktmbuf_trim(m, (uint16_t)(orig_len - keep));
	const uint8_t dscp = t->dscp[out];
	remark(ip, v6, dscp, cut, m->pkt_len - l3);

	const uint8_t tc = t->from_tc ? t->tc : mc->dscp_tc[in][dscp];
	const uint8_t q = t->queue == LSW_TRIM_QUEUE_DYNAMIC ? mc->tc_q[out][tc] : t->queue;
	w->buffer->ctr.q_trim_pkts[out][from_q]++;
	w->ctr->port[out].ctr[LSW_PC_TRIM_PACKETS]++;
	meta->tc = tc;
	meta->queue = q;
	/* A trim is a packet of its own DSCP: ABM's unscheduled flag follows it. */
	meta->flags = (uint8_t)((meta->flags & ~LSW_META_UNSCHED) | LSW_META_TRIMMED |
				lsw_buffer_unsched(mc, dscp));
	/* The trim queue's own profile decides, as for any packet to it. */
	enum lsw_drop why = lsw_buffer_admit(w->dp->buffer, conf->n_workers, w->buffer, mc, meta,
					     m->pkt_len);
	record(w, conf, m, out, from_q, orig_len, why);
	if (why != LSW_DROP_NONE) {
		w->buffer->ctr.q_dropped_trim_pkts[out][q]++;
		w->ctr->port[out].ctr[LSW_PC_DROPPED_TRIM_PACKETS]++;
		rte_pktmbuf_free(m);
		return;
	}
	lsw_buffer_watermarks(w->dp->buffer, conf->n_workers, w->buffer, mc, in, meta->pg, out, q);
	w->buffer->ctr.q_tx_trim_pkts[out][q]++;
	w->ctr->port[out].ctr[LSW_PC_TX_TRIM_PACKETS]++;
	lsw_tx_enqueue(w, conf, out, m);
}
