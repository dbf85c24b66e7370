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

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* Logs kept per container, in bytes. */
#define LOG_MAX (32u * 1024u * 1024u)

static int write_file(const char *dir, const char *name, const char *data, size_t n, struct te_err *err)
{
	te_autofree char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");

	if (!f)
		return te_err_set(err, TE_E_IO, "write '%s': %s", path, strerror(errno));
	if (n && fwrite(data, 1, n, f) != n) {
		fclose(f);
		return te_err_set(err, TE_E_IO, "write '%s': %s", path, strerror(errno));
	}
	if (fclose(f) != 0)
		return te_err_set(err, TE_E_IO, "write '%s': %s", path, strerror(errno));
	return 0;
}

static int write_text(const char *dir, const char *name, const char *text, struct te_err *err)
{
	return write_file(dir, name, text, strlen(text), err);
}

static int write_json(const char *dir, const char *name, const cJSON *j, struct te_err *err)
{
	te_autofree char *t = cJSON_Print(j);
	te_autofree char *nl = xasprintf("%s\n", t);

	return write_text(dir, name, nl, err);
}

static int make_dir(const char *dir, struct te_err *err)
{
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return te_err_set(err, TE_E_IO, "create '%s': %s", dir, strerror(errno));
	return 0;
}

static int write_contract(struct engine *e, struct ledger *l, const char *task, const char *dir,
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

static int write_verify(struct engine *e, struct ledger *l, const char *task, const char *dir, int *failed,
			struct te_err *err)
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

static int write_logs(struct engine *e, const struct svc_snapshot *s, const char *dir, struct te_err *err)
{
	te_autofree char *logs = xasprintf("%s/logs", dir);

	if (make_dir(logs, err) < 0)
		return -1;
	for (size_t i = 0; i < s->n_res; i++) {
		te_autobuf struct te_buf b = TE_BUF_INIT(LOG_MAX);
		te_autofree char *name = NULL;
		const struct state_resource *r = &s->res[i];

		if (svc_res_kind_of(r->kind) != SVC_RES_CONTAINER || !r->engine_id)
			continue;
		if (engine_container_logs(e, r->engine_id, -1, &b, err) < 0) {
			if (err->code != TE_E_NOTFOUND)
				return -1;
			te_err_clear(err);
			continue;
		}
		name = xasprintf("%s.log", r->name);
		if (write_file(logs, name, b.data ? b.data : "", b.len, err) < 0)
			return -1;
	}
	return 0;
}

static int write_git(const struct svc_snapshot *s, const char *dir, struct te_err *err)
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
	struct svc_snapshot s;
	int rc = -1;

	if (make_dir(dir, err) < 0 || write_contract(e, l, task, dir, err) < 0 ||
	    write_verify(e, l, task, dir, verify_failed, err) < 0 || svc_events_json(l, task, &ev, err) < 0 ||
	    write_json(dir, "events.json", ev, err) < 0)
		return -1;
	if (svc_snapshot_take(e, l, task, &s, err) == 0 && write_logs(e, &s, dir, err) == 0 &&
	    write_git(&s, dir, err) == 0)
		rc = 0;
	svc_snapshot_release(&s);
	return rc;
}
