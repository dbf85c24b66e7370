/* taskenv reset: a task's Postgres schema or database back to its initial
 * state; and the hidden --pool-refill the detached pool refill runs as. */
#include "cmd/cmd.h"
#include "services/lifecycle/pgtpl.h"
#include "services/lifecycle/reset.h"
#include "services/settings.h"
#include "state/ledger.h"
#include "common/mem.h"

#include <stdio.h>

struct reset_opts {
	const char *task;
};

const struct cmd_option cmd_reset_options[] = {
    CMD_OPT_TASK(struct reset_opts, task),
    CMD_OPT_END,
};

const char cmd_reset_about[] =
    "Empty the task's Postgres schema or database RESOURCE (its x-taskenv.resources\n"
    "key) back to its initial state: dropped and made again through the ledger with\n"
    "the same names, owner and password, so the task's containers keep their\n"
    "connection values. A database made from a template is cloned from the template\n"
    "it came from (not from the Compose file as it is now), or handed out from the\n"
    "template's pool when taskenv built it from migrations. The resource's sessions\n"
    "are ended.\n";

int cmd_reset(struct te_ctx *ctx, int argc, char **argv)
{
	struct reset_opts o = {0};
	struct te_err err = {0};
	te_autofree char *task = NULL;
	int code, i = cmd_parse(ctx, argc, argv, &o, &code);

	if (i < 0)
		return code;
	task = cmd_task_name(ctx, o.task, &err);
	if (!task || svc_reset(ctx->ledger, task, argv[i], cmd_progress, NULL, &err) < 0)
		return cmd_fail("reset", &err);
	printf("task '%s': resource '%s' reset\n", task, argv[i]);
	return EXIT_OK;
}

int cmd_pool_refill(struct te_ctx *ctx, char *const *templates)
{
	struct te_err err = {0};
	const struct svc_settings *s = cmd_get_settings(ctx, &err);
	struct ledger *l = s ? state_open(cmd_state_path(ctx, s), &err) : NULL;
	size_t made = 0;
	int rc;

	if (!l)
		return cmd_fail("--pool-refill", &err);
	state_set_verb(l, "pool-refill");
	rc = svc_pool_refill(l, templates, svc_settings_at(s, SVC_SET_POOL_SIZE)->num, &made, &err);
	state_close(l);
	return rc < 0 ? cmd_fail("--pool-refill", &err) : EXIT_OK;
}
