/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * config.save and config.diff: the saved file is the running config; a save interrupted
 * at any point (the process killed mid-write, the disk full) leaves the previous file
 * whole; the diff names what changed by path.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "harness.h"
#include "lsw/rpc.h"

static char dir[64];

static int
setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/lsw_test_save.XXXXXX");
	return mkdtemp(dir) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	static char buf[1 << 20];
	size_t n;

	if (f == NULL)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strdup(buf);
}

static void
put(const char *path, const char *txt)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(txt, f);
	fclose(f);
}

static unsigned int
count_files(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "test $(ls -A %s | wc -l) -eq 1", dir);
	return system(cmd) == 0 ? 1 : 2;
}

static void
test_save_roundtrip(void **state)
{
	struct t_switch *t = t_switch_new(T_CONFIG);
	char path[128], params[192];
	json_t *resp;

	(void)state;
	snprintf(path, sizeof(path), "%s/lsw.json", dir);
	put(path, "{}");
	chmod(path, 0660); /* beyond the usual umask of 022 */
	t_rpc_ok(t, "route.add", "{\"prefix\": \"10.5.0.0/16\", \"nexthop\": \"10.0.1.1\"}", &resp);
	json_decref(resp);
	snprintf(params, sizeof(params), "{\"path\": \"%s\"}", path);
	t_rpc_ok(t, "config.save", params, &resp);
	json_decref(resp);
	json_error_t je;
	json_t *saved = json_load_file(path, 0, &je);
	assert_non_null(saved);
	assert_true(json_equal(saved, t->sw.cfg->doc));
	json_decref(saved);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0660);
	assert_int_equal(count_files(), 1); /* no temporary file left */

	/* The saved file is a config lsw loads, and nothing differs from it. */
	struct lsw_errs errs;
	struct lsw_config *c = lsw_config_load(path, &errs);
	assert_non_null(c);
	lsw_config_free(c);
	json_t *d = t_rpc_ok(t, "config.diff", params, &resp);
	assert_int_equal(json_array_size(json_object_get(d, "differences")), 0);
	json_decref(resp);

	/* Through a symlink: the file it names is replaced, the link stays. */
	char link[160];
	snprintf(link, sizeof(link), "%s/link.json", dir);
	assert_int_equal(symlink(path, link), 0);
	put(path, "{}");
	snprintf(params, sizeof(params), "{\"path\": \"%s\"}", link);
	t_rpc_ok(t, "config.save", params, &resp);
	json_decref(resp);
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	saved = json_load_file(path, 0, &je);
	assert_true(json_equal(saved, t->sw.cfg->doc));
	json_decref(saved);
	unlink(link);

	/* A link to nowhere is refused, not replaced by a file. */
	snprintf(link, sizeof(link), "%s/dangling.json", dir);
	assert_int_equal(symlink("/nonexistent/lsw.json", link), 0);
	snprintf(params, sizeof(params), "{\"path\": \"%s\"}", link);
	resp = t_rpc(t, "config.save", params);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(resp, "error"),
							    "code")), LSW_RPC_ERR_IO);
	json_decref(resp);
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	unlink(link);

	/* A FIFO is refused at once instead of holding the main lcore. */
	char fifo[160];
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	snprintf(params, sizeof(params), "{\"path\": \"%s\"}", fifo);
	resp = t_rpc(t, "config.diff", params);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(resp, "error"),
							    "code")), LSW_RPC_ERR_IO);
	json_decref(resp);
	unlink(fifo);

	/* Refusals: a relative path by field, a directory as an I/O error. */
	resp = t_rpc(t, "config.save", "{\"path\": \"lsw.json\"}");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(resp, "error"),
							    "code")), LSW_RPC_INVALID_PARAMS);
	json_decref(resp);
	snprintf(params, sizeof(params), "{\"path\": \"%s\"}", dir);
	resp = t_rpc(t, "config.save", params);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(resp, "error"),
							    "code")), LSW_RPC_ERR_IO);
	json_decref(resp);
	t_switch_free(t);
}

