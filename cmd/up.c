/* taskenv up: load the Compose file, check the policy, then create and
 * start the task. */
#include "cmd/cmd.h"
#include "services/lifecycle/apply.h"
#include "services/lifecycle/status.h"
#include "services/model/compose.h"
#include "services/model/load.h"
#include "services/model/policy.h"
#include "services/gate/gate.h"
#include "engine/engine.h"
#include "services/model/task.h"
#include "services/settings.h"
#include "services/contract/worktree.h"
#include "state/ledger.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct up_opts {
	struct cmd_compose compose;
	const char *task; /* borrowed from argv */
	bool wait;
	long long lease;  /* seconds, 0: none */
	long long retain; /* --retain-on-failure seconds, 0: off */
	long long owner_pid;
	bool build;
	char **scale; /* owned "SERVICE=N", --scale */
	bool force_recreate, no_recreate, no_start, remove_orphans, no_deps;
	char *const *services; /* borrowed from argv: up SERVICE... */
	bool json;
	bool broker;
};

const struct cmd_option cmd_up_options[] = {
    CMD_OPT_COMPOSE_FILE(struct up_opts),
    CMD_OPT_STRING('t', "task", "TASK", struct up_opts, task,
		   "task name (default: $TASKENV_TASK, else the git branch name\n"
		   "after its last '/', '-' and six hex digits of the checkout's\n"
		   "path); must match " SVC_TASK_NAME_RULE),
    CMD_OPT_COMPOSE_PROFILE(struct up_opts),
    CMD_OPT_CSV(0, "allow", "NAME", struct up_opts, compose.allow,
		"grant a policy exception (repeatable, comma-separated;\n"
		"see 'taskenv check --help'); recorded in the ledger"),
    CMD_OPT_FLAG(0, "wait", struct up_opts, wait,
		 "return only when every service with a healthcheck is healthy"),
    CMD_OPT_DURATION(0, "lease", struct up_opts, lease,
		     "'taskenv gc' may remove the task DURATION from now (30s, 5m,\n"
		     "2h, 1d) once its owner no longer runs"),
    CMD_OPT_PID(0, "owner-pid", struct up_opts, owner_pid,
		"the process that owns the task (default: this taskenv);\n"
		"while it runs, gc never removes the task"),
    CMD_OPT_DURATION(0, "retain-on-failure", struct up_opts, retain,
		     "when up fails, stop the containers but keep everything\n"
		     "for inspection; gc removes it after DURATION"),
    CMD_OPT_FLAG(0, "build", struct up_opts, build,
		 "build every service with build: first (else a service's\n"
		 "image is built only when missing, or with pull_policy: build;\n"
		 "built images are \"<task>-<service>\" unless image: names them)"),
    CMD_OPT_LIST(0, "scale", "SERVICE=N", struct up_opts, scale,
		 "run N containers of SERVICE (<task>-<service>-1..N) over scale: /\n"
		 "deploy.replicas; fewer than run remove the highest numbers (repeatable)"),
    CMD_OPT_FLAG(0, "force-recreate", struct up_opts, force_recreate,
		 "recreate every container, changed or not"),
    CMD_OPT_FLAG(0, "no-recreate", struct up_opts, no_recreate,
		 "keep containers whose configuration changed (each is named);\n"
		 "create only missing ones"),
    CMD_OPT_FLAG(0, "no-start", struct up_opts, no_start, "create or recreate containers, start none"),
    CMD_OPT_FLAG(0, "remove-orphans", struct up_opts, remove_orphans,
		 "remove the containers of services no longer in the file\n"
		 "(found through the ledger; without it they are named)"),
    CMD_OPT_FLAG(0, "no-deps", struct up_opts, no_deps, "with SERVICE...: not the services they depend on"),
    CMD_OPT_COMPOSE_ENV_FILE(struct up_opts),
    CMD_OPT_JSON(struct up_opts, json),
    CMD_OPT_FLAG(0, "broker", struct up_opts, broker,
		 "then start the task's Engine API broker (taskenv broker start;\n"
		 "`env` prints its TASKENV_DOCKER_HOST)"),
    CMD_OPT_END,
};

