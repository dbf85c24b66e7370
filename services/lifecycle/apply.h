/* `up`: plan -> ledger intents -> engine, in the order networks, volumes,
 * containers (depends_on order), each one recorded before it is created. */
#ifndef TASKENV_SERVICES_APPLY_H
#define TASKENV_SERVICES_APPLY_H

#include <stdbool.h>

#include "drivers/driver.h" /* DRV_COUNT */
#include "services/progress.h"
#include "state/subnets.h"

struct te_err;
struct engine;
struct ledger;
struct svc_project;
struct svc_settings;

/* Where a failed `up` stopped, when a service's container is why: filled
 * by svc_up (when svc_up_opts.failure is set) and recorded in the task's
 * events (resource "up", outcome "failed") for `evidence`. */
struct svc_up_failure {
	char service[128];   /* "" when no service is to blame */
	char container[256]; /* its container */
	char status[32];     /* State.Status, e.g. "exited" */
	int exit_code;	     /* State.ExitCode; -1 when it did not exit */
	char *log_tail;	     /* its last log lines (owned; svc_up_failure_release), or NULL */
};
void svc_up_failure_release(struct svc_up_failure *f);
/* Add F's service, container, status, exit_code (null when it did not
 * exit) and log_tail to the JSON object INTO (up --json, the journal). */
void svc_up_failure_json(const struct svc_up_failure *f, struct cJSON *into);

struct svc_up_opts {
	int port_lo;		  /* host port range, inclusive; default 20000 */
	int port_hi;		  /* default 29999 */
	char *const *allow;	  /* policy exceptions from --allow (borrowed, NULL-terminated or NULL) */
	bool build;		  /* up --build: build every service with build: before starting */
	bool wait;		  /* up --wait: every service with a healthcheck healthy before returning */
	int wait_timeout_s;	  /* bound on each wait; the wait_timeout setting */
	svc_progress_fn progress; /* may be NULL */
	void *progress_ctx;
	long long lease;	       /* seconds from now the task is leased for; 0: no lease */
	long long owner_pid;	       /* the task's owner (state/owner.h); 0: this process */
	long long retain_on_failure;   /* seconds to keep a failed up for inspection; 0: off */
	struct state_subnet_pool pool; /* subnets of bridge networks */
	/* The image of each driver's server container, by svc_shared_slot:
	 * the trusted config's shared_images.<driver> (borrowed from the
	 * settings), NULL: the driver's own. Never from the Compose file. */
	const char *shared_image[DRV_COUNT];
	/* Reconcile (docs/up.md). */
	bool force_recreate;		/* recreate every container, changed or not */
	bool no_recreate;		/* keep changed containers (named), create only missing ones */
	bool no_start;			/* create or recreate, start nothing */
	bool remove_orphans;		/* remove containers of services no longer in the file */
	char *const *services;		/* up SERVICE...: only these (and their dependencies); NULL: all */
	bool no_deps;			/* with services: not their dependencies */
	struct svc_up_failure *failure; /* caller-owned, filled on failure; or NULL */
	/* Where brokers live (broker.dir, svc_broker_base; borrowed): a service
	 * with x-taskenv.engine: broker makes up start the task's broker
	 * before any container and bind its directory. NULL: such a service
	 * is refused. */
	const char *broker_base;
};

/* Zeroes OPTS and fills the port range, the wait timeout, the subnet
 * pool and the server images from the settings ST (borrowed, and lent to
 * OPTS: it outlives them; services/settings.h: port_range, wait_timeout,
 * subnet_pool, subnet_prefix, shared_images.*), already checked when
 * they were loaded. */
int svc_up_opts_init(struct svc_up_opts *opts, const struct svc_settings *st, struct te_err *err);

/* Bring TASK up from PROJECT (both borrowed) on engine E, recording in L.
 * Before anything is created: the policy (services/policy.h) is checked
 * with opts->allow and the file's x-taskenv.allow, and any refusal fails
 * with TE_E_POLICY naming the first finding (file:line:col, service, key,
 * reason); then the plan is built, every image is present or pulled
 * (POST /images/create), every host port and every bridge network's subnet
 * (IPAM.Config) is reserved; a
 * failure there leaves nothing behind (no engine object, no ledger row).
 * Idempotent: objects that exist and carry this task's and this ledger's
 * labels are reused, stopped containers are started. An object with the
 * planned name that is not ours fails with TE_E_CONFLICT and is left alone.
 * A service started only after each dependency meets its depends_on
 * condition (service_healthy, service_completed_successfully), waited for
 * as svc_wait_condition does; with opts->wait every service with a
 * healthcheck must be healthy before svc_up returns. The exceptions used
 * are recorded in the task row (state_task_set_allow).
 * Errors name the service or object; what was created stays recorded for
 * `down`. Holds the task's lock (state/owner.h) throughout, so concurrent
 * `up`s of one task run one after the other and the second reuses what the
 * first made; records the owner and lease on the task row. When it fails
 * and OPTS->retain_on_failure is set, the task is retained (svc_retain). */
int svc_up(struct engine *e, struct ledger *l, const struct svc_project *project, const char *task,
	   const struct svc_up_opts *opts, struct te_err *err);

#endif
