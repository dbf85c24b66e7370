/* Verbs that act on a task that is already up: its containers (for logs,
 * exec, top), stop/start/restart of the same containers (so host ports and
 * volumes stay), and one-off `run` containers recorded in the ledger. */
#ifndef TASKENV_SERVICES_OPS_H
#define TASKENV_SERVICES_OPS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "services/progress.h"

struct te_err;
struct engine;
struct ledger;
struct svc_plan;

/* The Compose project of TASK from the files the ledger records, read as
 * `up` read them (${COMPOSE_PROJECT_NAME} the task; ENV_FILES the same
 * --env-file, NULL: the .env). Owned (svc_project_free), or NULL. */
struct svc_project;
struct svc_project *svc_task_project(struct ledger *l, const char *task, char *const *env_files,
				     struct te_err *err);

/* One of the task's containers, as the ledger records it. */
struct svc_container_ref {
	char *name;    /* "<task>-<service>-1", or "<task>-<service>-run-<hex>" */
	char *id;      /* engine id */
	char *service; /* Compose service */
	bool oneoff;   /* made by `run` */
	int level;     /* dependency level `up` recorded (0 when none) */
};
struct state_resource;
/* The dependency level `up` recorded in container row R's detail (its
 * "level"), 0 for rows without one (other kinds, older ledgers). */
int svc_row_level(const struct state_resource *r);
void svc_container_refs_free(struct svc_container_ref *v, size_t n);

/* The containers the ledger records as created for TASK, in creation order
 * (dependencies first). SERVICES (NULL-terminated, NULL = every service)
 * filters by service; one-off containers only when INCLUDE_ONEOFF.
 * Errors: TE_E_NOTFOUND (no such task), TE_E_USAGE (a named service has no
 * container in the task, message lists the services it has). *out owned. */
int svc_task_containers(struct ledger *l, const char *task, char *const *services, bool include_oneoff,
			struct svc_container_ref **out, size_t *n, struct te_err *err);

enum svc_lifecycle_op { SVC_STOP, SVC_START, SVC_RESTART };

/* Stop (newest first), start (dependencies first) or restart the task's
 * containers of SERVICES (NULL = all) through the Engine API: the same
 * containers, so their host ports and volumes are kept. Each container's
 * labels must name this task and ledger, else it is left alone and the
 * call fails with TE_E_CONFLICT. TIMEOUT_S is the stop grace period.
 * Task status becomes "stopped" after stopping every service, "up" after
 * starting every service. Restarting SERVICES restarts as well the
 * services whose depends_on gives one of them `restart: true` (after it,
 * as Compose does). PROGRESS may be NULL. */
int svc_lifecycle(struct engine *e, struct ledger *l, const char *task, char *const *services,
		  enum svc_lifecycle_op op, int timeout_s, svc_progress_fn progress, void *pctx,
		  struct te_err *err);

/* Output of a one-off container, a line at a time (borrowed, without '\n');
 * STREAM is 1 or 2. */
typedef int (*svc_output_fn)(void *ctx, int stream, const char *line, size_t n);

#define SVC_RUN_STOP_TIMEOUT_S 10

struct svc_run_opts {
	const char *service;
	char *const *cmd;	 /* overrides the service's command; NULL keeps it */
	char *const *entrypoint; /* overrides the service's entrypoint (and, as
				    Compose does, drops its command unless CMD is
				    given); NULL keeps it */
	char *const *env;	 /* extra "K=V" entries, or NULL */
	const char *user;	 /* or NULL */
	const char *workdir;	 /* or NULL */
	char *const *env_files;	 /* --env-file for reading the Compose files, or NULL: the .env */
	bool rm;		 /* remove the container (and mark the row removed) afterwards */
	/* Set (by a signal handler) to stop the container early: it is stopped
	 * (SVC_RUN_STOP_TIMEOUT_S grace), then removed with RM as usual. */
	const volatile sig_atomic_t *cancel;
	svc_output_fn output;
	void *output_ctx;
	/* The task's plan (borrowed): `up` runs a template's migration with
	 * the plan it is applying. NULL: loaded from the Compose files the
	 * ledger records for the task. */
	const struct svc_plan *plan;
	/* Exceptions the trusted side grants this run besides those the
	 * task's latest up recorded (--allow), or NULL. Borrowed. */
	char *const *allow;
};

/* One-off container of SERVICE in TASK, as `docker compose run`: the
 * service's image, environment, volumes and networks from the task's
 * Compose file (recorded in the ledger), no published ports, labels
 * com.docker.compose.oneoff=True plus the task's, named
 * "<task>-<service>-run-<6 hex>" and recorded in the ledger (intended before
 * create, detail {"oneoff":true}) like any resource, so `down` removes it.
 * Runs it to the end, streaming its output to OPTS->output, and gives its
 * exit status in *EXIT_CODE and its name in *NAME_OUT (owned).
 * Errors: TE_E_NOTFOUND no such task; TE_E_USAGE unknown service, or the
 * task's networks are absent (not up). */
int svc_run(struct engine *e, struct ledger *l, const char *task, const struct svc_run_opts *opts,
	    int *exit_code, char **name_out, struct te_err *err);

#endif
