/* SPDX-License-Identifier: BSD-3-Clause */
#include "lsw/counters.h"
#include "lsw/dataplane.h"

static const struct {
	const char *name;
	const char *desc;
	int egress;
} drops[LSW_DROP_MAX] = {
	[LSW_DROP_NONE] = {"NONE", "not dropped", 0},
#define LSW_DROP_ROW(n, dir, d) [LSW_DROP_##n] = {#n, d, sizeof(#dir) == sizeof("OUT")},
	LSW_FOREACH_DROP(LSW_DROP_ROW)
#undef LSW_DROP_ROW
};

static const char *const port_ctrs[LSW_PC_MAX] = {
#define LSW_PC_ROW(n) [LSW_PC_##n] = #n,
	LSW_FOREACH_PORT_CTR(LSW_PC_ROW)
#undef LSW_PC_ROW
};

static const struct {
	const char *name;
	const char *desc;
} events[LSW_EV_MAX] = {
#define LSW_EV_ROW(n, d) [LSW_EV_##n] = {#n, d},
	LSW_FOREACH_EVENT(LSW_EV_ROW)
#undef LSW_EV_ROW
};

const char *
lsw_drop_name(enum lsw_drop d)
{
	return (unsigned)d < LSW_DROP_MAX ? drops[d].name : "?";
}

const char *
lsw_drop_desc(enum lsw_drop d)
{
	return (unsigned)d < LSW_DROP_MAX ? drops[d].desc : "?";
}

int
lsw_drop_is_egress(enum lsw_drop d)
{
	return (unsigned)d < LSW_DROP_MAX && drops[d].egress;
}

const char *
lsw_port_ctr_name(enum lsw_port_ctr c)
{
	return (unsigned)c < LSW_PC_MAX ? port_ctrs[c] : "?";
}

const char *
lsw_event_name(enum lsw_event e)
{
	return (unsigned)e < LSW_EV_MAX ? events[e].name : "?";
}

const char *
lsw_event_desc(enum lsw_event e)
{
	return (unsigned)e < LSW_EV_MAX ? events[e].desc : "?";
}

void
lsw_drop_note(struct lsw_worker *w, uint16_t port, enum lsw_drop d, struct rte_mbuf *m)
{
	w->ctr->port[port].drop[d]++;
	if (unlikely(lsw_load_relaxed(&w->dp->dropsnap_mode) & LSW_DROPSNAP_DROPS))
		lsw_dropsnap_take(w, port, LSW_DROPSNAP_DROP, (uint16_t)d, m);
}

void
lsw_count_drop(struct lsw_worker *w, uint16_t port, enum lsw_drop d, struct rte_mbuf *m)
{
	lsw_drop_note(w, port, d, m);
	rte_pktmbuf_free(m);
}
