/* taskenv retain: keep a task (stopped) for inspection until a deadline. */
#include "cmd/cmd.h"
#include "services/lifecycle/retain.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <stdio.h>
#include <time.h>
#include <stdlib.h>

struct retain_args {
	const char *task;
	struct svc_retain_opts o;
	bool json;
};

const struct cmd_option cmd_retain_options[] = {
    CMD_OPT_TASK(struct retain_args, task),
    CMD_OPT_REQUIRED_DURATION(0, "for", struct retain_args, o.secs, "how long to keep it: 30s, 5m, 2h, 1d"),
    CMD_OPT_STRING(0, "owner", "NAME", struct retain_args, o.who, "who keeps it (default: your login name)"),
    CMD_OPT_STRING(0, "reason", "TEXT", struct retain_args, o.reason, "why (shown by ps)"),
    CMD_OPT_SECONDS(0, "timeout", struct retain_args, o.stop_timeout,
		    "seconds each container gets to stop (default 10)"),
    CMD_OPT_JSON(struct retain_args, json),
    CMD_OPT_END,
};

const char cmd_retain_about[] =
    "Keep the task for a post-mortem: stop its containers without removing them\n"
    "(logs and files stay), keep its networks and volumes, and record who keeps it,\n"
    "why and until when ('ps' shows it). 'taskenv gc' removes it after DURATION;\n"
    "'taskenv down' removes it at once.\n";

static int run(struct te_ctx *ctx, struct retain_args *a, struct te_err *err)
{
	te_autofree char *task = NULL;
	int rc;

	te_autojson cJSON *steps = cJSON_CreateArray();

	if (!cmd_task_engine(ctx, a->task, &task, err))
		return -1;
	a->o.progress = a->json ? cmd_progress_collect : cmd_progress;
	a->o.progress_ctx = steps;
	rc = svc_retain(ctx->engine, ctx->ledger, task, &a->o, err);
	if (rc == 0 && a->json) {
		te_autojson cJSON *d = cJSON_CreateObject();

		cJSON_AddNumberToObject(d, "schema_version", CMD_JSON_SCHEMA_VERSION);
		cJSON_AddStringToObject(d, "task", task);
		cJSON_AddNumberToObject(d, "retained_for", (double)a->o.secs);
		cJSON_AddNumberToObject(d, "retain_until", (double)(time(NULL) + a->o.secs));
		cJSON_AddItemToObject(d, "steps", TE_STEAL(steps));
		cmd_print_json(d);
	} else if (rc == 0) {
		printf("task '%s' retained for %llds\n", task, a->o.secs);
	}
	return rc;
}

int cmd_retain(struct te_ctx *ctx, int argc, char **argv)
{
	struct retain_args a = {.o = {.stop_timeout = 10}};
	struct te_err err = {0};
	int code, i = cmd_parse(ctx, argc, argv, &a, &code);

	if (i < 0)
		return code;
	return run(ctx, &a, &err) < 0 ? cmd_fail("retain", &err) : EXIT_OK;
}
