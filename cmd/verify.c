/* taskenv verify: probe that the task's contract holds. */
#include "cmd/cmd.h"
#include "services/contract/verify.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <getopt.h>
#include <stdio.h>

static void verify_help(void)
{
	printf("usage: taskenv verify -t TASK [--json]\n\n"
	       "Probes, from the host and from inside each running container (Engine exec API,\n"
	       "with the image's own sh/test/cat): the ledger and the engine agree; every\n"
	       "published port is on 127.0.0.1 and equals the ledger's; no undeclared host path\n"
	       "and no engine socket, $HOME or credential path is mounted; no engine socket is\n"
	       "reachable inside; cgroup limits equal the engine's. Each line is PASS, FAIL or\n"
	       "N/V (not verifiable in this image) with its evidence.\n\n"
	       "exit codes: 0 every probe passed or was not verifiable, 1 at least one FAIL\n");
}

int cmd_verify(struct te_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {{"task", required_argument, NULL, 't'},
					     {"json", no_argument, NULL, 'j'},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	const char *task = NULL;
	bool json = false;
	te_autojson cJSON *r = NULL;
	te_autofree char *text = NULL;
	struct te_err err = {0};
	te_autofree char *name = NULL;
	int c, failed = 0;

	while ((c = getopt_long(argc, argv, "t:h", opts, NULL)) != -1) {
		if (c == 't')
			task = optarg;
		else if (c == 'j')
			json = true;
		else if (c == 'h')
			return verify_help(), EXIT_OK;
		else
			return cmd_usage("verify", "bad arguments");
	}
	if (!task || optind < argc)
		return cmd_usage("verify", "needs -t TASK");
	if (!cmd_task_engine(ctx, task, &name, &err) ||
	    svc_verify(ctx->engine, ctx->ledger, name, &r, &failed, &err) < 0)
		return cmd_fail("verify", &err);
	text = json ? cJSON_Print(r) : svc_verify_text(r);
	printf("%s%s", text, json ? "\n" : "");
	if (!json)
		printf("verify: %d failed\n", failed);
	return failed ? EXIT_FAIL : EXIT_OK;
}
