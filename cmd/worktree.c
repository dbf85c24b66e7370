/* taskenv worktree add|remove: the task's source boundary (a git worktree
 * on its own branch), made and removed with the git program. */
#include "cmd/cmd.h"
#include "services/model/task.h"
#include "services/contract/worktree.h"
#include "services/settings.h"
#include "state/ledger.h"
#include "common/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct wt_add_opts {
	const char *base, *path;
};

const struct cmd_option cmd_worktree_add_options[] = {
    CMD_OPT_STRING(0, "base", "REV", struct wt_add_opts, base,
		   "the commit the branch starts at (default HEAD)"),
    CMD_OPT_STRING(0, "path", "DIR", struct wt_add_opts, path,
		   "where the worktree goes (default '<repository top>-TASK')"),
    CMD_OPT_END,
};

const struct cmd_option cmd_worktree_remove_options[] = {
    CMD_OPT_FLAG('f', "force", struct svc_worktree_remove_opts, force,
		 "remove even while containers run or tracked files have changes"),
    CMD_OPT_FLAG(0, "delete-branch", struct svc_worktree_remove_opts, delete_branch,
		 "also delete the branch (kept otherwise)"),
    CMD_OPT_END,
};

const char cmd_worktree_about[] = "The task's source boundary: a git worktree on its own branch, made and\n"
				  "removed with the git program and recorded in the ledger.\n";

const char cmd_worktree_add_about[] =
    "'git worktree add -b <prefix>/TASK DIR REV' for the repository of the current\n"
    "directory (prefix: the worktree_prefix setting, TASKENV_WORKTREE_PREFIX, default\n"
    "'task'), recorded in the ledger with the base commit and the initial 'git status\n"
    "--porcelain'. 'taskenv up' inside the worktree takes TASK from the ledger.\n";

const char cmd_worktree_remove_about[] =
    "Print what 'git status --short --untracked-files=all' and 'git status --short\n"
    "--ignored' list (ignored files are deleted too), then 'git worktree remove'.\n"
    "Refused while the task's containers run or tracked files have uncommitted\n"
    "changes, unless --force. The branch is kept unless --delete-branch.\n";

int cmd_worktree_add(struct te_ctx *ctx, int argc, char **argv)
{
	struct wt_add_opts o = {0};
	te_autofree char *cwd = getcwd(NULL, 0);
	struct state_worktree w = {0};
	struct te_err err = {0};
	const struct svc_settings *s;
	int code, i = cmd_parse(ctx, argc, argv, &o, &code);

	if (i < 0)
		return code;
	s = cmd_get_settings(ctx, &err);
	if (!s || svc_task_name_check(argv[i], &err) < 0 ||
	    svc_worktree_add(ctx->ledger, cwd ? cwd : ".", argv[i],
			     svc_settings_at(s, SVC_SET_WORKTREE_PREFIX)->text, o.base, o.path, &w, &err) < 0)
		return cmd_fail("worktree add", &err);
	printf("worktree %s\nbranch %s\nbase %s\n", w.path, w.branch, w.base);
	state_worktree_release(&w);
	return EXIT_OK;
}

/* The engine is asked only when the task has containers in the ledger. */
static int running_count(struct te_ctx *ctx, const char *task, int *running, struct te_err *err)
{
	struct state_task t;
	struct engine *e = NULL;

	if (state_task_get(ctx->ledger, task, &t, err) == 0) {
		e = cmd_engine(ctx, t.engine, err);
		state_task_release(&t);
		if (!e)
			fprintf(stderr, "taskenv worktree: %s; counting recorded containers as running\n",
				err->msg);
	}
	te_err_clear(err);
	return svc_worktree_running(e, ctx->ledger, task, running, err);
}

int cmd_worktree_remove(struct te_ctx *ctx, int argc, char **argv)
{
	struct svc_worktree_remove_opts o = {0};
	struct state_worktree w = {0};
	struct te_err err = {0};
	te_autofree char *inv = NULL;
	int running = 0, rc, i = cmd_parse(ctx, argc, argv, &o, &rc);

	if (i < 0)
		return rc;
	if (state_worktree_get(ctx->ledger, argv[i], &w, &err) < 0)
		return cmd_fail("worktree remove", &err);
	inv = svc_worktree_inventory(&w, &err);
	if (inv)
		printf("%s", inv);
	rc = inv && running_count(ctx, w.task, &running, &err) == 0 &&
	     svc_worktree_remove(ctx->ledger, &w, running, &o, &err) == 0;
	if (rc)
		printf("removed worktree %s; branch %s %s\n", w.path, w.branch,
		       o.delete_branch ? "deleted" : "kept");
	state_worktree_release(&w);
	return rc ? EXIT_OK : cmd_fail("worktree remove", &err);
}
