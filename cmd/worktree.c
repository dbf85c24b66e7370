/* taskenv worktree add|remove: the task's source boundary (a git worktree
 * on its own branch), made and removed with the git program. */
#include "cmd/cmd.h"
#include "services/model/task.h"
#include "services/contract/worktree.h"
#include "state/ledger.h"
#include "common/mem.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void wt_help(void)
{
	printf("usage: taskenv worktree add TASK [--base REV] [--path DIR]\n"
	       "       taskenv worktree remove TASK [--force] [--delete-branch]\n\n"
	       "add: 'git worktree add -b <prefix>/TASK DIR REV' for the repository of the current\n"
	       "directory (prefix: $TASKENV_WORKTREE_PREFIX, default '" SVC_WORKTREE_PREFIX_DEFAULT "';\n"
	       "REV default HEAD; DIR default '<repository top>-TASK'), recorded in the ledger with\n"
	       "the base commit and the initial 'git status --porcelain'. 'taskenv up' inside the\n"
	       "worktree takes TASK from the branch name.\n\n"
	       "remove: prints what 'git status --short --untracked-files=all' and 'git status\n"
	       "--short --ignored' list (ignored files are deleted too), then 'git worktree remove'.\n"
	       "Refused while the task's containers run or tracked files have uncommitted changes,\n"
	       "unless --force. The branch is kept unless --delete-branch.\n");
}

static int wt_add(struct te_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {{"base", required_argument, NULL, 'b'},
					     {"path", required_argument, NULL, 'p'},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	const char *base = NULL, *path = NULL;
	te_autofree char *cwd = getcwd(NULL, 0);
	struct state_worktree w = {0};
	struct te_err err = {0};
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'b')
			base = optarg;
		else if (c == 'p')
			path = optarg;
		else if (c == 'h')
			return wt_help(), EXIT_OK;
		else
			return cmd_usage("worktree", "bad arguments");
	}
	if (optind + 1 != argc)
		return cmd_usage("worktree", "add takes one TASK");
	if (svc_task_name_check(argv[optind], &err) < 0 ||
	    svc_worktree_add(ctx->ledger, cwd ? cwd : ".", argv[optind], base, path, &w, &err) < 0)
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

static int wt_remove(struct te_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {{"force", no_argument, NULL, 'f'},
					     {"delete-branch", no_argument, NULL, 'D'},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	struct svc_worktree_remove_opts o = {0};
	struct state_worktree w = {0};
	struct te_err err = {0};
	te_autofree char *inv = NULL;
	int c, running = 0, rc;

	while ((c = getopt_long(argc, argv, "fh", opts, NULL)) != -1) {
		if (c == 'f')
			o.force = true;
		else if (c == 'D')
			o.delete_branch = true;
		else if (c == 'h')
			return wt_help(), EXIT_OK;
		else
			return cmd_usage("worktree", "bad arguments");
	}
	if (optind + 1 != argc)
		return cmd_usage("worktree", "remove takes one TASK");
	if (state_worktree_get(ctx->ledger, argv[optind], &w, &err) < 0)
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

int cmd_worktree(struct te_ctx *ctx, int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		wt_help();
		return argc < 2 ? EXIT_USAGE : EXIT_OK;
	}
	if (strcmp(argv[1], "add") == 0)
		return wt_add(ctx, argc - 1, argv + 1);
	if (strcmp(argv[1], "remove") == 0)
		return wt_remove(ctx, argc - 1, argv + 1);
	return cmd_usage("worktree", "unknown subcommand '%s' (add, remove)", argv[1]);
}
