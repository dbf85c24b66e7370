#include "services/lifecycle/teardown.h"
#include "services/model/plan.h"
#include "services/lifecycle/drvrun.h"
#include "services/lifecycle/shared.h"
#include "state/secrets.h"
#include "services/lifecycle/files.h"
#include "services/model/task.h"
#include "engine/build.h"
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

static int inspect(struct down *d, const struct state_resource *r, cJSON **obj, struct te_err *err)
{
	const char *ref = r->engine_id ? r->engine_id : r->name;

	if (strcmp(r->kind, "container") == 0)
		return engine_container_inspect(d->e, ref, obj, err);
	if (strcmp(r->kind, "network") == 0)
		return engine_network_inspect(d->e, ref, obj, err);
	if (strcmp(r->kind, "volume") == 0)
		return engine_volume_inspect(d->e, r->name, obj, err);
	/* By name: a rebuild moves the tag, and the tag is what we own. */
	if (strcmp(r->kind, "image") == 0)
		return engine_image_inspect(d->e, r->name, obj, err);
	return te_err_set(err, TE_E_FAIL, "unknown resource kind '%s' for '%s'", r->kind, r->name);
}

/* Removed only when the ledger owns it (the row) and the object says so
 * too (its labels name this task and this ledger). */
static bool labels_match(const struct down *d, const cJSON *obj)
{
	return svc_labels_match(obj, d->task, state_ledger_id(d->l));
}

static int remove_object(struct down *d, const struct state_resource *r, const char *id, struct te_err *err)
{
	if (strcmp(r->kind, "container") == 0) {
		if (engine_container_stop(d->e, id, d->opts->stop_timeout, err) < 0 &&
		    err->code != TE_E_NOTFOUND)
			return -1;
		return engine_container_remove(d->e, id, true, err);
	}
	if (strcmp(r->kind, "network") == 0) {
		/* The shared server container is on it while the task exists. */
		if (svc_shared_detach(d->e, d->l, r->name, err) < 0)
			return -1;
		return engine_network_remove(d->e, id, err);
	}
	if (strcmp(r->kind, "image") == 0)
		return engine_image_remove(d->e, r->name, false, err);
	return engine_volume_remove(d->e, r->name, false, err);
}

/* A network's subnet goes back to the pool with it. */
static int mark_removed(struct down *d, const struct state_resource *r, struct te_err *err)
{
	if (state_resource_set_state(d->l, r->id, STATE_REMOVED, err) < 0)
		return -1;
	if (strcmp(r->kind, "network") == 0)
		return state_subnet_release_network(d->l, r->name, err);
	return 0;
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

/* One row. Returns -1 only when the engine cannot be reached at all:
 * everything else is counted and recorded, and the caller goes on. */
static int down_one(struct down *d, const struct state_resource *r, struct te_err *err)
{
	te_autojson cJSON *obj = NULL;
	const char *id;
	char what[sizeof(err->msg) + 16];

	if (inspect(d, r, &obj, err) < 0) {
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
	if (strcmp(r->kind, "volume") == 0 && !d->opts->volumes) {
		d->res->kept++;
		step(d, r, "kept");
		return 0;
	}
	if (strcmp(r->kind, "image") == 0 && !rmi_wants(d, r)) {
		d->res->kept_images++;
		step(d, r, "kept");
		return 0;
	}
	id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(obj, "Id"));
	if (state_resource_set_state(d->l, r->id, STATE_REMOVING, err) < 0)
		return -1;
	if (remove_object(d, r, id ? id : r->name, err) < 0 && err->code != TE_E_NOTFOUND) {
		if (err->code == TE_E_UNREACHABLE)
			return -1;
		goto failed;
	}
	d->res->removed++;
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

static int down_drivers(struct down *d, struct te_err *err)
{
	struct state_resource *rows = NULL;
	size_t n = 0;
	int rc = 0;

	if (state_resource_list(d->l, d->task, false, &rows, &n, err) < 0)
		return -1;
	/* Newest first: a schema or database before the role that owns it. */
	for (size_t i = n; i-- > 0 && rc == 0;)
		if (drv_for_kind(rows[i].kind))
			rc = down_driver_row(d, &rows[i], err);
	drv_release_all();
	state_resources_free(rows, n);
	return rc;
}

static int down_kind(struct down *d, const char *kind, struct te_err *err)
{
	struct state_resource *rows = NULL;
	size_t n = 0;
	int rc = 0;

	if (state_resource_list(d->l, d->task, false, &rows, &n, err) < 0)
		return -1;
	/* Newest first, as Compose stops dependants before their dependencies. */
	for (size_t i = n; i-- > 0 && rc == 0;)
		if (strcmp(rows[i].kind, kind) == 0)
			rc = down_one(d, &rows[i], err);
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
	/* No container is left to read them: secret files go now. */
	if (remove_files(d, err) < 0)
		return -1;
	if (d->res->kept || d->res->kept_images)
		return state_task_set_status(d->l, d->task, "down", err);
	if (state_port_release_task(d->l, d->task, err) < 0 ||
	    state_subnet_release_task(d->l, d->task, err) < 0 || state_secrets_drop(d->l, d->task, err) < 0)
		return -1;
	return state_task_delete(d->l, d->task, err);
}

int svc_down_locked(struct engine *e, struct ledger *l, const char *task, const struct svc_down_opts *opts,
		    struct svc_down_result *res, struct te_err *err)
{
	struct down d = {e, l, task, opts, res};
	struct state_task t;
	/* Containers before networks before volumes: each holds the next. */
	static const char *const order[] = {"container", "network", "image", "volume"};

	memset(res, 0, sizeof(*res));
	if (state_task_get(l, task, &t, err) < 0) {
		if (err->code != TE_E_NOTFOUND)
			return -1;
		te_err_clear(err);
		return 0;
	}
	state_task_release(&t);
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (down_kind(&d, order[i], err) < 0)
			return -1;
		/* Driver objects after the containers that use them. */
		if (i == 0 && down_drivers(&d, err) < 0)
			return -1;
	}
	state_event_add(l, task, "down", "down complete", err);
	return finish(&d, err);
}

int svc_down(struct engine *e, struct ledger *l, const char *task, const struct svc_down_opts *opts,
	     struct svc_down_result *res, struct te_err *err)
{
	int lock = -1, rc;

	memset(res, 0, sizeof(*res));
	if (state_task_lock(l, task, true, &lock, err) < 0)
		return -1;
	rc = svc_down_locked(e, l, task, opts, res, err);
	state_task_unlock(lock);
	return rc;
}
