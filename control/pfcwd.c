/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PFC watchdog's poll, on the main lcore every PFC_WD.GLOBAL.POLL_INTERVAL: sample every
 * watched queue (occupancy, packets sent, pause time of its priority), run the logic of
 * pfcwd_logic.c, and apply or undo the action through the workers' snapshot:
 *   drop    - the queue and the port's priority drop (and ignore received pause);
 *   forward - received pause is ignored: the queue drains as lossy;
 *   alert   - log and count only.
 * Counters per queue follow SONiC's PFC_WD_QUEUE_STATS_*: storms detected and restored,
 * packets sent and dropped, received and dropped, over all storms and the last one.
 */
#include <string.h>
#include <rte_malloc.h>
#include "lsw/log.h"
#include "lsw/pfcwd.h"
#include "switch.h"

static const char *const action_names[] = {"drop", "forward", "alert"};

/* The four storm counters of a queue, read now. */
static void
storm_counters(const struct lsw_switch *sw, const struct lsw_mmu_lcore *v, uint16_t port,
	       uint8_t prio, uint8_t q, uint64_t out[4])
{
	const struct lsw_config *c = sw->cfg;
	uint8_t pg = c->qos.map[LSW_MAP_PFC_TO_PG][c->qos.port[port].map[LSW_MAP_PFC_TO_PG]]
		     .v[prio];

	out[0] = v->q_tx_pkts[port][q];
	out[1] = v->wd_tx_drops[port][q];
	out[2] = v->pg_pkts[port][pg] + v->wd_rx_drops[port][q];
	out[3] = v->wd_rx_drops[port][q];
}

/* Pause time of @prio on @port so far, in ns: finished pauses from the counters, the one
 * running from the owner's state (read as it stands). */
static void
pause_sample(const struct lsw_switch *sw, const struct lsw_lcore_counters *sum, uint16_t port,
	     uint8_t prio, uint64_t now_tsc, struct lsw_wd_sample *s)
{
	const struct lsw_pfc_port *pf = &sw->dp.sched[port]->pfc;
	uint64_t ticks = sum->port[port].pfc.rx_pause_ticks[prio] +
			 lsw_pfc_rx_running(pf, prio, now_tsc, &s->paused);

	s->pause_ns = (uint64_t)((double)ticks * 1e9 / (double)sw->dp.tsc_hz);
}

static void
apply(struct lsw_switch *sw, uint16_t port, uint8_t q, uint8_t action, bool on)
{
	uint8_t bit = (uint8_t)(1u << q);

	if (action == LSW_WD_ALERT)
		return;
	if (on) {
		sw->wd_ignore_pause[port] |= bit;
		if (action == LSW_WD_DROP)
			sw->wd_drop[port] |= bit;
	} else {
		sw->wd_ignore_pause[port] &= (uint8_t)~bit;
		sw->wd_drop[port] &= (uint8_t)~bit;
	}
}

