/* What each task owns: the resources table and its protocol (ledger.h). */
#define TE_WITH_SQLITE
#include "state/ledger.h"

#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/err.h"
#include "common/mem.h"
#include "state/events.h"
#include "state/sqlite.h"

void state_resources_free(struct state_resource *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].task);
		free(v[i].kind);
		free(v[i].name);
		free(v[i].engine_id);
		free(v[i].service);
		free(v[i].state);
		free(v[i].detail);
	}
	free(v);
}

/* Find the live owner of KIND NAME: 1 with *id_out set for TASK, 0 when
 * none, -1 (TE_E_CONFLICT) when another task owns it. */
static int find_active(struct ledger *l, const char *task, const char *kind, const char *name,
		       long long *id_out, struct te_err *err)
{
	static const char sql[] = "SELECT id, task FROM resources"
				  " WHERE kind = ?1 AND name = ?2 AND state <> 'removed'";
	const struct ledger_arg a[] = {LEDGER_S(kind), LEDGER_S(name)};
	te_autostmt sqlite3_stmt *st = NULL;
	const char *owner;
	int rc;

	if (ledger_prepare(l, sql, a, LEDGER_NARGS(a), &st, err) < 0)
		return -1;
	rc = ledger_step(l, st, err);
	if (rc <= 0)
		return rc;
	owner = (const char *)sqlite3_column_text(st, 1);
	if (!owner || strcmp(owner, task) != 0)
		return te_err_set(err, TE_E_CONFLICT, "%s '%s' is already owned by task '%s' in this ledger",
				  kind, name, owner ? owner : "");
	*id_out = sqlite3_column_int64(st, 0);
	return 1;
}

static int intend_locked(struct ledger *l, const char *task, const char *kind, const char *name,
			 const char *service, long long *id_out, struct te_err *err)
{
	static const char sql[] = "INSERT INTO resources(task, kind, name, service, state, created, updated)"
				  " VALUES(?1, ?2, ?3, ?4, 'intended', ?5, ?5)";
	const struct ledger_arg a[] = {LEDGER_S(task), LEDGER_S(kind), LEDGER_S(name), LEDGER_S(service),
				       LEDGER_I(ledger_now())};
	int rc = find_active(l, task, kind, name, id_out, err);

	if (rc != 0)
		return rc < 0 ? -1 : 0;
	if (ledger_run(l, sql, a, LEDGER_NARGS(a), NULL, err) < 0)
		return -1;
	*id_out = sqlite3_last_insert_rowid(l->db);
	return ledger_event_resource(l, *id_out, STATE_INTENDED, err);
}

int state_resource_intend(struct ledger *l, const char *task, const char *kind, const char *name,
			  const char *service, long long *id_out, struct te_err *err)
{
	long long id = 0;

	if (ledger_begin(l, err) < 0)
		return -1;
	if (intend_locked(l, task, kind, name, service, &id, err) < 0) {
		ledger_rollback(l);
		return -1;
	}
	if (ledger_commit(l, err) < 0)
		return -1;
	*id_out = id;
	return 0;
}

static int update_locked(struct ledger *l, const char *sql, const struct ledger_arg *a, size_t n,
			 const char *outcome, struct te_err *err)
{
	int changes;

	if (ledger_run(l, sql, a, n, &changes, err) < 0)
		return -1;
	if (changes == 0)
		return te_err_set(err, TE_E_NOTFOUND, "resource #%lld is not in the ledger", a[0].i);
	return ledger_event_resource(l, a[0].i, outcome, err);
}

/* Run an UPDATE of one resource row by id (?1) and its event (OUTCOME) in
 * one transaction; TE_E_NOTFOUND if none. */
static int update_resource(struct ledger *l, const char *sql, const struct ledger_arg *a, size_t n,
			   const char *outcome, struct te_err *err)
{
	if (ledger_begin(l, err) < 0)
		return -1;
	if (update_locked(l, sql, a, n, outcome, err) < 0) {
		ledger_rollback(l);
		return -1;
	}
	return ledger_commit(l, err);
}

int state_resource_created(struct ledger *l, long long id, const char *engine_id, struct te_err *err)
{
	static const char sql[] = "UPDATE resources SET engine_id = ?2, state = 'created',"
				  " updated = ?3 WHERE id = ?1";
	const struct ledger_arg a[] = {LEDGER_I(id), LEDGER_S(engine_id), LEDGER_I(ledger_now())};

	return update_resource(l, sql, a, LEDGER_NARGS(a), STATE_CREATED, err);
}

