/* The ledger's handle and the sqlite helpers every file of state/ builds
 * on: open a connection, prepare, bind and step statements, collect rows,
 * transactions, and sqlite result codes turned into a te_err (TE_E_STATE
 * "ledger 'PATH': <sqlite3_errmsg>"). Internal to state/: only the files
 * of state/ and their unit tests include it; everything else uses ledger.h. */
#ifndef TASKENV_STATE_SQLITE_H
#define TASKENV_STATE_SQLITE_H

#include <stddef.h>

#include <sqlite3.h>

struct te_err;

/* How long a statement waits for another process's lock (ms). */
#define LEDGER_BUSY_TIMEOUT_MS 10000

struct ledger {
	sqlite3 *db; /* owned */
	char *path;  /* owned */
	char id[17]; /* 16 hex chars + NUL */
	char *verb;  /* owned; the verb that events are recorded under, or NULL */
};

/* One bound parameter; text may be NULL (bound as SQL NULL). Borrowed:
 * the text must outlive the statement it is bound to. */
struct ledger_arg {
	char type; /* 's' text, 'i' integer */
	const char *s;
	long long i;
};
#define LEDGER_S(v)                                                                                          \
	{                                                                                                    \
		's', (v), 0                                                                                  \
	}
#define LEDGER_I(v)                                                                                          \
	{                                                                                                    \
		'i', NULL, (long long)(v)                                                                    \
	}
#define LEDGER_NARGS(a) (sizeof(a) / sizeof((a)[0]))

/* Open l->path (created if missing) in WAL mode with the busy timeout,
 * foreign keys on and synchronous=NORMAL; l->db owned by L. */
int ledger_connect(struct ledger *l, struct te_err *err);

/* TE_E_STATE with the connection's last sqlite message. Returns -1. */
int ledger_fail(struct ledger *l, struct te_err *err);

/* Prepare SQL and bind ARGS[0..N) to ?1..?N. *out owned (te_autostmt). */
int ledger_prepare(struct ledger *l, const char *sql, const struct ledger_arg *args, size_t n,
		   sqlite3_stmt **out, struct te_err *err);
/* sqlite3_step: 1 for a row, 0 when done, -1 (err set) on failure. */
int ledger_step(struct ledger *l, sqlite3_stmt *st, struct te_err *err);
/* Prepare, bind, step to completion. *changes (may be NULL) gets
 * sqlite3_changes() for a write. */
int ledger_run(struct ledger *l, const char *sql, const struct ledger_arg *args, size_t n, int *changes,
	       struct te_err *err);
/* sqlite3_exec of SQL (no parameters, no rows wanted). */
int ledger_exec(struct ledger *l, const char *sql, struct te_err *err);

/* Fill one array element from the current row. */
typedef void (*ledger_row_fn)(sqlite3_stmt *st, void *elem);
/* Release the first N elements of an array and the array. */
typedef void (*ledger_free_fn)(void *v, size_t n);

/* Step ST to its end, appending each row (FROM_ROW) to a growing array of
 * ELEM_SIZE-byte elements. On success *out is owned by the caller (NULL when
 * no row) and *n counts the rows; on error what was read is released with
 * FREE_ROWS and -1 returned. */
int ledger_collect(struct ledger *l, sqlite3_stmt *st, size_t elem_size, ledger_row_fn from_row,
		   ledger_free_fn free_rows, void **out, size_t *n, struct te_err *err);

/* BEGIN IMMEDIATE (waits up to the busy timeout for the write lock). */
int ledger_begin(struct ledger *l, struct te_err *err);
/* COMMIT; on failure rolls back and sets err. */
int ledger_commit(struct ledger *l, struct te_err *err);
/* ROLLBACK if a transaction is open; never touches an error already set. */
void ledger_rollback(struct ledger *l);

/* Owned copy of a text column; NULL for SQL NULL. */
char *ledger_col_text(sqlite3_stmt *st, int col);

/* Current time in unix seconds. */
long long ledger_now(void);

#endif
