#include "services/lifecycle/lock.h"
#include "state/owner.h"

#include <stdio.h>

struct waiter {
	const char *task;
	svc_progress_fn progress;
	void *ctx;
};

static void waiting(void *ctx, long long pid, const char *verb, long long waited)
{
	const struct waiter *w = ctx;
	char what[128];

	snprintf(what, sizeof(what), "waiting for the lock, held by pid %lld (%s) for %llds", pid, verb,
		 waited);
	w->progress(w->ctx, "task", w->task, what);
}

int svc_task_lock(struct ledger *l, const char *task, svc_progress_fn progress, void *progress_ctx,
		  int *fd_out, struct te_err *err)
{
	struct waiter w = {task, progress, progress_ctx};

	return state_task_lock_wait(l, task, progress ? waiting : NULL, &w, fd_out, err);
}
