/* Internals of `up`, shared by its files: apply.c (options and the up
 * sequence), apply_images.c (images present, pulled or built),
 * apply_net.c (host ports, subnets, networks, volumes) and
 * apply_containers.c (containers, their depends_on waits, recreates),
 * apply_reconcile.c (up SERVICE..., interrupted recreates, orphans). Not a public
 * API: only those files include it. */
#ifndef TASKENV_SERVICES_LIFECYCLE_APPLY_INT_H
#define TASKENV_SERVICES_LIFECYCLE_APPLY_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "services/lifecycle/pgtpl.h"
#include "services/lifecycle/shared.h"

struct cJSON;
struct engine;
struct ledger;
struct svc_plan;
struct svc_plan_network;
struct svc_plan_volume;
struct svc_project;
struct svc_service;
struct svc_up_opts;
struct te_err;

/* One `up` in progress; svc_up owns it and everything it points to but
 * E, L and OPTS (borrowed). Arrays are per planned object, same index.
 * The containers of one level run on copies of it (apply.c, ensure_one:
 * the copy's E is the thread's engine handle), so what up_ensure_container
 * and its callees write must go into those per-object arrays, never into a
 * field of the struct itself. */
struct up {
	struct engine *e;
	struct ledger *l;
	struct svc_plan *plan;
	const struct svc_up_opts *opts;
	int **host_ports;     /* per planned container, per service port */
	struct cJSON *values; /* resource key -> container-side values, owned */
	/* The shared server containers (one per driver, by svc_shared_slot)
	 * the resources without server: use, and the keys of those resources
	 * (its aliases on the task's networks, NULL-terminated, owned). */
	struct svc_shared shared[SVC_SHARED_MAX];
	char **shared_aliases[SVC_SHARED_MAX];
	char (*subnets)[2][20];	  /* per planned network: subnet, gateway ("" when none) */
	bool *need_build;	  /* per planned container */
	char **old_image;	  /* per planned container: image id a rebuild replaced, or NULL */
	struct svc_tmpl_ctx tmpl; /* templates built from migrations; .used: for the pool refill */
	bool nets_made;	  /* the planned networks are ensured (a task's own server needs them first) */
	bool *selected;	  /* per planned container: `up SERVICE...` chose it (or its dependant) */
	bool *recreated;  /* per planned container: this `up` recreated it */
	bool *port_moved; /* per planned container: a host port it held was taken, a new one given */
};

/* ---- apply.c ---- */

/* Report a step through opts->progress, if any. */
void up_step(const struct up *u, const char *kind, const char *name, const char *what);
/* OBJ (an inspect answer) carries this task's and this ledger's labels. */
bool up_owned(const struct svc_plan *plan, const struct cJSON *obj);
/* KIND NAME exists but is not ours: mark ROW removed, TE_E_CONFLICT. */
int up_not_ours(struct up *u, long long row, const char *kind, const char *name, struct te_err *err);

/* ---- apply_images.c ---- */

/* Each container's image is present, pulled, or marked for building
 * (u->need_build); platform: checked against the engine. */
int up_check_images(struct up *u, struct te_err *err);
/* Build what up_check_images marked, each recorded in the ledger first. */
int up_build_all(struct up *u, struct te_err *err);
/* Remove images a rebuild untagged, when ours and unused. */
void up_drop_old_images(struct up *u);

/* ---- apply_net.c ---- */

/* Each bridge network's subnet (the subnet_prefix setting) holds the
 * containers the plan puts on it: else TE_E_USAGE naming the network, the
 * count and the setting's value that fits. Before anything is created. */
int up_check_fit(const struct up *u, struct te_err *err);
/* Reserve every published host port (u->host_ports). */
int up_reserve_ports(struct up *u, struct te_err *err);
/* Reserve every bridge network's subnet (u->subnets). */
int up_reserve_subnets(struct up *u, struct te_err *err);
/* Record, then find or create, network N / volume V. */
int up_ensure_network(struct up *u, const struct svc_plan_network *n, struct te_err *err);
int up_ensure_volume(struct up *u, const struct svc_plan_volume *v, struct te_err *err);

/* ---- apply_reconcile.c ---- */

/* A recreate a crash cut short (a "<id:12>_<name>" row): finished when the
 * old container is gone, undone while it exists; a removal cut short
 * (a removing row) finished. Before any container is ensured. */
int up_recover(struct up *u, struct te_err *err);
/* Which containers this `up` touches (u->selected: opts->services and,
 * unless opts->no_deps, what they need); allocates the per-container
 * flags. TE_E_USAGE for a service not in the file. */
int up_select(struct up *u, struct te_err *err);
/* The service of P that REF names: "service:NAME" (network_mode, ipc,
 * pid; PREFIXED) or volumes_from's "NAME[:MODE]" (not "container:..."),
 * borrowed, or NULL. */
const struct svc_service *up_service_ref(const struct svc_project *p, const char *ref, bool prefixed);
/* Containers of services no longer in the file, found through the ledger:
 * named in a warning, or removed with opts->remove_orphans. */
int up_orphans(struct up *u, struct te_err *err);

/* ---- apply_containers.c ---- */

/* Record, then find, create, recreate or start planned container IDX. */
int up_ensure_container(struct up *u, size_t idx, struct te_err *err);
/* Wait for the depends_on conditions of container IDX. */
int up_wait_deps(struct up *u, size_t idx, struct te_err *err);
/* up --wait: every service with a healthcheck is healthy. */
int up_wait_all(struct up *u, struct te_err *err);

#endif
