/* The plan: a loaded Compose project plus a task name, turned into the
 * exact names, labels, order and Engine API bodies taskenv will create.
 * Pure: no engine, no ledger; unit-tested. */
#ifndef TASKENV_SERVICES_PLAN_H
#define TASKENV_SERVICES_PLAN_H

#include <stdbool.h>
#include <stddef.h>

struct te_err;
struct cJSON;
struct svc_project;
struct svc_service;
struct svc_network;
struct svc_volume;
struct svc_file_ref;

/* Where published ports are bound: loopback only, always. */
#define SVC_HOST_IP "127.0.0.1"
/* Label carrying the fixed `name:` a volume or network asked for. */
#define SVC_LABEL_ORIGINAL_NAME "io.taskenv.original-name"

struct svc_plan_network {
	char *key;			/* "default" or the top-level key */
	char *name;			/* engine name: "<task>_<key>", or the external name */
	bool external;			/* used, never created or removed */
	const struct svc_network *decl; /* borrowed; NULL for the implied default */
};

struct svc_plan_volume {
	char *key;
	char *name;
	bool external;
	const struct svc_volume *decl; /* borrowed */
};

struct svc_plan_container {
	char *name;		       /* "<task>-<service>-<number>" */
	int number;		       /* the replica, 1..svc_service_replicas() */
	const struct svc_service *svc; /* borrowed from the project */
	char **networks;	       /* NULL-terminated engine network names, first is primary */
	char **aliases;		       /* NULL-terminated: service name, container_name if any, the
					* networks' aliases, the aliases other services' links give it */
	char *image;		       /* image: as written, else svc_name_image (built) */
	bool build;		       /* the service has build: */
	int level;		       /* dependency level: 0 without dependencies, else one more
					* than its deepest dependency's; one level is created at once */
};

struct svc_plan {
	char *task;
	char *ledger_id;
	const struct svc_project *project; /* borrowed; must outlive the plan */
	struct svc_plan_network *networks; /* only networks some service uses */
	size_t n_networks;
	struct svc_plan_volume *volumes; /* only volumes some service uses */
	size_t n_volumes;
	struct svc_plan_container *containers; /* in depends_on order (dependencies first), each
						* service's replicas by number */
	size_t n_containers;
	int n_levels;	   /* levels 0 .. n_levels-1 (svc_plan_container.level) */
	char **links;	   /* every service's links ("SERVICE[:ALIAS]"), owned, NULL-terminated or NULL */
	char *files_dir;   /* where secret/config files taken from the environment or content are
			    * written (owned, set by the caller, NULL = none); see svc_plan_file_source */
	char *broker_dir;  /* the task's broker directory, bound into services with
			    * x-taskenv.engine: broker (owned, set by the caller, NULL = none) */
	bool public_ports; /* the trusted side granted public-port: a host ip other than loopback
			    * is published as written; else on SVC_HOST_IP (set by the caller) */
};

/* The host file bound for a service's secret or config: the declared file,
 * or FILES_DIR/<secrets|configs>-<key> for environment/content sources.
 * Owned; NULL when the declaration is missing (finalize refuses that). */
char *svc_plan_file_source(const struct svc_plan *plan, bool secret, const char *key);
/* The target path in the container: TARGET if absolute; else /run/secrets/<TARGET or SOURCE>
 * for secrets, /<TARGET or SOURCE> for configs (Compose's defaults). Owned. */
char *svc_plan_file_target(bool secret, const struct svc_file_ref *r);

/* Build the plan for PROJECT (borrowed) as TASK (already checked). Fails with
 * TE_E_COMPOSE on a depends_on cycle ("FILE:LINE:COL: dependency cycle: a -> b -> a").
 * Owned result (svc_plan_free). */
struct svc_plan *svc_plan_build(const struct svc_project *project, const char *task, const char *ledger_id,
				struct te_err *err);
void svc_plan_free(struct svc_plan *plan);

/* How many containers S runs: scale / deploy.replicas / up --scale, else 1. */
int svc_service_replicas(const struct svc_service *s);
/* Replica NUMBER of service S (of PLAN's project) into C, as the plan
 * builds each container; svc_plan_container_release frees what C owns. */
void svc_plan_container_init(const struct svc_plan *plan, const struct svc_service *s, int number,
			     struct svc_plan_container *c);
void svc_plan_container_release(struct svc_plan_container *c);

/* Labels every object of the plan carries, plus KIND-specific ones:
 * kind "container" (SERVICE = service name; container-number 1, the body
 * sets the replica's), "network" / "volume" (SERVICE = key).
 * Owned cJSON object. */
struct cJSON *svc_plan_labels(const struct svc_plan *plan, const char *kind, const char *service);

/* Does OBJ (an inspect answer: container, network or volume; borrowed)
 * carry labels naming TASK in the ledger LEDGER_ID? Container labels are
 * read from Config.Labels, others from Labels. This is the cross-check
 * before taskenv reuses or removes anything. */
bool svc_labels_match(const struct cJSON *obj, const char *task, const char *ledger_id);

/* Engine API bodies, owned cJSON:
 * POST /networks/create and POST /volumes/create bodies; */
struct cJSON *svc_plan_network_body(const struct svc_plan *plan, const struct svc_plan_network *n);
struct cJSON *svc_plan_volume_body(const struct svc_plan *plan, const struct svc_plan_volume *v);
/* POST /containers/create body. HOST_PORTS[i] is the host port allocated
 * for c->svc->ports[i]; bound on SVC_HOST_IP (or, with plan->public_ports,
 * on the host ip the file wrote). Only the primary network
 * goes in NetworkingConfig (API < 1.44 takes one); the rest are connected
 * after create. */
struct cJSON *svc_plan_container_body(const struct svc_plan *plan, const struct svc_plan_container *c,
				      const int *host_ports);

/* Look up a planned network/volume by key; borrowed or NULL. */
const struct svc_plan_network *svc_plan_network_by_key(const struct svc_plan *plan, const char *key);
const struct svc_plan_volume *svc_plan_volume_by_key(const struct svc_plan *plan, const char *key);

#endif
