#include "services/lifecycle/apply.h"
#include "services/lifecycle/scale.h"
#include "services/lifecycle/apply_int.h"
#include "services/lifecycle/par.h"
#include "services/model/compose.h"
#include "services/model/plan.h"
#include "services/model/policy.h"
#include "services/settings.h"
#include "services/lifecycle/drvrun.h"
#include "services/lifecycle/pgtpl.h"
#include "services/lifecycle/shared.h"
#include "services/lifecycle/retain.h"
#include "services/lifecycle/files.h"
#include "state/secrets.h"
#include "state/owner.h"
#include "engine/engine.h"
#include "state/ledger.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void up_step(const struct up *u, const char *kind, const char *name, const char *what)
{
	if (u->opts->progress)
		u->opts->progress(u->opts->progress_ctx, kind, name, what);
}

int svc_up_opts_init(struct svc_up_opts *opts, const struct svc_settings *st, struct te_err *err)
{
	const struct svc_setting *ports = svc_settings_at(st, SVC_SET_PORT_RANGE);

	memset(opts, 0, sizeof(*opts));
	opts->port_lo = (int)ports->num;
	opts->port_hi = (int)ports->num2;
	opts->wait_timeout_s = (int)svc_settings_at(st, SVC_SET_WAIT_TIMEOUT)->num;
	return state_subnet_pool_parse(svc_settings_at(st, SVC_SET_SUBNET_POOL)->text,
				       (int)svc_settings_at(st, SVC_SET_SUBNET_PREFIX)->num, &opts->pool,
				       err);
}

/* Ours means: this task, in this ledger. Labels are the cross-check; the
 * ledger row is the claim. */
bool up_owned(const struct svc_plan *plan, const cJSON *obj)
{
	return svc_labels_match(obj, plan->task, plan->ledger_id);
}

/* The name is taken by an object we do not own, so the row cannot claim
 * anything: whatever we may once have created under that name is gone. */
int up_not_ours(struct up *u, long long row, const char *kind, const char *name, struct te_err *err)
{
	const char *task = u->plan->task;

	state_resource_set_state(u->l, row, STATE_REMOVED, err);
	return te_err_set(err, TE_E_CONFLICT,
			  "%s '%s' already exists and does not belong to task '%s' of this ledger; "
			  "taskenv leaves it alone: remove it yourself or pick another task name",
			  kind, name, task);
}

/* The shared server container of R's driver, started once per `up`. */
static struct svc_shared *shared_for(struct up *u, const struct svc_resource *r, struct te_err *err)
{
	int slot = svc_shared_slot(r->driver);
	struct svc_shared *sh = slot >= 0 ? &u->shared[slot] : NULL;
	te_autofree char *name = xasprintf("taskenv-shared-%s", r->driver);

	if (!sh)
		return te_err_set(err, TE_E_USAGE,
				  "driver '%s' has no shared server: give server:", r->driver),
		       NULL;
	if (sh->container)
		return sh;
	if (svc_shared_start(u->e, u->l, r->driver, r->image, sh, err) < 0)
		return NULL;
	up_step(u, "container", name,
		sh->was_running ? "running (shared server)" : "started (shared server)");
	return sh;
}

/* Each shared server started for this `up` answers. */
static int shared_ready(struct up *u, struct te_err *err)
{
	for (size_t k = 0; k < SVC_SHARED_MAX; k++) {
		te_autofree char *name = NULL;

		if (!u->shared[k].container)
			continue;
		name = xasprintf("taskenv-shared-%s", u->shared[k].driver);
		if (svc_shared_ready(&u->shared[k], err) < 0)
			return te_err_prefix(err, "shared %s server container: ", u->shared[k].driver);
		up_step(u, "container", name, "ready");
	}
	return 0;
}

/* Where each resource lives: its server: URL, or the shared container of
 * its driver (reached as "<key>:<port>" from the task's networks, and at
 * 127.0.0.1:<published port> from the host: the driver records that). */
static int drv_targets(struct up *u, struct svc_drv_target *t, struct te_err *err)
{
	const struct svc_project *p = u->plan->project;

	for (size_t i = 0; i < p->n_resources; i++) {
		const struct svc_resource *r = &p->resources[i];
		struct svc_shared *sh;
		size_t k;

		t[i] = (struct svc_drv_target){r->server, r->container_host, NULL, r->amqp_port, NULL, NULL};
		if (r->build) {
			t[i].prepare = svc_tmpl_prepare;
			t[i].prepare_ctx = &u->tmpl;
		}
		if (r->server)
			continue;
		sh = shared_for(u, r, err);
		if (!sh)
			return te_err_prefix(err, "resource '%s' (driver %s, shared server): ", r->key,
					     r->driver);
		k = (size_t)(sh - u->shared);
		u->shared_aliases[k] = te_strv_push(u->shared_aliases[k], xstrdup(r->key));
		t[i].server = sh->admin_url;
		t[i].container_host = r->key;
		t[i].container_port = sh->port;
		t[i].amqp_port = sh->amqp_port;
	}
	return shared_ready(u, err);
}

