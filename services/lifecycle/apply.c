#include "services/lifecycle/apply.h"
#include "services/lifecycle/scale.h"
#include "services/lifecycle/apply_int.h"
#include "services/lifecycle/par.h"
#include "services/model/compose.h"
#include "services/model/plan.h"
#include "services/gate/gate.h"
#include "services/lifecycle/guard.h"
#include "services/settings.h"
#include "services/lifecycle/drvrun.h"
#include "services/lifecycle/pgtpl.h"
#include "services/lifecycle/shared.h"
#include "services/lifecycle/retain.h"
#include "services/lifecycle/files.h"
#include "services/lifecycle/broker.h"
#include "services/lifecycle/identity.h"
#include "services/lifecycle/lock.h"
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
	for (size_t i = 0; i < DRV_COUNT; i++) {
		te_autofree char *key = xasprintf("shared_images.%s", drv_at(i)->name);
		const char *img = drv_at(i)->shared ? svc_settings_get(st, key) : NULL;

		opts->shared_image[i] = img && *img ? img : NULL;
	}
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

/* The task's networks exist before its own server container of R's driver
 * (drv_shared.per_task), which is created on the first and attached to
 * the others (attach_shared), with the keys of every resource of that
 * driver without server: as its aliases. */
static int task_server(struct up *u, const struct svc_resource *r, const char *image, struct svc_shared *sh,
		       struct te_err *err)
{
	const struct svc_project *p = u->plan->project;
	const char *net = NULL;
	te_autostrv char **aliases = NULL;
	struct svc_shared_task t;

	for (size_t i = 0; i < u->plan->n_networks; i++) {
		if (!u->nets_made && up_ensure_network(u, &u->plan->networks[i], err) < 0)
			return -1;
		if (!net && !u->plan->networks[i].external)
			net = u->plan->networks[i].name;
	}
	u->nets_made = true;
	if (!net)
		return te_err_set(
		    err, TE_E_USAGE,
		    "resource '%s' (driver %s) without server: runs on a server container on the "
		    "task's own networks, and every network of the task is external",
		    r->key, r->driver);
	for (size_t i = 0; i < p->n_resources; i++)
		if (!p->resources[i].server && strcmp(p->resources[i].driver, r->driver) == 0)
			aliases = te_strv_push(aliases, xstrdup(p->resources[i].key));
	t = (struct svc_shared_task){
	    u->e, u->l, u->plan->task, net, aliases, u->opts->port_lo, u->opts->port_hi};
	return svc_shared_start_task(&t, r->driver, image, sh, err);
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
	if (drv_find(r->driver)->shared->per_task) {
		te_autofree char *own = svc_shared_task_name(u->plan->task, r->driver);

		if (task_server(u, r, u->opts->shared_image[slot], sh, err) < 0)
			return NULL;
		up_step(u, "container", own,
			sh->was_running ? "running (the task's own server)"
					: "started (the task's own server)");
		return sh;
	}
	if (svc_shared_start(u->e, u->l, r->driver, u->opts->shared_image[slot], sh, err) < 0)
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
		name = drv_find(u->shared[k].driver)->shared->per_task
			   ? svc_shared_task_name(u->plan->task, u->shared[k].driver)
			   : xasprintf("taskenv-shared-%s", u->shared[k].driver);
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
	for (size_t i = 0; !u->nets_made && i < u->plan->n_networks; i++)
		if (up_ensure_network(u, &u->plan->networks[i], err) < 0)
			return -1;
	u->nets_made = true;
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
			/* up SERVICE...: what was not chosen is not touched. */
			if (u->plan->containers[i].level != level || !u->selected[i])
				continue;
			if (!u->opts->no_start && up_wait_deps(u, i, err) < 0)
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
	if (up_recover(u, err) < 0 ||
	    svc_scale_down(u->e, u->l, u->plan, u->opts->progress, u->opts->progress_ctx, err) < 0)
		return -1;
	if (create_levels(u, err) < 0 || up_orphans(u, err) < 0)
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
	free(u->selected);
	free(u->recreated);
	free(u->port_moved);
	for (size_t i = 0; u->old_image && i < u->plan->n_containers; i++)
		free(u->old_image[i]);
	free(u->old_image);
	te_strv_free(u->tmpl.used);
	svc_plan_free(u->plan);
}

