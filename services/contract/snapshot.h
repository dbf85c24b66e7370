/* One task as the ledger and the engine see it at one moment: what the
 * contract reports and what verify checks. Internal to services/. */
#ifndef TASKENV_SERVICES_SNAPSHOT_H
#define TASKENV_SERVICES_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>

#include "state/ledger.h"

struct te_err;
struct engine;
struct cJSON;

struct svc_snapshot {
	const char *task; /* borrowed */
	struct state_task row;
	struct state_resource *res; /* active rows (not removed), owned */
	size_t n_res;
	struct state_port *ports; /* owned */
	size_t n_ports;
	struct state_worktree wt; /* zeroed when the task has no recorded worktree */
	bool has_wt;
	/* Owned cJSON arrays, one entry per active container / network / volume
	 * row, in ledger order: {"resource": <row index>, "inspect": <GET
	 * /containers|networks|volumes/{id} answer, absent when the engine has no
	 * such object>, "image": <GET /images/{Image}/json, containers only>}. */
	struct cJSON *containers;
	struct cJSON *networks;
	struct cJSON *volumes;
};

/* Read the ledger rows of TASK and inspect each on E. TE_E_NOTFOUND when
 * the ledger has no such task. Release with svc_snapshot_release. */
int svc_snapshot_take(struct engine *e, struct ledger *l, const char *task, struct svc_snapshot *s,
		      struct te_err *err);
void svc_snapshot_release(struct svc_snapshot *s);

/* The directory whose git state is the task's source: its recorded
 * worktree, else the project directory. Borrowed. */
const char *svc_snapshot_source_dir(const struct svc_snapshot *s);

/* Helpers on inspect JSON: a string member by path ("Config", "User"), or "". */
const char *svc_json_str(const struct cJSON *o, const char *k1, const char *k2);

/* A container's published ports: the live NetworkSettings.Ports when it has
 * any binding, else what was asked for, HostConfig.PortBindings (an engine
 * with no bridge publishes nothing, but the request is still a breach).
 * Borrowed from INSPECT; {"80/tcp": [{"HostIp","HostPort"}], ...} or NULL. */
const struct cJSON *svc_inspect_ports(const struct cJSON *inspect);

/* The replica a container inspect answer is (its com.docker.compose.container-number
 * label; 1 when it has none). */
int svc_inspect_replica(const struct cJSON *inspect);

/* The host port the ledger holds for replica REPLICA of SERVICE's
 * CONTAINER_PORT/PROTO, or 0. */
int svc_snapshot_port(const struct svc_snapshot *s, const char *service, int replica, int container_port,
		      const char *proto);

#endif
