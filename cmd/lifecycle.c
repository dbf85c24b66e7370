/* taskenv stop / start / restart: the same containers, so host ports and
 * volumes are kept (docker compose stop/start/restart). */
#include "cmd/cmd.h"
#include "services/lifecycle/ops.h"
#include "common/mem.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const names[] = {"stop", "start", "restart"};

static void help(enum svc_lifecycle_op op)
{
	static const char *const what[] = {
	    "Stop the task's containers (dependants first); they keep their names, host\n"
	    "ports and volumes, and `taskenv start` starts the same containers again.\n",
	    "Start the task's stopped containers (dependencies first): the same containers\n"
	    "`up` created, with the same host ports and volumes.\n",
	    "Stop then start the task's containers.\n"};

	printf("usage: taskenv %s [-t TASK] [SERVICE...]%s\n\n%s\n"
	       "  -t, --task TASK      task name (default: $TASKENV_TASK, else the git branch)\n",
	       names[op], op == SVC_START ? "" : " [--timeout S]", what[op]);
	if (op != SVC_START)
		printf("      --timeout S      seconds each container gets to stop before it is killed "
		       "(default 10)\n");
}

static int lifecycle(struct te_ctx *ctx, enum svc_lifecycle_op op, int argc, char **argv)
{
	static const struct option opts[] = {{"task", required_argument, NULL, 't'},
					     {"timeout", required_argument, NULL, 'T'},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	struct te_err err = {0};
	const char *flag = NULL;
	te_autofree char *task = NULL;
	int c, timeout = 10;
	char *end;

	while ((c = getopt_long(argc, argv, "t:h", opts, NULL)) != -1) {
		if (c == 't') {
			flag = optarg;
		} else if (c == 'T' && op != SVC_START) {
			errno = 0;
			timeout = (int)strtol(optarg, &end, 10);
			if (errno || *end || timeout < 0)
				return cmd_usage(names[op], "bad --timeout '%s'", optarg);
		} else if (c == 'h') {
			return help(op), EXIT_OK;
		} else {
			return cmd_usage(names[op], "bad arguments");
		}
	}
	if (!cmd_task_engine(ctx, flag, &task, &err) ||
	    svc_lifecycle(ctx->engine, ctx->ledger, task, optind < argc ? argv + optind : NULL, op, timeout,
			  cmd_progress, NULL, &err) < 0)
		return cmd_fail(names[op], &err);
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
