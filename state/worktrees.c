/* The source boundary in the ledger: one git worktree per task (ledger.h). */
#define TE_WITH_SQLITE
#include "state/ledger.h"

#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/err.h"
#include "common/mem.h"
#include "state/events.h"
#include "state/sqlite.h"

#define WT_COLS "task, repo, path, branch, base, initial_status, created"

void state_worktree_release(struct state_worktree *w)
{
	if (!w)
		return;
	free(w->task);
	free(w->repo);
	free(w->path);
	free(w->branch);
	free(w->base);
	free(w->initial_status);
	memset(w, 0, sizeof(*w));
}

static int add_locked(struct ledger *l, const struct state_worktree *w, struct te_err *err)
{
	static const char sql[] = "INSERT INTO worktrees(" WT_COLS ") VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)";
	const struct ledger_arg a[] = {LEDGER_S(w->task),     LEDGER_S(w->repo), LEDGER_S(w->path),
				       LEDGER_S(w->branch),   LEDGER_S(w->base), LEDGER_S(w->initial_status),
				       LEDGER_I(ledger_now())};
	struct state_worktree old;

	if (state_worktree_get(l, w->task, &old, err) == 0) {
		te_err_set(err, TE_E_CONFLICT, "task '%s' already has a worktree at '%s'", w->task, old.path);
		state_worktree_release(&old);
		return -1;
	}
	if (err->code != TE_E_NOTFOUND)
		return -1;
	te_err_clear(err);
	if (ledger_run(l, sql, a, LEDGER_NARGS(a), NULL, err) < 0)
		return -1;
	return ledger_event(l, w->task, "worktree", "created", w->path, err);
}

int state_worktree_add(struct ledger *l, const struct state_worktree *w, struct te_err *err)
{
	if (ledger_begin(l, err) < 0)
		return -1;
	if (add_locked(l, w, err) < 0) {
		ledger_rollback(l);
		return -1;
	}
	return ledger_commit(l, err);
}

static void wt_from_row(sqlite3_stmt *st, struct state_worktree *w)
{
	w->task = ledger_col_text(st, 0);
	w->repo = ledger_col_text(st, 1);
	w->path = ledger_col_text(st, 2);
	w->branch = ledger_col_text(st, 3);
	w->base = ledger_col_text(st, 4);
	w->initial_status = ledger_col_text(st, 5);
	w->created = sqlite3_column_int64(st, 6);
}

static int get_one(struct ledger *l, const char *sql, const char *arg, const char *what,
		   struct state_worktree *out, struct te_err *err)
{
	const struct ledger_arg a[] = {LEDGER_S(arg)};
	te_autostmt sqlite3_stmt *st = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if (ledger_prepare(l, sql, a, LEDGER_NARGS(a), &st, err) < 0)
		return -1;
	rc = ledger_step(l, st, err);
	if (rc < 0)
		return -1;
	if (rc == 0)
		return te_err_set(err, TE_E_NOTFOUND, "%s '%s' has no worktree in the ledger", what, arg);
	wt_from_row(st, out);
	return 0;
}

int state_worktree_get(struct ledger *l, const char *task, struct state_worktree *out, struct te_err *err)
{
	return get_one(l, "SELECT " WT_COLS " FROM worktrees WHERE task = ?1", task, "task", out, err);
}

int state_worktree_find_path(struct ledger *l, const char *path, struct state_worktree *out,
			     struct te_err *err)
{
	/* The longest recorded path that is PATH or a directory above it. */
	static const char sql[] = "SELECT " WT_COLS " FROM worktrees WHERE ?1 = path"
				  " OR substr(?1, 1, length(path) + 1) = path || '/'"
				  " ORDER BY length(path) DESC LIMIT 1";

	return get_one(l, sql, path, "directory", out, err);
}

int state_worktree_delete(struct ledger *l, const char *task, struct te_err *err)
{
	const struct ledger_arg a[] = {LEDGER_S(task)};
	int changes;

	if (ledger_run(l, "DELETE FROM worktrees WHERE task = ?1", a, LEDGER_NARGS(a), &changes, err) < 0)
		return -1;
	if (changes == 0)
		return te_err_set(err, TE_E_NOTFOUND, "task '%s' has no worktree in the ledger", task);
	return ledger_event(l, task, "worktree", "forgotten", NULL, err);
}
