/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Run-time configuration changes: merge a partial config over the running one (RFC 7386
 * merge patch), validate the result as a whole, check that every difference can be applied
 * while forwarding, then publish it to the workers as a new snapshot under RCU.
 *
 * What can change at run time: buffer pool sizes and shared headroom, profile thresholds
 * and sizes, PG and queue bindings that keep their pool, cable lengths and the headroom
 * inputs, classification maps, schedulers, port speeds and admin status, and the LSW.global
 * timers, interface addresses, static routes and neighbors (fib.c replaces each changed
 * route in place), the ECMP table. The MMU state survives because every in-flight packet
 * releases to the same pool it was charged to. Anything else (ports, devargs, lcores,
 * mbufs, the cell size) is refused with its JSON path and "needs a restart".
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "lsw/log.h"
#include "jsonv.h"
#include "fibctl.h"
#include "fib6ctl.h"
#include "switch.h"

json_t *
lsw_config_merge(const json_t *target, const json_t *patch)
{
	if (!json_is_object(patch))
		return json_deep_copy(patch);
	json_t *out = json_is_object(target) ? json_deep_copy(target) : json_object();
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)patch, k, v) {
		if (json_is_null(v))
			json_object_del(out, k);
		else
			json_object_set_new(out, k, lsw_config_merge(json_object_get(out, k), v));
	}
	return out;
}

static void
restart(struct lsw_errs *errs, const char *path, const char *what)
{
	lsw_errs_add(errs, path, "%s needs a restart of lsw (not changeable while forwarding)",
		     what);
}

#define SAME(a, b) (memcmp(&(a), &(b), sizeof(a)) == 0)

static void
check_global(const struct lsw_global_conf *o, const struct lsw_global_conf *n,
	     struct lsw_errs *errs)
{
	static const struct {
		const char *name;
		size_t off, len;
	} cold[] = {
#define F(f, name) \
	{name, offsetof(struct lsw_global_conf, f), sizeof(((struct lsw_global_conf *)0)->f)}
		F(main_lcore, "main_lcore"), F(n_workers, "workers"), F(workers, "workers"),
		F(worker_cpu, "workers"),
		F(mbufs, "mbufs"), F(memory_mb, "memory_mb"), F(rx_desc, "rx_descriptors"),
		F(tx_desc, "tx_descriptors"), F(file_prefix, "file_prefix"),
		F(rpc_socket, "rpc_socket"),
		F(rpc_timeout_ms, "rpc_timeout_ms"), F(rpc_max_request, "rpc_max_request_bytes"),
		F(rpc_max_conns, "rpc_max_connections"),
		F(rpc_idle_timeout_ms, "rpc_idle_timeout_ms"), F(rpc_tcp_port, "rpc_tcp_port"),
		F(rpc_tcp_addr, "rpc_tcp_address"),
#undef F
	};
	char p[LSW_PATH_LEN];

	for (size_t i = 0; i < sizeof(cold) / sizeof(cold[0]); i++)
		if (memcmp((const char *)o + cold[i].off, (const char *)n + cold[i].off,
			   cold[i].len) != 0) {
			lsw_path_key(p, "$.LSW.global", cold[i].name);
			restart(errs, p, cold[i].name);
		}
}

