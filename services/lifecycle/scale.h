/* Scaling a service down: the containers a plan no longer runs. */
#ifndef TASKENV_SERVICES_LIFECYCLE_SCALE_H
#define TASKENV_SERVICES_LIFECYCLE_SCALE_H

#include "services/progress.h"

struct te_err;
struct engine;
struct ledger;
struct svc_plan;

/* Every container of PLAN's services whose number is above the replicas
 * the plan runs (`up --scale web=1` after three: web-3, then web-2),
 * removed as `down` removes one (labels checked first), highest number
 * first, each row marked removed and the replica's host ports released.
 * One-off `run` containers and services the plan does not have are left
 * alone (orphans are the reconcile's). The caller holds the task's lock.
 * Returns 0, or -1 (TE_E_REMAINS naming the container that could not be
 * removed; the rest are still tried). */
int svc_scale_down(struct engine *e, struct ledger *l, const struct svc_plan *plan, svc_progress_fn progress,
		   void *progress_ctx, struct te_err *err);

#endif
