/* The shared server container: when a postgres resource names no server,
 * taskenv runs one Postgres container per ledger and engine,
 *   container "taskenv-shared-postgres-<ledger id[:8]>" on its own network
 *   "0--taskenv-shared-<ledger id[:8]>" (a name that sorts before task
 *   networks: Docker moves published ports to the first-sorting network's
 *   endpoint, dropping open sessions, when one sorting earlier joins), 5432 published on 127.0.0.1 at a
 *   port picked once (bind to port 0) and fixed in its PortBindings, labels io.taskenv.shared=postgres and
 *   io.taskenv.ledger=<id> and NO io.taskenv.task: it belongs to no task,
 *   and `down` never removes it,
 * with a superuser password kept in the ledger's secrets file (pseudo-task
 * "_shared", which no task name can be). While a task exists, the container
 * is attached to each of the task's networks with the resource key as an
 * alias (so the task's containers reach "db:5432"), and detached before the
 * network is removed. It does not route between the networks it is on: a
 * container of one task reaches the server process, never another task's
 * containers. Removing the shared container itself is left to the user
 * (or a later `gc`). */
#ifndef TASKENV_SERVICES_SHARED_H
#define TASKENV_SERVICES_SHARED_H

struct te_err;
struct engine;
struct ledger;

#define SVC_SHARED_PG_IMAGE "taskenv-example/postgres:15"

struct svc_shared {
	char *container; /* engine id, owned */
	char *admin_url; /* host side, postgresql://postgres:PW@127.0.0.1:PORT/postgres: a secret */
};
void svc_shared_release(struct svc_shared *s);

/* Make sure the shared Postgres container of ledger L runs on E (created
 * from IMAGE, NULL: SVC_SHARED_PG_IMAGE) and answers; fill *OUT. Safe to
 * call from concurrent `up`s. TE_E_CONFLICT when an object of that name
 * is not ours. */
int svc_shared_postgres(struct engine *e, struct ledger *l, const char *image, struct svc_shared *out,
			struct te_err *err);

/* Attach the shared container to NETWORK with ALIASES (NULL-terminated),
 * unless it is attached already. */
int svc_shared_attach(struct engine *e, const char *container, const char *network, char *const *aliases,
		      struct te_err *err);

/* Detach ledger L's shared container (if any) from NETWORK (name or id). */
int svc_shared_detach(struct engine *e, struct ledger *l, const char *network, struct te_err *err);

#endif
