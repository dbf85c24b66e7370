/* `taskenv reset -t TASK RESOURCE`: a task's Postgres schema or database
 * back to its initial state, through the ledger protocol: the resource's
 * rows are torn down newest first (as `down` does: removing -> the
 * driver -> removed) and provisioned again from what the ledger recorded
 * at `up` (not from the Compose file, which may have changed since): the
 * same names and the same password from the task's secrets, so the
 * task's containers keep their connection values; a schema or an empty
 * database is made anew, a database from a template is cloned from the
 * template it came from, or handed out from that template's pool when it is
 * one taskenv built (and the pool is refilled afterwards, as after `up`). */
#ifndef TASKENV_SERVICES_LIFECYCLE_RESET_H
#define TASKENV_SERVICES_LIFECYCLE_RESET_H

#include "services/progress.h"

struct te_err;
struct ledger;

/* Reset resource KEY of TASK under the task's lock. TE_E_NOTFOUND: no such
 * task; TE_E_USAGE: the task has no postgres resource KEY (the message
 * lists those it has); TE_E_FAIL: a server step failed (the rows say how
 * far it got; `up` or another `reset` finishes it). */
int svc_reset(struct ledger *l, const char *task, const char *key, svc_progress_fn progress, void *pctx,
	      struct te_err *err);

#endif
