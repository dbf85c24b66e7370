/* taskenv ls: every task in the ledger (docker compose ls); the task-level
 * view of `ps`, same text and the same --json shape. */
#include "cmd/cmd.h"

#include <getopt.h>
#include <stdio.h>

static void ls_help(void)
{
	printf("usage: taskenv ls [--json]\n\n"
	       "List the tasks in the ledger: name, status, containers running/total, ports and\n"
	       "project directory (the same as `taskenv ps` without -t).\n\n"
	       "      --json   the `ps --json` task list (README: \"JSON output\")\n");
}

int cmd_ls(struct te_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	char *ps_argv[] = {"ps", "--json", NULL};
	bool json = false;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'j')
			json = true;
		else if (c == 'h')
			return ls_help(), EXIT_OK;
		else
			return cmd_usage("ls", "bad arguments");
	}
	if (optind < argc)
		return cmd_usage("ls", "unexpected argument '%s'", argv[optind]);
	if (!json)
		ps_argv[1] = NULL;
	optind = 0;
	return cmd_ps(ctx, json ? 2 : 1, ps_argv);
}
