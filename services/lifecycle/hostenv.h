/* The environment of a host command run for a task (`taskenv with`,
 * `taskenv shell`): the task's own variables (as `taskenv env` prints
 * them) and, for a service, that service's variable names with values a
 * host process can use (its DATABASE_URL pointing at 127.0.0.1:<port>). */
#ifndef TASKENV_SERVICES_HOSTENV_H
#define TASKENV_SERVICES_HOSTENV_H

#include <stddef.h>

struct te_err;
struct ledger;

/* A published port of a service: "SERVICE:CONTAINER_PORT" inside the task
 * is "127.0.0.1:HOST_PORT" from the host. */
struct svc_host_port {
	const char *service;
	int container_port;
	int host_port;
};

/* VALUE with every "SERVICE:PORT" of PORTS (a host name of the task's
 * network and a port it publishes) written as "127.0.0.1:HOST_PORT". A
 * match must stand alone: at the start or after "/", "@" or "=", and
 * followed by the end or a character that is not a digit. Owned. */
char *svc_host_rewrite(const char *value, const struct svc_host_port *ports, size_t n);

/* "K=V" lines (owned, NULL-terminated): svc_task_env's, then, when SERVICE
 * is not NULL, the service's environment: with its x-taskenv.env entries
 * taken from the driver's host-side values (as `taskenv env` has them)
 * and every other value through svc_host_rewrite. ENV_FILES as for
 * svc_task_project. Holds passwords: never print them.
 * Errors: TE_E_NOTFOUND no such task; TE_E_USAGE no such service. */
char **svc_task_host_env(struct ledger *l, const char *task, const char *service, char *const *env_files,
			 struct te_err *err);

#endif