static int attach_shared(struct up *u, struct te_err *err)
{
	for (size_t k = 0; k < SVC_SHARED_MAX; k++)
		for (size_t i = 0; u->shared[k].container && i < u->plan->n_networks; i++) {
			const struct svc_plan_network *n = &u->plan->networks[i];

			if (!n->external && svc_shared_attach(u->e, u->shared[k].container, n->name,
							      u->shared_aliases[k], err) < 0)
				return -1;
		}
	return 0;
}

static bool builds_templates(const struct svc_project *p)
{
	for (size_t i = 0; i < p->n_resources; i++)
		if (p->resources[i].build)
			return true;
	return false;
}

/* Networks (with the shared servers attached), then volumes. */
static int create_rooms(struct up *u, struct te_err *err)
{
	for (size_t i = 0; i < u->plan->n_networks; i++)
		if (up_ensure_network(u, &u->plan->networks[i], err) < 0)
			return -1;
	if (attach_shared(u, err) < 0)
		return -1;
	for (size_t i = 0; i < u->plan->n_volumes; i++)
		if (up_ensure_volume(u, &u->plan->volumes[i], err) < 0)
			return -1;
	return 0;
}

/* One container of a level, on the thread's own engine handle E. */
static int ensure_one(void *ctx, size_t idx, struct engine *e, struct te_err *err)
{
	struct up w = *(struct up *)ctx;

	w.e = e;
	return up_ensure_container(&w, idx, err);
}

/* Containers level by level (svc_plan_container.level): the depends_on
 * conditions of a level are met first, then its containers are made and
 * started at once (svc_par_run), each through the ledger protocol on its
 * own; a level with a failure stops the next from starting. */
static int create_levels(struct up *u, struct te_err *err)
{
	te_autofree size_t *items = xcalloc(u->plan->n_containers + 1, sizeof(size_t));

	for (int level = 0; level < u->plan->n_levels; level++) {
		size_t n = 0;

		for (size_t i = 0; i < u->plan->n_containers; i++) {
			if (u->plan->containers[i].level != level)
				continue;
			if (up_wait_deps(u, i, err) < 0)
				return -1;
			items[n++] = i;
		}
		if (svc_par_run(u->e, items, n, ensure_one, u, err) < 0)
			return -1;
	}
	return 0;
}

/* Driver resources first: a server that refuses leaves no engine object
 * behind, and containers need their values injected. A template built
 * from migrations changes that order: its migration runs as a one-off
 * container of a service, on the task's networks and with its volumes, as
 * `taskenv run` would, so those come first (a failing server then leaves
 * them recorded for `down`, like any failed `up`). */
static int create_all(struct up *u, struct te_err *err)
{
	te_autofree struct svc_drv_target *t = xcalloc(u->plan->project->n_resources + 1, sizeof(*t));
	bool rooms_first = builds_templates(u->plan->project);

	u->tmpl = (struct svc_tmpl_ctx){u->e, u->l, u->plan, u->opts->progress, u->opts->progress_ctx, NULL};
	if (drv_targets(u, t, err) < 0 || (rooms_first && create_rooms(u, err) < 0))
		return -1;
	if (svc_drivers_up(u->l, u->plan->project, u->plan->task, t, u->opts->progress, u->opts->progress_ctx,
			   &u->values, err) < 0)
		return -1;
	if (!rooms_first && create_rooms(u, err) < 0)
		return -1;
	if (svc_scale_down(u->e, u->l, u->plan, u->opts->progress, u->opts->progress_ctx, err) < 0)
		return -1;
	if (create_levels(u, err) < 0)
		return -1;
	return up_wait_all(u, err);
}

static char *files_json(const struct svc_project *p)
{
	te_autojson cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; p->files && p->files[i]; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(p->files[i]));
	return cJSON_PrintUnformatted(a);
}

/* A task that held nothing before this `up` and failed before creating
 * anything must leave no trace: no ports held, no task row. */
static void forget_if_empty(struct up *u)
{
	struct te_err ignored;
	struct state_resource *rows = NULL;
	size_t n = 0;

	if (state_resource_list(u->l, u->plan->task, false, &rows, &n, &ignored) < 0)
		return;
	state_resources_free(rows, n);
	if (n)
		return;
	state_port_release_task(u->l, u->plan->task, &ignored);
	state_secrets_drop(u->l, u->plan->task, &ignored);
	state_subnet_release_task(u->l, u->plan->task, &ignored);
	if (state_task_delete(u->l, u->plan->task, &ignored) == 0 && u->plan->files_dir)
		svc_files_remove(u->plan->files_dir, &ignored);
}

static void up_release(struct up *u)
{
	for (size_t i = 0; u->host_ports && i < u->plan->n_containers; i++)
		free(u->host_ports[i]);
	free(u->host_ports);
	free(u->subnets);
	cJSON_Delete(u->values);
	for (size_t k = 0; k < SVC_SHARED_MAX; k++) {
		svc_shared_release(&u->shared[k]);
		te_strv_free(u->shared_aliases[k]);
	}
	free(u->need_build);
	for (size_t i = 0; u->old_image && i < u->plan->n_containers; i++)
		free(u->old_image[i]);
	free(u->old_image);
	te_strv_free(u->tmpl.used);
	svc_plan_free(u->plan);
}

