/* taskenv contract: the six boundaries of a task, with their evidence. */
#include "cmd/cmd.h"
#include "services/contract/contract.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static void contract_help(void)
{
	printf("usage: taskenv contract -t TASK [--format md|json]\n\n"
	       "What the task was given at six boundaries (source, filesystem, process,\n"
	       "environment, identity, promotion), each with its evidence from the engine, the\n"
	       "ledger and git at this moment. JSON schema: docs/contract.md (schema_version 1).\n");
}

int cmd_contract(struct te_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {{"task", required_argument, NULL, 't'},
					     {"format", required_argument, NULL, 'F'},
					     {"json", no_argument, NULL, 'j'},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	const char *task = NULL, *format = "md";
	te_autojson cJSON *c = NULL;
	te_autofree char *text = NULL;
	struct te_err err = {0};
	te_autofree char *name = NULL;
	int o;

	while ((o = getopt_long(argc, argv, "t:h", opts, NULL)) != -1) {
		if (o == 't')
			task = optarg;
		else if (o == 'F')
			format = optarg;
		else if (o == 'j')
			format = "json";
		else if (o == 'h')
			return contract_help(), EXIT_OK;
		else
			return cmd_usage("contract", "bad arguments");
	}
	if (!task || optind < argc || (strcmp(format, "md") != 0 && strcmp(format, "json") != 0))
		return cmd_usage("contract", "needs -t TASK and --format md or json");
	if (!cmd_task_engine(ctx, task, &name, &err) ||
	    svc_contract(ctx->engine, ctx->ledger, name, &c, &err) < 0)
		return cmd_fail("contract", &err);
	text = strcmp(format, "json") == 0 ? cJSON_Print(c) : svc_contract_markdown(c);
	printf("%s\n", text);
	return EXIT_OK;
}
