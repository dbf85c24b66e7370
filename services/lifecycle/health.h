/* Waiting for a started container to reach a depends_on condition, as
 * Compose's `up --wait` does: polls GET /containers/{id}/json
 * (State.Status, State.ExitCode, State.Health.Status, State.Health.Log). */
#ifndef TASKENV_SERVICES_HEALTH_H
#define TASKENV_SERVICES_HEALTH_H

struct te_err;
struct engine;

/* Wait until container NAME of SERVICE meets CONDITION:
 *   "service_started"                 returns at once;
 *   "service_healthy"                 State.Health.Status "healthy";
 *   "service_completed_successfully"  State.Status "exited" with ExitCode 0.
 * Polls every 250 ms for at most TIMEOUT_S seconds. Errors (TE_E_UNHEALTHY)
 * name the service and say why: unhealthy (with the last health check
 * output from State.Health.Log), exited, exited non-zero, no healthcheck,
 * or timed out (with the last status and output). Engine errors as
 * engine_container_inspect gives them. */
int svc_wait_condition(struct engine *e, const char *name, const char *service, const char *condition,
		       int timeout_s, struct te_err *err);

#endif
