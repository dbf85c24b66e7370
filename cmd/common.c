/* Helpers shared by the verbs: option parsing and preconditions, settings,
 * engine selection, error rendering. */
#include "cmd/cmd.h"
#include "engine/engine.h"
#include "services/settings.h"
#include "services/lifecycle/guard.h"
#include "services/model/compose.h"
#include "services/model/load.h"
#include "services/model/policy.h"
#include "services/model/task.h"
#include "state/ledger.h"
#include "common/mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const struct svc_settings *cmd_get_settings(struct te_ctx *ctx, struct te_err *err)
{
	if (ctx->settings)
		return ctx->settings;
	ctx->settings = xcalloc(1, sizeof(*ctx->settings));
	if (svc_settings_load(ctx->settings, err) == 0)
		return ctx->settings;
	svc_settings_release(ctx->settings);
	free(ctx->settings);
	ctx->settings = NULL;
	return NULL;
}

/* DOCKER_HOST and CONTAINER_HOST are the engine clients' own variables
 * (engine/discover.c resolves them), not taskenv settings: read as such. */
bool cmd_engine_explicit(const struct te_ctx *ctx)
{
	const char *d = getenv("DOCKER_HOST"), *c = getenv("CONTAINER_HOST");

	return ctx->host || (d && *d) || (c && *c);
}

struct engine *cmd_engine(struct te_ctx *ctx, const char *recorded, struct te_err *err)
{
	te_autofree char *path = NULL;
	const struct svc_settings *s;
	const char *host = ctx->host;

	if (ctx->engine)
		return ctx->engine;
	/* An explicit choice wins; else the engine the task lives on, so
	 * `down` finds its objects even when run from another shell; else
	 * the engine setting. */
	if (!cmd_engine_explicit(ctx) && recorded && *recorded) {
		path = xstrdup(recorded);
	} else {
		if (!cmd_engine_explicit(ctx)) {
			if (!(s = cmd_get_settings(ctx, err)))
				return NULL;
			host = *svc_settings_at(s, SVC_SET_ENGINE)->text
				   ? svc_settings_at(s, SVC_SET_ENGINE)->text
				   : NULL;
		}
		if (engine_resolve_socket(host, &path, err) < 0)
			return NULL;
	}
	ctx->engine = engine_open(path, err);
	if (!ctx->engine)
		return NULL;
	cmd_trace_install(ctx, ctx->engine);
	svc_guard(ctx->engine, ctx->ledger); /* every change passes the gate (ARCHITECTURE.md) */
	ctx->engine_socket = TE_STEAL(path);
	return ctx->engine;
}

int cmd_fail(const char *verb, const struct te_err *err)
{
	fprintf(stderr, "taskenv%s%s: %s\n", *verb ? " " : "", verb, err->msg);
	switch (err->code) {
	case TE_E_USAGE:
	case TE_E_TASKNAME:
	case TE_E_COMPOSE: return EXIT_USAGE;
	case TE_E_UNREACHABLE:
	case TE_E_WRONG_ENGINE: return EXIT_UNREACHABLE;
	default: return EXIT_FAIL;
	}
}

static bool has(const char *s, size_t n, const char *what)
{
	size_t k = strlen(what);

	for (size_t i = 0; i + k <= n; i++)
		if (memcmp(s + i, what, k) == 0)
			return true;
	return false;
}

/* The OCI runtimes' words (runc, crun), as the docker CLI reads them. */
int cmd_command_status(const char *s, size_t n)
{
	if (has(s, n, "executable file not found") || has(s, n, "no such file or directory") ||
	    has(s, n, "command not found"))
		return EXIT_CMD_NOT_FOUND;
	if (has(s, n, "permission denied") || has(s, n, "exec format error"))
		return EXIT_CMD_CANNOT_EXEC;
	return 0;
}

int cmd_fail_command(const char *verb, const struct te_err *err)
{
	/* Only the engine's own answer to starting the command may say so (a
	 * ledger file that is missing is no missing command). */
	int status = err->code == TE_E_ENGINE ? cmd_command_status(err->msg, strlen(err->msg)) : 0;

	fprintf(stderr, "taskenv %s: %s\n", verb, err->msg);
	return status ? status : EXIT_CMD_FAILED;
}

