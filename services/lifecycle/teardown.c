#include "services/lifecycle/guard.h"
#include "services/lifecycle/teardown.h"
#include "services/lifecycle/broker.h"
#include "services/lifecycle/lock.h"
#include "services/lifecycle/reskind.h"
#include "services/model/plan.h"
#include "services/lifecycle/drvrun.h"
#include "services/lifecycle/par.h"
#include "services/lifecycle/ops.h"
#include "state/secrets.h"
#include "services/lifecycle/files.h"
#include "services/model/task.h"
#include "engine/engine.h"
#include "state/ledger.h"
#include "state/owner.h"
#include "state/subnets.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct down {
	struct engine *e;
	struct ledger *l;
	const char *task;
	const struct svc_down_opts *opts;
	struct svc_down_result *res;
};

static void step(const struct down *d, const struct state_resource *r, const char *what)
{
	if (d->opts->progress)
		d->opts->progress(d->opts->progress_ctx, r->kind, r->name, what);
}

/* Removed only when the ledger owns it (the row) and the object says so
 * too (its labels name this task and this ledger). */
static bool labels_match(const struct down *d, const cJSON *obj)
{
	return svc_labels_match(obj, d->task, state_ledger_id(d->l));
}

/* Removed from the ledger, and what it held there goes back. */
static int mark_removed(struct down *d, const struct state_resource *r, struct te_err *err)
{
	const struct svc_res_kind_ops *k = svc_res_kind_find(r->kind);

	if (state_resource_set_state(d->l, r->id, STATE_REMOVED, err) < 0)
		return -1;
	return k && k->after_remove ? k->after_remove(d->l, r->name, err) : 0;
}

/* Let go of what holds it, then remove it. */
static int remove_object(struct down *d, const struct svc_res_kind_ops *k, const struct state_resource *r,
			 const char *id, struct te_err *err)
{
	if (svc_res_before_remove(d->e, d->l, d->task, k->kind, k->by_name ? r->name : id, err) < 0)
		return -1;
	return k->remove(d->e, k->by_name ? r->name : id, d->opts->stop_timeout, err);
}

/* --rmi local: only images named "<task>-<service>" (no image: in the file). */
static bool rmi_wants(const struct down *d, const struct state_resource *r)
{
	te_autofree char *local = NULL;

	if (d->opts->rmi == SVC_RMI_ALL)
		return true;
	if (d->opts->rmi == SVC_RMI_NONE || !r->service)
		return false;
	local = svc_name_image(d->task, r->service);
	return strcmp(local, r->name) == 0;
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* One row. Returns -1 only when the engine cannot be reached at all:
 * everything else is counted and recorded, and the caller goes on. */
static int down_one(struct down *d, const struct state_resource *r, struct te_err *err)
{
	const struct svc_res_kind_ops *k = svc_res_kind_find(r->kind);
	te_autojson cJSON *obj = NULL;
	const char *id;
	char what[sizeof(err->msg) + 16];
	struct timespec t0;

	if (svc_res_inspect(d->e, r->kind, r->name, r->engine_id, &obj, err) < 0) {
		if (err->code == TE_E_UNREACHABLE)
			return -1;
		if (err->code != TE_E_NOTFOUND)
			goto failed;
		d->res->gone++;
		step(d, r, "already gone");
		return mark_removed(d, r, err);
	}
	if (!labels_match(d, obj)) {
		d->res->refused++;
		step(d, r, "not ours, left alone");
		return mark_removed(d, r, err);
	}
	if (k->kind == SVC_RES_VOLUME && !d->opts->volumes) {
		d->res->kept++;
		step(d, r, "kept");
		return 0;
	}
	if (k->kind == SVC_RES_IMAGE && !rmi_wants(d, r)) {
		d->res->kept_images++;
		step(d, r, "kept");
		return 0;
	}
	id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(obj, "Id"));
	if (state_resource_set_state(d->l, r->id, STATE_REMOVING, err) < 0)
		return -1;
	if (k->kind == SVC_RES_CONTAINER)
		step(d, r, "stopping");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (remove_object(d, k, r, id ? id : r->name, err) < 0 && err->code != TE_E_NOTFOUND) {
		if (err->code == TE_E_UNREACHABLE)
			return -1;
		goto failed;
	}
	d->res->removed++;
	if (k->kind == SVC_RES_CONTAINER) {
		snprintf(what, sizeof(what), "stopped (%.1f s)", seconds_since(&t0));
		step(d, r, what);
	}
	step(d, r, "removed");
	return mark_removed(d, r, err);
failed:
	d->res->remaining++;
	snprintf(what, sizeof(what), "failed: %s", err->msg);
	step(d, r, what);
	return state_resource_set_state(d->l, r->id, STATE_PENDING, err);
}

