/* taskenv down: remove what the ledger says the task owns. */
#include "cmd/cmd.h"
#include "services/contract/evidence.h"
#include "services/lifecycle/teardown.h"
#include "services/lifecycle/inuse.h"
#include "state/ledger.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct down_args {
	const char *task;
	bool volumes;
	const char *rmi;
	int timeout;
	const char *evidence;
	bool json;
	cJSON *steps; /* --json: {"kind","name","outcome"} per object, owned */
};

const struct cmd_option cmd_down_options[] = {
    CMD_OPT_TASK(struct down_args, task),
    CMD_OPT_FLAG('v', "volumes", struct down_args, volumes,
		 "also remove the task's named volumes (kept otherwise)"),
    CMD_OPT_CHOICE(0, "rmi", "local|all", struct down_args, rmi,
		   "remove the images built for the task: local = those without\n"
		   "an image: name (\"<task>-<service>\"), all = every built one;\n"
		   "pulled images are never removed (kept otherwise)"),
    CMD_OPT_SECONDS(0, "timeout", struct down_args, timeout,
		    "seconds each container gets to stop, for all of them (default:\n"
		    "each service's stop_grace_period, else 10)"),
    CMD_OPT_STRING(0, "evidence", "DIR", struct down_args, evidence,
		   "write the evidence bundle (as 'taskenv evidence -o DIR') before\n"
		   "removing anything; when it cannot be written nothing is removed"),
    CMD_OPT_JSON(struct down_args, json),
    CMD_OPT_END,
};

const char cmd_down_about[] =
    "Stop and remove exactly what the ledger records for the task: containers, then\n"
    "networks, then (with --rmi) built images, then (with --volumes) volumes. Works\n"
    "after the Compose file or the project directory is gone. An object whose labels\n"
    "name another task or ledger is never touched. Exit 1 when something the task\n"
    "owns remains.\n";

static void print_result(struct down_args *a, const char *task, const char *result,
			 const struct svc_down_result *r, const struct te_err *err)
{
	te_autojson cJSON *d = cJSON_CreateObject();

	cJSON_AddNumberToObject(d, "schema_version", CMD_JSON_SCHEMA_VERSION);
	cJSON_AddStringToObject(d, "task", task);
	cJSON_AddStringToObject(d, "result", result);
	if (err && err->code)
		cJSON_AddStringToObject(d, "error", err->msg);
	else
		cJSON_AddNullToObject(d, "error");
	cJSON_AddNumberToObject(d, "removed", (double)r->removed);
	cJSON_AddNumberToObject(d, "already_gone", (double)r->gone);
	cJSON_AddNumberToObject(d, "kept", (double)(r->kept + r->kept_images));
	cJSON_AddNumberToObject(d, "not_ours", (double)r->refused);
	cJSON_AddNumberToObject(d, "remaining", (double)r->remaining);
	if (a->evidence)
		cJSON_AddStringToObject(d, "evidence", a->evidence);
	else
		cJSON_AddNullToObject(d, "evidence");
	cJSON_AddItemToObject(d, "resources", a->steps ? a->steps : cJSON_CreateArray());
	a->steps = NULL;
	cmd_print_json(d);
}

static void summary(const char *task, const struct svc_down_result *r)
{
	printf("task '%s': removed %zu, already gone %zu", task, r->removed, r->gone);
	if (r->kept)
		printf(", kept %zu volume(s) (use --volumes to remove)", r->kept);
	if (r->kept_images)
		printf(", kept %zu built image(s) (use --rmi local or --rmi all to remove)", r->kept_images);
	if (r->refused)
		printf(", left alone %zu not owned", r->refused);
	printf(", remaining %zu\n", r->remaining);
}

/* A task the ledger no longer holds: already down when its events (the
 * tombstone: they are never deleted) name it, so a second `down` stays
 * idempotent; a name it never knew is a typo, answered with the names it
 * knows. */
static int never_known(struct te_ctx *ctx, const char *task, struct te_err *err)
{
	struct state_task *v = NULL;
	size_t n = 0;
	te_autofree char *names = xstrdup("");
	int known = state_task_known(ctx->ledger, task, err);

	if (known < 0)
		return -1;
	if (known) {
		printf("task '%s': already down, nothing to remove (the ledger %s holds nothing of it)\n",
		       task, state_path(ctx->ledger));
		return 0;
	}
	if (state_task_list(ctx->ledger, &v, &n, err) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		char *next = xasprintf("%s%s%s", names, i ? ", " : "", v[i].name);

		free(names);
		names = next;
	}
	state_tasks_free(v, n);
	return te_err_set(err, TE_E_NOTFOUND, "no task '%s' in the ledger %s (it never was); known tasks: %s",
			  task, state_path(ctx->ledger), n ? names : "none");
}

static int run(struct te_ctx *ctx, struct down_args *a, struct te_err *err)
{
	struct svc_down_result zero = {0};
	te_autofree char *task = NULL;
	struct svc_down_opts opts = {
	    .volumes = a->volumes,
	    .stop_timeout = a->timeout,
	    .rmi = !a->rmi			? SVC_RMI_NONE
		   : strcmp(a->rmi, "all") == 0 ? SVC_RMI_ALL
						: SVC_RMI_LOCAL,
	    .progress = a->json ? cmd_progress_outcome : cmd_progress,
	};
	struct svc_down_result res;
	bool missing = false;
	int rc;

	if (!cmd_task_engine_or_missing(ctx, a->task, &task, &missing, err)) {
		if (!missing)
			return -1;
		rc = never_known(ctx, task, err);
		if (a->json && rc == 0)
			print_result(a, task, "already down", &zero, NULL);
		return rc;
	}
	if (a->evidence) {
		int failed = 0;

		/* Before anything goes: a reviewer's bundle of what was there. */
		if (svc_evidence_write(ctx->engine, ctx->ledger, task, a->evidence, &failed, err) < 0)
			return te_err_prefix(err, "evidence (nothing was removed): ");
		fprintf(stderr, "taskenv down: evidence for task '%s' in %s (verify: %d failed)\n", task,
			a->evidence, failed);
	}
	opts.progress_ctx = a->steps;
	rc = svc_down(ctx->engine, ctx->ledger, task, &opts, &res, err);
	if (a->json)
		print_result(a, task, rc == 0 ? "removed" : "remaining", &res, rc == 0 ? NULL : err);
	else
		summary(task, &res);
	return rc;
}

int cmd_down(struct te_ctx *ctx, int argc, char **argv)
{
	struct down_args a = {.timeout = SVC_STOP_OWN, .steps = cJSON_CreateArray()};
	struct te_err err = {0};
	int code, i = cmd_parse(ctx, argc, argv, &a, &code);

	if (i < 0) {
		cJSON_Delete(a.steps);
		return code;
	}
	code = run(ctx, &a, &err) < 0 ? cmd_fail("down", &err) : EXIT_OK;
	cJSON_Delete(a.steps);
	return code;
}
