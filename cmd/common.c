/* Helpers shared by the verbs: engine selection, error rendering. */
#include "cmd/cmd.h"
#include "engine/engine.h"
#include "services/settings.h"
#include "common/mem.h"
#include "services/model/compose.h"
#include "services/model/load.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool cmd_engine_explicit(const struct te_ctx *ctx)
{
	const char *d = getenv("DOCKER_HOST"), *c = getenv("CONTAINER_HOST");

	return ctx->host || (d && *d) || (c && *c);
}

/* The `engine` setting (config file or TASKENV_ENGINE), used only when
 * nothing more explicit chose an engine. Owned in *KEEP. */
static const char *default_engine(const struct te_ctx *ctx, char **keep)
{
	struct svc_settings s;
	struct te_err ignored;

	if (cmd_engine_explicit(ctx))
		return NULL;
	if (svc_settings_load(&s, &ignored) == 0 && *svc_settings_get(&s, "engine"))
		*keep = xstrdup(svc_settings_get(&s, "engine"));
	svc_settings_release(&s);
	return *keep;
}

struct engine *cmd_engine(struct te_ctx *ctx, const char *recorded, struct te_err *err)
{
	te_autofree char *path = NULL;
	te_autofree char *setting = NULL;

	if (ctx->engine)
		return ctx->engine;
	/* An explicit choice wins; else the engine the task lives on, so
	 * `down` finds its objects even when run from another shell. */
	if (!cmd_engine_explicit(ctx) && recorded && *recorded)
		path = xstrdup(recorded);
	else if (engine_resolve_socket(ctx->host ? ctx->host : default_engine(ctx, &setting), &path, err) < 0)
		return NULL;
	ctx->engine = engine_open(path, err);
	if (!ctx->engine)
		return NULL;
	engine_set_verbose(ctx->engine, ctx->verbose);
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
	case TE_E_UNREACHABLE: return EXIT_UNREACHABLE;
	default: return EXIT_FAIL;
	}
}

int cmd_usage(const char *verb, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "taskenv%s%s: ", *verb ? " " : "", verb);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\ntry 'taskenv %s%s--help'\n", verb, *verb ? " " : "");
	return EXIT_USAGE;
}

static char **push_split(char **v, const char *arg)
{
	te_autofree char *copy = xstrdup(arg);
	char *save = NULL;

	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
		v = te_strv_push(v, xstrdup(t));
	return v;
}

bool cmd_compose_opt(struct cmd_compose *c, int opt, const char *arg)
{
	switch (opt) {
	case 'f': c->files = te_strv_push(c->files, xstrdup(arg)); return true;
	case 'P': c->profiles = push_split(c->profiles, arg); return true;
	case 'A': c->allow = push_split(c->allow, arg); return true;
	default: return false;
	}
}

void cmd_compose_release(struct cmd_compose *c)
{
	te_strv_free(c->files);
	te_strv_free(c->profiles);
	te_strv_free(c->allow);
	memset(c, 0, sizeof(*c));
}

struct svc_project *cmd_compose_load(struct cmd_compose *c, const char *verb, struct te_err *err)
{
	struct svc_load_opts o = {NULL, NULL};
	te_autostrv char **warnings = NULL;
	struct svc_project *p;

	if (!c->files) {
		te_autofree char *cwd = getcwd(NULL, 0);
		char *f;

		if (!cwd) {
			te_err_set(err, TE_E_IO, "cannot read the current directory");
			return NULL;
		}
		f = svc_find_compose_file(cwd, err);
		if (!f)
			return NULL;
		c->files = te_strv_push(NULL, f);
	}
	o.files = c->files;
	o.profiles = c->profiles;
	p = svc_load_project(&o, &warnings, err);
	/* Also when loading failed: a warning may be what explains the error. */
	for (size_t i = 0; warnings && warnings[i]; i++)
		fprintf(stderr, "taskenv %s: warning: %s\n", verb, warnings[i]);
	return p;
}
