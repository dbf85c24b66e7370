#include "services/lifecycle/ops.h"
#include "services/lifecycle/broker.h"
#include "services/lifecycle/allowed.h"
#include "services/lifecycle/reskind.h"
#include "services/lifecycle/inuse.h"
#include "services/lifecycle/par.h"
#include "services/lifecycle/guard.h"
#include "services/lifecycle/files.h"
#include "services/gate/gate.h"
#include "services/model/compose.h"
#include "services/model/load.h"
#include "services/model/plan.h"
#include "engine/connect.h"
#include "engine/engine.h"
#include "engine/stream.h"
#include "state/ledger.h"
#include "common/err.h"
#include "common/fault.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

void svc_container_refs_free(struct svc_container_ref *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].name);
		free(v[i].id);
		free(v[i].service);
	}
	free(v);
}

/* The replica number at the end of a container name, 1 if none. */
static int replica_of(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	return *s && !*end && v > 0 && v < 100000 ? (int)v : 1;
}

static bool strv_has(char *const *v, const char *s)
{
	for (size_t i = 0; v && v[i]; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

static bool row_oneoff(const struct state_resource *r)
{
	te_autojson cJSON *d = r->detail ? cJSON_Parse(r->detail) : NULL;

	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(d, "oneoff"));
}

static bool row_usable(const struct state_resource *r)
{
	return svc_res_kind_of(r->kind) == SVC_RES_CONTAINER && strcmp(r->state, STATE_CREATED) == 0 &&
	       r->engine_id;
}

/* Every service named in SERVICES must have a container in ROWS. */
static int check_services(const struct state_resource *rows, size_t n, char *const *services,
			  const char *task, struct te_err *err)
{
	for (size_t s = 0; services && services[s]; s++) {
		bool found = false;
		te_autofree char *have = xstrdup("");

		for (size_t i = 0; i < n && !found; i++) {
			char *h;

			if (!row_usable(&rows[i]) || !rows[i].service)
				continue;
			found = strcmp(rows[i].service, services[s]) == 0;
			h = xasprintf("%s%s'%s'", have, *have ? ", " : "", rows[i].service);
			free(have);
			have = h;
		}
		if (!found)
			return te_err_set(err, TE_E_USAGE,
					  "task '%s' has no container of service '%s' (it has: %s)", task,
					  services[s], *have ? have : "none");
	}
	return 0;
}

int svc_row_level(const struct state_resource *r)
{
	te_autojson cJSON *d = r->detail ? cJSON_Parse(r->detail) : NULL;
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(d, "level");

	return cJSON_IsNumber(v) && v->valueint > 0 ? v->valueint : 0;
}

int svc_task_containers(struct ledger *l, const char *task, char *const *services, bool include_oneoff,
			struct svc_container_ref **out, size_t *n_out, struct te_err *err)
{
	struct state_task t;
	struct state_resource *rows = NULL;
	size_t n = 0, k = 0;
	struct svc_container_ref *v;

	if (state_task_get(l, task, &t, err) < 0)
		return -1;
	state_task_release(&t);
	if (state_resource_list(l, task, false, &rows, &n, err) < 0)
		return -1;
	if (check_services(rows, n, services, task, err) < 0) {
		state_resources_free(rows, n);
		return -1;
	}
	v = xcalloc(n + 1, sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		bool oneoff = row_oneoff(&rows[i]);

		if (!row_usable(&rows[i]) || (oneoff && !include_oneoff))
			continue;
		if (services && (!rows[i].service || !strv_has(services, rows[i].service)))
			continue;
		v[k].name = xstrdup(rows[i].name);
		v[k].id = xstrdup(rows[i].engine_id);
		v[k].service = xstrdup(rows[i].service ? rows[i].service : "");
		v[k].level = svc_row_level(&rows[i]);
		v[k++].oneoff = oneoff;
	}
	state_resources_free(rows, n);
	*out = v;
	*n_out = k;
	return 0;
}

/* Labels name this task and this ledger: the cross-check before we act. */
static int check_owned(struct engine *e, struct ledger *l, const char *task,
		       const struct svc_container_ref *c, struct te_err *err)
{
	te_autojson cJSON *obj = NULL;
	const cJSON *labels;
	const char *t, *lid;

	if (engine_container_inspect(e, c->id, &obj, err) < 0)
		return te_err_prefix(err, "container '%s': ", c->name);
	labels = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(obj, "Config"), "Labels");
	t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(labels, "io.taskenv.task"));
	lid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(labels, "io.taskenv.ledger"));
	if (!t || !lid || strcmp(t, task) != 0 || strcmp(lid, state_ledger_id(l)) != 0)
		return te_err_set(
		    err, TE_E_CONFLICT,
		    "container '%s' does not carry the labels of task '%s' of this ledger; left alone",
		    c->name, task);
	return 0;
}

