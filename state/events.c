/* The audit trail: one events row per ledger change (ledger.h). */
#define TE_WITH_SQLITE
#include "state/ledger.h"

#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/err.h"
#include "common/mem.h"
#include "state/events.h"
#include "state/sqlite.h"

int ledger_event_resource(struct ledger *l, long long id, const char *outcome, struct te_err *err)
{
	static const char sql[] =
	    "INSERT INTO events(ts, task, verb, resource, outcome)"
	    " SELECT ?2, task, ?3, kind || ' ' || name, ?4 FROM resources WHERE id = ?1";
	const struct ledger_arg a[] = {LEDGER_I(id), LEDGER_I(ledger_now()), LEDGER_S(l->verb),
				       LEDGER_S(outcome)};

	return ledger_run(l, sql, a, LEDGER_NARGS(a), NULL, err);
}

int ledger_event(struct ledger *l, const char *task, const char *resource, const char *outcome,
		 const char *message, struct te_err *err)
{
	static const char sql[] = "INSERT INTO events(ts, task, verb, resource, outcome, message)"
				  " VALUES(?1, ?2, ?3, ?4, ?5, ?6)";
	const struct ledger_arg a[] = {LEDGER_I(ledger_now()), LEDGER_S(task),	  LEDGER_S(l->verb),
				       LEDGER_S(resource),     LEDGER_S(outcome), LEDGER_S(message)};

	return ledger_run(l, sql, a, LEDGER_NARGS(a), NULL, err);
}

int state_event_add(struct ledger *l, const char *task, const char *verb, const char *message,
		    struct te_err *err)
{
	static const char sql[] = "INSERT INTO events(ts, task, verb, outcome, message)"
				  " VALUES(?1, ?2, ?3, 'done', ?4)";
	const struct ledger_arg a[] = {LEDGER_I(ledger_now()), LEDGER_S(task),
				       LEDGER_S(verb ? verb : l->verb), LEDGER_S(message)};

	return ledger_run(l, sql, a, LEDGER_NARGS(a), NULL, err);
}

int state_event_journal(struct ledger *l, const char *task, const char *resource, const char *outcome,
			const char *message, struct te_err *err)
{
	return ledger_event(l, task, resource, outcome, message, err);
}

int state_task_known(struct ledger *l, const char *task, struct te_err *err)
{
	static const char sql[] = "SELECT 1 FROM events WHERE task = ?1 LIMIT 1";
	const struct ledger_arg a[] = {LEDGER_S(task)};
	te_autostmt sqlite3_stmt *st = NULL;

	if (ledger_prepare(l, sql, a, LEDGER_NARGS(a), &st, err) < 0)
		return -1;
	return ledger_step(l, st, err);
}

void state_events_free(struct state_event *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].task);
		free(v[i].verb);
		free(v[i].resource);
		free(v[i].outcome);
		free(v[i].message);
	}
	free(v);
}

static void event_from_row(sqlite3_stmt *st, struct state_event *e)
{
	e->id = sqlite3_column_int64(st, 0);
	e->ts = sqlite3_column_int64(st, 1);
	e->task = ledger_col_text(st, 2);
	e->verb = ledger_col_text(st, 3);
	e->resource = ledger_col_text(st, 4);
	e->outcome = ledger_col_text(st, 5);
	e->message = ledger_col_text(st, 6);
}

/* Untyped adapters for ledger_collect. */
static void event_from_row_v(sqlite3_stmt *st, void *e)
{
	event_from_row(st, e);
}
static void state_events_free_v(void *v, size_t n)
{
	state_events_free(v, n);
}

int state_event_list(struct ledger *l, const char *task, struct state_event **out, size_t *n,
		     struct te_err *err)
{
	static const char sql[] = "SELECT id, ts, task, verb, resource, outcome, message FROM events"
				  " WHERE ?1 IS NULL OR task = ?1 ORDER BY id";
	const struct ledger_arg a[] = {LEDGER_S(task)};
	te_autostmt sqlite3_stmt *st = NULL;

	*out = NULL;
	*n = 0;
	if (ledger_prepare(l, sql, a, LEDGER_NARGS(a), &st, err) < 0)
		return -1;
	return ledger_collect(l, st, sizeof(**out), event_from_row_v, state_events_free_v, (void **)out, n,
			      err);
}