/* The exceptions the trusted side granted this up: the set run, start,
 * restart and exec of the task use until the next up (and `taskenv
 * contract` shows). Never what the file asked for. */
static int record_allow(struct up *u, const struct svc_project *p, struct te_err *err)
{
	te_autojson cJSON *a = cJSON_CreateArray();
	te_autofree char *text = NULL;

	(void)p;
	for (size_t i = 0; u->opts->allow && u->opts->allow[i]; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(u->opts->allow[i]));
	text = cJSON_PrintUnformatted(a);
	return state_task_set_allow(u->l, u->plan->task, text, err);
}

/* The gate on U's engine, narrowed to this up: the task, the granted set,
 * the project boundary and the plan (for where each field came from). */
static struct gate *gate_for_up(struct up *u, const struct svc_project *project)
{
	struct gate *g = svc_guard(u->e, u->l);

	free(g->task);
	g->task = xstrdup(u->plan->task);
	svc_guard_grant(u->e, u->opts->allow);
	free(g->boundary);
	g->boundary = gate_project_boundary(project);
	te_strv_free(g->own_dirs);
	g->own_dirs = u->plan->files_dir ? te_strv_push(NULL, xstrdup(u->plan->files_dir)) : NULL;
	free(g->broker_dir);
	g->broker_dir = u->plan->broker_dir ? xstrdup(u->plan->broker_dir) : NULL;
	g->plan = u->plan;
	u->plan->public_ports = gate_granted(g, "public-port");
	return g;
}

/* What `taskenv check` reports, and what only the engine knows (labels of
 * joined containers, external objects, existing image tags), judged
 * before anything is created: nothing is when the gate refuses. */
static int policy_gate(struct up *u, const struct svc_project *project, struct te_err *err)
{
	struct gate *g;
	te_autofree char *first = NULL;

	if (gate_exceptions_validate(u->opts->allow, "--allow", err) < 0 ||
	    gate_exceptions_validate(project->allow, "x-taskenv.allow", err) < 0)
		return -1;
	g = gate_for_up(u, project);
	gate_findings_clear(g);
	if (svc_guard_plan(g, u->e, u->plan) == 0)
		return 0;
	first = gate_finding_format(&g->v[0]);
	if (g->n == 1)
		return te_err_set(err, TE_E_POLICY, "refused: %s", first);
	return te_err_set(err, TE_E_POLICY, "refused (%zu findings, each above): %s", g->n, first);
}

void svc_up_failure_release(struct svc_up_failure *f)
{
	free(f->log_tail);
	memset(f, 0, sizeof(*f));
	f->exit_code = -1;
}

void svc_up_failure_json(const struct svc_up_failure *f, cJSON *j)
{
	cJSON_AddStringToObject(j, "service", f->service);
	cJSON_AddStringToObject(j, "container", f->container);
	cJSON_AddStringToObject(j, "status", f->status);
	if (f->exit_code >= 0)
		cJSON_AddNumberToObject(j, "exit_code", f->exit_code);
	else
		cJSON_AddNullToObject(j, "exit_code");
	cJSON_AddStringToObject(j, "log_tail", f->log_tail ? f->log_tail : "");
}

/* The outcome of a failed up, in the task's events for `evidence`. */
static void record_failure(struct up *u, const struct te_err *why)
{
	const struct svc_up_failure *f = u->opts->failure;
	te_autojson cJSON *j = cJSON_CreateObject();
	te_autofree char *text = NULL;
	struct te_err ignored;

	cJSON_AddStringToObject(j, "error", why->msg);
	if (f && *f->service)
		svc_up_failure_json(f, j);
	text = cJSON_PrintUnformatted(j);
	state_event_journal(u->l, u->plan->task, "up", "failed", text, &ignored);
}

/* up failed: keep the task for inspection when asked to, else mark it
 * partial (what was created stays recorded for down/gc). */
static void fail_after(struct up *u, const struct te_err *why)
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
	record_failure(u, why);
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

/* A task belongs to one project directory: an `up` from another one would
 * leave the first project's containers running as orphans of a file that
 * never named them. Another set of files in the same directory is an edit. */
