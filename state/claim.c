/* Rows that move between owners: a pool database made under the
 * pseudo-task "_pg" and handed to a task (ledger.h), and the state changes
 * the refill and gc of those spare objects make. */
#define TE_WITH_SQLITE
#include "state/ledger.h"

#include <string.h>

#include "common/cleanup.h"
#include "common/err.h"
#include "common/mem.h"
#include "state/events.h"
#include "state/sqlite.h"

int state_resource_touch(struct ledger *l, long long id, struct te_err *err)
{
	const struct ledger_arg a[] = {LEDGER_I(id), LEDGER_I(ledger_now())};
	int changes;

	if (ledger_run(l, "UPDATE resources SET updated = ?2 WHERE id = ?1 AND state = 'created'", a,
		       LEDGER_NARGS(a), &changes, err) < 0)
		return -1;
	return changes ? 0
		       : te_err_set(err, TE_E_NOTFOUND, "resource #%lld is not created in the ledger", id);
}

int state_resource_transition(struct ledger *l, long long id, const char *from, const char *to, bool *moved,
			      struct te_err *err)
{
	static const char sql[] =
	    "UPDATE resources SET state = ?3, updated = ?4 WHERE id = ?1 AND state = ?2";
	const struct ledger_arg a[] = {LEDGER_I(id), LEDGER_S(from), LEDGER_S(to), LEDGER_I(ledger_now())};
	int changes = 0;

	*moved = false;
	if (ledger_begin(l, err) < 0)
		return -1;
	if (ledger_run(l, sql, a, LEDGER_NARGS(a), &changes, err) < 0 ||
	    (changes && ledger_event_resource(l, id, to, err) < 0)) {
		ledger_rollback(l);
		return -1;
	}
	if (ledger_commit(l, err) < 0)
		return -1;
	*moved = changes > 0;
	return 0;
}

/* The first row SQL (three text parameters) yields: 1 with *ID / *NAME. */
static int first_row(struct ledger *l, const char *sql, const char *p1, const char *p2, const char *p3,
		     long long *id, char **name, struct te_err *err)
{
	const struct ledger_arg a[] = {LEDGER_S(p1), LEDGER_S(p2), LEDGER_S(p3)};
	te_autostmt sqlite3_stmt *st = NULL;
	int rc;

	if (ledger_prepare(l, sql, a, LEDGER_NARGS(a), &st, err) < 0)
		return -1;
	rc = ledger_step(l, st, err);
	if (rc == 1) {
		*id = sqlite3_column_int64(st, 0);
		*name = ledger_col_text(st, 1);
	}
	return rc;
}

static int claim_locked(struct ledger *l, const char *from_task, const char *kind, const char *group,
			const char *task, const char *service, bool take_new, long long *id, char **name,
			struct te_err *err)
{
	static const char earlier[] = "SELECT id, name FROM resources WHERE task = ?1 AND kind = ?2"
				      " AND service = ?3 AND state = 'removing' ORDER BY id LIMIT 1";
	static const char spare[] = "SELECT id, name FROM resources WHERE task = ?1 AND kind = ?2"
				    " AND service = ?3 AND state = 'created' ORDER BY id LIMIT 1";
	static const char move[] = "UPDATE resources SET task = ?2, service = ?3, state = 'removing',"
				   " updated = ?4 WHERE id = ?1";
	int rc = first_row(l, earlier, task, kind, service, id, name, err);

	if (rc != 0 || !take_new)
		return rc < 0 ? -1 : 0;
	rc = first_row(l, spare, from_task, kind, group, id, name, err);
	if (rc <= 0)
		return rc;
	{
		const struct ledger_arg a[] = {LEDGER_I(*id), LEDGER_S(task), LEDGER_S(service),
					       LEDGER_I(ledger_now())};
		te_autofree char *outcome = xasprintf("claimed by %s", task);

		if (ledger_run(l, move, a, LEDGER_NARGS(a), NULL, err) < 0)
			return -1;
		return ledger_event_resource(l, *id, outcome, err);
	}
}

int state_resource_claim(struct ledger *l, const char *from_task, const char *kind, const char *group,
			 const char *task, const char *service, bool take_new, long long *id, char **name,
			 struct te_err *err)
{
	*name = NULL;
	*id = 0;
	if (ledger_begin(l, err) < 0)
		return -1;
	if (claim_locked(l, from_task, kind, group, task, service, take_new, id, name, err) < 0) {
		ledger_rollback(l);
		free(*name);
		*name = NULL;
		return -1;
	}
	return ledger_commit(l, err);
}
