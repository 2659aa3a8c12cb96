/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The hold queue under both IP families (grout's l3_nexthop is the model): a packet routed
 * to a next hop whose MAC is not known yet waits here, untagged, while ARP (arp.c) or NDP
 * (ndp.c) asks for it every arp_retry_ms; it goes to admission when the control plane has
 * learned the MAC, and is dropped after arp_tries unanswered requests. Up to LSW_HOLD_PKTS
 * packets per next hop and LSW_HOLD_SLOTS next hops per worker, both families together.
 */
#include "lsw/dataplane.h"

static bool
same_addr(const struct lsw_nh_addr *a, const struct lsw_nh_addr *b)
{
	if (a->v6 != b->v6)
		return false;
	return a->v6 ? lsw_ip6_eq(a->ip6, b->ip6) : a->ip == b->ip;
}

/* Ask the next hop's MAC: an ARP request or a neighbor solicitation. */
static void
ask(struct lsw_worker *w, const struct lsw_snapshot *conf, const struct lsw_hold_slot *s)
{
	if (s->a.v6)
		lsw_ndp_solicit(w, conf, s->port, s->a.ip6);
	else
		lsw_arp_request(w, conf, s->port, s->a.ip);
}

/* The next hop's MAC as the FIB has it now: LSW_NH_MAC_VALID | MAC, or 0. */
static uint64_t
resolved_mac(const struct lsw_worker *w, const struct lsw_hold_slot *s)
{
	return s->a.v6 ? lsw_fib6_neigh_mac(w->dp->fib6, s->a.ip6, s->port, s->a.nh) :
			 lsw_fib_neigh_mac(w->dp->fib, s->a.ip, s->port);
}

static uint64_t
retry_at(const struct lsw_worker *w, const struct lsw_snapshot *conf, uint64_t now)
{
	return now + (uint64_t)conf->arp_retry_ms * w->dp->tsc_hz / 1000;
}

__rte_noinline void
lsw_nexthop_hold(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t in_port,
		 uint16_t port, const struct lsw_nh_addr *a, struct rte_mbuf *m, uint64_t now)
{
	struct lsw_hold_slot *s, *free_slot = NULL;

	for (s = w->hold; s < w->hold + LSW_HOLD_SLOTS; s++) {
		if (s->used && s->port == port && same_addr(&s->a, a))
			break;
		if (!s->used && free_slot == NULL)
			free_slot = s;
	}
	if (s == w->hold + LSW_HOLD_SLOTS) {
		s = free_slot;
		if (s == NULL) {
			lsw_count_drop(w, in_port, LSW_DROP_NEIGH_HOLD_OVERFLOW, m);
			return;
		}
		/* The address is copied: an IPv6 one may point into @m's header. */
		*s = (struct lsw_hold_slot){.a = *a, .port = port, .used = 1, .tries = 1,
					    .next_try = retry_at(w, conf, now)};
		w->n_held++;
		ask(w, conf, s);
	}
	if (s->n == LSW_HOLD_PKTS) {
		lsw_count_drop(w, in_port, LSW_DROP_NEIGH_HOLD_OVERFLOW, m);
		return;
	}
	s->in_port[s->n] = (uint8_t)in_port;
	s->pkt[s->n++] = m;
	w->ctr->event[LSW_EV_NEIGH_HELD]++;
}

static void
slot_release(struct lsw_worker *w, struct lsw_hold_slot *s)
{
	s->used = 0;
	s->n = 0;
	w->n_held--;
}

/* Called each loop while packets are held: send those whose next hop resolved, ask again
 * for the others, and drop after arp_tries requests went unanswered. */
void
lsw_nexthop_poll(struct lsw_worker *w, const struct lsw_snapshot *conf, uint64_t now)
{
	bool released = false;

	for (struct lsw_hold_slot *s = w->hold; s < w->hold + LSW_HOLD_SLOTS; s++) {
		if (!s->used)
			continue;
		const struct lsw_port_dp *p = &conf->port[s->port];
		uint64_t mac = resolved_mac(w, s);
		if (mac & LSW_NH_MAC_VALID) {
			uint16_t type = s->a.v6 ? LSW_ETHERTYPE_IPV6 : LSW_ETHERTYPE_IPV4;
			for (unsigned int i = 0; i < s->n; i++) {
				if (!p->admin_up) {
					lsw_count_drop(w, s->port, LSW_DROP_L3_EGRESS_LINK_DOWN,
						       s->pkt[i]);
					continue;
				}
				lsw_l2_routed(s->pkt[i], mac, p, lsw_meta(s->pkt[i])->tc, false,
					      type);
				w->ctr->event[LSW_EV_NEIGH_RELEASED]++;
				lsw_l3_output(w, conf, s->port, s->pkt[i]);
				released = true;
			}
			slot_release(w, s);
		} else if ((int64_t)(now - s->next_try) >= 0) {
			if (s->tries >= conf->arp_tries) {
				for (unsigned int i = 0; i < s->n; i++)
					lsw_count_drop(w, s->in_port[i],
						       LSW_DROP_UNRESOLVED_NEXT_HOP, s->pkt[i]);
				slot_release(w, s);
				continue;
			}
			s->tries++;
			s->next_try = retry_at(w, conf, now);
			ask(w, conf, s);
		}
	}
	if (released)
		lsw_admit_flush(w, conf);
}

/* Shutdown: whatever is still held is dropped and counted. */
void
lsw_nexthop_drop_held(struct lsw_worker *w)
{
	for (struct lsw_hold_slot *s = w->hold; s < w->hold + LSW_HOLD_SLOTS; s++) {
		for (unsigned int i = 0; i < s->n; i++)
			lsw_count_drop(w, s->in_port[i], LSW_DROP_SHUTDOWN, s->pkt[i]);
		if (s->used)
			slot_release(w, s);
	}
}