static int same_project(struct up *u, const struct svc_project *project, struct te_err *err)
{
	struct state_task t = {0};
	struct state_resource *rows = NULL;
	size_t n = 0;
	int rc = 0;

	if (state_task_get(u->l, u->plan->task, &t, err) < 0) {
		if (err->code != TE_E_NOTFOUND)
			return -1;
		te_err_clear(err);
		return 0;
	}
	if (t.project_dir && project->dir && strcmp(t.project_dir, project->dir) != 0 &&
	    state_resource_list(u->l, u->plan->task, false, &rows, &n, err) == 0 && n > 0)
		rc = te_err_set(err, TE_E_CONFLICT,
				"task '%s' belongs to the project in '%s', not '%s': pass -t NAME to bring "
				"this one up as another task, or 'taskenv down -t %s' first",
				u->plan->task, t.project_dir, project->dir, u->plan->task);
	state_resources_free(rows, n);
	state_task_release(&t);
	return rc;
}

/* A service with x-taskenv.engine: broker: the task's broker runs before
 * any container is created, so the directory bound into it exists. */
static int start_broker(struct up *u, struct te_err *err)
{
	struct svc_broker_info info;

	if (!u->plan->broker_dir)
		return 0;
	if (svc_broker_start(u->l, u->e, u->plan->task, u->opts->broker_base, &info, err) < 0)
		return te_err_prefix(err, "x-taskenv.engine: broker: ");
	up_step(u, "broker", info.socket, "running");
	return 0;
}

/* The task's broker directory when a service of PLAN has
 * x-taskenv.engine: broker (plan->broker_dir), else nothing. */
static int plan_broker(struct up *u, struct te_err *err)
{
	const struct svc_service *s = NULL;

	for (size_t i = 0; i < u->plan->n_containers && !s; i++)
		if (u->plan->containers[i].svc->engine_broker)
			s = u->plan->containers[i].svc;
	if (!s)
		return 0;
	if (!u->opts->broker_base)
		return te_err_set(err, TE_E_USAGE,
				  "%s:%d:%d: services.%s.x-taskenv.engine: no broker directory",
				  s->engine_loc.file, s->engine_loc.line, s->engine_loc.col, s->name);
	u->plan->broker_dir =
	    svc_broker_dir_path(u->opts->broker_base, state_ledger_id(u->l), u->plan->task, err);
	return u->plan->broker_dir ? 0 : -1;
}

static int up_run(struct up *u, const struct svc_project *project, struct te_err *err)
{
	te_autofree char *files = files_json(project);
	te_autofree char *engine_id = NULL;
	const char *task = u->plan->task;

	if (same_project(u, project, err) < 0 || svc_engine_claim(u->e, u->l, task, &engine_id, err) < 0 ||
	    svc_resources_admit(u->l, project, u->opts->allow, err) < 0 || up_select(u, err) < 0 ||
	    up_check_fit(u, err) < 0 || up_check_images(u, err) < 0)
		return -1;
	if (state_task_upsert(u->l, task, project->dir, files, engine_socket(u->e), "starting", err) < 0)
		return -1;
	if (state_task_set_engine_id(u->l, task, engine_id, err) < 0 || record_allow(u, project, err) < 0 ||
	    record_owner(u, err) < 0) {
		forget_if_empty(u);
		return -1;
	}
	if (up_build_all(u, err) < 0 || svc_files_write(u->plan, err) < 0 || up_reserve_ports(u, err) < 0 ||
	    up_reserve_subnets(u, err) < 0 || start_broker(u, err) < 0 || create_all(u, err) < 0) {
		fail_after(u, err);
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

	u.plan = svc_plan_build(project, task, state_ledger_id(l), err);
	if (!u.plan)
		return -1;
	u.plan->files_dir = svc_files_dir(l, task);
	if (plan_broker(&u, err) < 0 || policy_gate(&u, project, err) < 0) {
		svc_guard(e, l)->plan = NULL;
		up_release(&u);
		return -1;
	}
	rc = svc_task_lock(l, task, opts->progress, opts->progress_ctx, &lock, err);
	if (rc == 0)
		rc = up_run(&u, project, err);
	state_task_unlock(lock);
	/* The pool is refilled after the task is up, by a process of its own:
	 * `up` does not wait for it (and the task's lock is free by now). */
	if (rc == 0 && u.tmpl.used)
		spawn_refill(&u);
	svc_guard(e, l)->plan = NULL; /* the plan goes with U */
	up_release(&u);
	return rc;
}