/* A stopped container cannot start on a host port another process took
 * meanwhile (the engine would answer "address already in use" half way):
 * say which, and that `up` moves it (docs/up.md), before anything starts. */
static int ports_free(struct engine *e, struct ledger *l, const char *task, const struct svc_container_ref *c,
		      struct te_err *err)
{
	te_autojson cJSON *obj = NULL;
	struct state_port *p = NULL;
	size_t n = 0;
	const char *dash = strrchr(c->name, '-');
	int replica = dash ? replica_of(dash + 1) : 1;
	int rc = 0;

	if (c->oneoff)
		return 0;
	if (engine_container_inspect(e, c->id, &obj, err) < 0)
		return te_err_prefix(err, "container '%s': ", c->name);
	if (cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(obj, "State"), "Running")))
		return 0; /* it holds its ports itself */
	if (state_port_list(l, task, &p, &n, err) < 0)
		return -1;
	for (size_t i = 0; i < n && rc == 0; i++)
		if (strcmp(p[i].service, c->service) == 0 && p[i].replica == replica &&
		    state_port_probe_listen(p[i].host_ip, p[i].host_port, p[i].proto) < 0)
			rc = te_err_set(
			    err, TE_E_CONFLICT,
			    "container '%s': host port %s:%d (%s %d/%s) is taken by another process; "
			    "'taskenv up -t %s' gives it a new one",
			    c->name, p[i].host_ip, p[i].host_port, c->service, p[i].container_port,
			    p[i].proto, task);
	state_ports_free(p, n);
	return rc;
}

static int one_op(struct engine *e, const struct svc_container_ref *c, enum svc_lifecycle_op op,
		  int timeout_s, struct te_err *err)
{
	if (op != SVC_START && engine_container_stop(e, c->id, timeout_s, err) < 0)
		return te_err_prefix(err, "stop container '%s': ", c->name);
	if (op != SVC_STOP && engine_container_start(e, c->id, err) < 0)
		return te_err_prefix(err, "start container '%s': ", c->name);
	return 0;
}

static const char *op_done(enum svc_lifecycle_op op)
{
	return op == SVC_STOP ? "stopped" : op == SVC_START ? "started" : "restarted";
}

/* Does row R's detail list, under restart_with, one of SERVICES? */
static bool restarts_with(const struct state_resource *r, char *const *services)
{
	te_autojson cJSON *d = r->detail ? cJSON_Parse(r->detail) : NULL;
	const cJSON *it;

	cJSON_ArrayForEach (it, cJSON_GetObjectItemCaseSensitive(d, "restart_with"))
		if (cJSON_IsString(it) && strv_has(services, it->valuestring))
			return true;
	return false;
}

/* SERVICES and, again and again, the services whose depends_on has
 * `restart: true` on one of them (Compose restarts those after their
 * dependency). Owned. */
