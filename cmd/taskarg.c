/* Helpers of the verbs that act on one existing task. */
#include "cmd/cmd.h"
#include "services/lifecycle/guard.h"
#include "services/lifecycle/identity.h"
#include "state/ledger.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <stdio.h>

struct engine *cmd_task_engine_or_missing(struct te_ctx *ctx, const char *flag, char **task_out,
					  bool *missing, struct te_err *err)
{
	te_autofree char *task = cmd_task_name(ctx, flag, err);
	struct state_task t;
	struct engine *e;

	if (!task)
		return NULL;
	if (state_task_get(ctx->ledger, task, &t, err) < 0) {
		if (err->code != TE_E_NOTFOUND)
			return NULL;
		if (missing) {
			te_err_clear(err);
			*missing = true;
			*task_out = TE_STEAL(task);
			return NULL;
		}
		te_err_set(err, TE_E_NOTFOUND, "no task '%s' in the ledger; `taskenv ls` lists the tasks",
			   task);
		return NULL;
	}
	e = cmd_engine(ctx, t.engine, err);
	/* A socket that answers is not yet the task's engine: only there may
	 * a verb conclude that something of the task is gone. */
	if (!e && err->code == TE_E_UNREACHABLE && t.engine && cmd_engine_explicit(ctx))
		te_err_prefix(err, "task '%s' lives on the engine at unix://%s; ", task, t.engine);
	else if (e && svc_engine_check(e, ctx->ledger, task, err) < 0)
		e = NULL;
	state_task_release(&t);
	/* The verb acts on this task: its objects, with the exceptions its
	 * latest up recorded. */
	if (e && svc_guard_task(e, ctx->ledger, task, err) < 0)
		return NULL;
	if (e)
		*task_out = TE_STEAL(task);
	return e;
}

struct engine *cmd_task_engine(struct te_ctx *ctx, const char *flag, char **task_out, struct te_err *err)
{
	return cmd_task_engine_or_missing(ctx, flag, task_out, NULL, err);
}

void cmd_print_json(const cJSON *doc)
{
	te_autofree char *s = cJSON_Print(doc);

	if (s)
		printf("%s\n", s);
}
