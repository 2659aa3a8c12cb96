/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DPDK telemetry commands /lsw/...: the main counters for dpdk-telemetry.py and any client
 * of the telemetry socket. Each command runs the JSON-RPC method that owns the counters
 * and converts its answer, so the names are the ones RPC.md documents.
 *
 * Telemetry calls come from DPDK's telemetry thread, not the main lcore: they take
 * sw->ctl_lock, which the main loop holds while it handles anything (never while it
 * sleeps). The workers never see that lock.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <rte_telemetry.h>
#include "lsw/log.h"
#include "rpc.h"
#include "switch.h"

static struct lsw_switch *tel_sw; /* set once before the commands are registered */

/* Scalars of @v into the dict @d under @name; objects and arrays flattened below it with
 * "_" between the keys: a telemetry container holds only scalars, and its names only
 * letters, digits, '_' and '/'. */
static void
flatten(struct rte_tel_data *d, const char *name, json_t *v)
{
	char key[RTE_TEL_MAX_STRING_LEN];
	const char *k;
	size_t i;
	json_t *x;

	switch (json_typeof(v)) {
	case JSON_OBJECT:
		json_object_foreach(v, k, x) {
			snprintf(key, sizeof(key), "%s%s%s", name, name[0] ? "_" : "", k);
			flatten(d, key, x);
		}
		break;
	case JSON_ARRAY:
		json_array_foreach(v, i, x) {
			snprintf(key, sizeof(key), "%s%s%zu", name, name[0] ? "_" : "", i);
			flatten(d, key, x);
		}
		break;
	case JSON_INTEGER:
		if (json_integer_value(v) >= 0)
			rte_tel_data_add_dict_u64(d, name, (uint64_t)json_integer_value(v));
		else
			rte_tel_data_add_dict_int(d, name, (int)json_integer_value(v));
		break;
	case JSON_REAL:
		/* DPDK 22.11 telemetry has no floating point type. */
		snprintf(key, sizeof(key), "%.6g", json_real_value(v));
		rte_tel_data_add_dict_string(d, name, key);
		break;
	case JSON_STRING:
		rte_tel_data_add_dict_string(d, name, json_string_value(v));
		break;
	case JSON_TRUE:
	case JSON_FALSE:
		rte_tel_data_add_dict_u64(d, name, json_is_true(v));
		break;
	default:
		break;
	}
}

/* An object (or array) as a dict: scalars as they are, each object or array member as a
 * container of its flattened scalars. */
static void
to_tel(struct rte_tel_data *d, json_t *v)
{
	char key[24];
	const char *k;
	size_t i;
	json_t *x;

	rte_tel_data_start_dict(d);
	if (json_is_array(v)) {
		json_array_foreach(v, i, x) {
			const char *name = json_string_value(json_object_get(x, "name"));
			struct rte_tel_data *c = rte_tel_data_alloc();
			snprintf(key, sizeof(key), "%zu", i);
			if (c == NULL)
				return;
			rte_tel_data_start_dict(c);
			flatten(c, "", x);
			rte_tel_data_add_dict_container(d, name ? name : key, c, 0);
		}
		return;
	}
	json_object_foreach(v, k, x) {
		if (!json_is_object(x) && !json_is_array(x)) {
			flatten(d, k, x);
			continue;
		}
		struct rte_tel_data *c = rte_tel_data_alloc();
		if (c == NULL)
			return;
		rte_tel_data_start_dict(c);
		flatten(c, "", x);
		rte_tel_data_add_dict_container(d, k, c, 0);
	}
}

struct tel_cmd {
	const char *cmd, *method, *help;
	bool per_port;          /* takes a port name; answers result.ports.<port> */
	const char *member;     /* answer the first element of this array of the result */
	const char *param;      /* an optional parameter passed to the method under this name */
};