int svc_down_container(struct engine *e, struct ledger *l, const char *task, const struct state_resource *r,
		       int stop_timeout, svc_progress_fn progress, void *progress_ctx, struct te_err *err)
{
	struct svc_down_opts o = {
	    .stop_timeout = stop_timeout, .progress = progress, .progress_ctx = progress_ctx};
	struct svc_down_result res = {0};
	struct down d = {e, l, task, &o, &res};

	if (down_one(&d, r, err) < 0)
		return -1;
	return res.remaining ? te_err_set(err, TE_E_REMAINS, "container '%s' could not be removed", r->name)
			     : 0;
}

/* A driver object: any failure (server unreachable, admin refused) leaves
 * it pending for the next down; the rest goes on. */
static int down_driver_row(struct down *d, const struct state_resource *r, struct te_err *err)
{
	enum drv_removed how = DRV_GONE;
	char what[sizeof(err->msg) + 16];
	static const char *const words[] = {"removed", "already gone", "not ours, left alone"};

	if (state_resource_set_state(d->l, r->id, STATE_REMOVING, err) < 0)
		return -1;
	if (svc_driver_down(d->l, r, &how, err) < 0) {
		d->res->remaining++;
		snprintf(what, sizeof(what), "failed: %s", err->msg);
		step(d, r, what);
		return state_resource_set_state(d->l, r->id, STATE_PENDING, err);
	}
	if (how == DRV_REMOVED)
		d->res->removed++;
	else if (how == DRV_GONE)
		d->res->gone++;
	else
		d->res->refused++;
	step(d, r, words[how]);
	return state_resource_set_state(d->l, r->id, STATE_REMOVED, err);
}

struct down_batch {
	struct down *d;
	const struct state_resource *rows;
};

static int down_item(void *ctx, size_t i, struct engine *e, struct te_err *err)
{
	struct down_batch *b = ctx;
	struct down w = *b->d;

	w.e = e;
	return down_one(&w, &b->rows[i], err);
}

/* The engine objects among ROWS removed at ORDER: level by level, the
 * deepest first (dependants before what they depend on, as Compose), each
 * level at once (svc_par_run), so containers that take their grace period
 * to stop take it together. */
static int down_engine_rows(struct down *d, int order, const struct state_resource *rows, size_t n,
			    struct te_err *err)
{
	te_autofree size_t *items = xcalloc(n + 1, sizeof(size_t));
	te_autofree int *level = xcalloc(n + 1, sizeof(int));
	struct down_batch b = {d, rows};
	int top = -1;

	for (size_t i = 0; i < n; i++) {
		const struct svc_res_kind_ops *k = svc_res_kind_find(rows[i].kind);

		level[i] = -1;
		if (!k || k->down_order != order || !svc_res_kind_engine(k->kind))
			continue;
		level[i] = svc_row_level(&rows[i]);
		if (level[i] > top)
			top = level[i];
	}
	for (int lv = top; lv >= 0; lv--) {
		size_t m = 0;

		for (size_t i = n; i-- > 0;)
			if (level[i] == lv)
				items[m++] = i;
		if (svc_par_run(d->e, items, m, down_item, &b, err) < 0)
			return -1;
	}
	return 0;
}

/* A host process of the task (the broker): stopped, its row removed; a
 * failure leaves the row pending for the next down. */
static int down_process_row(struct down *d, const struct svc_res_kind_ops *k, const struct state_resource *r,
			    struct te_err *err)
{
	char what[sizeof(err->msg) + 16];
	bool alive = k->proc_alive(r->engine_id);

