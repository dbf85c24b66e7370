/* The policy gate installed on an engine (docs/internals/ARCHITECTURE.md,
 * "Where the gate sits"): lifecycle gives it what only an engine and the
 * ledger know (inspects, the task's granted exceptions, its project). */
#ifndef TASKENV_SERVICES_LIFECYCLE_GUARD_H
#define TASKENV_SERVICES_LIFECYCLE_GUARD_H

#include <stdbool.h>

struct engine;
struct ledger;
struct gate;
struct te_err;

/* The gate on E, installed (owned by E) when there is none yet: bound to
 * L's ledger id (L may be NULL: then nothing of any ledger is owned and
 * every change is refused), its lookups through E's inspects, the shared
 * servers' trusted image table and E's socket as an engine socket.
 * Borrowed; lives as long as E. */
struct gate *svc_guard(struct engine *e, struct ledger *l);

/* Narrow E's gate to TASK: ownership by TASK's labels, the exceptions the
 * latest `up` of TASK recorded (never more), its project boundary (from
 * the recorded project directory). A task the ledger does not know gets
 * no exceptions. */
int svc_guard_task(struct engine *e, struct ledger *l, const char *task, struct te_err *err);

/* Widen E's gate back to the whole ledger L (gc): ownership by L's id. */
void svc_guard_ledger(struct engine *e, struct ledger *l);

/* Bind E's gate to another ledger's id LEDGER_ID (NULL: back to L's own),
 * for the whole of it and with no exceptions: `gc --orphans --ledger-id`
 * removes a group no ledger file holds, after checking that (orphans.h). */
void svc_guard_ledger_id(struct engine *e, struct ledger *l, const char *ledger_id);

/* Set the granted exceptions of E's gate (owned copy of ALLOW). */
void svc_guard_grant(struct engine *e, char *const *allow);

struct svc_plan;
/* Judge, into G's findings, everything PLAN will send before anything is
 * sent: the host paths the files make taskenv read, every network, volume
 * and container body (host ports as 0), every build query (E may be NULL
 * for `check`: dockerd's query then), the extra networks each container
 * joins, and the exceptions x-taskenv.allow names that G has not granted.
 * 0 when nothing was refused. */
int svc_guard_plan(struct gate *g, struct engine *e, const struct svc_plan *plan);

#endif
