/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The running config and files: an atomic save (a crash or a full disk at any moment
 * leaves either the old file or the new one, never a mix) and the differences between the
 * running config and a file.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "jsonv.h"
#include "switch.h"

static int
write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* The directory entry itself must reach the disk too, or a crash may undo the rename. */
static int
fsync_dir(const char *path)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s", path);
	int fd = open(dirname(tmp), O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	int rc = fsync(fd);
	close(fd);
	return rc;
}

int
lsw_config_save(const json_t *doc, const char *path, char *err, size_t errlen)
{
	char real[PATH_MAX], tmp[PATH_MAX + 32];
	struct stat st;
	bool exists;
	char *txt;
	int fd = -1;

	/* A symlink is followed: the file it names is replaced, the link stays a link. */
	if (realpath(path, real) != NULL) {
		path = real;
		exists = stat(path, &st) == 0;
		if (exists && !S_ISREG(st.st_mode)) {
			snprintf(err, errlen, "%s is not a regular file", path);
			return -1;
		}
	} else {
		/* A link to nowhere (or one we may not follow) is not silently replaced. */
		if (lstat(path, &st) == 0) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			return -1;
		}
		exists = false;
	}
	txt = json_dumps(doc, JSON_INDENT(2));
	if (txt == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* The temporary file sits next to the target (rename(2) is atomic within a file
	 * system only); created exclusively and never through a link, so that nothing
	 * planted at its name is written to. */
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		goto fail;
	/* The new file keeps the old one's mode and owner (open's mode passes the umask); an
	 * owner we may not give it (lsw not root) is no reason to refuse the save. */
	if (exists && fchmod(fd, st.st_mode & 07777) != 0)
		goto fail;
	if (exists && (st.st_uid != geteuid() || st.st_gid != getegid()) &&
	    fchown(fd, st.st_uid, st.st_gid) != 0 && errno != EPERM)
		goto fail;
	if (write_all(fd, txt, strlen(txt)) != 0 || write_all(fd, "\n", 1) != 0 ||
	    fsync(fd) != 0)
		goto fail;
	if (close(fd) != 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) != 0)
		goto fail;
	free(txt);
	if (fsync_dir(path) != 0) {
		snprintf(err, errlen, "%s: saved, but syncing its directory failed: %s", path,
			 strerror(errno));
		return -1;
	}
	return 0;
fail:
	snprintf(err, errlen, "%s: %s (the previous file, if any, is unchanged)", path,
		 strerror(errno));
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(txt);
	return -1;
}

json_t *
lsw_config_read(const char *path, char *err, size_t errlen)
{
	/* Non-blocking and regular files only: a FIFO or a device would hold the main lcore. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	json_error_t je;
	json_t *doc = NULL;

	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (64 << 20))
		snprintf(err, errlen, "%s: not a regular file of 64 MB at most", path);
	else if ((doc = json_loadfd(fd, JSON_REJECT_DUPLICATES, &je)) == NULL)
		snprintf(err, errlen, "%s: line %d: %s", path, je.line, je.text);
	close(fd);
	return doc;
}

static void
diff_add(json_t *out, const char *path, const char *change, json_t *file, json_t *running)
{
	json_array_append_new(out, json_pack("{s:s, s:s, s:O?, s:O?}", "path", path, "change",
					     change, "file", file, "running", running));
}

static void
diff(json_t *out, const char *path, json_t *file, json_t *running)
{
	char p[LSW_PATH_LEN];
	const char *k;
	json_t *v;

	if (!json_is_object(file) || !json_is_object(running)) {
		if (!json_equal(file, running))
			diff_add(out, path, "changed", file, running);
		return;
	}
	json_object_foreach(file, k, v) {
		json_t *r = json_object_get(running, k);
		lsw_path_key(p, path, k);
		if (r == NULL)
			diff_add(out, p, "removed", v, NULL);
		else
			diff(out, p, v, r);
	}
	json_object_foreach(running, k, v) {
		if (json_object_get(file, k) != NULL)
			continue;
		lsw_path_key(p, path, k);
		diff_add(out, p, "added", NULL, v);
	}
}

json_t *
lsw_config_diff(json_t *file, json_t *running)
{
	json_t *out = json_array();

	diff(out, "$", file, running);
	return out;
}