static char **with_dependants(struct ledger *l, const char *task, char *const *services, struct te_err *err)
{
	struct state_resource *rows = NULL;
	char **v = te_strv_dup(services);
	size_t n = 0;
	bool grew = true;

	if (state_resource_list(l, task, false, &rows, &n, err) < 0) {
		te_strv_free(v);
		return NULL;
	}
	while (grew) {
		grew = false;
		for (size_t i = 0; i < n; i++)
			if (row_usable(&rows[i]) && rows[i].service && !strv_has(v, rows[i].service) &&
			    restarts_with(&rows[i], v)) {
				v = te_strv_push(v, xstrdup(rows[i].service));
				grew = true;
			}
	}
	state_resources_free(rows, n);
	return v;
}

struct op_batch {
	struct ledger *l;
	const char *task;
	const struct svc_container_ref *v;
	enum svc_lifecycle_op op;
	int timeout_s;
	svc_progress_fn progress;
	void *pctx;
};

static int op_item(void *ctx, size_t k, struct engine *e, struct te_err *err)
{
	const struct op_batch *b = ctx;
	const struct svc_container_ref *c = &b->v[k];
	struct timespec t0, t1;
	char what[64];

	if (check_owned(e, b->l, b->task, c, err) < 0)
		return -1;
	if (b->op == SVC_STOP && b->progress)
		b->progress(b->pctx, "container", c->name, "stopping");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (one_op(e, c, b->op, b->timeout_s, err) < 0)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	snprintf(what, sizeof(what), "%s (%.1f s)", op_done(b->op),
		 (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	if (b->progress)
		b->progress(b->pctx, "container", c->name, b->op == SVC_STOP ? what : op_done(b->op));
	return 0;
}

/* Stop level by level, dependants first, or start dependencies first; the
 * containers of one level at once (svc_par_run), as `down` and `up` do. */
static int by_levels(struct engine *e, struct op_batch *b, size_t n, struct te_err *err)
{
	te_autofree size_t *items = xcalloc(n + 1, sizeof(size_t));
	int top = 0;

	for (size_t k = 0; k < n; k++)
		if (b->v[k].level > top)
			top = b->v[k].level;
	for (int i = 0; i <= top; i++) {
		int lv = b->op == SVC_STOP ? top - i : i;
		size_t m = 0;

		for (size_t k = 0; k < n; k++)
			if (b->v[k].level == lv)
				items[m++] = k;
		if (svc_par_run(e, items, m, op_item, b, err) < 0)
			return -1;
	}
	return 0;
}

int svc_lifecycle(struct engine *e, struct ledger *l, const char *task, char *const *services,
		  enum svc_lifecycle_op op, int timeout_s, svc_progress_fn progress, void *pctx,
		  struct te_err *err)
{
	te_autostrv char **wanted = NULL;
	struct svc_container_ref *v = NULL;
	size_t n = 0;
	int rc = 0;

	if (svc_guard_task(e, l, task, err) < 0)
		return -1;
	if (op == SVC_RESTART && services) {
		wanted = with_dependants(l, task, services, err);
		if (!wanted)
			return -1;
	}
	if (svc_task_containers(l, task, wanted ? wanted : services, false, &v, &n, err) < 0)
		return -1;
	for (size_t k = 0; op == SVC_START && k < n && rc == 0; k++)
		rc = ports_free(e, l, task, &v[k], err);
	if (op != SVC_RESTART && rc == 0) {
		struct op_batch b = {l, task, v, op, timeout_s, progress, pctx};

		rc = by_levels(e, &b, n, err);
	}
	for (size_t k = 0; op == SVC_RESTART && k < n && rc == 0; k++) {
		const struct svc_container_ref *c = &v[k];

		rc = check_owned(e, l, task, c, err);
		if (rc == 0)
			rc = one_op(e, c, op, timeout_s, err);
		if (rc == 0 && progress)
			progress(pctx, "container", c->name, op_done(op));
	}
	svc_container_refs_free(v, n);
	if (rc == 0 && !services) {
		state_event_add(l, task,
				op == SVC_STOP	  ? "stop"
				: op == SVC_START ? "start"
						  : "restart",
				NULL, err);
		rc = state_task_set_status(l, task, op == SVC_STOP ? "stopped" : "up", err);
	}
	return rc;
}

/* ---- run ---- */

struct run {
	struct engine *e;
	struct ledger *l;
	const char *task;
	const struct svc_run_opts *o;
	struct svc_project *project;
	struct svc_plan *own_plan; /* loaded here, or NULL */
	const struct svc_plan *plan;
	const struct svc_plan_container *c;
	char *name;
	char *id;
	long long row;
	size_t lines; /* lines of output passed on so far */
};

/* The task's Compose files as `up` read them: ${COMPOSE_PROJECT_NAME} the
 * task, the same --env-file (the warnings were shown at up). */
struct svc_project *svc_task_project(struct ledger *l, const char *task, char *const *env_files,
				     struct te_err *err)
{
	struct svc_load_opts o = {.env_files = env_files, .project_name = task};
	te_autostrv char **warnings = NULL;
	struct state_task t;
	te_autojson cJSON *files = NULL;
	te_autostrv char **v = NULL;
	struct svc_project *p;
	const cJSON *f;

	if (state_task_get(l, task, &t, err) < 0)
		return NULL;
	files = cJSON_Parse(t.compose_files ? t.compose_files : "[]");
	state_task_release(&t);
	cJSON_ArrayForEach (f, files)
		if (cJSON_IsString(f))
			v = te_strv_push(v, xstrdup(f->valuestring));
	if (!v)
		return te_err_set(err, TE_E_USAGE, "task '%s' records no Compose file", task), NULL;
	o.files = v;
	p = svc_load_project(&o, &warnings, err);
	if (!p)
		te_err_prefix(err, "task '%s': ", task);
	return p;
}

static int load_task_project(struct run *r, struct te_err *err)
{
	r->project = svc_task_project(r->l, r->task, r->o->env_files, err);
	if (!r->project)
		return -1;
	r->own_plan = svc_plan_build(r->project, r->task, state_ledger_id(r->l), err);
	r->plan = r->own_plan;
	if (r->plan) {
		struct gate *g = svc_guard(r->e, r->l);

		r->own_plan->files_dir = svc_files_dir(r->l, r->task);
		te_strv_free(g->own_dirs);
		g->own_dirs = te_strv_push(NULL, xstrdup(r->own_plan->files_dir));
		r->own_plan->broker_dir = svc_broker_dir_of(r->l, r->task);
		free(g->broker_dir);
		g->broker_dir = r->own_plan->broker_dir ? xstrdup(r->own_plan->broker_dir) : NULL;
	}
	return r->plan ? 0 : -1;
}

static int find_service(struct run *r, struct te_err *err)
{
	for (size_t i = 0; i < r->plan->n_containers; i++)
		if (strcmp(r->plan->containers[i].svc->name, r->o->service) == 0) {
			r->c = &r->plan->containers[i];
			break;
		}
	if (!r->c)
		return te_err_set(err, TE_E_USAGE, "no service '%s' in the Compose file of task '%s'",
				  r->o->service, r->task);
	for (size_t i = 0; r->c->networks && r->c->networks[i]; i++) {
		te_autojson cJSON *obj = NULL;

		if (engine_network_inspect(r->e, r->c->networks[i], &obj, err) == 0)
			continue;
		if (err->code != TE_E_NOTFOUND)
			return -1;
		return te_err_set(
		    err, TE_E_USAGE,
		    "task '%s' is not up (network '%s' is absent); run `taskenv up -t %s` first", r->task,
		    r->c->networks[i], r->task);
	}
	return 0;
}

static void set_str(cJSON *obj, const char *key, const char *value)
{
	cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
	cJSON_AddStringToObject(obj, key, value);
}

static cJSON *strv_json(char *const *v)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; v && v[i]; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
	return a;
}

/* The service's create body, adjusted as Compose adjusts it for `run`. */
static cJSON *run_body(struct run *r)
{
	const struct svc_service *s = r->c->svc;
	te_autofree int *ports = xcalloc(s->n_ports + 1, sizeof(int));
	cJSON *b = svc_plan_container_body(r->plan, r->c, ports);
	cJSON *hc = cJSON_GetObjectItemCaseSensitive(b, "HostConfig");
	cJSON *labels = cJSON_GetObjectItemCaseSensitive(b, "Labels");
	cJSON *env = cJSON_GetObjectItemCaseSensitive(b, "Env");

	/* No published ports: `run` would clash with the service's own. */
	cJSON_DeleteItemFromObjectCaseSensitive(b, "ExposedPorts");
	cJSON_DeleteItemFromObjectCaseSensitive(hc, "PortBindings");
	set_str(labels, "com.docker.compose.oneoff", "True");
	if (r->o->entrypoint) {
		cJSON_DeleteItemFromObjectCaseSensitive(b, "Entrypoint");
		cJSON_AddItemToObject(b, "Entrypoint", strv_json(r->o->entrypoint));
		cJSON_DeleteItemFromObjectCaseSensitive(b, "Cmd");
	}
	if (r->o->cmd) {
		cJSON_DeleteItemFromObjectCaseSensitive(b, "Cmd");
		cJSON_AddItemToObject(b, "Cmd", strv_json(r->o->cmd));
	}
	for (size_t i = 0; r->o->env && r->o->env[i]; i++)
		cJSON_AddItemToArray(env, cJSON_CreateString(r->o->env[i]));
	if (r->o->user)
		set_str(b, "User", r->o->user);
	if (r->o->workdir)
		set_str(b, "WorkingDir", r->o->workdir);
	return b;
}

static char *run_name(const char *task, const char *service, struct te_err *err)
{
	unsigned char raw[3];

	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) {
		te_err_set(err, TE_E_IO, "getrandom: %s", strerror(errno));
		return NULL;
	}
	return xasprintf("%s-%s-run-%02x%02x%02x", task, service, raw[0], raw[1], raw[2]);
}