static const struct tel_cmd cmds[] = {
	{"/lsw/info", "switch.info", "Version, uptime, workers, events, RPC counters", false,
	 NULL},
	{"/lsw/ports", "port.list", "Ports: status, speed, MTU, addresses", false, NULL},
	{"/lsw/port_stats", "port.stats", "A port's counters and drops by reason. "
	 "Parameter: port name", true, NULL},
	{"/lsw/queue_stats", "queue.stats", "A port's queues: packets, drops, occupancy, "
	 "watermarks, ECN marks. Parameter: port name", true, NULL},
	{"/lsw/pg_stats", "pg.stats", "A port's priority groups: occupancy, headroom, "
	 "watermarks. Parameter: port name", true, NULL},
	{"/lsw/pfc_stats", "pfc.stats", "A port's PFC frames and pause durations per "
	 "priority. Parameter: port name", true, NULL},
	{"/lsw/pfcwd", "pfcwd.stats", "PFC watchdog: storms and actions per queue", false,
	 NULL},
	{"/lsw/buffer", "buffer.stats", "The shared buffer: pools, occupancy, efficiency",
	 false, NULL},
	{"/lsw/timeline", "timeline.status", "The timeline recorder: running, what, records, "
	 "lost", false, NULL},
	/* A group's members alone fill most of a telemetry dict (256 entries): one group. */
	{"/lsw/ecmp", "ecmp.stats", "An ECMP group: members, quality, packets, flowlets. "
	 "Parameter: its prefix (default: the first group)", false, "groups", "prefix"},
	{"/lsw/trim", "trim.stats", "Packet trimming: settings, switch and port counters, "
	 "exemptions", false, NULL},
	{"/lsw/capture", "capture.list", "Capture sessions: port, direction, filter, state, "
	 "frames written and missed, file", false, NULL},
};

static const struct tel_cmd *
find_cmd(const char *cmd)
{
	for (size_t i = 0; i < RTE_DIM(cmds); i++)
		if (strcmp(cmds[i].cmd, cmd) == 0)
			return &cmds[i];
	return NULL;
}

static int
tel_handle(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct tel_cmd *tc = find_cmd(cmd);
	struct lsw_rpc_error e = {0};
	json_t *p, *r, *v;
	int rc = 0;

	if (tc == NULL)
		return -EINVAL;
	if (tc->per_port && (params == NULL || params[0] == '\0'))
		return -EINVAL; /* the client prints its help line */
	p = json_object();
	if (params != NULL && params[0] != '\0' && (tc->per_port || tc->param != NULL))
		json_object_set_new(p, tc->per_port ? "port" : tc->param, json_string(params));
	pthread_mutex_lock(&tel_sw->ctl_lock);
	r = tel_sw->tel_stopped ? NULL :
	    lsw_rpc_call(tel_sw, lsw_rpc_method_find(tc->method), p, &e);
	pthread_mutex_unlock(&tel_sw->ctl_lock);
	json_decref(p);
	if (r == NULL)
		return -EINVAL;
	v = r;
	if (tc->per_port)
		v = json_object_get(json_object_get(r, "ports"), params);
	else if (tc->member != NULL)
		v = json_array_get(json_object_get(r, tc->member), 0);
	if (v != NULL)
		to_tel(d, v);
	else
		rc = -EINVAL;
	json_decref(r);
	return rc;
}

int
lsw_telemetry_init(struct lsw_switch *sw)
{
	tel_sw = sw;
	for (size_t i = 0; i < RTE_DIM(cmds); i++)
		if (rte_telemetry_register_cmd(cmds[i].cmd, tel_handle, cmds[i].help) != 0) {
			LSW_LOG(WARNING, "telemetry: could not register %s", cmds[i].cmd);
			return -1;
		}
	return 0;
}

void
lsw_telemetry_stop(struct lsw_switch *sw)
{
	pthread_mutex_lock(&sw->ctl_lock);
	sw->tel_stopped = true;
	pthread_mutex_unlock(&sw->ctl_lock);
}