	if (k->proc_stop(r->name, r->engine_id, err) < 0) {
		d->res->remaining++;
		snprintf(what, sizeof(what), "failed: %s", err->msg);
		step(d, r, what);
		return state_resource_set_state(d->l, r->id, STATE_PENDING, err);
	}
	if (alive)
		d->res->removed++;
	else
		d->res->gone++;
	step(d, r, alive ? "stopped" : "already gone");
	return state_resource_set_state(d->l, r->id, STATE_REMOVED, err);
}

/* The task's host processes, before any container goes. */
static int down_processes(struct down *d, struct te_err *err)
{
	struct state_resource *rows = NULL;
	size_t n = 0;
	int rc = 0;

	if (state_resource_list(d->l, d->task, false, &rows, &n, err) < 0)
		return -1;
	for (size_t i = n; i-- > 0 && rc == 0;) {
		const struct svc_res_kind_ops *k = svc_res_kind_find(rows[i].kind);

		if (k && k->proc_stop)
			rc = down_process_row(d, k, &rows[i], err);
	}
	state_resources_free(rows, n);
	return rc;
}

/* Every row of TASK whose kind is removed at ORDER (svc_res_kind_ops.down_order),
 * newest first: Compose stops dependants before their dependencies, and a
 * schema or database goes before the role that owns it. */
static int down_order(struct down *d, int order, struct te_err *err)
{
	struct state_resource *rows = NULL;
	size_t n = 0;
	bool drivers = false;
	int rc = 0;

	if (state_resource_list(d->l, d->task, false, &rows, &n, err) < 0)
		return -1;
	for (size_t i = n; i-- > 0 && rc == 0;) {
		const struct svc_res_kind_ops *k = svc_res_kind_find(rows[i].kind);

		if (!k || k->down_order != order || !k->driver)
			continue;
		drivers = true;
		rc = down_driver_row(d, &rows[i], err);
	}
	if (rc == 0)
		rc = down_engine_rows(d, order, rows, n, err);
	if (drivers)
		drv_release_all(); /* the admin sessions the drivers kept for the next row */
	state_resources_free(rows, n);
	return rc;
}

/* "container t1-app-1, network t1_default" for the rows left pending. */
static char *pending_names(struct down *d)
{
	struct state_resource *rows = NULL;
	struct te_err ignored;
	size_t n = 0;
	char *s = xstrdup("");

	if (state_resource_list(d->l, d->task, false, &rows, &n, &ignored) < 0)
		return s;
	for (size_t i = 0; i < n; i++) {
		char *next;

		if (strcmp(rows[i].state, STATE_PENDING) != 0)
			continue;
		next = xasprintf("%s%s%s %s", s, *s ? ", " : "", rows[i].kind, rows[i].name);
		free(s);
		s = next;
	}
	state_resources_free(rows, n);
	return s;
}

static int remove_files(struct down *d, struct te_err *err)
{
	te_autofree char *dir = svc_files_dir(d->l, d->task);

	return svc_files_remove(dir, err);
}

static int finish(struct down *d, struct te_err *err)
{
	if (d->res->remaining) {
		te_autofree char *names = pending_names(d);

		state_task_set_status(d->l, d->task, "pending", err);
		return te_err_set(err, TE_E_REMAINS,
				  "task '%s': %zu owned resource(s) remain (%s); run down again", d->task,
				  d->res->remaining, names);
	}
	/* No container is left to read them: secret files go now, and the
	 * broker's directory (x-taskenv.engine: broker binds it). */
	if (remove_files(d, err) < 0)
		return -1;
	svc_broker_release(d->l, d->task);
	if (d->res->kept || d->res->kept_images)
		return state_task_set_status(d->l, d->task, "down", err);
	if (state_port_release_task(d->l, d->task, err) < 0 ||
	    state_subnet_release_task(d->l, d->task, err) < 0 || state_secrets_drop(d->l, d->task, err) < 0)
		return -1;
	return state_task_delete(d->l, d->task, err);
}

/* Record what the sweep found so the task does not forget it: a kept
 * volume as created, a failed removal as pending. */
static int adopt(struct down *d, const struct svc_res_kind_ops *k, const char *name, const char *id,
		 const char *state, struct te_err *err)
{
	long long row;

	if (state_resource_intend(d->l, d->task, k->name, name, NULL, &row, err) < 0 ||
	    state_resource_created(d->l, row, id, err) < 0)
		return -1;
	return strcmp(state, STATE_CREATED) == 0 ? 0 : state_resource_set_state(d->l, row, state, err);
}

