/* taskenv stop / start / restart: the same containers, so host ports and
 * volumes are kept (docker compose stop/start/restart). */
#include "cmd/cmd.h"
#include "services/lifecycle/ops.h"
#include "common/mem.h"

#include <stdio.h>

struct lifecycle_opts {
	const char *task;
	int timeout;
};

#define TIMEOUT_OPT                                                                                          \
	CMD_OPT_SECONDS(0, "timeout", struct lifecycle_opts, timeout,                                        \
			"seconds each container gets to stop before it is killed\n"                          \
			"(default: each service's stop_grace_period, else 10)")

const struct cmd_option cmd_stop_options[] = {
    CMD_OPT_TASK(struct lifecycle_opts, task),
    TIMEOUT_OPT,
    CMD_OPT_END,
};
const struct cmd_option cmd_start_options[] = {
    CMD_OPT_TASK(struct lifecycle_opts, task),
    CMD_OPT_END,
};
const struct cmd_option cmd_restart_options[] = {
    CMD_OPT_TASK(struct lifecycle_opts, task),
    TIMEOUT_OPT,
    CMD_OPT_END,
};

const char cmd_stop_about[] = "Stop the task's containers (dependants first); they keep their names, host\n"
			      "ports and volumes, and `taskenv start` starts the same containers again.\n";
const char cmd_start_about[] =
    "Start the task's stopped containers (dependencies first): the same containers\n"
    "`up` created, with the same host ports and volumes.\n";
const char cmd_restart_about[] = "Stop then start the task's containers.\n";

static int lifecycle(struct te_ctx *ctx, enum svc_lifecycle_op op, int argc, char **argv)
{
	struct lifecycle_opts o = {.timeout = -1}; /* -1: each container's own StopTimeout */
	struct te_err err = {0};
	te_autofree char *task = NULL;
	int code, i = cmd_parse(ctx, argc, argv, &o, &code);

	if (i < 0)
		return code;
	if (!cmd_task_engine(ctx, o.task, &task, &err) ||
	    svc_lifecycle(ctx->engine, ctx->ledger, task, i < argc ? argv + i : NULL, op, o.timeout,
			  cmd_progress, NULL, &err) < 0)
		return cmd_fail(ctx->verb->name, &err);
	return EXIT_OK;
}

int cmd_stop(struct te_ctx *ctx, int argc, char **argv)
{
	return lifecycle(ctx, SVC_STOP, argc, argv);
}

int cmd_start(struct te_ctx *ctx, int argc, char **argv)
{
	return lifecycle(ctx, SVC_START, argc, argv);
}

int cmd_restart(struct te_ctx *ctx, int argc, char **argv)
{
	return lifecycle(ctx, SVC_RESTART, argc, argv);
}
