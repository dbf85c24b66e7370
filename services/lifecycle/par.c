#include "services/lifecycle/par.h"
#include "engine/engine.h"
#include "common/err.h"
#include "common/mem.h"

#include <pthread.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The one lock: held by whichever thread runs lifecycle code, let go only
 * while a thread waits on the Engine. */
static pthread_mutex_t big = PTHREAD_MUTEX_INITIALIZER;

static void leave(void *ctx)
{
	(void)ctx;
	pthread_mutex_unlock(&big);
}

static void enter(void *ctx)
{
	(void)ctx;
	pthread_mutex_lock(&big);
}

struct job {
	svc_par_fn fn;
	void *ctx;
	size_t item;
	struct engine *e; /* owned: a clone */
	pthread_t thread;
	bool started;
	int rc;
	struct te_err err;
};

static void *run_job(void *arg)
{
	struct job *j = arg;

	pthread_mutex_lock(&big);
	j->rc = j->fn(j->ctx, j->item, j->e, &j->err);
	pthread_mutex_unlock(&big);
	return NULL;
}

/* Jobs [0, n), at most SVC_PAR_MAX of them. A thread that cannot be made
 * runs its job here, after the others are let go. */
static void run_batch(struct job *jobs, size_t n)
{
	pthread_mutex_lock(&big);
	for (size_t k = 0; k < n; k++)
		jobs[k].started = jobs[k].e && pthread_create(&jobs[k].thread, NULL, run_job, &jobs[k]) == 0;
	pthread_mutex_unlock(&big);
	for (size_t k = 0; k < n; k++)
		if (jobs[k].started)
			pthread_join(jobs[k].thread, NULL);
	for (size_t k = 0; k < n; k++)
		if (!jobs[k].started && jobs[k].rc == 0 && !jobs[k].err.code)
			run_job(&jobs[k]);
}

static int first_failure(const struct job *jobs, size_t n, struct te_err *err)
{
	size_t failed = 0, first = n;

	for (size_t k = 0; k < n; k++)
		if (jobs[k].rc < 0 && failed++ == 0)
			first = k;
	if (!failed)
		return 0;
	*err = jobs[first].err;
	if (failed > 1) {
		size_t len = strlen(err->msg);

		snprintf(err->msg + len, sizeof(err->msg) - len, " (and %zu more failed)", failed - 1);
	}
	return -1;
}

int svc_par_run(struct engine *e, const size_t *items, size_t n, svc_par_fn fn, void *ctx, struct te_err *err)
{
	struct job *jobs;
	int rc;

	if (n == 0)
		return 0;
	if (n == 1)
		return fn(ctx, items[0], e, err);
	jobs = xcalloc(n, sizeof(*jobs));
	for (size_t k = 0; k < n; k++) {
		jobs[k] = (struct job){.fn = fn, .ctx = ctx, .item = items[k]};
		jobs[k].e = engine_clone(e, &jobs[k].err);
		if (!jobs[k].e)
			jobs[k].rc = -1;
		else {
			/* The gate's state is touched by one thread at a time: the
			 * judge runs before the transfer, under the lock. */
			engine_share_judge(jobs[k].e, e);
			engine_set_wait_hooks(jobs[k].e, leave, enter, NULL);
		}
	}
	for (size_t k = 0; k < n; k += SVC_PAR_MAX)
		run_batch(jobs + k, n - k < SVC_PAR_MAX ? n - k : SVC_PAR_MAX);
	rc = first_failure(jobs, n, err);
	for (size_t k = 0; k < n; k++)
		engine_free(jobs[k].e);
	free(jobs);
	return rc;
}
