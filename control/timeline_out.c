/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where the timeline's records go while it runs (timeline.c starts, drains and stops it):
 * the file, or the memory window; and the control plane's own events (a snapshot published,
 * a PFC watchdog's storm and restore). Kept apart from timeline.c so that the files that
 * record an event (snapshot.c, pfcwd.c) do not use the recorder that publishes snapshots
 * (tests/layering.py).
 */
#include <errno.h>
#include <stdio.h>
#include <rte_cycles.h>
#include "switch.h"

void
lsw_timeline_out(struct lsw_switch *sw, const struct lsw_tl_rec *r, size_t n)
{
	struct lsw_timeline_ctl *t = &sw->tl;

	if (t->fp == NULL) {
		for (size_t i = 0; i < n; i++) {
			t->mem[t->mem_head] = r[i];
			t->mem_head = (t->mem_head + 1) % t->mem_cap;
		}
		t->mem_n = RTE_MIN(t->mem_n + n, t->mem_cap);
		t->records += n;
		t->bytes = t->mem_n * sizeof(*r);
		return;
	}
	size_t room = (t->max_bytes - RTE_MIN(t->bytes, t->max_bytes)) / sizeof(*r);
	if (n > room) {
		n = room;
		t->full = true;
	}
	if (n != 0 && fwrite(r, sizeof(*r), n, t->fp) != n) {
		t->write_errno = errno ? errno : EIO;
		return;
	}
	t->records += n;
	t->bytes += n * sizeof(*r);
}

void
lsw_timeline_event_cp(struct lsw_switch *sw, uint8_t kind, uint16_t port, uint8_t idx,
		      uint32_t v0, uint64_t v1)
{
	if (!sw->tl.running || !(sw->tl.what & LSW_TL_W(EVENTS)))
		return;
	struct lsw_tl_rec r = {
		.t = lsw_clock_wall_ns(&sw->clock, rte_rdtsc()), .kind = kind,
		.port = (uint8_t)port, .idx = idx, .v0 = v0, .v[0] = v1,
	};
	lsw_timeline_out(sw, &r, 1);
}
