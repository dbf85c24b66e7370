/* taskenv retain: keep a task (stopped) for inspection until a deadline. */
#include "cmd/cmd.h"
#include "services/lifecycle/retain.h"
#include "common/duration.h"
#include "common/mem.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

static void retain_help(void)
{
	printf("usage: taskenv retain [-t TASK] --for DURATION [--owner NAME] [--reason TEXT]\n\n"
	       "Keep the task for a post-mortem: stop its containers without removing them\n"
	       "(logs and files stay), keep its networks and volumes, and record who keeps it,\n"
	       "why and until when ('ps' shows it). 'taskenv gc' removes it after DURATION;\n"
	       "'taskenv down' removes it at once.\n\n"
	       "  -t, --task TASK      task name (default: $TASKENV_TASK, else the git branch)\n"
	       "      --for DURATION   how long to keep it: 30s, 5m, 2h, 1d\n"
	       "      --owner NAME     who keeps it (default: your login name)\n"
	       "      --reason TEXT    why (shown by ps)\n"
	       "      --timeout SECS   seconds each container gets to stop (default 10)\n");
}

struct retain_args {
	const char *task;
	struct svc_retain_opts o;
};

static int parse(struct retain_args *a, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"task", required_argument, NULL, 't'},
	    {"for", required_argument, NULL, 'F'},
	    {"owner", required_argument, NULL, 'O'},
	    {"reason", required_argument, NULL, 'r'},
	    {"timeout", required_argument, NULL, 'T'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct te_err err = {0};
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "t:h", opts, NULL)) != -1) {
		switch (c) {
		case 't': a->task = optarg; break;
		case 'F':
			if (te_duration_parse(optarg, &a->o.secs, &err) < 0)
				return fprintf(stderr, "taskenv retain: %s\n", err.msg), -1;
			break;
		case 'O': a->o.who = optarg; break;
		case 'r': a->o.reason = optarg; break;
		case 'T':
			errno = 0;
			a->o.stop_timeout = (int)strtol(optarg, &end, 10);
			if (errno || *end || a->o.stop_timeout < 0)
				return -1;
			break;
		case 'h': retain_help(); return 1;
		default: return -1;
		}
	}
	return optind < argc || a->o.secs <= 0 ? -1 : 0;
}

static int run(struct te_ctx *ctx, struct retain_args *a, struct te_err *err)
{
	te_autofree char *task = NULL;
	int rc;

	if (!cmd_task_engine(ctx, a->task, &task, err))
		return -1;
	a->o.progress = cmd_progress;
	rc = svc_retain(ctx->engine, ctx->ledger, task, &a->o, err);
	if (rc == 0)
		printf("task '%s' retained for %llds\n", task, a->o.secs);
	return rc;
}

int cmd_retain(struct te_ctx *ctx, int argc, char **argv)
{
	struct retain_args a = {.o = {.stop_timeout = 10}};
	struct te_err err = {0};
	int p = parse(&a, argc, argv);

	if (p != 0)
		return p > 0 ? EXIT_OK : cmd_usage("retain", "bad arguments (--for DURATION is required)");
	return run(ctx, &a, &err) < 0 ? cmd_fail("retain", &err) : EXIT_OK;
}
