/* taskenv evidence: write the promotion package for a reviewer. */
#include "cmd/cmd.h"
#include "services/contract/evidence.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <stdio.h>

struct evidence_opts {
	const char *task, *dir;
	bool json;
};

const struct cmd_option cmd_evidence_options[] = {
    CMD_OPT_REQUIRED_STRING('t', "task", "TASK", struct evidence_opts, task, "the task"),
    CMD_OPT_REQUIRED_STRING('o', "output", "DIR", struct evidence_opts, dir, "the folder to write"),
    CMD_OPT_JSON(struct evidence_opts, json),
    CMD_OPT_END,
};

const char cmd_evidence_about[] =
    "Write DIR/contract.md, contract.json, verify.txt, verify.json, events.json,\n"
    "logs/<container>.log, git-diff.patch (against the base commit),\n"
    "git-untracked.patch (new files not ignored), git-status.txt, journal.json\n"
    "(every exec and run), outcome.json (container exit codes, a failed up) and\n"
    "shared.json (what the task shares with others). DIR is new, or an empty\n"
    "directory (not a symlink): an existing non-empty one is refused, and no file is\n"
    "written through a symlink. Exit 1 when the folder could not be written or\n"
    "verify failed (the folder is complete either way).\n";

void cmd_evidence_json(const char *task, const char *dir, int verify_failed)
{
	static const char *const files[] = {"contract.md",	   "contract.json",  "verify.txt",
					    "verify.json",	   "events.json",    "git-diff.patch",
					    "git-untracked.patch", "git-status.txt", "journal.json",
					    "outcome.json",	   "shared.json",    "logs/"};
	cJSON *d = cJSON_CreateObject();
	cJSON *a;

	cJSON_AddNumberToObject(d, "schema_version", CMD_JSON_SCHEMA_VERSION);
	cJSON_AddStringToObject(d, "task", task);
	cJSON_AddStringToObject(d, "dir", dir);
	cJSON_AddNumberToObject(d, "verify_failed", verify_failed);
	a = cJSON_AddArrayToObject(d, "files");
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(files[i]));
	cmd_print_json(d);
	cJSON_Delete(d);
}

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
	if (o.json)
		cmd_evidence_json(name, o.dir, failed);
	else
		printf("evidence for task '%s' in %s (verify: %d failed)\n", name, o.dir, failed);
	return failed ? EXIT_FAIL : EXIT_OK;
}
