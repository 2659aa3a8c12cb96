/* SPDX-License-Identifier: BSD-3-Clause */
#include <rte_common.h>
#include "pfcwd.h"

enum lsw_wd_event
lsw_pfcwd_step(struct lsw_wd_queue *q, const struct lsw_wd_sample *s, uint64_t now_ns,
	       uint64_t detection_ns, uint64_t restoration_ns, bool alert)
{
	enum lsw_wd_event ev = LSW_WD_NONE;
	/* The pause counter is read in two parts while a worker may close a pause between
	 * them: it can come out lower than last time. Keep it from going backwards. */
	uint64_t pause_ns = RTE_MAX(s->pause_ns, q->last.pause_ns);

	if (!q->primed) { /* the first poll only takes a snapshot, as SONiC's does */
		q->primed = true;
		q->last = *s;
		q->last_ns = now_ns;
		return LSW_WD_NONE;
	}
	uint64_t interval = now_ns - q->last_ns;
	uint64_t paused = pause_ns - q->last.pause_ns;
	bool sent = s->tx_pkts != q->last.tx_pkts;
	/* Data waiting, nothing sent, paused for (almost) the whole interval. */
	bool storm = interval > 0 && s->occupancy > 0 && !sent && paused * 100 >= interval * 99;

	if (q->state == LSW_WD_OPERATIONAL) {
		q->storm_ns = storm ? q->storm_ns + interval : 0;
		if (q->storm_ns >= detection_ns && storm) {
			q->state = LSW_WD_STORMED;
			q->storm_ns = 0;
			q->calm_ns = 0;
			q->detected++;
			ev = LSW_WD_STORM;
		}
	} else if (alert) {
		/* Alert changes nothing, so it ends with the storm (SONiC's detect script). */
		if (!storm) {
			q->state = LSW_WD_OPERATIONAL;
			q->restored++;
			ev = LSW_WD_RESTORE;
		}
	} else {
		/* Any pause time, or an XOFF still running, starts the count again. XONs add
		 * no pause time, so they cannot hold a queue stormed. */
		bool calm = paused == 0 && !s->paused;
		q->calm_ns = calm ? q->calm_ns + interval : 0;
		if (restoration_ns && q->calm_ns >= restoration_ns) {
			q->state = LSW_WD_OPERATIONAL;
			q->calm_ns = 0;
			q->restored++;
			ev = LSW_WD_RESTORE;
		}
	}
	q->last = *s;
	q->last.pause_ns = pause_ns;
	q->last_ns = now_ns;
	return ev;
}
