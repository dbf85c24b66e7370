/* taskenv down: remove what the ledger says the task owns. */
#include "cmd/cmd.h"
#include "services/lifecycle/teardown.h"
#include "state/ledger.h"
#include "common/mem.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void down_help(void)
{
	printf("usage: taskenv down [-t TASK] [--volumes] [--rmi local|all] [--timeout SECONDS]\n\n"
	       "Stop and remove exactly what the ledger records for the task: containers, then\n"
	       "networks, then (with --rmi) built images, then (with --volumes) volumes. Works after the "
	       "Compose file or the\n"
	       "project directory is gone. An object whose labels name another task or ledger\n"
	       "is never touched. Exit 1 when something the task owns remains.\n\n"
	       "  -t, --task TASK      task name (default: $TASKENV_TASK, else the git branch)\n"
	       "  -v, --volumes        also remove the task's named volumes (kept otherwise)\n"
	       "      --rmi local|all  remove the images built for the task: local = those without\n"
	       "                       an image: name (\"<task>-<service>\"), all = every built one;\n"
	       "                       pulled images are never removed (kept otherwise)\n"
	       "      --timeout SECS   seconds each container gets to stop (default 10)\n");
}

struct down_args {
	const char *task;
	struct svc_down_opts opts;
};

static int parse(struct down_args *a, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"task", required_argument, NULL, 't'},    {"volumes", no_argument, NULL, 'v'},
	    {"timeout", required_argument, NULL, 'T'}, {"rmi", required_argument, NULL, 'R'},
	    {"help", no_argument, NULL, 'h'},	       {NULL, 0, NULL, 0},
	};
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "t:vh", opts, NULL)) != -1) {
		switch (c) {
		case 't': a->task = optarg; break;
		case 'v': a->opts.volumes = true; break;
		case 'T':
			errno = 0;
			a->opts.stop_timeout = (int)strtol(optarg, &end, 10);
			if (errno || *end || a->opts.stop_timeout < 0)
				return -1;
			break;
		case 'R':
			if (strcmp(optarg, "local") == 0)
				a->opts.rmi = SVC_RMI_LOCAL;
			else if (strcmp(optarg, "all") == 0)
				a->opts.rmi = SVC_RMI_ALL;
			else
				return -1;
			break;
		case 'h': down_help(); return 1;
		default: return -1;
		}
	}
	return optind < argc ? -1 : 0;
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

static int run(struct te_ctx *ctx, struct down_args *a, struct te_err *err)
{
	te_autofree char *task = NULL;
	struct svc_down_result res;
	bool missing = false;
	int rc;

	if (!cmd_task_engine_or_missing(ctx, a->task, &task, &missing, err)) {
		if (!missing)
			return -1;
		printf("task '%s': nothing to remove (not in the ledger %s)\n", task,
		       state_path(ctx->ledger));
		return 0;
	}
	a->opts.progress = cmd_progress;
	rc = svc_down(ctx->engine, ctx->ledger, task, &a->opts, &res, err);
	summary(task, &res);
	return rc;
}

int cmd_down(struct te_ctx *ctx, int argc, char **argv)
{
	struct down_args a = {.opts = {.stop_timeout = 10}};
	struct te_err err = {0};
	int p = parse(&a, argc, argv);

	if (p != 0)
		return p > 0 ? EXIT_OK : cmd_usage("down", "bad arguments");
	return run(ctx, &a, &err) < 0 ? cmd_fail("down", &err) : EXIT_OK;
}
