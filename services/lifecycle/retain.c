#include "services/lifecycle/guard.h"
#include "services/lifecycle/retain.h"
#include "services/lifecycle/reskind.h"
#include "engine/engine.h"
#include "state/ledger.h"
#include "state/owner.h"
#include "common/err.h"
#include "common/mem.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static void step(const struct svc_retain_opts *o, const char *kind, const char *name, const char *what)
{
	if (o->progress)
		o->progress(o->progress_ctx, kind, name, what);
}

static void stop_one(struct engine *e, const struct state_resource *r, const struct svc_retain_opts *o)
{
	struct te_err err = {0};
	char what[sizeof(err.msg) + 16];

	if (engine_container_stop(e, r->engine_id ? r->engine_id : r->name, o->stop_timeout, &err) == 0) {
		step(o, r->kind, r->name, "stopped, kept");
		return;
	}
	snprintf(what, sizeof(what), err.code == TE_E_NOTFOUND ? "absent" : "stop failed: %s", err.msg);
	step(o, r->kind, r->name, what);
}

int svc_retain_locked(struct engine *e, struct ledger *l, const char *task,
		      const struct svc_retain_opts *opts, struct te_err *err)
{
	struct state_owner me;
	struct state_resource *rows = NULL;
	size_t n = 0;
	const char *who = opts->who;

	if (!who)
		who = state_owner_of(0, &me, NULL) == 0 ? me.user : NULL;
	if (state_task_set_retention(l, task, (long long)time(NULL) + opts->secs, who, opts->reason, err) <
		0 ||
	    state_task_set_status(l, task, "retained", err) < 0)
		return -1;
	if (state_resource_list(l, task, false, &rows, &n, err) < 0)
		return -1;
	for (size_t i = n; i-- > 0;)
		if (svc_res_kind_of(rows[i].kind) == SVC_RES_CONTAINER)
			stop_one(e, &rows[i], opts);
	state_resources_free(rows, n);
	return state_event_add(l, task, "retain", opts->reason, err);
}

int svc_retain(struct engine *e, struct ledger *l, const char *task, const struct svc_retain_opts *opts,
	       struct te_err *err)
{
	int lock = -1, rc;

	svc_guard(e, l);
	if (state_task_lock(l, task, true, &lock, err) < 0)
		return -1;
	rc = svc_retain_locked(e, l, task, opts, err);
	state_task_unlock(lock);
	return rc;
}