const char cmd_up_about[] =
    "Check the Compose file against the policy (as 'taskenv check' does) and refuse\n"
    "before creating anything when it finds something; then create the task's\n"
    "network(s), volumes and containers (in depends_on order, waiting for\n"
    "service_healthy / service_completed_successfully conditions) and start them.\n"
    "Every name is scoped to the task; every published port is bound to 127.0.0.1\n"
    "on a host port taken from the ledger (the port_range setting, default\n"
    "20000-29999), the port in the file being only a hint.\n\n"
    "Running it again reconciles: each container carries the hash of its\n"
    "configuration and image; unchanged ones are kept (started if stopped),\n"
    "changed ones recreated with their volumes and host ports, and containers\n"
    "of services no longer in the file named (docs/up.md). SERVICE...: only those\n"
    "services and what they depend on.\n\n"
    "Limits applied when the file is silent: the limits.memory (2g), limits.cpus (2)\n"
    "and limits.pids (1024) settings, and no-new-privileges:true (no_new_privileges:\n"
    "false turns it off); 0 turns a limit off. Waits are bounded by the wait_timeout\n"
    "setting (120 seconds). 'taskenv settings' shows each with its variable.\n";

static void print_ports(struct te_ctx *ctx, const char *task)
{
	struct te_err err = {0};
	struct state_port *p = NULL;
	size_t n = 0;

	if (state_port_list(ctx->ledger, task, &p, &n, &err) < 0)
		return;
	/* A service's first replica as the service, the others as SERVICE-N. */
	for (size_t i = 0; i < n; i++) {
		char rep[16] = "";

		if (p[i].replica > 1)
			snprintf(rep, sizeof(rep), "-%d", p[i].replica);
		printf("%s%s\t%s:%d->%d/%s\n", p[i].service, rep, p[i].host_ip, p[i].host_port,
		       p[i].container_port, p[i].proto);
	}
	state_ports_free(p, n);
}

static void print_warnings(struct up_opts *o, const struct svc_project *project)
{
	te_autostrv char **w = svc_worktree_mount_warnings(project);

	for (size_t i = 0; w && w[i]; i++) {
		fprintf(stderr, "taskenv up: warning: %s\n", w[i]);
		o->compose.warnings = te_strv_push(o->compose.warnings, xstrdup(w[i]));
	}
}

/* up --json (docs/json.md): the outcome, where it stopped, what the task
 * owns with its live state, its ports and the warnings. Printed also when
 * up failed: the failure is the result a program reads. */
static void print_result(struct te_ctx *ctx, const struct up_opts *o, const char *task, int rc,
			 const struct te_err *err, const struct svc_up_failure *f)
{
	te_autojson cJSON *d = cJSON_CreateObject();
	te_autojson cJSON *st = NULL;
	struct te_err ignored;
	struct state_port *p = NULL;
	size_t n = 0;
	cJSON *a;

	cJSON_AddNumberToObject(d, "schema_version", CMD_JSON_SCHEMA_VERSION);
	cJSON_AddStringToObject(d, "task", task);
	cJSON_AddStringToObject(d, "result", rc == 0 ? "up" : "failed");
	if (rc == 0)
		cJSON_AddNullToObject(d, "error");
	else
		cJSON_AddStringToObject(d, "error", err->msg);
	if (rc != 0 && *f->service) {
		svc_up_failure_json(f, cJSON_AddObjectToObject(d, "failure"));
	} else {
		cJSON_AddNullToObject(d, "failure");
	}
	if (ctx->engine && svc_status_task(ctx->ledger, ctx->engine, task, &st, &ignored) == 0) {
		cJSON_AddItemToObject(d, "status", cJSON_DetachItemFromObject(st, "status"));
		cJSON_AddItemToObject(d, "resources", cJSON_DetachItemFromObject(st, "resources"));
	} else {
		cJSON_AddNullToObject(d, "status");
		cJSON_AddArrayToObject(d, "resources");
	}
	a = cJSON_AddArrayToObject(d, "ports");
	if (state_port_list(ctx->ledger, task, &p, &n, &ignored) == 0)
		for (size_t i = 0; i < n; i++) {
			cJSON *j = cJSON_CreateObject();

			cJSON_AddStringToObject(j, "service", p[i].service);
			cJSON_AddNumberToObject(j, "replica", p[i].replica);
			cJSON_AddStringToObject(j, "host_ip", p[i].host_ip);
			cJSON_AddNumberToObject(j, "host_port", p[i].host_port);
			cJSON_AddNumberToObject(j, "container_port", p[i].container_port);
			cJSON_AddStringToObject(j, "proto", p[i].proto);
			cJSON_AddItemToArray(a, j);
		}
	state_ports_free(p, n);
	a = cJSON_AddArrayToObject(d, "warnings");
	for (size_t i = 0; o->compose.warnings && o->compose.warnings[i]; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(o->compose.warnings[i]));
	cmd_print_json(d);
}

