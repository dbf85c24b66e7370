/* taskenv evidence: write the promotion package for a reviewer. */
#include "cmd/cmd.h"
#include "services/contract/evidence.h"
#include "common/mem.h"

#include <getopt.h>
#include <stdio.h>

static void evidence_help(void)
{
	printf("usage: taskenv evidence -t TASK -o DIR\n\n"
	       "Write DIR/contract.md, contract.json, verify.txt, verify.json, events.json,\n"
	       "logs/<container>.log, git-diff.patch (against the base commit) and\n"
	       "git-status.txt. Exit 1 when the folder could not be written or verify failed\n"
	       "(the folder is complete either way).\n");
}

int cmd_evidence(struct te_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {{"task", required_argument, NULL, 't'},
					     {"output", required_argument, NULL, 'o'},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	const char *task = NULL, *dir = NULL;
	struct te_err err = {0};
	te_autofree char *name = NULL;
	int c, failed = 0;

	while ((c = getopt_long(argc, argv, "t:o:h", opts, NULL)) != -1) {
		if (c == 't')
			task = optarg;
		else if (c == 'o')
			dir = optarg;
		else if (c == 'h')
			return evidence_help(), EXIT_OK;
		else
			return cmd_usage("evidence", "bad arguments");
	}
	if (!task || !dir || optind < argc)
		return cmd_usage("evidence", "needs -t TASK and -o DIR");
	if (!cmd_task_engine(ctx, task, &name, &err) ||
	    svc_evidence_write(ctx->engine, ctx->ledger, name, dir, &failed, &err) < 0)
		return cmd_fail("evidence", &err);
	printf("evidence for task '%s' in %s (verify: %d failed)\n", name, dir, failed);
	return failed ? EXIT_FAIL : EXIT_OK;
}
