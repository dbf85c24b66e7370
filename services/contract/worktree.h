/* The source boundary: one git worktree (and branch) per task, made and
 * removed with the git program, recorded in the ledger (worktrees table). */
#ifndef TASKENV_SERVICES_WORKTREE_H
#define TASKENV_SERVICES_WORKTREE_H

#include <stdbool.h>

struct te_err;
struct engine;
struct ledger;
struct state_worktree;

/* `git worktree add -b PREFIX/TASK PATH BASE` for the repository that
 * holds CWD (PREFIX: the worktree_prefix setting). BASE NULL means HEAD;
 * PATH NULL means "<repo top>-TASK" beside the repository's top
 * directory. Records repository (absolute
 * `git rev-parse --git-common-dir`), base commit (full id), branch, absolute
 * path and the initial `git status --porcelain` in the ledger; *out (may be
 * NULL) gets that record (owned, state_worktree_release). TE_E_CONFLICT when
 * TASK already has a worktree; TE_E_FAIL with git's message when git
 * refuses (not a repository, bad BASE, branch or path exists). */
int svc_worktree_add(struct ledger *l, const char *cwd, const char *task, const char *prefix,
		     const char *base, const char *path, struct state_worktree *out, struct te_err *err);

/* What `git worktree remove` would take with it: `git status --short
 * --untracked-files=all` then `git status --short --ignored` of TASK's
 * worktree, as one owned text with a heading per part. */
char *svc_worktree_inventory(const struct state_worktree *w, struct te_err *err);

struct svc_worktree_remove_opts {
	bool force;	    /* remove despite running containers or uncommitted changes */
	bool delete_branch; /* also `git branch -D <branch>` (kept by default) */
};

/* Number of TASK's containers the engine reports running (ledger rows of
 * kind container, inspected on E). E NULL: every recorded container counts
 * as possibly running. */
int svc_worktree_running(struct engine *e, struct ledger *l, const char *task, int *running,
			 struct te_err *err);

/* Remove TASK's worktree with `git worktree remove [--force] PATH`, then
 * (when asked) its branch, and forget it in the ledger. Refused with
 * TE_E_CONFLICT while RUNNING > 0 or tracked files have uncommitted changes
 * (`git status --porcelain --untracked-files=no` not empty), unless
 * OPTS->force. TE_E_NOTFOUND when TASK has no worktree. */
int svc_worktree_remove(struct ledger *l, const struct state_worktree *w, int running,
			const struct svc_worktree_remove_opts *opts, struct te_err *err);

/* 1 when DIR is the top of a linked git worktree (DIR/.git is a file
 * "gitdir: <path>", a host path that breaks git inside a container that
 * bind-mounts DIR), 0 otherwise. *gitdir (may be NULL) gets the path, owned. */
int svc_worktree_is_linked(const char *dir, char **gitdir);

/* Warnings for PROJECT (borrowed): one owned message per bind mount whose
 * source is the top of a linked worktree, naming the service, the path and
 * the host path its .git file points at. NULL when there is nothing to say. */
struct svc_project;
char **svc_worktree_mount_warnings(const struct svc_project *p);

#endif