static int create_oneoff(struct run *r, struct te_err *err)
{
	te_autojson cJSON *body = run_body(r);
	te_autojson cJSON *detail = cJSON_CreateObject();
	te_autofree char *text = NULL;

	r->name = run_name(r->task, r->o->service, err);
	if (!r->name)
		return -1;
	cJSON_AddBoolToObject(detail, "oneoff", true);
	cJSON_AddItemToObject(detail, "allowed", svc_allowed_of(body));
	svc_allowed_add_networks(cJSON_GetObjectItemCaseSensitive(detail, "allowed"), r->c->networks);
	text = cJSON_PrintUnformatted(detail);
	if (state_resource_intend(r->l, r->task, svc_res_kind_name(SVC_RES_CONTAINER), r->name, r->o->service,
				  &r->row, err) < 0 ||
	    state_resource_set_detail(r->l, r->row, text, err) < 0)
		return -1;
	te_fault_point("before-create", "container", r->name);
	if (engine_container_create(r->e, r->name, body, &r->id, err) < 0)
		return te_err_prefix(err, "service '%s': create container '%s': ", r->o->service, r->name);
	te_fault_point("after-create", "container", r->name);
	if (state_resource_created(r->l, r->row, r->id, err) < 0)
		return -1;
	for (size_t i = 1; r->c->networks && r->c->networks[i]; i++)
		if (engine_network_connect(r->e, r->c->networks[i], r->id, r->c->aliases, err) < 0)
			return te_err_prefix(err, "service '%s': ", r->o->service);
	return 0;
}