/* A child saves with a file size limit of 100 bytes: with SIGXFSZ's default action it is
 * killed in the middle of writing (a crash), with SIGXFSZ ignored its write fails (a full
 * disk). Either way the previous file is there, whole. */
static void
test_save_interrupted(void **state)
{
	struct t_switch *t = t_switch_new(T_CONFIG);
	const char *old = "{\"previous\": \"file\"}\n";
	char path[128];

	(void)state;
	snprintf(path, sizeof(path), "%s/lsw.json", dir);
	for (int crash = 1; crash >= 0; crash--) {
		put(path, old);
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			struct rlimit rl = {.rlim_cur = 100, .rlim_max = 100};
			char err[256];
			signal(SIGXFSZ, crash ? SIG_DFL : SIG_IGN);
			setrlimit(RLIMIT_FSIZE, &rl);
			int rc = lsw_config_save(t->sw.cfg->doc, path, err, sizeof(err));
			_exit(rc == -1 && strstr(err, "unchanged") != NULL ? 42 : 1);
		}
		int status;
		assert_int_equal(waitpid(pid, &status, 0), pid);
		if (crash) {
			char cmd[192];
			assert_true(WIFSIGNALED(status));
			assert_int_equal(WTERMSIG(status), SIGXFSZ);
			/* What a crash leaves: the partial temporary file, never the target. */
			snprintf(cmd, sizeof(cmd), "rm %s.tmp.*", path);
			assert_int_equal(system(cmd), 0);
		} else {
			assert_true(WIFEXITED(status));
			assert_int_equal(WEXITSTATUS(status), 42);
			assert_int_equal(count_files(), 1); /* the failed save cleaned up */
		}
		char *now = slurp(path);
		assert_non_null(now);
		assert_string_equal(now, old);
		free(now);
	}
	t_switch_free(t);
}

static void
test_diff(void **state)
{
	struct t_switch *t = t_switch_new(T_CONFIG);
	char path[128], params[192];
	json_t *resp;

	(void)state;
	snprintf(path, sizeof(path), "%s/lsw.json", dir);
	assert_int_equal(json_dump_file(t->sw.cfg->doc, path, 0), 0);
	t_rpc_ok(t, "route.del", "{\"prefix\": \"10.3.0.0/16\"}", &resp);
	json_decref(resp);
	t_rpc_ok(t, "config.set", "{\"config\": {\"PORT\": {\"Ethernet0\": {\"speed\": \"25000\"}},"
		 " \"STATIC_ROUTE\": {\"10.6.0.0/16\": {\"blackhole\": \"true\"}}}}", &resp);
	json_decref(resp);
	snprintf(params, sizeof(params), "{\"path\": \"%s\"}", path);
	json_t *d = json_object_get(t_rpc_ok(t, "config.diff", params, &resp), "differences");
	assert_int_equal(json_array_size(d), 3);
	static const char *const want[][2] = {
		{"$.PORT.Ethernet0.speed", "added"},
		{"$.STATIC_ROUTE['10.3.0.0/16']", "removed"},
		{"$.STATIC_ROUTE['10.6.0.0/16']", "added"},
	};
	for (size_t i = 0; i < 3; i++) {
		bool found = false;
		for (size_t j = 0; j < json_array_size(d); j++) {
			json_t *x = json_array_get(d, j);
			if (strcmp(json_string_value(json_object_get(x, "path")),
				   want[i][0]) == 0) {
				assert_string_equal(json_string_value(json_object_get(x, "change")),
						    want[i][1]);
				found = true;
			}
		}
		if (!found)
			fail_msg("config.diff misses %s", want[i][0]);
	}
	json_decref(resp);
	resp = t_rpc(t, "config.diff", "{\"path\": \"/nonexistent/lsw.json\"}");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(resp, "error"),
							    "code")), LSW_RPC_ERR_IO);
	json_decref(resp);
	t_switch_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_save_roundtrip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_save_interrupted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_diff, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
