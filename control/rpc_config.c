/* SPDX-License-Identifier: BSD-3-Clause */
/* config.get, config.validate, config.set (control/config_apply.c does the work). */
#include <errno.h>
#include <string.h>
#include "jsonv.h"
#include "rpc.h"
#include "switch.h"

static json_t *
config_get(struct lsw_switch *sw, json_t *params, struct lsw_rpc_error *e)
{
	static const char *const allowed[] = {NULL};

	if (!lsw_rpc_params_check(params, allowed, e))
		return NULL;
	return json_deep_copy(sw->cfg->doc);
}

static const struct lsw_rpc_method m_config_get = {
	.name = "config.get",
	.summary = "The running configuration, in the shape of the configuration file",
	.params = "",
	.safe_while_forwarding = true,
	.fn = config_get,
};
LSW_RPC_REGISTER(m_config_get)

/* The running config with @patch merged over it, validated as a whole and checked for what
 * can change while forwarding. NULL with @e set when refused. */
static struct lsw_config *
candidate(struct lsw_switch *sw, json_t *patch, struct lsw_rpc_error *e)
{
	json_t *doc = lsw_config_merge(sw->cfg->doc, patch);
	struct lsw_config *n = lsw_config_from_json(doc, &e->errs);

	json_decref(doc);
	if (n != NULL)
		lsw_config_hot_check(sw->cfg, n, rte_pktmbuf_data_room_size(sw->dp.pool) -
				     RTE_PKTMBUF_HEADROOM, &e->errs);
	if (e->errs.n != 0) {
		lsw_config_free(n);
		lsw_rpc_fail(e, LSW_RPC_INVALID_PARAMS, "configuration refused; nothing changed");
		return NULL;
	}
	return n;
}

/* params.config: the partial config of config.validate and config.set. */
static json_t *
config_param(json_t *params, struct lsw_rpc_error *e)
{
	static const char *const allowed[] = {"config", NULL};
	json_t *patch;

	if (!lsw_rpc_params_check(params, allowed, e))
		return NULL;
	patch = json_object_get(params, "config");
	if (json_is_object(patch))
		return patch;
	lsw_errs_add(&e->errs, "$.params.config", "required: an object of tables (a partial "
		     "config; null removes a key)");
	lsw_rpc_fail(e, LSW_RPC_INVALID_PARAMS, "invalid params");
	return NULL;
}

json_t *
lsw_rpc_config_apply(struct lsw_switch *sw, json_t *patch, struct lsw_rpc_error *e)
{
	struct lsw_config *n = candidate(sw, patch, e);

	if (n == NULL)
		return NULL;
	int rc = lsw_config_apply(sw, n);
	if (rc == -2) {
		lsw_rpc_fail(e, LSW_RPC_ERR_DEVICE, "a port refused its new MTU (see the log); "
			     "the rest was not applied");
		return NULL;
	}
	if (rc != 0) {
		lsw_config_free(n);
		lsw_rpc_fail(e, LSW_RPC_INTERNAL_ERROR, "out of memory or FIB full; nothing "
			     "changed");
		return NULL;
	}
	return json_pack("{s:b}", "applied", 1);
}

static json_t *
config_validate(struct lsw_switch *sw, json_t *params, struct lsw_rpc_error *e)
{
	json_t *patch = config_param(params, e);
	struct lsw_config *n = patch ? candidate(sw, patch, e) : NULL;

	if (n == NULL)
		return NULL;
	lsw_config_free(n);
	return json_pack("{s:b}", "valid", 1);
}

static const struct lsw_rpc_method m_config_validate = {
	.name = "config.validate",
	.summary = "Check a partial config merged over the running one, without applying it",
	.params = "config: object (tables; null deletes)",
	.safe_while_forwarding = true,
	.fn = config_validate,
};
LSW_RPC_REGISTER(m_config_validate)

static json_t *
config_set(struct lsw_switch *sw, json_t *params, struct lsw_rpc_error *e)
{
	json_t *patch = config_param(params, e);

	return patch ? lsw_rpc_config_apply(sw, patch, e) : NULL;
}

static const struct lsw_rpc_method m_config_set = {
	.name = "config.set",
	.summary = "Apply a partial config (merged, validated whole, published under RCU)",
	.params = "config: object (tables; null deletes)",
	.safe_while_forwarding = true,
	.fn = config_set,
};
LSW_RPC_REGISTER(m_config_set)

/* params.path: absolute, default the file lsw started with. NULL with @e set. */
static const char *
path_param(struct lsw_switch *sw, json_t *params, struct lsw_rpc_error *e)
{
	static const char *const allowed[] = {"path", NULL};
	json_t *v = json_object_get(params, "path");
	const char *path = sw->config_path;

	if (!lsw_rpc_params_check(params, allowed, e))
		return NULL;
	if (v != NULL && !lsw_jv_str(v, "$.params.path", PATH_MAX - 32, &path, &e->errs)) {
		lsw_rpc_fail(e, LSW_RPC_INVALID_PARAMS, "invalid params");
		return NULL;
	}
	if (path[0] != '/') {
		lsw_errs_add(&e->errs, "$.params.path", "an absolute path, please (lsw's working "
			     "directory is not the client's)");
		lsw_rpc_fail(e, LSW_RPC_INVALID_PARAMS, "invalid params");
		return NULL;
	}
	return path;
}

static json_t *
config_save(struct lsw_switch *sw, json_t *params, struct lsw_rpc_error *e)
{
	const char *path = path_param(sw, params, e);
	char err[PATH_MAX + 128];

	if (path == NULL)
		return NULL;
	if (lsw_config_save(sw->cfg->doc, path, err, sizeof(err)) != 0) {
		lsw_rpc_fail(e, LSW_RPC_ERR_IO, "%.150s", err);
		return NULL;
	}
	return json_pack("{s:s}", "path", path);
}

static const struct lsw_rpc_method m_config_save = {
	.name = "config.save",
	.summary = "Write the running config to a file, atomically (temp, fsync, rename)",
	.params = "path?: string (absolute; default the file lsw started with)",
	.safe_while_forwarding = true,
	.fn = config_save,
};
LSW_RPC_REGISTER(m_config_save)

static json_t *
config_diff(struct lsw_switch *sw, json_t *params, struct lsw_rpc_error *e)
{
	const char *path = path_param(sw, params, e);
	char err[PATH_MAX + 256];
	json_t *file;

	if (path == NULL)
		return NULL;
	file = lsw_config_read(path, err, sizeof(err));
	if (file == NULL) {
		lsw_rpc_fail(e, LSW_RPC_ERR_IO, "%.150s", err);
		return NULL;
	}
	json_t *d = lsw_config_diff(file, sw->cfg->doc);
	json_decref(file);
	return json_pack("{s:s, s:o}", "path", path, "differences", d);
}

static const struct lsw_rpc_method m_config_diff = {
	.name = "config.diff",
	.summary = "What the running config changed from a file (default: the one lsw started "
		   "with)",
	.params = "path?: string (absolute)",
	.safe_while_forwarding = true,
	.fn = config_diff,
};
LSW_RPC_REGISTER(m_config_diff)