static bool known_state(const char *state)
{
	static const char *const states[] = {STATE_INTENDED, STATE_CREATED, STATE_REMOVING, STATE_REMOVED,
					     STATE_PENDING};

	for (size_t i = 0; state && i < sizeof(states) / sizeof(states[0]); i++) {
		if (strcmp(state, states[i]) == 0)
			return true;
	}
	return false;
}

int state_resource_set_state(struct ledger *l, long long id, const char *state, struct te_err *err)
{
	static const char sql[] = "UPDATE resources SET state = ?2, updated = ?3 WHERE id = ?1";
	const struct ledger_arg a[] = {LEDGER_I(id), LEDGER_S(state), LEDGER_I(ledger_now())};

	if (!known_state(state))
		return te_err_set(err, TE_E_STATE, "ledger '%s': unknown resource state '%s'", l->path,
				  state ? state : "(null)");
	return update_resource(l, sql, a, LEDGER_NARGS(a), state, err);
}

int state_resource_set_detail(struct ledger *l, long long id, const char *detail, struct te_err *err)
{
	static const char sql[] = "UPDATE resources SET detail = ?2, updated = ?3 WHERE id = ?1";
	const struct ledger_arg a[] = {LEDGER_I(id), LEDGER_S(detail), LEDGER_I(ledger_now())};

	return update_resource(l, sql, a, LEDGER_NARGS(a), "detail recorded", err);
}

int state_resource_rename(struct ledger *l, long long id, const char *name, struct te_err *err)
{
	static const char sql[] = "UPDATE resources SET name = ?2, updated = ?3 WHERE id = ?1";
	const struct ledger_arg a[] = {LEDGER_I(id), LEDGER_S(name), LEDGER_I(ledger_now())};

	return update_resource(l, sql, a, LEDGER_NARGS(a), "renamed", err);
}

static void resource_from_row(sqlite3_stmt *st, struct state_resource *r)
{
	r->id = sqlite3_column_int64(st, 0);
	r->task = ledger_col_text(st, 1);
	r->kind = ledger_col_text(st, 2);
	r->name = ledger_col_text(st, 3);
	r->engine_id = ledger_col_text(st, 4);
	r->service = ledger_col_text(st, 5);
	r->state = ledger_col_text(st, 6);
	r->detail = ledger_col_text(st, 7);
	r->created = sqlite3_column_int64(st, 8);
	r->updated = sqlite3_column_int64(st, 9);
}

static void resource_from_row_v(sqlite3_stmt *st, void *e)
{
	resource_from_row(st, e);
}
static void state_resources_free_v(void *v, size_t n)
{
	state_resources_free(v, n);
}

int state_resource_list(struct ledger *l, const char *task, bool include_removed, struct state_resource **out,
			size_t *n, struct te_err *err)
{
	static const char sql[] =
	    "SELECT id, task, kind, name, engine_id, service, state, detail, created, updated"
	    " FROM resources WHERE task = ?1 AND (?2 OR state <> 'removed') ORDER BY id";
	const struct ledger_arg a[] = {LEDGER_S(task), LEDGER_I(include_removed)};
	te_autostmt sqlite3_stmt *st = NULL;

	*out = NULL;
	*n = 0;
	if (ledger_prepare(l, sql, a, LEDGER_NARGS(a), &st, err) < 0)
		return -1;
	return ledger_collect(l, st, sizeof(**out), resource_from_row_v, state_resources_free_v, (void **)out,
			      n, err);
}

int state_resource_held(struct ledger *l, const char *kind, const char *name, struct te_err *err)
{
	static const char sql[] =
	    "SELECT 1 FROM resources WHERE kind = ?1 AND name = ?2 AND state <> 'removed'";
	const struct ledger_arg a[] = {LEDGER_S(kind), LEDGER_S(name)};
	te_autostmt sqlite3_stmt *st = NULL;

	if (ledger_prepare(l, sql, a, LEDGER_NARGS(a), &st, err) < 0)
		return -1;
	return ledger_step(l, st, err);
}

int state_resource_list_kind(struct ledger *l, const char *kind, struct state_resource **out, size_t *n,
			     struct te_err *err)
{
	static const char sql[] =
	    "SELECT id, task, kind, name, engine_id, service, state, detail, created, updated"
	    " FROM resources WHERE kind = ?1 AND state <> 'removed' ORDER BY id";
	const struct ledger_arg a[] = {LEDGER_S(kind)};
	te_autostmt sqlite3_stmt *st = NULL;

	*out = NULL;
	*n = 0;
	if (ledger_prepare(l, sql, a, LEDGER_NARGS(a), &st, err) < 0)
		return -1;
	return ledger_collect(l, st, sizeof(**out), resource_from_row_v, state_resources_free_v, (void **)out,
			      n, err);
}
