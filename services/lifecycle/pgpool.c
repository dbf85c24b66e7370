/* The pool of spare template clones: the detached refill and gc of
 * templates and pools (pgtpl.h). */
#include "services/lifecycle/pgtpl.h"
#include "services/lifecycle/drvrun.h"
#include "drivers/postgres.h"
#include "state/ledger.h"
#include "state/owner.h"
#include "state/secrets.h"
#include "common/err.h"
#include "common/io.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int svc_pool_spawn(struct ledger *l, char *const *names, struct te_err *err)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	te_autostrv char **argv = NULL;

	if (n < 0)
		return te_err_set(err, TE_E_IO, "readlink /proc/self/exe: %s", strerror(errno));
	exe[n] = '\0';
	argv = te_strv_push(argv, xstrdup(exe));
	argv = te_strv_push(argv, xstrdup("--state"));
	argv = te_strv_push(argv, xstrdup(state_path(l)));
	for (size_t i = 0; names && names[i]; i++) {
		argv = te_strv_push(argv, xstrdup("--pool-refill"));
		argv = te_strv_push(argv, xstrdup(names[i]));
	}
	return te_spawn_detached(argv, err);
}

/* The admin URL a template's rows use ("_pg" secret). Owned, or NULL. */
static char *server_of(struct ledger *l, const char *tmpl, struct te_err *err)
{
	te_autofree char *name = drv_secret_server(tmpl);
	char *url = NULL;

	if (state_secret_get(l, SVC_PG_OWNER, name, &url, err) < 0)
		return NULL;
	if (!url)
		te_err_set(err, TE_E_STATE, "template '%s': its admin URL is not in the secrets file", tmpl);
	return url;
}

/* The ledger protocol of one removal: removing, the driver's teardown,
 * then removed, or pending when it failed (*FAILED counts those). Only
 * from the state R was read in: a spare a hand-out claimed since (its row
 * is a task's now, in state removing) is left to that task. */
static int drop_row(struct ledger *l, const struct state_resource *r, size_t *removed, size_t *failed,
		    svc_progress_fn progress, void *pctx, struct te_err *err)
{
	enum drv_removed how = DRV_GONE;
	struct te_err e2 = {0};
	char what[sizeof(e2.msg) + 16];
	bool moved;

	if (state_resource_transition(l, r->id, r->state, STATE_REMOVING, &moved, err) < 0)
		return -1;
	if (!moved)
		return 0;
	if (svc_driver_down(l, r, &how, &e2) < 0) {
		(*failed)++;
		snprintf(what, sizeof(what), "failed: %s", e2.msg);
		if (progress)
			progress(pctx, r->kind, r->name, what);
		return state_resource_set_state(l, r->id, STATE_PENDING, err);
	}
	(*removed)++;
	if (progress)
		progress(pctx, r->kind, r->name, how == DRV_NOT_OURS ? "not ours, left alone" : "removed");
	return state_resource_set_state(l, r->id, STATE_REMOVED, err);
}

static bool is(const struct state_resource *r, const char *kind, const char *state)
{
	return strcmp(r->kind, kind) == 0 && (!state || strcmp(r->state, state) == 0);
}

static bool listed(char *const *v, const char *s)
{
	for (size_t i = 0; v && v[i]; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

/* Give TMPL SIZE created pool rows: make the missing ones, drop extras. */
static int refill_one(struct ledger *l, const char *tmpl, const struct state_resource *rows, size_t n,
		      long size, size_t *made, struct te_err *err)
{
	te_autofree char *server = server_of(l, tmpl, err);
	struct drv_recorder *rec = NULL;
	size_t have = 0, removed = 0, failed = 0;
	int rc = 0;

	if (!server)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!is(&rows[i], "postgres-pool", STATE_CREATED) || strcmp(rows[i].service, tmpl) != 0)
			continue;
		if ((long)have++ >= size && drop_row(l, &rows[i], &removed, &failed, NULL, NULL, err) < 0)
			return -1;
	}
	rec = svc_recorder_new(l, SVC_PG_OWNER, tmpl);
	for (long k = (long)have; rc == 0 && k < size; k++) {
		te_autofree char *name = NULL;

		rc = drv_pg_pool_make(server, state_ledger_id(l), tmpl, rec, &name, err);
		*made += rc == 0;
	}
	svc_recorder_free(rec);
	return rc;
}

int svc_pool_refill(struct ledger *l, char *const *names, long size, size_t *made, struct te_err *err)
{
	struct state_resource *rows = NULL;
	size_t n = 0, removed = 0, failed = 0;
	te_autofree char *msg = xasprintf("pool refill (pid %ld)", (long)getpid());
	int lock = -1, rc = 0;

	*made = 0;
	if (state_task_lock(l, SVC_PG_OWNER, true, &lock, err) < 0)
		return -1;
	state_event_add(l, SVC_PG_OWNER, NULL, msg, err);
	if (state_resource_list(l, SVC_PG_OWNER, false, &rows, &n, err) < 0) {
		state_task_unlock(lock);
		return -1;
	}
	/* Only the holder of this lock makes pool rows: one still intended
	 * is what a killed refill left. */
	for (size_t i = 0; rc == 0 && i < n; i++)
		if (is(&rows[i], "postgres-pool", STATE_INTENDED))
			rc = drop_row(l, &rows[i], &removed, &failed, NULL, NULL, err);
	for (size_t i = 0; rc == 0 && i < n; i++)
		if (is(&rows[i], "postgres-template", STATE_CREATED) &&
		    (!names || listed(names, rows[i].name)))
			rc = refill_one(l, rows[i].name, rows, n, size, made, err);
	state_resources_free(rows, n);
	state_task_unlock(lock);
	return rc;
}