void
lsw_pfcwd_poll(struct lsw_switch *sw, uint64_t now_tsc)
{
	const uint64_t hz = sw->dp.tsc_hz;
	const uint64_t now_ns = now_tsc / hz * 1000000000 + now_tsc % hz * 1000000000 / hz;
	const struct lsw_config *c = sw->cfg;
	const struct lsw_pfcwd_conf *wd = &c->qos.wd;
	uint16_t restored[LSW_MAX_PORTS * LSW_NUM_QUEUES][3];
	unsigned int n_restored = 0;
	bool changed = false;

	if (now_ns - sw->wd_last_poll_ns < (uint64_t)wd->poll_ms * 1000000)
		return;
	sw->wd_last_poll_ns = now_ns;
	bool active = false;
	for (uint16_t p = 0; p < c->n_ports; p++)
		active |= c->qos.port[p].pfcwd_enable != 0 || sw->wd_drop[p] || sw->wd_ignore_pause[p];
	if (!active)
		return;

	struct lsw_mmu_lcore *v = rte_malloc("lsw_wd_view", sizeof(*v), 0);
	struct lsw_lcore_counters *sum = rte_malloc("lsw_wd_sum", sizeof(*sum), 0);
	if (v == NULL || sum == NULL)
		goto out;
	lsw_stats_mmu(sw, v);
	lsw_stats_sum(sw, sum);

	for (uint16_t p = 0; p < c->n_ports; p++) {
		const struct lsw_port_qos *pq = &c->qos.port[p];
		const struct lsw_pfcwd_port *wp = &wd->port[p];
		/* Queues no longer watched (config.set) go back to normal. */
		uint8_t watched_q = 0;
		for (uint8_t prio = 0; prio < 8; prio++)
			if (pq->pfcwd_enable >> prio & 1)
				watched_q |= (uint8_t)(1u << c->qos.map[LSW_MAP_PFC_TO_QUEUE]
						       [pq->map[LSW_MAP_PFC_TO_QUEUE]].v[prio]);
		if ((sw->wd_ignore_pause[p] | sw->wd_drop[p]) & ~watched_q) {
			sw->wd_ignore_pause[p] &= watched_q;
			sw->wd_drop[p] &= watched_q;
			changed = true;
		}
		for (uint8_t q = 0; q < LSW_NUM_QUEUES; q++)
			if (!(watched_q >> q & 1))
				sw->wdq[p][q].state = LSW_WD_OPERATIONAL;
		for (uint8_t prio = 0; prio < 8; prio++) {
			if (!(pq->pfcwd_enable >> prio & 1))
				continue;
			uint8_t q = c->qos.map[LSW_MAP_PFC_TO_QUEUE][pq->map[LSW_MAP_PFC_TO_QUEUE]]
				    .v[prio];
			struct lsw_wd_queue *wq = &sw->wdq[p][q];
			struct lsw_wd_stats *st = &sw->wds[p][q];
			uint64_t cur[4];
			storm_counters(sw, v, p, prio, q, cur);
			if (wd->big_red_switch) {
				/* Every watched queue stormed with drop, whatever it sees. */
				if (wq->state != LSW_WD_STORMED) {
					wq->state = LSW_WD_STORMED;
					wq->detected++;
					memcpy(st->base, cur, sizeof(cur));
					apply(sw, p, q, LSW_WD_DROP, true);
					changed = true;
					LSW_LOG(WARNING, "PFC watchdog: BIG_RED_SWITCH: %s queue %u dropped",
						c->port[p].name, q);
				}
				continue;
			}
			if (sw->wd_brs_active && wq->state == LSW_WD_STORMED) {
				/* The big red switch went off: undo it as a restore. */
				wq->state = LSW_WD_OPERATIONAL;
				wq->restored++;
				wq->primed = false;
				apply(sw, p, q, LSW_WD_DROP, false);
				changed = true;
				continue;
			}
			struct lsw_wd_sample s = {
				.occupancy = (uint64_t)(v->q_occ[p][q][0] + v->q_occ[p][q][1]),
				.tx_pkts = v->q_tx_pkts[p][q],
			};
			pause_sample(sw, sum, p, prio, now_tsc, &s);
			enum lsw_wd_event e = lsw_pfcwd_step(wq, &s, now_ns,
							     (uint64_t)wp->detection_ms * 1000000,
							     (uint64_t)wp->restoration_ms * 1000000,
							     st->action == LSW_WD_ALERT);
			if (e == LSW_WD_STORM) {
				memcpy(st->base, cur, sizeof(cur));
				st->action = wp->action;
				apply(sw, p, q, wp->action, true);
				changed = true;
				LSW_LOG(WARNING, "PFC storm detected on %s queue %u (priority %u), "
					"action %s", c->port[p].name, q, prio, action_names[wp->action]);
			} else if (e == LSW_WD_RESTORE) {
				/* The storm's counters are closed once the workers stop acting. */
				restored[n_restored][0] = p;
				restored[n_restored][1] = q;
				restored[n_restored++][2] = prio;
				apply(sw, p, q, st->action, false);
				changed = true;
				LSW_LOG(WARNING, "PFC storm restored on %s queue %u (priority %u)",
					c->port[p].name, q, prio);
			}
		}
	}
	sw->wd_brs_active = wd->big_red_switch;
	if (changed) {
		struct lsw_dp_conf *conf = lsw_snapshot_build(sw);
		if (conf != NULL)
			lsw_snapshot_publish(sw, conf);
	}
	if (n_restored) {
		lsw_stats_mmu(sw, v);
		for (unsigned int i = 0; i < n_restored; i++) {
			uint16_t p = restored[i][0];
			uint8_t q = (uint8_t)restored[i][1], prio = (uint8_t)restored[i][2];
			struct lsw_wd_stats *st = &sw->wds[p][q];
			uint64_t cur[4];
			storm_counters(sw, v, p, prio, q, cur);
			for (int k = 0; k < 4; k++) {
				st->last[k] = cur[k] - st->base[k];
				st->total[k] += st->last[k];
			}
		}
	}
out:
	rte_free(v);
	rte_free(sum);
}