/* One object the sweep found: this task's and this ledger's labels, and no
 * active row names it. */
static int sweep_one(struct down *d, const struct svc_res_kind_ops *k, const cJSON *obj, struct te_err *err)
{
	const char *name = k->entry_name(obj);
	const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(obj, k->entry_ref));
	struct state_resource r = {.kind = (char *)k->name, .name = (char *)name};
	char what[sizeof(err->msg) + 64];
	int held;

	if (!name || !id || !svc_labels_match(obj, d->task, state_ledger_id(d->l)))
		return 0;
	held = state_resource_held(d->l, k->name, name, err);
	if (held != 0)
		return held < 0 ? -1 : 0;
	if (k->kind == SVC_RES_VOLUME && !d->opts->volumes) {
		d->res->kept++;
		step(d, &r, "kept (found by its labels, now recorded)");
		return adopt(d, k, name, id, STATE_CREATED, err);
	}
	if ((svc_res_before_remove(d->e, d->l, d->task, k->kind, id, err) < 0 ||
	     k->remove(d->e, id, d->opts->stop_timeout, err) < 0) &&
	    err->code != TE_E_NOTFOUND) {
		if (err->code == TE_E_UNREACHABLE)
			return -1;
		d->res->remaining++;
		snprintf(what, sizeof(what), "found by its labels, failed: %s", err->msg);
		step(d, &r, what);
		return adopt(d, k, name, id, STATE_PENDING, err);
	}
	te_err_clear(err);
	d->res->removed++;
	d->res->swept++;
	step(d, &r, "removed (found by its labels, not in the ledger)");
	return 0;
}

/* The label sweep that ends `down`: objects carrying TASK's
 * io.taskenv.task and this ledger's io.taskenv.ledger that the ledger
 * missed (a process killed inside an engine create can leave one the
 * engine finished after `down` looked its name up). The ledger id on the
 * label is the proof of ownership; users outside the task keep a network
 * or volume (svc_res_before_remove). Kinds in down order, one list call
 * each. */
static int sweep_entry(void *ctx, const struct svc_res_kind_ops *k, const cJSON *obj, struct te_err *err)
{
	return sweep_one(ctx, k, obj, err);
}

static int sweep(struct down *d, struct te_err *err)
{
	te_autofree char *label = xasprintf("io.taskenv.task=%s", d->task);

	return svc_res_each_labelled(d->e, label, "down", sweep_entry, d, err);
}

int svc_down_locked(struct engine *e, struct ledger *l, const char *task, const struct svc_down_opts *opts,
		    struct svc_down_result *res, struct te_err *err)
{
	struct down d = {e, l, task, opts, res};
	struct state_task t;
	int last = 0;

	memset(res, 0, sizeof(*res));
	if (state_task_get(l, task, &t, err) < 0) {
		if (err->code != TE_E_NOTFOUND)
			return -1;
		te_err_clear(err);
		return 0;
	}
	state_task_release(&t);
	/* Containers, then the driver objects they use, networks, images,
	 * volumes: each holds the next. */
	for (int i = 0; i < SVC_RES_COUNT; i++)
		if (svc_res_kind(i)->down_order > last)
			last = svc_res_kind(i)->down_order;
	if (down_processes(&d, err) < 0)
		return -1;
	for (int order = 0; order <= last; order++)
		if (down_order(&d, order, err) < 0)
			return -1;
	if (sweep(&d, err) < 0)
		return -1;
	state_event_add(l, task, "down", "down complete", err);
	return finish(&d, err);
}

int svc_down(struct engine *e, struct ledger *l, const char *task, const struct svc_down_opts *opts,
	     struct svc_down_result *res, struct te_err *err)
{
	int lock = -1, rc;

	memset(res, 0, sizeof(*res));
	svc_guard(e, l);
	if (svc_task_lock(l, task, opts->progress, opts->progress_ctx, &lock, err) < 0)
		return -1;
	rc = svc_down_locked(e, l, task, opts, res, err);
	state_task_unlock(lock);
	return rc;
}
