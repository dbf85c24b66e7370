/* taskenv contract: the six boundaries of a task, with their evidence. */
#include "cmd/cmd.h"
#include "services/contract/contract.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <stdio.h>
#include <string.h>

struct contract_opts {
	const char *task;
	const char *format;
	bool json;
};

const struct cmd_option cmd_contract_options[] = {
    CMD_OPT_REQUIRED_STRING('t', "task", "TASK", struct contract_opts, task, "the task"),
    CMD_OPT_CHOICE(0, "format", "md|json", struct contract_opts, format, "Markdown (default) or JSON"),
    CMD_OPT_FLAG(0, "json", struct contract_opts, json, "the same as --format json"),
    CMD_OPT_END,
};

const char cmd_contract_about[] =
    "What the task was given at six boundaries (source, filesystem, process,\n"
    "environment, identity, promotion), each with its evidence from the engine, the\n"
    "ledger and git at this moment. JSON schema: docs/contract.md (schema_version 1).\n";

int cmd_contract(struct te_ctx *ctx, int argc, char **argv)
{
	struct contract_opts o = {.format = "md"};
	te_autojson cJSON *c = NULL;
	te_autofree char *text = NULL;
	struct te_err err = {0};
	te_autofree char *name = NULL;
	int code, i = cmd_parse(ctx, argc, argv, &o, &code);

	if (i < 0)
		return code;
	if (o.json)
		o.format = "json";
	if (!cmd_task_engine(ctx, o.task, &name, &err) ||
	    svc_contract(ctx->engine, ctx->ledger, name, &c, &err) < 0)
		return cmd_fail("contract", &err);
	text = strcmp(o.format, "json") == 0 ? cJSON_Print(c) : svc_contract_markdown(c);
	printf("%s\n", text);
	return EXIT_OK;
}
