#include "services/contract/evidence.h"
#include "services/lifecycle/reskind.h"
#include "services/contract/contract.h"
#include "services/contract/git.h"
#include "services/contract/snapshot.h"
#include "services/contract/verify.h"
#include "services/lifecycle/journal.h"
#include "state/ledger.h"
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

/* Each untracked file (not ignored) as a patch that creates it, beside
 * git-diff.patch: the work of a task is often new files. */
static int write_untracked(const struct svc_snapshot *s, const struct out *dir, struct te_err *err)
{
	const char *src = svc_snapshot_source_dir(s);
	const char *list[] = {"ls-files", "--others", "--exclude-standard", "-z", NULL};
	te_autobuf struct te_buf names = TE_BUF_INIT(SVC_GIT_OUTPUT_MAX);
	te_autobuf struct te_buf patch = TE_BUF_INIT(SVC_GIT_OUTPUT_MAX);
	int rc = src ? svc_git(src, list, &names, NULL, err) : 1;

	if (rc < 0)
		return -1;
	for (size_t i = 0; rc == 0 && names.data && i < names.len; i += strlen(names.data + i) + 1) {
		/* --no-index exits 1 when the files differ, as they do here. */
		const char *diff[] = {"diff",	   "--no-index",   "--binary", "--",
				      "/dev/null", names.data + i, NULL};

		if (svc_git(src, diff, &patch, NULL, err) < 0)
			return -1;
	}
	return write_file(dir, "git-untracked.patch", patch.data ? patch.data : "", patch.len, err);
}

/* How the task ended: its status, each container's state and exit code,
 * and what a failed `up` recorded (its last "up" event, unless an "up
 * complete" came after it). */
static int write_outcome(struct ledger *l, const struct svc_snapshot *s, const struct out *dir,
			 struct te_err *err)
{
	te_autojson cJSON *o = cJSON_CreateObject();
	struct state_event *v = NULL;
	size_t n = 0;
	const char *failed = NULL;
	const cJSON *c;
	cJSON *list;

	if (state_event_list(l, s->task, &v, &n, err) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (v[i].resource && strcmp(v[i].resource, "up") == 0 && v[i].outcome &&
		    strcmp(v[i].outcome, "failed") == 0)
			failed = v[i].message;
		else if (!v[i].resource && v[i].message && strcmp(v[i].message, "up complete") == 0)
			failed = NULL;
		else if (v[i].resource && v[i].outcome && strcmp(v[i].resource, "task") == 0 &&
			 strcmp(v[i].outcome, "deleted") == 0)
			failed = NULL; /* an earlier task of that name */
	}
	cJSON_AddNumberToObject(o, "schema_version", 1);
	cJSON_AddStringToObject(o, "task", s->task);
	cJSON_AddStringToObject(o, "status", s->row.status ? s->row.status : "");
	if (failed)
		cJSON_AddItemToObject(o, "up_failure", cJSON_Parse(failed));
	else
		cJSON_AddNullToObject(o, "up_failure");
	state_events_free(v, n);
	list = cJSON_AddArrayToObject(o, "containers");
	cJSON_ArrayForEach (c, s->containers) {
		const cJSON *in = cJSON_GetObjectItem(c, "inspect");
		const cJSON *st = cJSON_GetObjectItem(in, "State");
		const struct state_resource *r =
		    &s->res[(size_t)cJSON_GetNumberValue(cJSON_GetObjectItem(c, "resource"))];
		cJSON *j = cJSON_CreateObject();

		cJSON_AddStringToObject(j, "name", r->name);
		cJSON_AddStringToObject(j, "service", r->service ? r->service : "");
		if (st) {
			cJSON_AddStringToObject(
			    j, "state", cJSON_GetStringValue(cJSON_GetObjectItem(st, "Status")) ?: "");
			cJSON_AddNumberToObject(j, "exit_code",
						cJSON_GetNumberValue(cJSON_GetObjectItem(st, "ExitCode")));
		} else {
			cJSON_AddStringToObject(j, "state", "absent");
			cJSON_AddNullToObject(j, "exit_code");
		}
		cJSON_AddItemToArray(list, j);
	}
	return write_json(dir, "outcome.json", o, err);
}

