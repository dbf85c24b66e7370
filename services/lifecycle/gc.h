/* `gc`: remove what nobody will come back for.
 *  1. Tasks of the ledger on engine E whose deadline passed (retention
 *     when set, else lease; state/owner.h) and whose owner is not live, and
 *     whose lock is free: taken down by the ledger (svc_down_locked, volumes
 *     too).
 *  2. Orphans: engine objects labelled io.taskenv.task and
 *     io.taskenv.ledger=<this ledger> that no active ledger row names (left
 *     by a process killed where the ledger could not know), unless their
 *     task is live or locked. Labels are checked on each object; an object
 *     without both labels is never touched. Containers, then networks, then
 *     volumes. One list call per kind (GET /containers/json, /networks,
 *     /volumes with a label filter).
 *  3. Postgres templates built from migrations and their pools
 *     (services/lifecycle/pgtpl.h, svc_tmpl_gc): what a killed build or
 *     refill left, and templates no task was cloned from that have not been
 *     used for template_gc_age. */
#ifndef TASKENV_SERVICES_GC_H
#define TASKENV_SERVICES_GC_H

#include <stdbool.h>
#include <stddef.h>

#include "services/progress.h"

struct te_err;
struct engine;
struct ledger;

struct svc_gc_opts {
	bool dry_run;		   /* report what would go, remove nothing */
	int stop_timeout;	   /* seconds each container gets to stop */
	long long template_gc_age; /* seconds a built Postgres template may go unused (template_gc_age) */
	svc_progress_fn progress;  /* may be NULL; KIND "task" for whole tasks */
	void *progress_ctx;
};

struct svc_gc_result {
	size_t tasks;	  /* expired tasks taken down (or that would be, dry run) */
	size_t live;	  /* expired tasks skipped: owner live or lock held */
	size_t orphans;	  /* orphan objects removed (or that would be) */
	size_t templates; /* Postgres templates and pool databases removed (or that would be) */
	size_t processes; /* rows of host processes (brokers) that no longer run, cleared */
	size_t remaining; /* objects whose removal failed (pending; run gc again) */
};

/* Returns 0, -1 with TE_E_REMAINS when something could not be removed (the
 * rest was still done), or another code when the engine or ledger fails
 * outright (TE_E_UNREACHABLE: nothing answers). Tasks recorded on another
 * engine socket than E's are left for a gc run against that engine. */
int svc_gc(struct engine *e, struct ledger *l, const struct svc_gc_opts *opts, struct svc_gc_result *res,
	   struct te_err *err);

#endif
