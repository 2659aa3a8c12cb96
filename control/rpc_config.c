/* SPDX-License-Identifier: BSD-3-Clause */
/* config.get, config.validate, config.set (control/config_apply.c does the work). */
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
		lsw_config_hot_check(sw->cfg, n, &e->errs);
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
