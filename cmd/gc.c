/* taskenv gc: remove expired tasks and orphaned objects of this ledger. */
#include "cmd/cmd.h"
#include "services/lifecycle/gc.h"
#include "services/settings.h"
#include "state/ledger.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <stdio.h>
#include <stdlib.h>

struct gc_args {
	struct svc_gc_opts o;
	bool json;
};

const struct cmd_option cmd_gc_options[] = {
    CMD_OPT_FLAG('n', "dry-run", struct gc_args, o.dry_run, "say what would be removed, remove nothing"),
    CMD_OPT_SECONDS(0, "timeout", struct gc_args, o.stop_timeout,
		    "seconds each container gets to stop (default 10)"),
    CMD_OPT_JSON(struct gc_args, json),
    CMD_OPT_END,
};

const char cmd_gc_about[] =
    "Remove, by the ledger, every task whose lease (up --lease) or retention\n"
    "(retain --for) has expired and whose owner process no longer runs; then remove\n"
    "engine objects labelled io.taskenv.task and io.taskenv.ledger=<this ledger>\n"
    "that the ledger does not hold (left by a process killed at the wrong moment).\n"
    "Never touches an object without both labels, nor one of a live or locked task.\n"
    "Then Postgres templates built from migrations: what a killed build or pool\n"
    "refill left, and templates no task was cloned from, unused for template_gc_age\n"
    "(default 7d), with their spare databases. And the rows of task brokers that no\n"
    "longer run (killed, crashed), with the sockets they left.\n"
    "Exit 1 when something could not be removed (it stays pending for the next gc).\n";

/* gc --json (docs/json.md). STEPS is taken over. */
static void print_json(const struct svc_gc_opts *o, const struct svc_gc_result *r, cJSON *steps, int rc,
		       const struct te_err *err)
{
	te_autojson cJSON *d = cJSON_CreateObject();

	cJSON_AddNumberToObject(d, "schema_version", CMD_JSON_SCHEMA_VERSION);
	cJSON_AddBoolToObject(d, "dry_run", o->dry_run);
	if (rc < 0)
		cJSON_AddStringToObject(d, "error", err->msg);
	else
		cJSON_AddNullToObject(d, "error");
	cJSON_AddNumberToObject(d, "expired_tasks", (double)r->tasks);
	cJSON_AddNumberToObject(d, "orphans", (double)r->orphans);
	cJSON_AddNumberToObject(d, "kept_live", (double)r->live);
	cJSON_AddNumberToObject(d, "templates", (double)r->templates);
	cJSON_AddNumberToObject(d, "remaining", (double)r->remaining);
	cJSON_AddItemToObject(d, "steps", steps);
	cmd_print_json(d);
}

int cmd_gc(struct te_ctx *ctx, int argc, char **argv)
{
	struct gc_args a = {.o = {.stop_timeout = 10, .progress = cmd_progress}};
	struct svc_gc_opts *op = &a.o;
	struct svc_gc_result r = {0};
	struct te_err err = {0};
	const struct svc_settings *s;
	cJSON *steps;
	int rc, i = cmd_parse(ctx, argc, argv, &a, &rc);

	if (i < 0)
		return rc;
	s = cmd_get_settings(ctx, &err);
	if (!s || !cmd_engine(ctx, NULL, &err))
		return cmd_fail("gc", &err);
	a.o.template_gc_age = svc_settings_at(s, SVC_SET_TEMPLATE_GC_AGE)->num;
	steps = cJSON_CreateArray();
	if (a.json) {
		a.o.progress = cmd_progress_collect;
		a.o.progress_ctx = steps;
	}
	rc = svc_gc(ctx->engine, ctx->ledger, &a.o, &r, &err);
	if (a.json) {
		print_json(&a.o, &r, steps, rc, &err);
		return rc < 0 ? cmd_fail("gc", &err) : EXIT_OK;
	}
	cJSON_Delete(steps);
	printf("gc%s: %zu expired task(s)%s, %zu orphan object(s)%s, %zu kept (live), %zu postgres "
	       "template/pool database(s)%s, remaining %zu\n",
	       op->dry_run ? " (dry run)" : "", r.tasks, op->dry_run ? " would go" : " removed", r.orphans,
	       op->dry_run ? " would go" : " removed", r.live, r.templates,
	       op->dry_run ? " would go" : " removed", r.remaining);
	if (r.processes)
		printf("gc%s: %zu broker(s) no longer running, their rows and sockets%s\n",
		       op->dry_run ? " (dry run)" : "", r.processes, op->dry_run ? " would go" : " cleared");
	return rc < 0 ? cmd_fail("gc", &err) : EXIT_OK;
}