/* ---- gc ---- */

struct tgc {
	struct ledger *l;
	long long age_s;
	bool dry_run;
	svc_progress_fn progress;
	void *pctx;
	struct svc_tmpl_gc_result *res;
	struct state_resource *rows; /* of "_pg" */
	size_t n;
};

static void say(const struct tgc *g, const struct state_resource *r, const char *what)
{
	if (g->progress)
		g->progress(g->pctx, r->kind, r->name, what);
}

static int drop(struct tgc *g, const struct state_resource *r, struct te_err *err)
{
	if (g->dry_run) {
		g->res->removed++;
		say(g, r, "would remove");
		return 0;
	}
	return drop_row(g->l, r, &g->res->removed, &g->res->remaining, g->progress, g->pctx, err);
}

static const char *detail_str(const char *detail, const char *key, char *buf, size_t n)
{
	te_autojson cJSON *d = cJSON_Parse(detail ? detail : "");
	const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, key));

	snprintf(buf, n, "%s", v ? v : "");
	return buf;
}

/* A task's database (or a pool database handed to it) was cloned from TMPL. */
static int in_use(struct tgc *g, const char *tmpl, bool *used, struct te_err *err)
{
	static const char *const kinds[] = {"postgres-database", "postgres-pool"};

	*used = false;
	for (size_t k = 0; k < 2 && !*used; k++) {
		struct state_resource *v = NULL;
		size_t n = 0;
		char buf[128];

		if (state_resource_list_kind(g->l, kinds[k], &v, &n, err) < 0)
			return -1;
		for (size_t i = 0; i < n && !*used; i++)
			*used = strcmp(v[i].task, SVC_PG_OWNER) != 0 &&
				strcmp(detail_str(v[i].detail, "template", buf, sizeof(buf)), tmpl) == 0;
		state_resources_free(v, n);
	}
	return 0;
}

/* Template row R under its server lock (not waited for: a build or a
 * clone holds it), so no clone starts while it goes: its pool first. */
static int drop_template(struct tgc *g, const struct state_resource *r, bool ready, struct te_err *err)
{
	te_autofree char *server = server_of(g->l, r->name, err);
	struct drv_pg_tpl *t = NULL;
	char hash[80];
	bool used = false;
	int rc;

	if (!server)
		return -1;
	rc = drv_pg_tpl_open(server, state_ledger_id(g->l), r->name,
			     detail_str(r->detail, "hash", hash, sizeof(hash)), false, &t, err);
	if (rc != 0) {
		g->res->kept += rc == 1;
		say(g, r, ready ? "in use (cloned right now), kept" : "being built, kept");
		return rc < 0 ? -1 : 0;
	}
	/* Under the lock, again: an `up` may have just cloned or touched it. */
	if (ready && in_use(g, r->name, &used, err) < 0) {
		drv_pg_tpl_close(t);
		return -1;
	}
	rc = 0;
	for (size_t i = 0; rc == 0 && !used && i < g->n; i++)
		if (is(&g->rows[i], "postgres-pool", STATE_CREATED) &&
		    strcmp(g->rows[i].service, r->name) == 0)
			rc = drop(g, &g->rows[i], err);
	if (rc == 0 && !used)
		rc = drop(g, r, err);
	if (used) {
		g->res->kept++;
		say(g, r, "in use, kept");
	}
	drv_pg_tpl_close(t);
	return rc;
}

static int gc_template(struct tgc *g, const struct state_resource *r, long long now, struct te_err *err)
{
	bool used = false;
	te_autofree char *what = NULL;

	if (!is(r, "postgres-template", STATE_CREATED))
		return drop_template(g, r, false, err);
	if (in_use(g, r->name, &used, err) < 0)
		return -1;
	if (!used && now - r->updated >= g->age_s)
		return drop_template(g, r, true, err);
	g->res->kept++;
	what = used ? xstrdup("a task was cloned from it, kept")
		    : xasprintf("used %llds ago, kept", now - r->updated);
	say(g, r, what);
	return 0;
}

int svc_tmpl_gc(struct ledger *l, long long age_s, bool dry_run, svc_progress_fn progress, void *pctx,
		struct svc_tmpl_gc_result *res, struct te_err *err)
{
	struct tgc g = {l, age_s, dry_run, progress, pctx, res, NULL, 0};
	long long now = (long long)time(NULL);
	int lock = -1, rc;

	memset(res, 0, sizeof(*res));
	rc = state_task_lock(l, SVC_PG_OWNER, false, &lock, err);
	if (rc != 0) {
		if (rc == 1 && progress)
			progress(pctx, "postgres-pool", "refill", "running, templates left for the next gc");
		return rc < 0 ? -1 : 0;
	}
	rc = state_resource_list(l, SVC_PG_OWNER, false, &g.rows, &g.n, err);
	for (size_t i = 0; rc == 0 && i < g.n; i++)
		if (is(&g.rows[i], "postgres-pool", STATE_INTENDED) ||
		    is(&g.rows[i], "postgres-pool", STATE_PENDING))
			rc = drop(&g, &g.rows[i], err);
	for (size_t i = 0; rc == 0 && i < g.n; i++)
		if (is(&g.rows[i], "postgres-template", NULL))
			rc = gc_template(&g, &g.rows[i], now, err);
	state_resources_free(g.rows, g.n);
	state_task_unlock(lock);
	return rc;
}
