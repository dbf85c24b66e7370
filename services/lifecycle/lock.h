/* The per-task lock (state/owner.h) as the verbs take it: a wait on
 * another process says who holds it, through the progress callback. */
#ifndef TASKENV_SERVICES_LOCK_H
#define TASKENV_SERVICES_LOCK_H

#include "services/progress.h"

struct te_err;
struct ledger;

/* Take TASK's lock, waiting for it; while another process holds it,
 * PROGRESS (may be NULL) is told ("task", TASK, "waiting for the lock,
 * held by pid N (VERB) for Ns") at once and every 5 s. */
int svc_task_lock(struct ledger *l, const char *task, svc_progress_fn progress, void *progress_ctx,
		  int *fd_out, struct te_err *err);

#endif
