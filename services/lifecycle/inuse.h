/* Who else uses a task's network or volume, asked so that dockerd and
 * Podman answer alike; and removing a container without the volumes that
 * are not its own.
 *
 * The engines disagree on what they remove: dockerd refuses to remove a
 * network with an endpoint on it (403 "has active endpoints") or a volume
 * a container uses (409), Podman 4.3's compat DELETE /networks/{id}
 * answers 204 with a running container still attached (and that
 * container's inspect still lists the network). Filters disagree too:
 * dockerd's {"network":[ID]} leaves out containers that never started,
 * Podman's NetworkID is the network's name. So nothing here trusts a
 * filter or one answer alone: every container is listed
 * (GET /containers/json?all=1) and each entry's own
 * NetworkSettings.Networks (keys are names on both engines) or Mounts is
 * read client-side, together with the network's own inspect (Containers),
 * and each container that looks like a user is inspected again
 * (GET /containers/{id}/json) before it is named. */
#ifndef TASKENV_SERVICES_LIFECYCLE_INUSE_H
#define TASKENV_SERVICES_LIFECYCLE_INUSE_H

#include <stdbool.h>

#include "services/lifecycle/reskind.h"

struct cJSON;
struct engine;
struct ledger;
struct te_err;

/* Does the container C (a GET /containers/json entry or a
 * GET /containers/{id}/json answer, borrowed) use the network NAME (engine
 * id ID, may be NULL) or, for SVC_RES_VOLUME, the volume NAME? Other kinds:
 * false. Pure. */
bool svc_container_uses(const struct cJSON *c, enum svc_res_kind kind, const char *name, const char *id);

/* Refuse to remove network REF (its id or name) or volume REF (its name),
 * of TASK on ledger L, while a
 * container outside TASK uses it: the one check every path that removes
 * or recreates a task's network or volume makes first (down, gc of expired
 * and retained tasks and of orphans, reconcile; svc_res_before_remove in
 * reskind.h calls it). A container is TASK's when its labels
 * io.taskenv.task and io.taskenv.ledger name TASK and L; for a network
 * this ledger's shared server containers (io.taskenv.shared) count as
 * TASK's too, they are detached next. TASK NULL (gc of an orphan): only
 * the shared servers are, every other user refuses.
 * Returns 0 when nothing else uses it (or it is gone: the removal will say
 * so), -1 with TE_E_CONFLICT "network 't1_default' is in use by container
 * 'foreign' (not of task 't1'): left in place" (every such container by
 * name), or the engine's error.
 * Only GET requests. */
int svc_res_refuse_foreign(struct engine *e, struct ledger *l, const char *task, enum svc_res_kind kind,
			   const char *ref, struct te_err *err);

/* Endpoints dockerd keeps on a network for containers that no longer
 * exist (seen on dockerd 20.10 once a container connected to the network
 * while it ran is removed: the network then refuses removal with "has
 * active endpoints" for ever). NET is the network's inspect answer
 * (borrowed). Each such endpoint is force-disconnected by its endpoint
 * name (POST /networks/{id}/disconnect, Force), as
 * `docker network disconnect -f` does; no container that exists is
 * touched. Podman keeps none. Returns 0, or -1 with the engine's error. */
int svc_network_drop_stale_endpoints(struct engine *e, const struct cJSON *net, struct te_err *err);

/* Stop container REF (giving STOP_TIMEOUT seconds; < 0: not stopped, it
 * is removed by force at once; gone when stopped is no error) and remove
 * it with its own anonymous volumes, never a volume it was given by name.
 * DELETE /containers/{id}?v=1 means that on dockerd; Podman 4.3 removes
 * every anonymous volume the container mounts, also one another container
 * made that a Compose file names as an external volume. So on Podman,
 * when REF mounts an anonymous volume older than itself (Podman's own
 * volume inspect: "Anonymous", "CreatedAt" to the nanosecond, against the
 * container's "Created"; one it cannot describe counts as older), REF is
 * removed with v=0 and its own anonymous volumes one by one (force=0: one
 * another container uses meanwhile stays).
 * Every path that removes a task's container calls this: down, gc, up's
 * recreate, run --rm. Errors as engine_container_remove (TE_E_NOTFOUND
 * when REF is gone). STOP_TIMEOUT: seconds to stop it within, < 0 not
 * stopped (removed by force), SVC_STOP_OWN its own StopTimeout and
 * StopSignal (the service's stop_grace_period and stop_signal; the
 * engine's 10 s when it has none). */
#define SVC_STOP_OWN (-2)
int svc_container_remove(struct engine *e, const char *ref, int stop_timeout, struct te_err *err);

#endif
