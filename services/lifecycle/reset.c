#include "services/lifecycle/reset.h"
#include "services/lifecycle/drvrun.h"
#include "services/lifecycle/pgtpl.h"
#include "state/ledger.h"
#include "state/owner.h"
#include "state/secrets.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <stdio.h>
#include <string.h>

struct reset {
	struct ledger *l;
	const char *task;
	const char *key;
	svc_progress_fn progress;
	void *pctx;
	struct state_resource *rows; /* the task's */
	size_t n;
};

static void say(const struct reset *r, const char *kind, const char *name, const char *what)
{
	if (r->progress)
		r->progress(r->pctx, kind, name, what);
}

static bool of_key(const struct reset *r, const struct state_resource *row)
{
	return row->service && strcmp(row->service, r->key) == 0 && drv_for_kind(row->kind);
}

/* The row holding the schema or database of the resource, or NULL. */
static const struct state_resource *home_row(const struct reset *r)
{
	for (size_t i = r->n; i-- > 0;)
		if (of_key(r, &r->rows[i]) && (strcmp(r->rows[i].kind, "postgres-schema") == 0 ||
					       strcmp(r->rows[i].kind, "postgres-database") == 0))
			return &r->rows[i];
	return NULL;
}

static int no_such(const struct reset *r, struct te_err *err)
{
	te_autofree char *have = xstrdup("");

	for (size_t i = 0; i < r->n; i++) {
		char *h;

		if (strcmp(r->rows[i].kind, "postgres-role") != 0 || !r->rows[i].service ||
		    strstr(have, r->rows[i].service))
			continue;
		h = xasprintf("%s%s'%s'", have, *have ? ", " : "", r->rows[i].service);
		free(have);
		have = h;
	}
	return te_err_set(err, TE_E_USAGE, "task '%s' has no postgres resource '%s' (it has: %s)", r->task,
			  r->key, *have ? have : "none");
}

/* Newest first, as `down`: the schema or database before its role. */
static int tear_down(struct reset *r, struct te_err *err)
{
	for (size_t i = r->n; i-- > 0;) {
		const struct state_resource *row = &r->rows[i];
		enum drv_removed how;

		if (!of_key(r, row))
			continue;
		if (state_resource_set_state(r->l, row->id, STATE_REMOVING, err) < 0)
			return -1;
		if (svc_driver_down(r->l, row, &how, err) < 0) {
			struct te_err e2 = {0};

			state_resource_set_state(r->l, row->id, STATE_PENDING, &e2);
			return te_err_prefix(err, "reset '%s': ", r->key);
		}
		if (state_resource_set_state(r->l, row->id, STATE_REMOVED, err) < 0)
			return -1;
		say(r, row->kind, row->name, how == DRV_REMOVED ? "removed" : "already gone");
	}
	return 0;
}

/* *REFILL (owned) names the built template the database came from. */
static int provision(struct reset *r, const char *detail, char **refill, struct te_err *err)
{
	te_autojson cJSON *d = cJSON_Parse(detail ? detail : "");
	const char *isolation = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "isolation"));
	const char *tmpl = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "template"));
	const char *role = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "role"));
	te_autofree char *sname = drv_secret_server(r->key);
	te_autofree char *server = NULL;
	struct drv_recorder *rec;
	struct drv_spec spec = {
	    r->task, state_ledger_id(r->l), r->key, NULL, isolation, tmpl, NULL, NULL, role, false};
	int rc;

	if (!role || !isolation)
		return te_err_set(err, TE_E_STATE, "reset '%s': ledger detail is not what taskenv wrote",
				  r->key);
	if (state_secret_get(r->l, r->task, sname, &server, err) < 0 ||
	    svc_tmpl_built(r->l, tmpl, &spec.built, err) < 0)
		return -1;
	if (!server)
		return te_err_set(err, TE_E_STATE,
				  "reset '%s': the admin URL is not in the task's secrets file", r->key);
	spec.server = server;
	rec = svc_recorder_new(r->l, r->task, r->key);
	rc = drv_find("postgres")->provision(&spec, rec, err);
	svc_recorder_free(rec);
	if (rc < 0)
		return te_err_prefix(err, "reset '%s': ", r->key);
	say(r, "postgres-resource", r->key,
	    spec.built ? "reset (from the template's pool or a clone)" : "reset");
	*refill = spec.built ? xstrdup(tmpl) : NULL;
	return 0;
}

int svc_reset(struct ledger *l, const char *task, const char *key, svc_progress_fn progress, void *pctx,
	      struct te_err *err)
{
	struct reset r = {l, task, key, progress, pctx, NULL, 0};
	struct state_task t;
	const struct state_resource *home;
	te_autofree char *detail = NULL;
	te_autofree char *msg = xasprintf("reset '%s'", key);
	char *refill[] = {NULL, NULL};
	int lock = -1, rc = -1;

	if (state_task_lock(l, task, true, &lock, err) < 0)
		return -1;
	if (state_task_get(l, task, &t, err) < 0)
		goto out;
	state_task_release(&t);
	if (state_resource_list(l, task, false, &r.rows, &r.n, err) < 0)
		goto out;
	home = home_row(&r);
	if (!home) {
		no_such(&r, err);
		goto out;
	}
	detail = xstrdup(home->detail ? home->detail : "");
	if (tear_down(&r, err) < 0 || provision(&r, detail, &refill[0], err) < 0)
		goto out;
	rc = state_event_add(l, task, NULL, msg, err);
out:
	state_resources_free(r.rows, r.n);
	state_task_unlock(lock);
	/* What the pool gave is refilled by a process of its own, as after `up`. */
	if (rc == 0 && refill[0] && svc_pool_spawn(l, refill, err) < 0)
		te_err_clear(err);
	free(refill[0]);
	return rc;
}
