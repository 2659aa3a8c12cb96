/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PFC watchdog (SONiC's PFC Watchdog Design), with SONiC's known bugs fixed: storm = the queue
 * holds data, sent nothing, and was paused for at least 99% of the poll, continuously for
 * detection_time (so detected within [D, D + poll]); restore once the queue has not been
 * paused (no unexpired XOFF) for restoration_time, so that a stream of XON frames cannot
 * keep a queue stormed (sonic-swss#4581); an alert queue, which still obeys the pause,
 * restores on the first poll without the storm condition, as SONiC's does. Pure functions
 * of the state, a sample and the time, run by the main lcore; the actions are applied
 * through the workers' snapshot.
 */
#ifndef LSW_PFCWD_H
#define LSW_PFCWD_H

#include <stdint.h>
#include <stdbool.h>

enum lsw_wd_state { LSW_WD_OPERATIONAL, LSW_WD_STORMED };
extern const char *const lsw_wd_state_names[]; /* PFC_WD_STATUS: "operational", "stormed" */
enum lsw_wd_event { LSW_WD_NONE, LSW_WD_STORM, LSW_WD_RESTORE };

/* What the poll measured for one queue. */
struct lsw_wd_sample {
	uint64_t occupancy;     /* bytes queued now */
	uint64_t tx_pkts;       /* packets the queue has sent (a counter) */
	uint64_t pause_ns;      /* time its priority has been paused (a counter) */
	bool paused;            /* an unexpired XOFF now */
};

struct lsw_wd_queue {
	uint8_t state;          /* enum lsw_wd_state */
	bool primed;            /* a first sample was taken */
	uint64_t storm_ns;      /* how long the storm condition has held */
	uint64_t calm_ns;       /* how long no pause has been seen (stormed queues) */
	struct lsw_wd_sample last;
	uint64_t last_ns;
	uint64_t detected, restored;
};

/* SONiC's PFC_WD_QUEUE_STATS_<name> of a watched queue (and <name>_LAST, over the last
 * storm), and what it counts: in the buffer counters @c (struct lsw_buffer_ctr, summed
 * without the clear baseline), queue @q of port @p, whose priority pauses PG @pg. A storm's
 * count is the difference since it began. */
#define LSW_FOREACH_WD_CTR(X, c, p, q, pg) \
	X(TX_PACKETS,         (c)->q_tx_pkts[p][q]) \
	X(TX_DROPPED_PACKETS, (c)->wd_tx_drops[p][q]) \
	X(RX_PACKETS,         (c)->pg_pkts[p][pg] + (c)->wd_rx_drops[p][q]) \
	X(RX_DROPPED_PACKETS, (c)->wd_rx_drops[p][q])

enum lsw_wd_ctr {
#define LSW_WD_CTR_ENUM(name, value) LSW_WD_CTR_##name,
	LSW_FOREACH_WD_CTR(LSW_WD_CTR_ENUM, _, _, _, _)
#undef LSW_WD_CTR_ENUM
	LSW_WD_CTR_MAX
};
extern const char *const lsw_wd_ctr_names[LSW_WD_CTR_MAX];

/* One poll of one queue at @now_ns. @detection_ns and @restoration_ns (0: never restore);
 * an @alert queue restores on the first poll without the storm condition instead. */
enum lsw_wd_event lsw_pfcwd_step(struct lsw_wd_queue *q, const struct lsw_wd_sample *s,
				 uint64_t now_ns, uint64_t detection_ns, uint64_t restoration_ns,
				 bool alert);

#endif
