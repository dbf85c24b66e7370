/* taskenv evidence: write the promotion package for a reviewer. */
#include "cmd/cmd.h"
#include "services/contract/evidence.h"
#include "common/mem.h"

#include <stdio.h>

struct evidence_opts {
	const char *task, *dir;
};

const struct cmd_option cmd_evidence_options[] = {
    CMD_OPT_REQUIRED_STRING('t', "task", "TASK", struct evidence_opts, task, "the task"),
    CMD_OPT_REQUIRED_STRING('o', "output", "DIR", struct evidence_opts, dir, "the folder to write"),
    CMD_OPT_END,
};

const char cmd_evidence_about[] =
    "Write DIR/contract.md, contract.json, verify.txt, verify.json, events.json,\n"
    "logs/<container>.log, git-diff.patch (against the base commit) and\n"
    "git-status.txt. DIR is new, or an empty directory (not a symlink): an existing\n"
    "non-empty one is refused, and no file is written through a symlink. Exit 1 when\n"
    "the folder could not be written or verify failed (the folder is complete either\n"
    "way).\n";

int cmd_evidence(struct te_ctx *ctx, int argc, char **argv)
{
	struct evidence_opts o = {0};
	struct te_err err = {0};
	te_autofree char *name = NULL;
	int failed = 0, code, i = cmd_parse(ctx, argc, argv, &o, &code);

	if (i < 0)
		return code;
	if (!cmd_task_engine(ctx, o.task, &name, &err) ||
	    svc_evidence_write(ctx->engine, ctx->ledger, name, o.dir, &failed, &err) < 0)
		return cmd_fail("evidence", &err);
	printf("evidence for task '%s' in %s (verify: %d failed)\n", name, o.dir, failed);
	return failed ? EXIT_FAIL : EXIT_OK;
}