void
lsw_config_hot_check(const struct lsw_config *o, const struct lsw_config *n,
		     uint32_t frame_room, struct lsw_errs *errs)
{
	const struct lsw_qos_conf *oq = &o->qos, *nq = &n->qos;
	char p[LSW_PATH_LEN];

	check_global(&o->g, &n->g, errs);
	if (o->n_ports != n->n_ports) {
		restart(errs, "$.PORT", "adding or removing ports");
		return;
	}
	for (uint16_t i = 0; i < o->n_ports; i++) {
		const struct lsw_port_conf *a = &o->port[i], *b = &n->port[i];
		if (strcmp(a->name, b->name) != 0) {
			lsw_path_key(p, "$.PORT", b->name);
			restart(errs, p, "renaming or reordering ports");
			continue;
		}
		lsw_path_key(p, "$.LSW_PORT", a->name);
		if (strcmp(a->devargs, b->devargs) != 0 || a->lcore != b->lcore ||
		    a->mac_set != b->mac_set || !rte_is_same_ether_addr(&a->mac, &b->mac))
			restart(errs, p, "a port's devargs, MAC or lcore");
		lsw_path_key(p, "$.PORT", a->name);
		/* A new MTU restarts the port, if a frame of it fits the mbufs lsw has: what
		 * the running config would size them to is less once every MTU went down. */
		if (a->mtu != b->mtu &&
		    (uint32_t)b->mtu + RTE_ETHER_HDR_LEN + 4 + RTE_ETHER_CRC_LEN > frame_room) {
			char pm[LSW_PATH_LEN];
			lsw_path_key(pm, p, "mtu");
			restart(errs, pm, "an MTU larger than the mbufs lsw started with");
		}
		/* A PG or queue may take another profile, but not another pool: its packets in
		 * flight give their buffer back to the pool they were charged to. */
		for (int k = 0; k < 8; k++) {
			if (oq->profile[oq->port[i].pg_profile[k]].pool !=
			    nq->profile[nq->port[i].pg_profile[k]].pool) {
				snprintf(p, sizeof(p), "$.BUFFER_PG['%s|%d']", a->name, k);
				restart(errs, p, "moving a PG to another pool");
			}
			if (oq->profile[oq->port[i].q_profile[k]].pool !=
			    nq->profile[nq->port[i].q_profile[k]].pool) {
				snprintf(p, sizeof(p), "$.BUFFER_QUEUE['%s|%d']", a->name, k);
				restart(errs, p, "moving a queue to another pool");
			}
		}
	}
	if (oq->buf.cell != nq->buf.cell || oq->buf.n_ai_sizes != nq->buf.n_ai_sizes ||
	    !SAME(oq->buf.ai_sizes, nq->buf.ai_sizes))
		restart(errs, "$.LSW.buffer", "the cell size or the AI packet sizes");
	if (oq->n_pools != nq->n_pools) {
		restart(errs, "$.BUFFER_POOL", "adding or removing pools");
		return;
	}
	for (uint16_t i = 0; i < oq->n_pools; i++)
		if (strcmp(oq->pool[i].name, nq->pool[i].name) != 0 ||
		    oq->pool[i].type != nq->pool[i].type) {
			lsw_path_key(p, "$.BUFFER_POOL", nq->pool[i].name);
			restart(errs, p, "renaming, reordering or retyping pools");
		}
}

void
lsw_log_set_level(const char *name)
{
	for (uint32_t i = 0; lsw_log_level_names[i] != NULL; i++)
		if (strcmp(lsw_log_level_names[i], name) == 0) {
			rte_log_set_global_level(i + RTE_LOG_EMERG);
			rte_log_set_level(lsw_logtype, i + RTE_LOG_EMERG);
		}
}

/* Free what the FIB let go of; only after a grace period (a publish), since a worker may
 * still hold a group or next-hop id it looked up before the change. */
static void
fib_reclaim(struct lsw_switch *sw)
{
	for (uint32_t i = 0; i < sw->fibc->n_dead_gid; i++)
		lsw_ecmp_forget(sw, false, sw->fibc->dead_gid[i]);
	lsw_fibctl_reclaim(sw->fibc);
	for (uint32_t g = 0; g < LSW_MAX_NHG6; g++)
		if (sw->fib6c->dead_gid[g / 64] >> (g % 64) & 1)
			lsw_ecmp_forget(sw, true, g);
	memset(sw->fib6c->dead_gid, 0, sizeof(sw->fib6c->dead_gid));
}

/* A change failed after the FIB took (part of) @n: put the running config's routes back
 * and give them their snapshot. What both passes let go of is reclaimed after that
 * snapshot's grace period, or by the next change that publishes. */
