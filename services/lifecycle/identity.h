/* A task's engine is part of the task (ARCHITECTURE.md, "A task's engine"):
 * its identity is recorded at `up` and every verb that acts on the task
 * checks it reaches that engine, so "already gone" is concluded only on
 * the task's own engine, never on another one DOCKER_HOST happens to name. */
#ifndef TASKENV_SERVICES_IDENTITY_H
#define TASKENV_SERVICES_IDENTITY_H

struct te_err;
struct engine;
struct ledger;

/* The identity of engine E (one GET /info): dockerd's "ID" ("docker:<ID>");
 * Podman answers a new random ID on every call, so it is named by where its
 * objects live: "podman:<Name>:<DockerRootDir>" (host name and storage
 * root: two services on one storage see the same objects). Owned. */
int svc_engine_identity(struct engine *e, char **id_out, struct te_err *err);

/* At `up`, before the task row is written: E's identity in *ID_OUT
 * (owned), to record with state_task_set_engine_id. Fails as
 * svc_engine_check does when the ledger records another identity for
 * TASK and TASK still owns resources there (a task moves to another
 * engine only once nothing of it is left on the old one). */
int svc_engine_claim(struct engine *e, struct ledger *l, const char *task, char **id_out, struct te_err *err);

/* Is E the engine TASK was created on? 0 when it is, or when the ledger
 * records no identity (a task from before migration 8). Else -1 with
 * TE_E_WRONG_ENGINE naming both sockets (the recorded one and E's). */
int svc_engine_check(struct engine *e, struct ledger *l, const char *task, struct te_err *err);

#endif
