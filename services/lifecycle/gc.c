#include "services/lifecycle/guard.h"
#include "services/lifecycle/gc.h"
#include "services/lifecycle/identity.h"
#include "services/lifecycle/reskind.h"
#include "services/model/task.h"
#include "services/lifecycle/pgtpl.h"
#include "services/lifecycle/teardown.h"
#include "engine/engine.h"
#include "state/ledger.h"
#include "state/owner.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

struct gc {
	struct engine *e;
	struct ledger *l;
	const struct svc_gc_opts *opts;
	struct svc_gc_result *res;
};

static void step(const struct gc *g, const char *kind, const char *name, const char *what)
{
	if (g->opts->progress)
		g->opts->progress(g->opts->progress_ctx, kind, name, what);
}

static bool expired(const struct state_task *t, long long now)
{
	long long d = state_task_deadline(t);

	return d > 0 && now >= d;
}

/* Under the task's lock: read the row again (an `up` may have renewed the
 * lease meanwhile), then take the task down. */
static int gc_task_locked(struct gc *g, const char *name, struct te_err *err)
{
	struct svc_down_opts d = {.volumes = true,
				  .stop_timeout = g->opts->stop_timeout,
				  .progress = g->opts->progress,
				  .progress_ctx = g->opts->progress_ctx};
	struct svc_down_result r;
	struct state_task t;
	bool go;

	if (state_task_get(g->l, name, &t, err) < 0)
		return err->code == TE_E_NOTFOUND ? (te_err_clear(err), 0) : -1;
	go = expired(&t, (long long)time(NULL)) && !state_task_owner_live(&t);
	state_task_release(&t);
	if (!go) {
		g->res->live++;
		step(g, "task", name, "owner live or lease renewed, kept");
		return 0;
	}
	g->res->tasks++;
	step(g, "task", name, g->opts->dry_run ? "expired, would remove" : "expired, removing");
	if (g->opts->dry_run)
		return 0;
	if (svc_down_locked(g->e, g->l, name, &d, &r, err) < 0 && err->code != TE_E_REMAINS)
		return -1;
	te_err_clear(err);
	g->res->remaining += r.remaining;
	return 0;
}

static int gc_task(struct gc *g, const struct state_task *t, struct te_err *err)
{
	int lock = -1, rc;

	if (!expired(t, (long long)time(NULL)))
		return 0;
	if (t->engine && strcmp(t->engine, engine_socket(g->e)) != 0) {
		step(g, "task", t->name, "on another engine, left for gc there");
		return 0;
	}
	/* The same socket may reach another engine now (restarted with other
	 * storage): that one cannot tell what of the task is gone. */
	if (svc_engine_check(g->e, g->l, t->name, err) < 0) {
		if (err->code != TE_E_WRONG_ENGINE)
			return -1;
		te_err_clear(err);
		step(g, "task", t->name, "on another engine (its identity differs), left alone");
		return 0;
	}
	if (state_task_owner_live(t)) {
		g->res->live++;
		step(g, "task", t->name, "expired but its owner runs, kept");
		return 0;
	}
	rc = state_task_lock(g->l, t->name, false, &lock, err);
	if (rc != 0) {
		if (rc < 0)
			return -1;
		g->res->live++;
		step(g, "task", t->name, "expired but in use (locked), kept");
		return 0;
	}
	rc = gc_task_locked(g, t->name, err);
	state_task_unlock(lock);
	return rc;
}

static int gc_tasks(struct gc *g, struct te_err *err)
{
	struct state_task *v = NULL;
	size_t n = 0;
	int rc = 0;

	if (state_task_list(g->l, &v, &n, err) < 0)
		return -1;
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = gc_task(g, &v[i], err);
	state_tasks_free(v, n);
	return rc;
}

/* ---- orphans ---- */

static const char *label_of(const cJSON *obj, const char *key)
{
	return cJSON_GetStringValue(
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItem(obj, "Labels"), key));
}

/* Is the task of an orphan in use? Locked (an up or down runs) or its
 * owner runs. On 0 the caller holds *lock. */
static int task_busy(struct gc *g, const char *task, int *lock, struct te_err *err)
{
	struct state_task t;
	bool live;
	int rc = state_task_lock(g->l, task, false, lock, err);

	if (rc != 0)
		return rc;
	if (state_task_get(g->l, task, &t, err) < 0) {
		te_err_clear(err);
		return 0;
	}
	live = state_task_owner_live(&t);
	state_task_release(&t);
	if (live) {
		state_task_unlock(*lock);
		*lock = -1;
		return 1;
	}
	return 0;
}