static void
fib_rollback(struct lsw_switch *sw, const struct lsw_config *n)
{
	bool restored = lsw_fibctl_update(sw->fibc, n, sw->cfg, lsw_now_ns()) == 0;
	if (!restored)
		LSW_LOG(ERR, "FIB: the running routes could not all be restored (see route.list); "
			"restart lsw to be sure");
	if (lsw_snapshot_refresh(sw) != 0)
		return;
	/* A failed restore may leave routes on what it let go of: keep it all allocated. */
	if (restored)
		fib_reclaim(sw);
}

/* Returns 0; -1 out of memory; -2 a port refused its new MTU (@n is then freed, and the
 * running config says what each port really has). */
int
lsw_config_apply(struct lsw_switch *sw, struct lsw_config *n)
{
	struct lsw_config *o = sw->cfg;

	/* Port restarts first, each with its own snapshots, on the running config. */
	for (uint16_t i = 0; i < n->n_ports; i++) {
		if (n->port[i].mtu == o->port[i].mtu)
			continue;
		if (lsw_port_set_mtu(sw, i, n->port[i].mtu) != 0) {
			lsw_config_free(n);
			return -2;
		}
		json_t *pt = json_object_get(json_object_get(o->doc, "PORT"), o->port[i].name);
		char mtu[8];
		snprintf(mtu, sizeof(mtu), "%u", o->port[i].mtu);
		json_object_set_new(pt, "mtu", json_string(mtu));
	}

	/* Speeds feed the snapshot (shapers, ECMP bands); kept to restore on failure. */
	uint32_t speed[LSW_MAX_PORTS];
	for (uint16_t i = 0; i < n->n_ports; i++) {
		speed[i] = sw->port[i].speed;
		if (n->port[i].speed != o->port[i].speed && n->port[i].speed != 0)
			sw->port[i].speed = n->port[i].speed;
	}
	/* The FIBs first: the new snapshot gives its new groups their ECMP state. IPv6's
	 * fails whole or not at all; it is put back if what follows fails. Its old table
	 * catches up after the snapshot's grace period (fib6ctl.c): one grace period a
	 * change. */
	bool published = false;
	if (lsw_fib6ctl_update_begin(sw->fib6c, n, lsw_now_ns()) != 0) {
		for (uint16_t i = 0; i < n->n_ports; i++)
			sw->port[i].speed = speed[i];
		return -1;
	}
	int rc = lsw_fibctl_update(sw->fibc, o, n, lsw_now_ns());
	if (rc == 0) {
		sw->cfg = n;
		published = lsw_snapshot_refresh(sw) == 0; /* returns after a grace period */
	}
	if (!published) {
		sw->cfg = o;
		for (uint16_t i = 0; i < n->n_ports; i++)
			sw->port[i].speed = speed[i];
		if (rc != -2) /* -2: refused before it changed anything */
			fib_rollback(sw, n);
		if (lsw_fib6ctl_update(sw->fib6c, o, lsw_now_ns()) != 0)
			LSW_LOG(ERR, "FIB6: the running routes could not be restored");
		return -1;
	}
	lsw_fib6ctl_update_end(sw->fib6c, n);
	fib_reclaim(sw);
	if (strcmp(o->g.log_level, n->g.log_level) != 0)
		lsw_log_set_level(n->g.log_level);
	for (uint16_t i = 0; i < n->n_ports; i++)
		if (n->port[i].admin_up != o->port[i].admin_up)
			lsw_port_set_admin(sw, i, n->port[i].admin_up);
	if (lsw_dropsnap_config(sw, o) != 0)
		LSW_LOG(ERR, "out of memory for %u drop snapshots: the store keeps its size",
			n->g.drop_snapshots);
	lsw_config_free(o);
	LSW_LOG(INFO, "configuration changed at run time");
	return 0;
}