static int write_journal(struct ledger *l, const char *task, const struct out *dir, struct te_err *err)
{
	te_autojson cJSON *j = NULL;

	if (svc_journal_list(l, task, &j, err) < 0)
		return -1;
	return write_json(dir, "journal.json", j, err);
}

/* The task of network NAME in the ledger, or NULL (borrowed from ROWS). */
static const char *network_task(const struct state_resource *rows, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(rows[i].name, name) == 0)
			return rows[i].task;
	return NULL;
}

/* What the task shares with others: the shared server containers on its
 * networks (and the other tasks on them), and its loopback ports, which
 * every process of this host can reach. */
static int write_shared(struct engine *e, struct ledger *l, const struct svc_snapshot *s,
			const struct out *dir, struct te_err *err)
{
	te_autojson cJSON *o = cJSON_CreateObject();
	struct state_resource *nets = NULL;
	size_t nn = 0;
	cJSON *servers = cJSON_AddArrayToObject(o, "shared_servers");
	cJSON *ports = cJSON_AddArrayToObject(o, "loopback_ports");
	const cJSON *net;

	if (state_resource_list_kind(l, "network", &nets, &nn, err) < 0)
		return -1;
	cJSON_AddNumberToObject(o, "schema_version", 1);
	cJSON_AddStringToObject(o, "task", s->task);
	cJSON_ArrayForEach (net, s->networks) {
		const cJSON *ct,
		    *members = cJSON_GetObjectItem(cJSON_GetObjectItem(net, "inspect"), "Containers");

		cJSON_ArrayForEach (ct, members) {
			const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(ct, "Name"));
			te_autojson cJSON *in = NULL;
			struct te_err ignored;
			cJSON *j, *tasks;
			const cJSON *other;

			if (!name || strncmp(name, "taskenv-shared-", 15) != 0 ||
			    engine_container_inspect(e, name, &in, &ignored) < 0)
				continue;
			j = cJSON_CreateObject();
			cJSON_AddStringToObject(j, "container", name);
			tasks = cJSON_AddArrayToObject(j, "other_tasks");
			cJSON_ArrayForEach (
			    other,
			    cJSON_GetObjectItem(cJSON_GetObjectItem(in, "NetworkSettings"), "Networks")) {
				const char *t = network_task(nets, nn, other->string);
				bool seen = !t || strcmp(t, s->task) == 0;
				const cJSON *k;

				cJSON_ArrayForEach (k, tasks)
					seen |= strcmp(k->valuestring, t) == 0;
				if (!seen)
					cJSON_AddItemToArray(tasks, cJSON_CreateString(t));
			}
			cJSON_AddNumberToObject(j, "other_task_count", cJSON_GetArraySize(tasks));
			cJSON_AddItemToArray(servers, j);
		}
	}
	state_resources_free(nets, nn);
	for (size_t i = 0; i < s->n_ports; i++) {
		te_autofree char *p = xasprintf("%s:%d->%d/%s", s->ports[i].host_ip, s->ports[i].host_port,
						s->ports[i].container_port, s->ports[i].proto);

		cJSON_AddItemToArray(ports, cJSON_CreateString(p));
	}
	cJSON_AddStringToObject(
	    o, "note",
	    "the loopback ports are reachable by every process of this host, not only this "
	    "task's; a shared server container holds other tasks' objects too (each its own "
	    "login)");
	return write_json(dir, "shared.json", o, err);
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
		    write_git(&s, &o, err) == 0 && write_untracked(&s, &o, err) == 0 &&
		    write_outcome(l, &s, &o, err) == 0 && write_journal(l, task, &o, err) == 0 &&
		    write_shared(e, l, &s, &o, err) == 0)
			rc = 0;
		svc_snapshot_release(&s);
	}
	close(o.fd);
	return rc;
}