static int run_line(void *ctx, size_t src, int stream, const char *line, size_t n)
{
	struct run *r = ctx;

	r->lines++;
	return r->o->output ? r->o->output(r->o->output_ctx, stream, line, n) : 0;
}

static int run_attached(struct run *r, int *code, struct te_err *err)
{
	struct engine_logs_opts lo = {.follow = true, .tail = -1, .cancel = r->o->cancel};
	char *ids[] = {r->id, NULL};

	if (engine_container_start(r->e, r->id, err) < 0)
		return te_err_prefix(err, "start container '%s': ", r->name);
	/* The log holds everything since start, so following it from the
	 * beginning loses nothing printed before we attached. */
	if (engine_logs(r->e, ids, &lo, run_line, r, err) < 0) {
		/* Podman 4.3 answers 500 ("read /proc/N/cgroup: no such process")
		 * to a follow that races the container's exit: when nothing was
		 * passed on yet, wait for the exit and read the finished log once. */
		if (err->code != TE_E_ENGINE || r->lines)
			return -1;
		if (engine_container_wait(r->e, r->id, code, err) < 0)
			return -1;
		lo.follow = false;
		return engine_logs(r->e, ids, &lo, run_line, r, err);
	}
	if (r->o->cancel && *r->o->cancel &&
	    engine_container_stop(r->e, r->id, SVC_RUN_STOP_TIMEOUT_S, err) < 0)
		return te_err_prefix(err, "stop container '%s': ", r->name);
	return engine_container_wait(r->e, r->id, code, err);
}