static const char *recorded_engine(struct te_ctx *ctx, const char *task, struct state_task *t)
{
	struct te_err ignored;

	if (state_task_get(ctx->ledger, task, t, &ignored) < 0)
		return NULL;
	return t->engine;
}

/* Every finding of the gate on stderr, before the one-line refusal svc_up gives. */
static void print_findings(struct engine *e)
{
	const struct gate *g = e ? engine_judge_ctx(e, gate_judge) : NULL;

	for (size_t i = 0; g && i < g->n; i++) {
		te_autofree char *line = gate_finding_format(&g->v[i]);

		fprintf(stderr, "%s\n", line);
	}
}

/* A public host address the file wrote is bound to 127.0.0.1 instead. */
static void print_port_warnings(const struct svc_project *p, char *const *allow)
{
	struct gate g = {0};
	te_autostrv char **w = NULL;

	g.granted = (char **)allow; /* borrowed for the call, not released */
	w = gate_public_port_warnings(&g, p);
	for (size_t i = 0; w && w[i]; i++)
		fprintf(stderr, "taskenv up: warning: %s\n", w[i]);
}

static int prepare(struct te_ctx *ctx, struct up_opts *o, struct svc_project *project, struct svc_up_opts *uo,
		   struct te_err *err)
{
	struct svc_policy_defaults d;

	if (cmd_policy_defaults(ctx, &d, err) < 0)
		return -1;
	svc_policy_apply_defaults(project, &d);
	uo->progress = cmd_progress;
	uo->allow = o->compose.allow;
	uo->wait = o->wait;
	uo->lease = o->lease;
	uo->retain_on_failure = o->retain;
	uo->owner_pid = o->owner_pid;
	uo->build = o->build;
	uo->force_recreate = o->force_recreate;
	uo->no_recreate = o->no_recreate;
	uo->no_start = o->no_start;
	uo->remove_orphans = o->remove_orphans;
	uo->services = o->services;
	uo->no_deps = o->no_deps;
	if (o->force_recreate && o->no_recreate)
		return te_err_set(err, TE_E_USAGE, "--force-recreate and --no-recreate cannot be combined");
	if (o->no_deps && !o->services)
		return te_err_set(err, TE_E_USAGE, "--no-deps needs SERVICE...");
	return 0;
}

/* Inside a worktree made by `taskenv worktree add`, the ledger names the
 * task (whatever the branch prefix); elsewhere -t, TASKENV_TASK, the branch. */
static char *resolve_task(struct te_ctx *ctx, const char *flag, const char *cwd, struct te_err *err)
{
	const struct svc_settings *s = cmd_get_settings(ctx, err);
	struct state_worktree w;
	char real[PATH_MAX];
	char *task;

	if (!s)
		return NULL;
	if (flag || *svc_settings_at(s, SVC_SET_TASK)->text || !cwd || !realpath(cwd, real) ||
	    state_worktree_find_path(ctx->ledger, real, &w, err) < 0) {
		te_err_clear(err);
		return cmd_task_name(ctx, flag, err);
	}
	task = TE_STEAL(w.task);
	state_worktree_release(&w);
	return task;
}

/* --scale SERVICE=N over the file's replicas. */
static int apply_scale(struct svc_project *p, char *const *scale, struct te_err *err)
{
	for (size_t i = 0; scale && scale[i]; i++) {
		const char *eq = strchr(scale[i], '=');
		te_autofree char *name = eq ? xstrndup(scale[i], (size_t)(eq - scale[i])) : NULL;
		char *end;
		long long v;

		if (!eq || eq == scale[i])
			return te_err_set(err, TE_E_USAGE, "--scale %s: expected SERVICE=N", scale[i]);
		errno = 0;
		v = strtoll(eq + 1, &end, 10);
		if (errno || end == eq + 1 || *end)
			return te_err_set(err, TE_E_USAGE, "--scale %s: N must be a number", scale[i]);
		if (svc_project_scale(p, name, v, err) < 0)
			return -1;
	}
	return 0;
}

