/* taskenv down: remove what the ledger says the task owns. */
#include "cmd/cmd.h"
#include "services/lifecycle/teardown.h"
#include "services/lifecycle/inuse.h"
#include "state/ledger.h"
#include "common/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct down_args {
	const char *task;
	bool volumes;
	const char *rmi;
	int timeout;
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
    CMD_OPT_END,
};

const char cmd_down_about[] =
    "Stop and remove exactly what the ledger records for the task: containers, then\n"
    "networks, then (with --rmi) built images, then (with --volumes) volumes. Works\n"
    "after the Compose file or the project directory is gone. An object whose labels\n"
    "name another task or ledger is never touched. Exit 1 when something the task\n"
    "owns remains.\n";

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
	struct svc_down_opts opts = {
	    .volumes = a->volumes,
	    .stop_timeout = a->timeout,
	    .rmi = !a->rmi			? SVC_RMI_NONE
		   : strcmp(a->rmi, "all") == 0 ? SVC_RMI_ALL
						: SVC_RMI_LOCAL,
	    .progress = cmd_progress,
	};
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
	rc = svc_down(ctx->engine, ctx->ledger, task, &opts, &res, err);
	summary(task, &res);
	return rc;
}

int cmd_down(struct te_ctx *ctx, int argc, char **argv)
{
	struct down_args a = {.timeout = SVC_STOP_OWN};
	struct te_err err = {0};
	int code, i = cmd_parse(ctx, argc, argv, &a, &code);

	if (i < 0)
		return code;
	return run(ctx, &a, &err) < 0 ? cmd_fail("down", &err) : EXIT_OK;
}