static int remove_oneoff(struct run *r, struct te_err *err)
{
	if (state_resource_set_state(r->l, r->row, STATE_REMOVING, err) < 0)
		return -1;
	if (svc_container_remove(r->e, r->id, -1, err) < 0 && err->code != TE_E_NOTFOUND) {
		struct te_err ignored;

		state_resource_set_state(r->l, r->row, STATE_PENDING, &ignored);
		return te_err_prefix(err, "remove container '%s': ", r->name);
	}
	return state_resource_set_state(r->l, r->row, STATE_REMOVED, err);
}

/* --allow of run: added to the set of the latest up, for this run. */
static int run_grants(struct engine *e, char *const *allow, struct te_err *err)
{
	struct gate *g = svc_guard(e, NULL);

	if (gate_exceptions_validate(allow, "--allow", err) < 0)
		return -1;
	for (size_t i = 0; allow[i]; i++)
		if (!gate_granted(g, allow[i]))
			g->granted = te_strv_push(g->granted, xstrdup(allow[i]));
	return 0;
}

int svc_run(struct engine *e, struct ledger *l, const char *task, const struct svc_run_opts *opts,
	    int *exit_code, char **name_out, struct te_err *err)
{
	struct run r = {.e = e, .l = l, .task = task, .o = opts};
	struct gate *g = svc_guard(e, l);
	const struct svc_plan *saved = g->plan;
	int rc;

	*name_out = NULL;
	r.plan = opts->plan;
	/* A run of its own: the file as it is now, judged with the set the
	 * latest up recorded (inside up, the plan and set are up's). */
	rc = r.plan ? 0 : svc_guard_task(e, l, task, err);
	if (rc == 0 && !r.plan && opts->allow)
		rc = run_grants(e, opts->allow, err);
	if (rc == 0 && !r.plan)
		rc = load_task_project(&r, err);
	if (rc == 0)
		rc = find_service(&r, err);
	if (rc == 0) {
		g->plan = r.plan;
		rc = create_oneoff(&r, err);
		g->plan = saved;
	}
	if (rc == 0)
		rc = run_attached(&r, exit_code, err);
	if (r.id && opts->rm) {
		struct te_err e2 = {0};

		if (remove_oneoff(&r, &e2) < 0 && rc == 0) {
			*err = e2;
			rc = -1;
		}
	}
	*name_out = TE_STEAL(r.name);
	free(r.id);
	svc_plan_free(r.own_plan);
	svc_project_free(r.project);
	return rc;
}