/* The exceptions this task runs with, for `taskenv contract`. */
static int record_allow(struct up *u, const struct svc_project *p, struct te_err *err)
{
	te_autojson cJSON *a = cJSON_CreateArray();
	te_autofree char *text = NULL;

	for (size_t i = 0; p->allow && p->allow[i]; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(p->allow[i]));
	for (size_t i = 0; u->opts->allow && u->opts->allow[i]; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(u->opts->allow[i]));
	text = cJSON_PrintUnformatted(a);
	return state_task_set_allow(u->l, u->plan->task, text, err);
}

/* The same check as `taskenv check`: nothing is created when it refuses. */
static int policy_gate(const struct svc_project *project, const struct svc_up_opts *opts, struct te_err *err)
{
	struct svc_finding *f = NULL;
	size_t n = 0;
	te_autofree char *first = NULL;

	if (svc_policy_validate(project, opts->allow, err) < 0)
		return -1;
	svc_policy_check(project, opts->allow, &f, &n);
	if (n == 0)
		return 0;
	first = svc_finding_format(&f[0]);
	svc_findings_free(f, n);
	if (n == 1)
		return te_err_set(err, TE_E_POLICY, "refused: %s", first);
	return te_err_set(err, TE_E_POLICY, "refused (%zu findings, see 'taskenv check'): %s", n, first);
}

/* up failed: keep the task for inspection when asked to, else mark it
 * partial (what was created stays recorded for down/gc). */
static void fail_after(struct up *u)
{
	struct svc_retain_opts r = {.secs = u->opts->retain_on_failure,
				    .reason = "up failed",
				    .stop_timeout = 10,
				    .progress = u->opts->progress,
				    .progress_ctx = u->opts->progress_ctx};
	struct te_err ignored;

	forget_if_empty(u);
	if (state_task_set_status(u->l, u->plan->task, "partial", &ignored) < 0)
		return; /* forgotten: nothing to retain */
	if (r.secs > 0)
		svc_retain_locked(u->e, u->l, u->plan->task, &r, &ignored);
}

static int record_owner(struct up *u, struct te_err *err)
{
	struct state_owner o;
	long long lease = u->opts->lease ? (long long)time(NULL) + u->opts->lease : 0;

	if (state_owner_of(u->opts->owner_pid, &o, err) < 0)
		return te_err_prefix(err, "task '%s': ", u->plan->task);
	return state_task_set_owner(u->l, u->plan->task, &o, lease, err);
}

static int up_run(struct up *u, const struct svc_project *project, struct te_err *err)
{
	te_autofree char *files = files_json(project);
	const char *task = u->plan->task;

	if (up_check_fit(u, err) < 0 || up_check_images(u, err) < 0)
		return -1;
	if (state_task_upsert(u->l, task, project->dir, files, engine_socket(u->e), "starting", err) < 0)
		return -1;
	if (record_allow(u, project, err) < 0 || record_owner(u, err) < 0) {
		forget_if_empty(u);
		return -1;
	}
	if (up_build_all(u, err) < 0 || svc_files_write(u->plan, err) < 0 || up_reserve_ports(u, err) < 0 ||
	    up_reserve_subnets(u, err) < 0 || create_all(u, err) < 0) {
		fail_after(u);
		return -1;
	}
	up_drop_old_images(u);
	state_event_add(u->l, task, "up", "up complete", err);
	if (state_task_set_retention(u->l, task, 0, NULL, NULL, err) < 0)
		return -1;
	return state_task_set_status(u->l, task, "up", err);
}

static void spawn_refill(struct up *u)
{
	struct te_err e2 = {0};
	char what[sizeof(e2.msg) + 32];

	if (svc_pool_spawn(u->l, u->tmpl.used, &e2) == 0)
		return;
	snprintf(what, sizeof(what), "not started: %s", e2.msg);
	up_step(u, "postgres-pool", "refill", what);
}

int svc_up(struct engine *e, struct ledger *l, const struct svc_project *project, const char *task,
	   const struct svc_up_opts *opts, struct te_err *err)
{
	struct up u = {.e = e, .l = l, .opts = opts};
	int rc, lock = -1;

	if (policy_gate(project, opts, err) < 0)
		return -1;
	u.plan = svc_plan_build(project, task, state_ledger_id(l), err);
	if (!u.plan)
		return -1;
	u.plan->files_dir = svc_files_dir(l, task);
	rc = state_task_lock(l, task, true, &lock, err);
	if (rc == 0)
		rc = up_run(&u, project, err);
	state_task_unlock(lock);
	/* The pool is refilled after the task is up, by a process of its own:
	 * `up` does not wait for it (and the task's lock is free by now). */
	if (rc == 0 && u.tmpl.used)
		spawn_refill(&u);
	up_release(&u);
	return rc;
}
