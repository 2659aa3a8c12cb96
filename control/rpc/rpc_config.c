/* SPDX-License-Identifier: BSD-3-Clause */
/* config.get, config.validate, config.set (control/config_apply.c does the work). */
#include <errno.h>
#include <string.h>
#include "jsonv.h"
#include "rpc.h"
#include "switch.h"

static json_t *
config_get(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	RTE_SET_USED(args);
	RTE_SET_USED(e);
	return json_deep_copy(sw->cfg->doc);
}

static const struct lsw_rpc_method m_config_get = {
	.name = "config.get",
	.summary = "The running configuration, in the shape of the configuration file",
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
struct patch_args {
	json_t *config;
};

static const struct lsw_field patch_rows[] = {
	{.name = "config", .type = LSW_F_OBJECT, LSW_AT(struct patch_args, config),
	 .required = "an object of tables (a partial config; null removes a key)",
	 .doc = "object (tables; null deletes)"},
};
static const struct lsw_fields patch_params = LSW_FIELDS(patch_rows);

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
config_validate(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	struct lsw_config *n = candidate(sw, ((const struct patch_args *)args)->config, e);

	if (n == NULL)
		return NULL;
	lsw_config_free(n);
	return json_pack("{s:b}", "valid", 1);
}

static const struct lsw_rpc_method m_config_validate = {
	.name = "config.validate",
	.summary = "Check a partial config merged over the running one, without applying it",
	.params = &patch_params,
	.args_size = sizeof(struct patch_args),
	.fn = config_validate,
};
LSW_RPC_REGISTER(m_config_validate)

static json_t *
config_set(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	return lsw_rpc_config_apply(sw, ((const struct patch_args *)args)->config, e);
}

static const struct lsw_rpc_method m_config_set = {
	.name = "config.set",
	.summary = "Apply a partial config (merged, validated whole, published under RCU)",
	.params = &patch_params,
	.args_size = sizeof(struct patch_args),
	.fn = config_set,
};
LSW_RPC_REGISTER(m_config_set)

/* params.path of config.save and config.diff: absolute, default the file lsw started with
 * (NULL here). */
struct path_args {
	const char *path;
};

static bool
path_param(const struct lsw_field *f, json_t *v, const char *path, void *out, void *ctx,
	   struct lsw_errs *errs)
{
	const char **p = (const char **)((char *)out + f->off);

	RTE_SET_USED(ctx);
	if (!lsw_jv_str(v, path, PATH_MAX - 32, p, errs))
		return false;
	if ((*p)[0] == '/')
		return true;
	lsw_errs_add(errs, path, "an absolute path, please (lsw's working directory is not "
		     "the client's)");
	return false;
}

static const struct lsw_field save_rows[] = {
	{.name = "path", .type = LSW_F_CUSTOM, .off = offsetof(struct path_args, path),
	 .fn = path_param, .doc = "string (absolute; default the file lsw started with)"},
};
static const struct lsw_fields save_params = LSW_FIELDS(save_rows);

static const struct lsw_field diff_rows[] = {
	{.name = "path", .type = LSW_F_CUSTOM, .off = offsetof(struct path_args, path),
	 .fn = path_param, .doc = "string (absolute)"},
};
static const struct lsw_fields diff_params = LSW_FIELDS(diff_rows);

static json_t *
config_save(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	const char *given = ((const struct path_args *)args)->path;
	const char *path = given ? given : sw->config_path;
	char err[PATH_MAX + 128];

	if (lsw_config_save(sw->cfg->doc, path, err, sizeof(err)) != 0) {
		lsw_rpc_fail(e, LSW_RPC_ERR_IO, "%.150s", err);
		return NULL;
	}
	return json_pack("{s:s}", "path", path);
}

static const struct lsw_rpc_method m_config_save = {
	.name = "config.save",
	.summary = "Write the running config to a file, atomically (temp, fsync, rename)",
	.params = &save_params,
	.args_size = sizeof(struct path_args),
	.fn = config_save,
};
LSW_RPC_REGISTER(m_config_save)

static json_t *
config_diff(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	const char *given = ((const struct path_args *)args)->path;
	const char *path = given ? given : sw->config_path;
	char err[PATH_MAX + 256];
	json_t *file;

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
	.params = &diff_params,
	.args_size = sizeof(struct path_args),
	.fn = config_diff,
};
LSW_RPC_REGISTER(m_config_diff)
