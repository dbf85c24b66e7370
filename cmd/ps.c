/* taskenv ps: tasks at a glance, or one task's resources in detail. */
#include "services/lifecycle/guard.h"
#include "cmd/cmd.h"
#include "engine/engine.h"
#include "services/lifecycle/status.h"
#include "state/ledger.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

struct ps_opts {
	const char *task;
	bool json;
};

const struct cmd_option cmd_ps_options[] = {
    CMD_OPT_STRING('t', "task", "TASK", struct ps_opts, task, "show one task"),
    CMD_OPT_JSON(struct ps_opts, json),
    CMD_OPT_END,
};

const char cmd_ps_about[] = "Without -t: one line per task in the ledger (name, status, containers\n"
			    "running/total, ports, project directory). With -t: each resource the task\n"
			    "owns, its ledger state, its live engine state and published ports.\n";

static const char *str(const cJSON *o, const char *k)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k)) ?: "";
}

static char *joined(const cJSON *arr)
{
	const cJSON *it;
	char *s = xstrdup("");

	cJSON_ArrayForEach (it, arr) {
		char *n = xasprintf("%s%s%s", s, *s ? "," : "", it->valuestring);

		free(s);
		s = n;
	}
	return s;
}

/* ps without -t may see tasks on several engines: open each once. */
static struct engine *engine_for(void *vctx, const char *socket, struct te_err *err)
{
	struct te_ctx *ctx = vctx;
	struct engine *e;
	size_t n = te_strv_len(ctx->other_sockets);

	if (cmd_engine_explicit(ctx) || !ctx->engine)
		return cmd_engine(ctx, socket, err);
	if (strcmp(ctx->engine_socket, socket) == 0)
		return ctx->engine;
	for (size_t i = 0; i < n; i++)
		if (strcmp(ctx->other_sockets[i], socket) == 0)
			return ctx->others[i];
	e = engine_open(socket, err);
	if (!e)
		return NULL;
	cmd_trace_install(ctx, e);
	svc_guard(e, ctx->ledger);
	ctx->other_sockets = te_strv_push(ctx->other_sockets, xstrdup(socket));
	ctx->others = xrealloc(ctx->others, (n + 2) * sizeof(*ctx->others));
	ctx->others[n] = e;
	ctx->others[n + 1] = NULL;
	return e;
}

/* "none", "expires in 1h59m", "expired 0m3s ago" for a unix-seconds deadline. */
static void expiry_text(double when, char *buf, size_t n)
{
	long long d = (long long)when - (long long)time(NULL);
	long long a = d < 0 ? -d : d;

	if (when <= 0)
		snprintf(buf, n, "none");
	else if (a >= 3600)
		snprintf(buf, n, d < 0 ? "expired %lldh%lldm ago" : "expires in %lldh%lldm", a / 3600,
			 a % 3600 / 60);
	else
		snprintf(buf, n, d < 0 ? "expired %lldm%llds ago" : "expires in %lldm%llds", a / 60, a % 60);
}

/* "alice, until in 23h59m" for a retained task, "pid 42 (live), lease in 1h" else. */
static void owner_text(const cJSON *t, char *buf, size_t n)
{
	const cJSON *w = cJSON_GetObjectItem(t, "owner");
	double retain = cJSON_GetNumberValue(cJSON_GetObjectItem(t, "retain_until"));
	char exp[64];

	if (retain > 0) {
		expiry_text(retain, exp, sizeof(exp));
		snprintf(buf, n, "retained by %s, %s", *str(t, "retained_by") ? str(t, "retained_by") : "?",
			 exp);
		return;
	}
	expiry_text(cJSON_GetNumberValue(cJSON_GetObjectItem(t, "lease_expires")), exp, sizeof(exp));
	/* An owner that no longer runs (an `up` killed midway) is said: the
	 * task's status is then what it was left at, not what is going on. */
	snprintf(buf, n, "%s@%s pid %d%s, lease %s", str(w, "user"), str(w, "host"),
		 cJSON_GetObjectItem(w, "pid")->valueint,
		 cJSON_IsTrue(cJSON_GetObjectItem(w, "live"))  ? " (live)"
		 : cJSON_GetObjectItem(w, "pid")->valueint > 0 ? " (owner gone)"
							       : "",
		 exp);
}

