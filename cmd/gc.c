/* taskenv gc: remove expired tasks and orphaned objects of this ledger;
 * gc --orphans: the objects of other (deleted or replaced) ledgers. */
#include "cmd/cmd.h"
#include "services/lifecycle/gc.h"
#include "services/lifecycle/orphans.h"
#include "services/settings.h"
#include "state/ledger.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct gc_args {
	struct svc_gc_opts o;
	bool orphans;
	const char *ledger_id;
	bool yes;
	bool json;
};

const struct cmd_option cmd_gc_options[] = {
    CMD_OPT_FLAG('n', "dry-run", struct gc_args, o.dry_run, "say what would be removed, remove nothing"),
    CMD_OPT_SECONDS(0, "timeout", struct gc_args, o.stop_timeout,
		    "seconds each container gets to stop (default 10)"),
    CMD_OPT_FLAG(0, "orphans", struct gc_args, orphans,
		 "list objects labelled with another ledger's id, grouped by that id\n"
		 "(a deleted or replaced ledger left them); removes nothing alone"),
    CMD_OPT_STRING(0, "ledger-id", "ID", struct gc_args, ledger_id,
		   "with --orphans --yes: remove that one group, when no ledger file\n"
		   "in the state directory holds the id"),
    CMD_OPT_FLAG(0, "yes", struct gc_args, yes, "with --orphans --ledger-id: really remove the group"),
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
    "With --orphans: list the objects of other ledgers instead, grouped by ledger\n"
    "id (tasks, kinds, ages); --ledger-id ID --yes removes one group.\n"
    "Exit 1 when something could not be removed (it stays pending for the next gc).\n";

static void age(char *buf, size_t n, long long t)
{
	long long s = t ? (long long)time(NULL) - t : -1;

	if (s < 0)
		snprintf(buf, n, "?");
	else if (s < 120)
		snprintf(buf, n, "%llds", s);
	else if (s < 7200)
		snprintf(buf, n, "%lldm", s / 60);
	else
		snprintf(buf, n, "%lldh", s / 3600);
}

static int list_orphans(struct te_ctx *ctx, struct te_err *err)
{
	struct svc_orphan_group *v = NULL;
	size_t n = 0;

	if (svc_orphans_list(ctx->engine, ctx->ledger, &v, &n, err) < 0)
		return -1;
	if (!n)
		printf("gc --orphans: no object is labelled with another ledger id\n");
	for (size_t i = 0; i < n; i++) {
		char old[32], young[32];

		age(old, sizeof(old), v[i].oldest);
		age(young, sizeof(young), v[i].newest);
		printf("ledger %s: %zu container(s), %zu network(s), %zu volume(s), age %s..%s, tasks:",
		       v[i].ledger_id, v[i].containers, v[i].networks, v[i].volumes, young, old);
		for (size_t k = 0; v[i].tasks && v[i].tasks[k]; k++)
			printf(" %s", v[i].tasks[k]);
		if (v[i].ledger_file)
			printf("\n  held by the ledger file %s: take its tasks down through it\n",
			       v[i].ledger_file);
		else
			printf(
			    "\n  no ledger file here holds it: taskenv gc --orphans --ledger-id %s --yes\n",
			    v[i].ledger_id);
	}
	svc_orphan_groups_free(v, n);
	return 0;
}

static int orphans(struct te_ctx *ctx, struct gc_args *a, struct te_err *err)
{
	size_t removed = 0, remaining = 0;
	int rc;

	if (!a->ledger_id)
		return a->yes
			   ? te_err_set(err, TE_E_USAGE, "--yes needs --ledger-id ID (one group at a time)")
			   : list_orphans(ctx, err);
	if (!a->yes)
		return te_err_set(err, TE_E_USAGE,
				  "gc --orphans --ledger-id %s removes that group only with --yes",
				  a->ledger_id);
	rc = svc_orphans_remove(ctx->engine, ctx->ledger, a->ledger_id, cmd_progress, NULL, &removed,
				&remaining, err);
	if (rc == 0 || err->code == TE_E_REMAINS)
		printf("gc --orphans: ledger %s: removed %zu, remaining %zu\n", a->ledger_id, removed,
		       remaining);
	return rc;
}

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
	if ((a.ledger_id || a.yes) && !a.orphans) {
		te_err_set(&err, TE_E_USAGE, "--ledger-id and --yes go with --orphans");
		return cmd_fail("gc", &err);
	}
	if (a.orphans && a.json) {
		te_err_set(&err, TE_E_USAGE, "--json does not go with --orphans (its listing is text)");
		return cmd_fail("gc", &err);
	}
	s = cmd_get_settings(ctx, &err);
	if (!s || !cmd_engine(ctx, NULL, &err))
		return cmd_fail("gc", &err);
	if (a.orphans)
		return orphans(ctx, &a, &err) < 0 ? cmd_fail("gc", &err) : EXIT_OK;
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
