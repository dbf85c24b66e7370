/* taskenv reset: a task's Postgres schema or database back to its initial
 * state; and _pool-refill, the hidden verb the pool refill runs as. */
#include "cmd/cmd.h"
#include "services/lifecycle/pgtpl.h"
#include "services/lifecycle/reset.h"
#include "services/model/task.h"
#include "common/mem.h"

#include <getopt.h>
#include <stdio.h>
#include <unistd.h>

static void reset_help(void)
{
	printf("usage: taskenv reset [-t TASK] RESOURCE\n\n"
	       "Empty the task's Postgres schema or database RESOURCE (its x-taskenv.resources\n"
	       "key) back to its initial state: dropped and made again with the same names, owner\n"
	       "and password, so the task's containers keep their connection values. A database\n"
	       "made from a template is cloned from the template it came from (not from the\n"
	       "Compose file as it is now), or handed out from the template's pool when taskenv\n"
	       "built it from migrations. The resource's sessions are ended.\n\n"
	       "  -t, --task TASK   task name (default: $TASKENV_TASK, else the git branch)\n");
}

int cmd_reset(struct te_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"task", required_argument, NULL, 't'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	const char *flag = NULL;
	te_autofree char *cwd = getcwd(NULL, 0);
	te_autofree char *task = NULL;
	struct te_err err = {0};
	int c;

	while ((c = getopt_long(argc, argv, "t:h", opts, NULL)) != -1) {
		if (c == 't')
			flag = optarg;
		else if (c == 'h')
			return reset_help(), EXIT_OK;
		else
			return cmd_usage("reset", "bad arguments");
	}
	if (optind != argc - 1)
		return cmd_usage("reset", "needs one RESOURCE (a key under x-taskenv.resources)");
	task = svc_task_resolve(flag, cwd ? cwd : ".", &err);
	if (!task || svc_reset(ctx->ledger, task, argv[optind], cmd_progress, NULL, &err) < 0)
		return cmd_fail("reset", &err);
	printf("task '%s': resource '%s' reset\n", task, argv[optind]);
	return EXIT_OK;
}

/* `taskenv _pool-refill TEMPLATE...`: started detached by `up` and
 * `reset` (svc_pool_spawn); nobody reads its output. */
int cmd_pool_refill(struct te_ctx *ctx, int argc, char **argv)
{
	struct te_err err = {0};
	size_t made = 0;
	long size;

	if (svc_pool_size(&size, &err) < 0 ||
	    svc_pool_refill(ctx->ledger, argc > 1 ? argv + 1 : NULL, size, &made, &err) < 0)
		return cmd_fail("_pool-refill", &err);
	return EXIT_OK;
}