static void print_tasks(const cJSON *arr)
{
	const cJSON *t;

	printf("%-24s %-8s %-9s %-40s %-50s %s\n", "TASK", "STATUS", "RUNNING", "PORTS", "OWNER", "DIR");
	cJSON_ArrayForEach (t, arr) {
		const cJSON *c = cJSON_GetObjectItem(t, "containers");
		te_autofree char *ports = joined(cJSON_GetObjectItem(t, "ports"));
		char running[32], owner[512];

		snprintf(running, sizeof(running), "%d/%d", cJSON_GetObjectItem(c, "running")->valueint,
			 cJSON_GetObjectItem(c, "total")->valueint);
		owner_text(t, owner, sizeof(owner));
		printf("%-24s %-8s %-9s %-40s %-50s %s\n", str(t, "task"), str(t, "status"),
		       cJSON_GetObjectItem(t, "engine_error") ? "?" : running, ports, owner,
		       str(t, "project_dir"));
	}
}

static void print_task(const cJSON *t)
{
	const cJSON *r;

	char owner[512];

	owner_text(t, owner, sizeof(owner));
	printf("task %s (%s) on %s, project %s\nowner %s%s%s\n", str(t, "task"), str(t, "status"),
	       str(t, "engine"), str(t, "project_dir"), owner, *str(t, "retain_reason") ? ", reason: " : "",
	       str(t, "retain_reason"));
	printf("%-17s %-36s %-12s %-9s %-10s %s\n", "KIND", "NAME", "SERVICE", "LEDGER", "LIVE", "PORTS");
	cJSON_ArrayForEach (r, cJSON_GetObjectItem(t, "resources")) {
		te_autofree char *ports = joined(cJSON_GetObjectItem(r, "ports"));

		printf("%-17s %-36s %-12s %-9s %-10s %s\n", str(r, "kind"), str(r, "name"), str(r, "service"),
		       str(r, "ledger_state"), str(r, "live"), ports);
	}
}

/* ps lists what the ledger knows even when an engine is down, then says
 * which engine did not answer and exits 3. */
static int engine_errors(const char *verb, const cJSON *arr)
{
	const cJSON *t;
	int code = EXIT_OK;

	cJSON_ArrayForEach (t, arr) {
		if (!cJSON_GetObjectItem(t, "engine_error"))
			continue;
		fprintf(stderr, "taskenv %s: task '%s': %s\n", verb, str(t, "task"), str(t, "engine_error"));
		code = EXIT_UNREACHABLE;
	}
	return code;
}

static void print_json(const cJSON *out)
{
	te_autofree char *s = cJSON_Print(out);

	printf("%s\n", s);
}

int cmd_ps_tasks(struct te_ctx *ctx, bool json)
{
	struct te_err err = {0};
	te_autojson cJSON *out = NULL;

	if (svc_status_tasks(ctx->ledger, engine_for, ctx, &out, &err) < 0)
		return cmd_fail(ctx->verb->name, &err);
	if (json)
		print_json(out);
	else
		print_tasks(out);
	return engine_errors(ctx->verb->name, out);
}

int cmd_ps(struct te_ctx *ctx, int argc, char **argv)
{
	struct ps_opts o = {0};
	struct te_err err = {0};
	te_autojson cJSON *out = NULL;
	te_autofree char *name = NULL;
	int code, i = cmd_parse(ctx, argc, argv, &o, &code);

	if (i < 0)
		return code;
	if (!o.task)
		return cmd_ps_tasks(ctx, o.json);
	if (!cmd_task_engine(ctx, o.task, &name, &err) ||
	    svc_status_task(ctx->ledger, ctx->engine, name, &out, &err) < 0)
		return cmd_fail("ps", &err);
	if (o.json)
		print_json(out);
	else
		print_task(out);
	return EXIT_OK;
}
