/* `retain`: keep a (failed) task for a post-mortem. Its containers are
 * stopped, not removed (their logs and file systems stay readable); its
 * networks and volumes are kept. The task row gets a retention deadline,
 * who asked and why (state/owner.h); `gc` removes everything once it
 * passes; `down` removes it earlier; a later successful `up` clears it. */
#ifndef TASKENV_SERVICES_RETAIN_H
#define TASKENV_SERVICES_RETAIN_H

#include "services/progress.h"

struct te_err;
struct engine;
struct ledger;

struct svc_retain_opts {
	long long secs;	    /* keep for this long from now (> 0) */
	const char *who;    /* may be NULL: the login name */
	const char *reason; /* may be NULL */
	int stop_timeout;   /* seconds each container gets to stop */
	svc_progress_fn progress;
	void *progress_ctx;
};

/* Retain TASK, taking its lock. TE_E_NOTFOUND for a task not in the
 * ledger. A container that cannot be stopped is reported (progress
 * "stop failed: ...") and the rest goes on; the retention is recorded
 * either way. */
int svc_retain(struct engine *e, struct ledger *l, const char *task, const struct svc_retain_opts *opts,
	       struct te_err *err);

/* The same with the task's lock already held (svc_up). */
int svc_retain_locked(struct engine *e, struct ledger *l, const char *task,
		      const struct svc_retain_opts *opts, struct te_err *err);

#endif
