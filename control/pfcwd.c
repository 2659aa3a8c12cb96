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
#include <stdlib.h>
#include "lsw/log.h"
#include "pfcwd.h"
#include "switch.h"

const char *const lsw_wd_state_names[] = {"operational", "stormed", NULL};
const char *const lsw_wd_ctr_names[LSW_WD_CTR_MAX] = {
#define LSW_WD_CTR_NAME(name, value) [LSW_WD_CTR_##name] = #name,
	LSW_FOREACH_WD_CTR(LSW_WD_CTR_NAME, _, _, _, _)
#undef LSW_WD_CTR_NAME
};

void
lsw_pfcwd_counters(const struct lsw_switch *sw, const struct lsw_buffer_lcore *v,
		   uint16_t port, uint8_t prio, uint8_t q, uint64_t out[LSW_WD_CTR_MAX])
{
	const struct lsw_config *c = sw->cfg;
	const struct lsw_buffer_ctr *ctr = &v->ctr;
	uint8_t pg = c->qos.map[LSW_MAP_PFC_TO_PG][c->qos.port[port].map[LSW_MAP_PFC_TO_PG]]
		     .v[prio];

#define LSW_WD_CTR_READ(name, value) out[LSW_WD_CTR_##name] = value;
	LSW_FOREACH_WD_CTR(LSW_WD_CTR_READ, ctr, port, q, pg)
#undef LSW_WD_CTR_READ
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

/* A storm on (@p, @q) starts now, for @prio, with @action: its counters count from here. */
static void
storm_begin(struct lsw_switch *sw, const struct lsw_buffer_lcore *v, uint16_t p, uint8_t q,
	    uint8_t prio, uint8_t action)
{
	struct lsw_wd_stats *st = &sw->wds[p][q];

	st->prio = prio;
	st->action = action;
	lsw_pfcwd_counters(sw, v, p, prio, q, st->base);
	apply(sw, p, q, action, true);
	lsw_timeline_event_cp(sw, LSW_TL_WD_STORM, p, q, action, prio);
}

/* The storm on (@p, @q) ends: its action is undone; its counters are closed once the
 * workers have stopped acting on it (see the end of lsw_pfcwd_poll). */
static void
storm_end(struct lsw_switch *sw, uint16_t p, uint8_t q, uint16_t *ended, unsigned int *n)
{
	apply(sw, p, q, sw->wds[p][q].action, false);
	ended[(*n)++] = (uint16_t)(p << 8 | q);
	lsw_timeline_event_cp(sw, LSW_TL_WD_RESTORE, p, q, 0, sw->wds[p][q].prio);
}

/* Restored by the operator (big red switch off, queue no longer watched), not by the
 * logic: count it the same way. */
static void
force_restore(struct lsw_switch *sw, uint16_t p, uint8_t q, uint16_t *ended, unsigned int *n)
{
	struct lsw_wd_queue *wq = &sw->wdq[p][q];

	*wq = (struct lsw_wd_queue){.detected = wq->detected, .restored = wq->restored + 1};
	storm_end(sw, p, q, ended, n);
}

void
lsw_pfcwd_poll(struct lsw_switch *sw, uint64_t now_tsc)
{
	const uint64_t hz = sw->dp.tsc_hz;
	const uint64_t now_ns = now_tsc / hz * 1000000000 + now_tsc % hz * 1000000000 / hz;
	const struct lsw_config *c = sw->cfg;
	const struct lsw_pfcwd_conf *wd = &c->qos.wd;
	uint16_t ended[LSW_MAX_PORTS * LSW_NUM_QUEUES];
	unsigned int n_ended = 0;
	uint64_t n_changes = 0;

	if (now_ns - sw->wd_last_poll_ns < (uint64_t)wd->poll_ms * 1000000)
		return;
	sw->wd_last_poll_ns = now_ns;
	bool active = false;
	for (uint16_t p = 0; p < c->n_ports; p++)
		active |= c->qos.port[p].pfcwd_enable != 0 || sw->wd_drop[p] ||
			  sw->wd_ignore_pause[p];
	if (!active)
		return;

	/* Raw sums: detection and the storm counters are differences in time, which a
	 * stats.clear between two polls must not turn negative. */
	struct lsw_buffer_lcore *v = lsw_stats_buffer(sw, true);
	struct lsw_lcore_counters *sum = lsw_stats_counters(sw, true);
	if (v == NULL || sum == NULL)
		goto out;

	for (uint16_t p = 0; p < c->n_ports; p++) {
		const struct lsw_port_qos_conf *pq = &c->qos.port[p];
		const struct lsw_pfcwd_port_conf *wp = &wd->port[p];
		const uint8_t *pfc_q =
			c->qos.map[LSW_MAP_PFC_TO_QUEUE][pq->map[LSW_MAP_PFC_TO_QUEUE]].v;
		uint8_t watched_q = 0;
		for (uint8_t prio = 0; prio < 8; prio++)
			if (pq->pfcwd_enable >> prio & 1)
				watched_q |= (uint8_t)(1u << pfc_q[prio]);
		/* Queues no longer watched (config.set) go back to normal. */
		for (uint8_t q = 0; q < LSW_NUM_QUEUES; q++) {
			if (watched_q >> q & 1)
				continue;
			if (sw->wdq[p][q].state == LSW_WD_STORMED) {
				force_restore(sw, p, q, ended, &n_ended);
				LSW_LOG(WARNING, "PFC watchdog: %s queue %u no longer watched: "
					"restored", c->port[p].name, q);
			}
			sw->wdq[p][q].primed = false;
		}
		for (uint8_t prio = 0; prio < 8; prio++) {
			if (!(pq->pfcwd_enable >> prio & 1))
				continue;
			uint8_t q = pfc_q[prio];
			struct lsw_wd_queue *wq = &sw->wdq[p][q];
			struct lsw_wd_stats *st = &sw->wds[p][q];
			if (wd->big_red_switch) {
				/* Every watched queue stormed with drop, whatever it sees. */
				if (wq->state == LSW_WD_STORMED && st->action == LSW_WD_DROP)
					continue;
				if (wq->state == LSW_WD_STORMED) {
					/* the same storm, now dropped */
					apply(sw, p, q, st->action, false);
					st->action = LSW_WD_DROP;
					apply(sw, p, q, LSW_WD_DROP, true);
				} else {
					wq->state = LSW_WD_STORMED;
					wq->detected++;
					storm_begin(sw, v, p, q, prio, LSW_WD_DROP);
				}
				n_changes++;
				LSW_LOG(WARNING, "PFC watchdog: BIG_RED_SWITCH: %s queue %u "
					"dropped", c->port[p].name, q);
				continue;
			}
			if (sw->wd_brs_active && wq->state == LSW_WD_STORMED) {
				force_restore(sw, p, q, ended, &n_ended);
				LSW_LOG(WARNING, "PFC watchdog: BIG_RED_SWITCH off: %s queue %u "
					"restored", c->port[p].name, q);
				continue;
			}
			struct lsw_wd_sample s = {
				.occupancy = (uint64_t)(v->use.q_occ[p][q][0] +
							v->use.q_occ[p][q][1]),
				.tx_pkts = v->ctr.q_tx_pkts[p][q],
			};
			pause_sample(sw, sum, p, prio, now_tsc, &s);
			enum lsw_wd_event e = lsw_pfcwd_step(wq, &s, now_ns,
							     (uint64_t)wp->detection_ms * 1000000,
							     (uint64_t)wp->restoration_ms * 1000000,
							     st->action == LSW_WD_ALERT);
			if (e == LSW_WD_STORM) {
				storm_begin(sw, v, p, q, prio, wp->action);
				n_changes++;
				LSW_LOG(WARNING, "PFC storm detected on %s queue %u (priority %u), "
					"action %s", c->port[p].name, q, prio,
					lsw_pfcwd_action_names[wp->action]);
			} else if (e == LSW_WD_RESTORE) {
				storm_end(sw, p, q, ended, &n_ended);
				LSW_LOG(WARNING, "PFC storm restored on %s queue %u (priority %u)",
					c->port[p].name, q, prio);
			}
		}
		/* Actions left on queues no longer watched (a safety net; storm_end clears). */
		if ((sw->wd_ignore_pause[p] | sw->wd_drop[p]) & ~watched_q) {
			sw->wd_ignore_pause[p] &= watched_q;
			sw->wd_drop[p] &= watched_q;
			n_changes++;
		}
	}
	sw->wd_brs_active = wd->big_red_switch;
	if (n_changes + n_ended)
		(void)lsw_snapshot_refresh(sw);
	if (n_ended) {
		free(v); /* what the workers counted until they stopped acting on it */
		if ((v = lsw_stats_buffer(sw, true)) == NULL)
			goto out;
		for (unsigned int i = 0; i < n_ended; i++) {
			uint16_t p = ended[i] >> 8;
			uint8_t q = (uint8_t)ended[i];
			struct lsw_wd_stats *st = &sw->wds[p][q];
			uint64_t cur[LSW_WD_CTR_MAX];
			lsw_pfcwd_counters(sw, v, p, st->prio, q, cur);
			for (int k = 0; k < LSW_WD_CTR_MAX; k++) {
				st->last[k] = cur[k] - st->base[k];
				st->total[k] += st->last[k];
			}
		}
	}
out:
	free(v);
	free(sum);
}
