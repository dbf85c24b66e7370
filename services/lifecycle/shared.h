/* Shared server containers: when a resource names no server, taskenv runs
 * one server container per driver, ledger and engine; what it is (image,
 * ports, admin credentials, admin URL) is the driver's drv_ops.shared
 * (drivers/driver.h), its readiness the driver's ready():
 *
 *   driver    container                            image                         ports
 *   postgres  taskenv-shared-postgres-<ledger[:8]>  taskenv-example/postgres:15   5432
 *   rabbitmq  taskenv-shared-rabbitmq-<ledger[:8]>  taskenv-example/rabbitmq:3    5672 (AMQP), 15672 (API)
 *   s3        taskenv-shared-s3-<ledger[:8]>        taskenv-example/s3rver:3      4568
 *
 * All of them on one network "0--taskenv-shared-<ledger id[:8]>" (a name
 * that sorts before task networks: Docker moves published ports to the
 * first-sorting network's endpoint, dropping open sessions, when one
 * sorting earlier joins). Every port is published on 127.0.0.1 at a port
 * picked once (bind to port 0) and fixed in its PortBindings. Labels
 * io.taskenv.shared=<driver> and io.taskenv.ledger=<id> and NO
 * io.taskenv.task: a shared container belongs to no task, and neither
 * `down` nor `gc` removes it (gc only touches objects labelled with a
 * task); removing it is left to the user.
 *
 * Admin credentials: a random password per driver kept in the ledger's
 * secrets file (pseudo-task "_shared", which no task name can be; names
 * "postgres-admin", "rabbitmq-admin"), handed to the image in its
 * environment (POSTGRES_PASSWORD; RABBITMQ_DEFAULT_USER/_PASS). s3rver has
 * one fixed credential for everyone (S3RVER/S3RVER): its boundary is bucket
 * naming, not identity (the contract says so).
 *
 * Host side and container side. The admin URL is host side
 * (127.0.0.1:<published port>); the driver records host-side connection
 * values from it (`taskenv env`), and `down` reaches the server through it
 * (kept in the task's secrets). RabbitMQ's AMQP port is not in the admin
 * URL, so the published 5672 is handed to the driver (drv_spec.amqp_port).
 * Containers reach the server as "<resource key>:<container port>": while a
 * task exists, the shared container is attached to each of the task's
 * networks with the task's resource keys of that driver as aliases, and
 * detached before the network is removed.
 *
 * Isolation: the shared containers are created with net.ipv4.ip_forward=0
 * and net.ipv6.conf.all.forwarding=0 in their network namespace (the
 * kernel copies the host's values, 1 on an engine host, into a new
 * namespace), so they never route between the task networks they are on:
 * a container of one task reaches the server process, never another
 * task's containers. */
#ifndef TASKENV_SERVICES_SHARED_H
#define TASKENV_SERVICES_SHARED_H

#include <stdbool.h>

struct te_err;
struct engine;
struct ledger;

#include "drivers/driver.h"

/* Slots for the shared server containers of one `up`: one per driver
 * (svc_shared_slot); those without drv_ops.shared stay empty. */
#define SVC_SHARED_MAX DRV_COUNT

struct svc_shared {
	const char *driver; /* static */
	char *container;    /* engine id, owned */
	char *admin_url;    /* host side, e.g. postgresql://postgres:PW@127.0.0.1:PORT/postgres: a secret */
	const char *port;   /* container side: the port tasks connect to ("5432"), static */
	char *client_port;  /* host side: where PORT is published on 127.0.0.1, owned */
	const char *amqp_port; /* rabbitmq: CLIENT_PORT, for drv_spec.amqp_port; else NULL */
	bool was_running;      /* it ran already: svc_shared_start created and started nothing */
};
void svc_shared_release(struct svc_shared *s);

/* The slot of DRIVER (0 .. SVC_SHARED_MAX-1: its index, drv_at), or -1
 * when DRIVER has no shared server container (drv_ops.shared). */
int svc_shared_slot(const char *driver);

/* Make sure the shared container of DRIVER for ledger L runs on E (created
 * from IMAGE, NULL: the row's default); fill *OUT. Safe to call from
 * concurrent `up`s (an flock on "<ledger>.shared.lock"). TE_E_USAGE when
 * DRIVER has none; TE_E_CONFLICT when an object of that name is not ours.
 * The server may still be booting: see svc_shared_ready. */
int svc_shared_start(struct engine *e, struct ledger *l, const char *driver, const char *image,
		     struct svc_shared *out, struct te_err *err);

/* Wait until the server of started S answers (its driver's ready(), at
 * most 120 s). Start all, then wait: the servers boot side by side. */
int svc_shared_ready(const struct svc_shared *s, struct te_err *err);

/* Attach the shared container CONTAINER to NETWORK with ALIASES
 * (NULL-terminated), unless it is attached already
 * (POST /networks/{id}/connect). */
int svc_shared_attach(struct engine *e, const char *container, const char *network, char *const *aliases,
		      struct te_err *err);

/* Detach every shared container of ledger L that is on NETWORK (name or
 * id) from it (POST /networks/{id}/disconnect, Force). */
int svc_shared_detach(struct engine *e, struct ledger *l, const char *network, struct te_err *err);

/* ---- one server container per task (drv_ops.shared->per_task: s3) ----
 *
 * "<task>-taskenv-<driver>" on the task's networks only (NETWORK at
 * create, with ALIASES; the caller attaches it to the others), labelled
 * with the task (io.taskenv.task, .ledger) and io.taskenv.server=<driver>,
 * recorded in the ledger as kind "s3-server" (reskind.h: removed by the
 * task's `down` after the driver objects on it, before its networks), its
 * port reserved in the ledger's port table ("_<driver>-server") and
 * published on 127.0.0.1, a random user and password of the task in its
 * secrets (drv_shared.user_secret / .secret), handed to the image by
 * drv_shared.user_env / .password_env. */
struct svc_shared_task {
	struct engine *e;     /* borrowed */
	struct ledger *l;     /* borrowed */
	const char *task;     /* borrowed */
	const char *network;  /* the task network it is created on, borrowed */
	char *const *aliases; /* its aliases there, NULL-terminated, borrowed */
	int port_lo, port_hi; /* the host port range */
};

/* The container name of TASK's DRIVER server. Owned. */
char *svc_shared_task_name(const char *task, const char *driver);

/* Find or create, then start, T's server container of DRIVER (IMAGE, NULL:
 * the driver's default); fill *OUT (admin_url with the task's user and
 * password). TE_E_CONFLICT when a container of that name is not the
 * task's. The server may still be booting: svc_shared_ready. */
int svc_shared_start_task(const struct svc_shared_task *t, const char *driver, const char *image,
			  struct svc_shared *out, struct te_err *err);

#endif
