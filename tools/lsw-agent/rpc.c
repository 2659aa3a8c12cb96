/* SPDX-License-Identifier: BSD-3-Clause */
/* A minimal JSON-RPC 2.0 client for lsw: one request at a time, answers end with a newline. */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include "agent_user.h"

int
agent_rpc_open(struct agent_rpc *r, const char *where, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	r->fd = -1;
	if (strncmp(where, "tcp:", 4) == 0) {
		char host[256];
		const char *colon = strrchr(where + 4, ':');
		struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai;
		if (colon == NULL || (size_t)(colon - where - 4) >= sizeof(host)) {
			snprintf(err, errlen, "%s: expected tcp:HOST:PORT", where);
			return -1;
		}
		snprintf(host, sizeof(host), "%.*s", (int)(colon - where - 4), where + 4);
		if (getaddrinfo(host[0] ? host : "127.0.0.1", colon + 1, &hints, &ai) != 0) {
			snprintf(err, errlen, "%s: no such host or port", where);
			return -1;
		}
		r->fd = socket(ai->ai_family, SOCK_STREAM, 0);
		if (r->fd < 0 || connect(r->fd, ai->ai_addr, ai->ai_addrlen) != 0) {
			snprintf(err, errlen, "cannot reach lsw at %s: %s", where, strerror(errno));
			freeaddrinfo(ai);
			agent_rpc_close(r);
			return -1;
		}
		freeaddrinfo(ai);
		return 0;
	}
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	if (strlen(where) >= sizeof(a.sun_path)) {
		snprintf(err, errlen, "%s: socket path too long", where);
		return -1;
	}
	strcpy(a.sun_path, where);
	r->fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (r->fd < 0 || connect(r->fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		snprintf(err, errlen, "cannot reach lsw at %s: %s (is it running? -s names its "
			 "socket)", where, strerror(errno));
		agent_rpc_close(r);
		return -1;
	}
	return 0;
}

json_t *
agent_rpc_call(struct agent_rpc *r, const char *method, json_t *params, char *err,
	       size_t errlen)
{
	json_t *req = json_pack("{s:s, s:I, s:s}", "jsonrpc", "2.0", "id", (json_int_t)++r->id,
				"method", method);
	if (params != NULL)
		json_object_set_new(req, "params", params);
	char *text = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	size_t n = strlen(text);
	text[n] = '\n'; /* the terminating NUL becomes the newline */
	ssize_t w = write(r->fd, text, n + 1);
	free(text);
	if (w != (ssize_t)(n + 1)) {
		snprintf(err, errlen, "%s: lsw closed the connection", method);
		return NULL;
	}
	for (;;) {
		char *nl = r->len ? memchr(r->buf, '\n', r->len) : NULL;
		if (nl != NULL) {
			json_error_t je;
			json_t *resp = json_loadb(r->buf, (size_t)(nl - r->buf), 0, &je);
			r->len -= (size_t)(nl + 1 - r->buf);
			memmove(r->buf, nl + 1, r->len);
			json_t *res = json_object_get(resp, "result");
			if (res == NULL) {
				json_t *e = json_object_get(resp, "error");
				snprintf(err, errlen, "%s: %s", method,
					 e ? json_string_value(json_object_get(e, "message")) :
					     "not a JSON-RPC answer");
				json_decref(resp);
				return NULL;
			}
			json_incref(res);
			json_decref(resp);
			return res;
		}
		if (r->len == r->cap) {
			size_t cap = r->cap ? 2 * r->cap : 1 << 16;
			char *b = cap <= (64u << 20) ? realloc(r->buf, cap) : NULL;
			if (b == NULL) {
				snprintf(err, errlen, "%s: answer too large", method);
				return NULL;
			}
			r->buf = b;
			r->cap = cap;
		}
		ssize_t got = read(r->fd, r->buf + r->len, r->cap - r->len);
		if (got <= 0) {
			snprintf(err, errlen, "%s: lsw closed the connection", method);
			return NULL;
		}
		r->len += (size_t)got;
	}
}

void
agent_rpc_close(struct agent_rpc *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	free(r->buf);
	r->buf = NULL;
	r->len = r->cap = 0;
}
