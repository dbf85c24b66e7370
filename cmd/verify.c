/* taskenv verify: probe that the task's contract holds. */
#include "cmd/cmd.h"
#include "services/contract/verify.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <stdio.h>
#include <string.h>

struct verify_opts {
	const char *task;
	bool json;
	bool strict;
};

const struct cmd_option cmd_verify_options[] = {
    CMD_OPT_REQUIRED_STRING('t', "task", "TASK", struct verify_opts, task, "the task"),
    CMD_OPT_JSON(struct verify_opts, json),
    CMD_OPT_FLAG(0, "strict", struct verify_opts, strict,
		 "count OPEN (another task's container answers at its address) as a failure"),
    CMD_OPT_END,
};

const char cmd_verify_about[] =
    "Probes, from the host and from inside each running container (Engine exec API,\n"
    "with the image's own sh/test/cat): the ledger and the engine agree; every\n"
    "published port is on 127.0.0.1 and equals the ledger's; no undeclared host path\n"
    "and no engine socket, $HOME or credential path is mounted; no engine socket is\n"
    "reachable inside; cgroup limits equal the engine's; each container's namespace\n"
    "joins, privileged, cap_add, security_opt, devices and bind sources (realpath) are\n"
    "what the gate allowed at creation. Each line is PASS, FAIL or N/V (not verifiable\n"
    "in this image) with its evidence; cross-task says OPEN when another task's\n"
    "container answers ping at its address (the engine's firewall holds that path).\n\n"
    "exit codes: 0 every probe passed or was not verifiable (OPEN too, unless\n"
    "--strict), 1 at least one FAIL\n";

int cmd_verify(struct te_ctx *ctx, int argc, char **argv)
{
	struct verify_opts o = {0};
	te_autojson cJSON *r = NULL;
	te_autofree char *text = NULL;
	struct te_err err = {0};
	te_autofree char *name = NULL;
	int failed = 0, code, i = cmd_parse(ctx, argc, argv, &o, &code);

	if (i < 0)
		return code;
	if (!cmd_task_engine(ctx, o.task, &name, &err) ||
	    svc_verify(ctx->engine, ctx->ledger, name, &r, &failed, &err) < 0)
		return cmd_fail("verify", &err);
	if (o.strict) {
		const cJSON *it;

		cJSON_ArrayForEach (it, r)
			failed += strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(it, "result")),
					 SVC_VERIFY_OPEN) == 0;
	}
	text = o.json ? cJSON_Print(r) : svc_verify_text(r);
	printf("%s%s", text, o.json ? "\n" : "");
	if (!o.json)
		printf("verify: %d failed\n", failed);
	return failed ? EXIT_FAIL : EXIT_OK;
}
