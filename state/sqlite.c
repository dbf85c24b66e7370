/* The ledger's sqlite helpers (sqlite.h). */
#define TE_WITH_SQLITE
#include "state/sqlite.h"

#include <stdlib.h>
#include <time.h>

#include "common/cleanup.h"
#include "common/err.h"
#include "common/mem.h"

/* Switching a fresh file to WAL upgrades a shared lock to an exclusive
 * one; when two openers race, sqlite returns SQLITE_BUSY at once instead of
 * calling the busy handler (waiting could deadlock), so retry here for as
 * long as the busy timeout would have waited. Once one process has switched,
 * the mode is in the file header and the others see it without a lock. */
static int set_wal(struct ledger *l, struct te_err *err)
{
	int rc = SQLITE_BUSY;

	for (int waited = 0; waited < LEDGER_BUSY_TIMEOUT_MS; waited += 10) {
		rc = sqlite3_exec(l->db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL);
		if (rc != SQLITE_BUSY && rc != SQLITE_LOCKED)
			break;
		sqlite3_sleep(10);
	}
	return rc == SQLITE_OK ? 0 : ledger_fail(l, err);
}

int ledger_connect(struct ledger *l, struct te_err *err)
{
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX;

	if (sqlite3_open_v2(l->path, &l->db, flags, NULL) != SQLITE_OK)
		return ledger_fail(l, err);
	sqlite3_busy_timeout(l->db, LEDGER_BUSY_TIMEOUT_MS);
	if (set_wal(l, err) < 0)
		return -1;
	if (ledger_exec(l, "PRAGMA foreign_keys=ON", err) < 0)
		return -1;
	return ledger_exec(l, "PRAGMA synchronous=NORMAL", err);
}

int ledger_fail(struct ledger *l, struct te_err *err)
{
	return te_err_set(err, TE_E_STATE, "ledger '%s': %s", l->path, sqlite3_errmsg(l->db));
}

static int bind_arg(sqlite3_stmt *st, int idx, const struct ledger_arg *a)
{
	if (a->type == 'i')
		return sqlite3_bind_int64(st, idx, a->i);
	if (a->type != 's')
		TE_BUG("ledger_arg type must be 's' or 'i'");
	if (!a->s)
		return sqlite3_bind_null(st, idx);
	return sqlite3_bind_text(st, idx, a->s, -1, SQLITE_STATIC);
}

int ledger_prepare(struct ledger *l, const char *sql, const struct ledger_arg *args, size_t n,
		   sqlite3_stmt **out, struct te_err *err)
{
	te_autostmt sqlite3_stmt *st = NULL;

	*out = NULL;
	if (sqlite3_prepare_v2(l->db, sql, -1, &st, NULL) != SQLITE_OK)
		return ledger_fail(l, err);
	for (size_t i = 0; i < n; i++) {
		if (bind_arg(st, (int)i + 1, &args[i]) != SQLITE_OK)
			return ledger_fail(l, err);
	}
	*out = TE_STEAL(st);
	return 0;
}

int ledger_step(struct ledger *l, sqlite3_stmt *st, struct te_err *err)
{
	int rc = sqlite3_step(st);

	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return ledger_fail(l, err);
}

int ledger_run(struct ledger *l, const char *sql, const struct ledger_arg *args, size_t n, int *changes,
	       struct te_err *err)
{
	te_autostmt sqlite3_stmt *st = NULL;
	int rc;

	if (ledger_prepare(l, sql, args, n, &st, err) < 0)
		return -1;
	do
		rc = ledger_step(l, st, err);
	while (rc == 1);
	if (rc < 0)
		return -1;
	if (changes)
		*changes = sqlite3_changes(l->db);
	return 0;
}

int ledger_collect(struct ledger *l, sqlite3_stmt *st, size_t elem_size, ledger_row_fn from_row,
		   ledger_free_fn free_rows, void **out, size_t *n, struct te_err *err)
{
	char *v = NULL;
	size_t len = 0, cap = 0;
	int rc;

	for (;;) {
		rc = ledger_step(l, st, err);
		if (rc != 1)
			break;
		if (len == cap) {
			cap = cap ? 2 * cap : 8;
			v = xrealloc(v, cap * elem_size);
		}
		from_row(st, v + len++ * elem_size);
	}
	if (rc < 0) {
		free_rows(v, len);
		return -1;
	}
	*out = v;
	*n = len;
	return 0;
}

int ledger_exec(struct ledger *l, const char *sql, struct te_err *err)
{
	if (sqlite3_exec(l->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return ledger_fail(l, err);
	return 0;
}

int ledger_begin(struct ledger *l, struct te_err *err)
{
	return ledger_exec(l, "BEGIN IMMEDIATE", err);
}

int ledger_commit(struct ledger *l, struct te_err *err)
{
	if (ledger_exec(l, "COMMIT", err) == 0)
		return 0;
	ledger_rollback(l);
	return -1;
}

void ledger_rollback(struct ledger *l)
{
	/* Some errors already rolled back; a second ROLLBACK would fail. */
	if (!sqlite3_get_autocommit(l->db))
		sqlite3_exec(l->db, "ROLLBACK", NULL, NULL, NULL);
}

char *ledger_col_text(sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);

	return s ? xstrdup((const char *)s) : NULL;
}

long long ledger_now(void)
{
	return (long long)time(NULL);
}
