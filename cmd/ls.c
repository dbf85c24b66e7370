/* taskenv ls: every task in the ledger (docker compose ls); the task-level
 * view of `ps`, same text and the same --json shape. */
#include "cmd/cmd.h"

struct ls_opts {
	bool json;
};

const struct cmd_option cmd_ls_options[] = {
    CMD_OPT_FLAG(0, "json", struct ls_opts, json, "the `ps --json` task list (docs/json.md)"),
    CMD_OPT_END,
};

const char cmd_ls_about[] =
    "List the tasks in the ledger: name, status, containers running/total, ports and\n"
    "project directory (the same as `taskenv ps` without -t).\n";

int cmd_ls(struct te_ctx *ctx, int argc, char **argv)
{
	struct ls_opts o = {0};
	int code, i = cmd_parse(ctx, argc, argv, &o, &code);

	if (i < 0)
		return code;
	return cmd_ps_tasks(ctx, o.json);
}