static int orphan_remove(struct gc *g, const struct svc_res_kind_ops *k, const cJSON *obj, struct te_err *err)
{
	const char *kind = k->name;
	const char *name = k->entry_name(obj);
	const char *task = label_of(obj, "io.taskenv.task");
	const char *id = cJSON_GetStringValue(cJSON_GetObjectItem(obj, k->entry_ref));
	char what[sizeof(err->msg) + 16];
	int lock = -1, rc;

	/* Both labels, ours, and a valid task name, or we do not touch it. */
	if (!name || !id || !task || svc_task_name_check(task, NULL) < 0 ||
	    strcmp(label_of(obj, "io.taskenv.ledger") ?: "", state_ledger_id(g->l)) != 0)
		return 0;
	rc = task_busy(g, task, &lock, err);
	if (rc != 0)
		return rc < 0 ? -1 : 0;
	/* Under the lock, so no `up` of the task can be recording it now. A
	 * listed container may be a row of another container kind (a task's
	 * own server). */
	rc = state_resource_held(g->l, kind, name, err);
	for (int i = 0; rc == 0 && k->container && i < SVC_RES_COUNT; i++)
		if (svc_res_kind(i)->container && svc_res_kind(i) != k)
			rc = state_resource_held(g->l, svc_res_kind(i)->name, name, err);
	/* No task owns an orphan: every container still on it keeps it (the
	 * orphan containers went first), only the shared servers leave. */
	if (rc == 0) {
		/* Counted when it went (or would go), never when it failed. */
		if (g->opts->dry_run) {
			g->res->orphans++;
			step(g, kind, name, "orphan, would remove");
		} else if ((svc_res_before_remove(g->e, g->l, NULL, k->kind, id, err) < 0 ||
			    k->remove(g->e, id, -1, err) < 0) &&
			   err->code != TE_E_NOTFOUND) {
			g->res->remaining++;
			snprintf(what, sizeof(what), "orphan, failed: %s", err->msg);
			step(g, kind, name, what);
			rc = err->code == TE_E_UNREACHABLE ? -1 : 0;
		} else {
			g->res->orphans++;
			step(g, kind, name, "orphan, removed");
		}
	}
	state_task_unlock(lock);
	return rc < 0 ? -1 : 0;
}

static int gc_orphans(struct gc *g, const struct svc_res_kind_ops *k, struct te_err *err)
{
	te_autofree char *label = xasprintf("io.taskenv.ledger=%s", state_ledger_id(g->l));
	te_autojson cJSON *list = NULL;
	const cJSON *obj;

	if (k->list(g->e, label, &list, err) < 0)
		return te_err_prefix(err, "gc: list %ss: ", k->name);
	cJSON_ArrayForEach (obj, list)
		if (orphan_remove(g, k, obj, err) < 0)
			return -1;
	return 0;
}

/* ---- host processes (the broker) ---- */

/* A row of a process that no longer runs (crashed, killed, the host
 * rebooted): what it left (a stale socket) goes, and so does the row. An
 * intended row younger than a minute may be a start under way. */
static int gc_process(struct gc *g, const struct svc_res_kind_ops *k, const struct state_resource *r,
		      struct te_err *err)
{
	int lock = -1, rc;

	if (k->proc_alive(r->engine_id) ||
	    (strcmp(r->state, STATE_INTENDED) == 0 && (long long)time(NULL) - r->created < 60))
		return 0;
	rc = state_task_lock(g->l, r->task, false, &lock, err);
	if (rc != 0)
		return rc < 0 ? -1 : 0; /* busy: the next gc */
	g->res->processes++;
	if (g->opts->dry_run) {
		step(g, k->name, r->name, "not running, would clear");
	} else {
		rc = k->proc_stop(r->name, r->engine_id, err);
		if (rc == 0)
			rc = state_resource_set_state(g->l, r->id, STATE_REMOVED, err);
		step(g, k->name, r->name, rc == 0 ? "not running, cleared" : "not running, failed");
	}
	state_task_unlock(lock);
	return rc;
}

static int gc_processes(struct gc *g, const struct svc_res_kind_ops *k, struct te_err *err)
{
	struct state_resource *rows = NULL;
	size_t n = 0;
	int rc = 0;

	if (state_resource_list_kind(g->l, k->name, &rows, &n, err) < 0)
		return -1;
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = gc_process(g, k, &rows[i], err);
	state_resources_free(rows, n);
	return rc;
}

int svc_gc(struct engine *e, struct ledger *l, const struct svc_gc_opts *opts, struct svc_gc_result *res,
	   struct te_err *err)
{
	struct gc g = {e, l, opts, res};
	struct svc_tmpl_gc_result tr;

	memset(res, 0, sizeof(*res));
	svc_guard_ledger(e, l); /* gc acts on every task of the ledger */
	if (gc_tasks(&g, err) < 0)
		return -1;
	/* Orphans: engine objects labelled with this ledger that no row holds,
	 * of each kind the engine lists by label, containers first (the table's
	 * order): they hold the networks and volumes. */
	for (int i = 0; i < SVC_RES_COUNT; i++)
		if (svc_res_kind(i)->list && gc_orphans(&g, svc_res_kind(i), err) < 0)
			return -1;
	for (int i = 0; i < SVC_RES_COUNT; i++)
		if (svc_res_kind_process(i) && gc_processes(&g, svc_res_kind(i), err) < 0)
			return -1;
	if (svc_tmpl_gc(l, opts->template_gc_age, opts->dry_run, opts->progress, opts->progress_ctx, &tr,
			err) < 0)
		return -1;
	res->templates = tr.removed;
	res->remaining += tr.remaining;
	state_event_add(l, NULL, "gc", opts->dry_run ? "gc dry run" : "gc complete", err);
	if (res->remaining)
		return te_err_set(err, TE_E_REMAINS,
				  "gc: %zu object(s) could not be removed (pending); run gc again",
				  res->remaining);
	return 0;
}