static int run(struct te_ctx *ctx, struct up_opts *o, struct te_err *err)
{
	te_autofree char *cwd = getcwd(NULL, 0);
	te_autofree char *task = resolve_task(ctx, o->task, cwd, err);
	struct svc_project *project = NULL;
	struct svc_up_opts uo;
	struct svc_up_failure failure = {.exit_code = -1};
	struct state_task t = {0};
	te_autofree char *broker_base = NULL;
	int rc = -1;

	if (!task || svc_up_opts_init(&uo, cmd_get_settings(ctx, err), err) < 0)
		return -1;
	uo.failure = &failure;
	broker_base = cmd_broker_base(ctx, err);
	if (!broker_base)
		return -1;
	uo.broker_base = broker_base;
	project = cmd_compose_load(ctx, &o->compose, "up", task, err);
	if (!project || apply_scale(project, o->scale, err) < 0 ||
	    cmd_compose_allow(ctx, &o->compose, project, err) < 0) {
		svc_project_free(project);
		return -1;
	}
	print_warnings(o, project);
	print_port_warnings(project, o->compose.allow);
	if (prepare(ctx, o, project, &uo, err) == 0 && cmd_engine(ctx, recorded_engine(ctx, task, &t), err)) {
		fprintf(stderr, "taskenv up: task '%s' from %s\n", task, project->files[0]);
		rc = svc_up(ctx->engine, ctx->ledger, project, task, &uo, err);
		if (rc < 0 && err->code == TE_E_POLICY)
			print_findings(ctx->engine);
		/* Under --json stdout is the one document. */
		if (rc == 0 && o->broker)
			rc = cmd_broker_start_task(ctx, ctx->engine, task, o->json ? stderr : stdout, err);
	}
	if (o->json)
		print_result(ctx, o, task, rc, err, &failure);
	else if (rc == 0) {
		printf("task '%s' is up\n", task);
		print_ports(ctx, task);
	}
	if (rc != 0 && *failure.service && failure.exit_code >= 0)
		te_err_prefix(err, "%s exited %d: ", failure.container, failure.exit_code);
	if (rc != 0 && o->retain && ctx->engine) {
		fprintf(stderr,
			"taskenv up: task '%s' kept for inspection (stopped) for %llds; "
			"'taskenv gc' removes it after that, 'taskenv down -t %s --volumes' now\n",
			task, o->retain, task);
	}
	svc_up_failure_release(&failure);
	state_task_release(&t);
	svc_project_free(project);
	return rc;
}

int cmd_up(struct te_ctx *ctx, int argc, char **argv)
{
	struct up_opts o = {0};
	struct te_err err = {0};
	int code, i = cmd_parse(ctx, argc, argv, &o, &code);

	if (i >= 0) {
		o.services = i < argc ? argv + i : NULL;
		code = run(ctx, &o, &err) < 0 ? cmd_fail("up", &err) : EXIT_OK;
	}
	cmd_compose_release(&o.compose);
	te_strv_free(o.scale);
	return code;
}

int cmd_up_recorded(struct te_ctx *ctx, const char *task, struct te_err *err)
{
	struct up_opts o = {.task = task};
	struct state_task t;
	te_autofree char *allow = NULL;
	te_autojson cJSON *files = NULL;
	te_autojson cJSON *granted = NULL;
	const cJSON *it;
	int rc;

	if (state_task_get(ctx->ledger, task, &t, err) < 0)
		return -1;
	files = t.compose_files ? cJSON_Parse(t.compose_files) : NULL;
	state_task_release(&t);
	cJSON_ArrayForEach (it, files) {
		if (cJSON_IsString(it))
			o.compose.files = te_strv_push(o.compose.files, xstrdup(it->valuestring));
	}
	if (!o.compose.files)
		return te_err_set(err, TE_E_STATE, "task '%s': the ledger records no Compose file", task);
	/* The exceptions granted at the first up, granted again. */
	if (state_task_get_allow(ctx->ledger, task, &allow, err) < 0)
		return -1;
	granted = allow ? cJSON_Parse(allow) : NULL;
	cJSON_ArrayForEach (it, granted) {
		if (cJSON_IsString(it))
			o.compose.allow = te_strv_push(o.compose.allow, xstrdup(it->valuestring));
	}
	rc = run(ctx, &o, err);
	cmd_compose_release(&o.compose);
	return rc;
}
