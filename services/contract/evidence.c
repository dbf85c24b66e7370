#include "services/contract/evidence.h"
#include "services/lifecycle/reskind.h"
#include "services/contract/contract.h"
#include "services/contract/git.h"
#include "services/contract/snapshot.h"
#include "services/contract/verify.h"
#include "engine/engine.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Logs kept per container, in bytes. */
#define LOG_MAX (32u * 1024u * 1024u)

/* The evidence folder: its descriptor (every file is made with openat under
 * it) and its path, for messages. */
struct out {
	int fd;
	const char *path;
};

/* NAME is new: O_CREAT|O_EXCL|O_NOFOLLOW, so nothing planted under the
 * folder (a symlink to a file of the user's) is followed or replaced. */
static int write_file(const struct out *o, const char *name, const char *data, size_t n, struct te_err *err)
{
	int fd = openat(o->fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (!f) {
		if (fd >= 0)
			close(fd);
		return te_err_set(err, TE_E_IO, "write '%s/%s': %s", o->path, name, strerror(errno));
	}
	if (n && fwrite(data, 1, n, f) != n) {
		fclose(f);
		return te_err_set(err, TE_E_IO, "write '%s/%s': %s", o->path, name, strerror(errno));
	}
	if (fclose(f) != 0)
		return te_err_set(err, TE_E_IO, "write '%s/%s': %s", o->path, name, strerror(errno));
	return 0;
}

static int write_text(const struct out *o, const char *name, const char *text, struct te_err *err)
{
	return write_file(o, name, text, strlen(text), err);
}

static int write_json(const struct out *o, const char *name, const cJSON *j, struct te_err *err)
{
	te_autofree char *t = cJSON_Print(j);
	te_autofree char *nl = xasprintf("%s\n", t);

	return write_text(o, name, nl, err);
}

static bool dir_empty(int fd)
{
	int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	struct dirent *e;
	bool empty = true;

	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		return false;
	}
	while (empty && (e = readdir(d)))
		empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
	closedir(d);
	return empty;
}

/* Open (creating it) the folder NAME under AT (AT_FDCWD: a path): a new
 * directory, or an existing empty one that is not a symlink. */
static int open_dir(int at, const char *name, const char *path, int *fd, struct te_err *err)
{
	if (mkdirat(at, name, 0755) < 0 && errno != EEXIST)
		return te_err_set(err, TE_E_IO, "create '%s': %s", path, strerror(errno));
	*fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*fd < 0)
		return te_err_set(
		    err, TE_E_IO, "open '%s': %s%s", path, strerror(errno),
		    errno == ELOOP || errno == ENOTDIR ? " (a symlink or not a directory: refused)" : "");
	if (!dir_empty(*fd)) {
		close(*fd);
		*fd = -1;
		return te_err_set(err, TE_E_USAGE,
				  "'%s' exists and is not empty: evidence goes into a new or empty folder",
				  path);
	}
	return 0;
}

static int write_contract(struct engine *e, struct ledger *l, const char *task, const struct out *dir,
			  struct te_err *err)
{
	te_autojson cJSON *c = NULL;
	te_autofree char *md = NULL;

	if (svc_contract(e, l, task, &c, err) < 0)
		return -1;
	md = svc_contract_markdown(c);
	if (write_json(dir, "contract.json", c, err) < 0)
		return -1;
	return write_text(dir, "contract.md", md, err);
}

static int write_verify(struct engine *e, struct ledger *l, const char *task, const struct out *dir,
			int *failed, struct te_err *err)
{
	te_autojson cJSON *r = NULL;
	te_autofree char *txt = NULL;

	if (svc_verify(e, l, task, &r, failed, err) < 0)
		return -1;
	txt = svc_verify_text(r);
	if (write_json(dir, "verify.json", r, err) < 0)
		return -1;
	return write_text(dir, "verify.txt", txt, err);
}

static int write_logs(struct engine *e, const struct svc_snapshot *s, const struct out *dir,
		      struct te_err *err)
{
	te_autofree char *path = xasprintf("%s/logs", dir->path);
	struct out logs = {-1, path};
	int rc = 0;

	if (open_dir(dir->fd, "logs", path, &logs.fd, err) < 0)
		return -1;
	for (size_t i = 0; i < s->n_res && rc == 0; i++) {
		te_autobuf struct te_buf b = TE_BUF_INIT(LOG_MAX);
		te_autofree char *name = NULL;
		const struct state_resource *r = &s->res[i];

		if (svc_res_kind_of(r->kind) != SVC_RES_CONTAINER || !r->engine_id || strchr(r->name, '/'))
			continue;
		if (engine_container_logs(e, r->engine_id, -1, &b, err) < 0) {
			if (err->code != TE_E_NOTFOUND) {
				rc = -1;
				break;
			}
			te_err_clear(err);
			continue;
		}
		name = xasprintf("%s.log", r->name);
		rc = write_file(&logs, name, b.data ? b.data : "", b.len, err);
	}
	close(logs.fd);
	return rc;
}

static int write_git(const struct svc_snapshot *s, const struct out *dir, struct te_err *err)
{
	const char *src = svc_snapshot_source_dir(s);
	const char *diff[] = {"diff", s->has_wt ? s->wt.base : "HEAD", NULL};
	const char *status[] = {"status", "--short", "--untracked-files=all", NULL};
	te_autobuf struct te_buf d = TE_BUF_INIT(SVC_GIT_OUTPUT_MAX);
	te_autobuf struct te_buf st = TE_BUF_INIT(SVC_GIT_OUTPUT_MAX);
	te_autofree char *msg1 = NULL;
	te_autofree char *msg2 = NULL;
	int r1 = src ? svc_git(src, diff, &d, &msg1, err) : 1;
	int r2 = src ? svc_git(src, status, &st, &msg2, err) : 1;

	if (r1 < 0 || r2 < 0)
		return -1;
	if (write_file(dir, "git-diff.patch", r1 == 0 && d.data ? d.data : "", r1 == 0 ? d.len : 0, err) < 0)
		return -1;
	return write_file(dir, "git-status.txt", r2 == 0 && st.data ? st.data : "", r2 == 0 ? st.len : 0,
			  err);
}

int svc_evidence_write(struct engine *e, struct ledger *l, const char *task, const char *dir,
		       int *verify_failed, struct te_err *err)
{
	te_autojson cJSON *ev = NULL;
	struct out o = {-1, dir};
	struct svc_snapshot s;
	int rc = -1;

	if (open_dir(AT_FDCWD, dir, dir, &o.fd, err) < 0)
		return -1;
	if (write_contract(e, l, task, &o, err) == 0 &&
	    write_verify(e, l, task, &o, verify_failed, err) == 0 &&
	    svc_events_json(l, task, &ev, err) == 0 && write_json(&o, "events.json", ev, err) == 0) {
		if (svc_snapshot_take(e, l, task, &s, err) == 0 && write_logs(e, &s, &o, err) == 0 &&
		    write_git(&s, &o, err) == 0)
			rc = 0;
		svc_snapshot_release(&s);
	}
	close(o.fd);
	return rc;
}