int cmd_usage(const struct te_ctx *ctx, const char *fmt, ...)
{
	const struct cmd_verb *v = ctx->verb ? ctx->verb : &cmd_global;
	va_list ap;

	fprintf(stderr, "taskenv%s%s: ", *v->name ? " " : "", v->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	cmd_synopsis(v, stderr);
	return EXIT_USAGE;
}

/* A --host (or DOCKER_HOST) that is not unix:// is a usage error for every
 * verb, also for those that may answer from the ledger without an engine
 * (ps, down of an unknown task): a typo must not pass unnoticed. That no
 * socket exists yet is left to the verbs that need one. */
static int check_host(struct te_ctx *ctx, struct te_err *err)
{
	te_autofree char *path = NULL;

	if (engine_resolve_socket(ctx->host, &path, err) == 0 || err->code != TE_E_USAGE) {
		te_err_clear(err);
		return 0;
	}
	return -1;
}

const char *cmd_state_path(const struct te_ctx *ctx, const struct svc_settings *s)
{
	const char *setting = svc_settings_at(s, SVC_SET_STATE)->text;

	return ctx->state_path ? ctx->state_path : *setting ? setting : NULL;
}

static int open_ledger(struct te_ctx *ctx, struct te_err *err)
{
	const struct svc_settings *s = cmd_get_settings(ctx, err);
	/* The events table names the verb ("worktree" for "worktree add"). */
	te_autofree char *word = xstrndup(ctx->verb->name, strcspn(ctx->verb->name, " "));

	if (!s)
		return -1;
	ctx->ledger = state_open(cmd_state_path(ctx, s), err);
	if (!ctx->ledger)
		return -1;
	state_set_verb(ctx->ledger, word);
	return 0;
}

int cmd_parse(struct te_ctx *ctx, int argc, char **argv, void *opts, int *code)
{
	const struct cmd_verb *v = ctx->verb;
	struct te_err err = {0};
	bool help;
	int min, max,
	    first = cmd_opt_parse(v->options, v->flags & CMD_ARGS_FIRST, argc, argv, opts, &help, &err);

	if (first < 0) {
		*code = cmd_usage(ctx, "%s", err.msg);
		return -1;
	}
	if (help) {
		cmd_help(v, stdout);
		*code = EXIT_OK;
		return -1;
	}
	cmd_args_count(v->args, &min, &max);
	if (argc - first < min || (max >= 0 && argc - first > max)) {
		*code = argc - first < min ? cmd_usage(ctx, "expected %s", v->args)
					   : cmd_usage(ctx, "unexpected argument '%s'", argv[first + max]);
		return -1;
	}
	if (check_host(ctx, &err) < 0 || ((v->flags & CMD_NEED_LEDGER) && open_ledger(ctx, &err) < 0)) {
		*code = cmd_fail(v->name, &err);
		return -1;
	}
	return first;
}

char *cmd_task_name(struct te_ctx *ctx, const char *flag, struct te_err *err)
{
	te_autofree char *cwd = getcwd(NULL, 0);
	const struct svc_settings *s = flag ? NULL : cmd_get_settings(ctx, err);

	if (!flag && !s)
		return NULL;
	return svc_task_resolve(flag, s ? svc_settings_at(s, SVC_SET_TASK)->text : NULL, cwd ? cwd : ".",
				err);
}

int cmd_policy_defaults(struct te_ctx *ctx, struct svc_policy_defaults *d, struct te_err *err)
{
	const struct svc_settings *s = cmd_get_settings(ctx, err);

	if (!s)
		return -1;
	d->memory = svc_settings_at(s, SVC_SET_LIMIT_MEMORY)->num;
	d->cpus = svc_settings_at(s, SVC_SET_LIMIT_CPUS)->real;
	d->pids = svc_settings_at(s, SVC_SET_LIMIT_PIDS)->num;
	d->no_new_privileges = svc_settings_at(s, SVC_SET_NO_NEW_PRIVILEGES)->num != 0;
	return 0;
}

int cmd_compose_allow(struct te_ctx *ctx, struct cmd_compose *c, const struct svc_project *p,
		      struct te_err *err)
{
	const struct svc_settings *s = cmd_get_settings(ctx, err);
	te_autostrv char **granted = NULL;

	if (!s)
		return -1;
	granted = svc_settings_allow_for(s, p->dir);
	for (size_t i = 0; granted && granted[i]; i++) {
		bool have = false;

		for (size_t j = 0; c->allow && c->allow[j] && !have; j++)
			have = strcmp(c->allow[j], granted[i]) == 0;
		if (!have)
			c->allow = te_strv_push(c->allow, xstrdup(granted[i]));
	}
	return 0;
}

void cmd_compose_release(struct cmd_compose *c)
{
	te_strv_free(c->files);
	te_strv_free(c->profiles);
	te_strv_free(c->allow);
	te_strv_free(c->env_files);
	te_strv_free(c->warnings);
	memset(c, 0, sizeof(*c));
}

struct svc_project *cmd_compose_load(struct te_ctx *ctx, struct cmd_compose *c, const char *verb,
				     const char *task, struct te_err *err)
{
	const struct svc_settings *s = cmd_get_settings(ctx, err);
	struct svc_load_opts o = {
	    .files = c->files, .profiles = c->profiles, .env_files = c->env_files, .project_name = task};
	te_autostrv char **warnings = NULL;
	struct svc_project *p;

	if (!s)
		return NULL;
	o.limits.max_bytes = svc_settings_at(s, SVC_SET_COMPOSE_MAX_BYTES)->num;
	o.limits.max_depth = svc_settings_at(s, SVC_SET_COMPOSE_MAX_DEPTH)->num;
	o.limits.max_nodes = svc_settings_at(s, SVC_SET_COMPOSE_MAX_NODES)->num;
	p = svc_load_project(&o, &warnings, err);
	/* Also when loading failed: a warning may be what explains the error. */
	for (size_t i = 0; warnings && warnings[i]; i++) {
		fprintf(stderr, "taskenv %s: warning: %s\n", verb, warnings[i]);
		c->warnings = te_strv_push(c->warnings, xstrdup(warnings[i]));
	}
	return p;
}
