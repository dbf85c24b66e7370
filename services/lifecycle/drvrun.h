/* The driver layer as services/ uses it: provisioning each declared
 * x-taskenv resource with the ledger protocol around every step, removing
 * one recorded driver object, and the values a task sees (env, injection).
 * The admin URL and the task's passwords live in the task's secrets file
 * (state/secrets.h), never in the ledger. */
#ifndef TASKENV_SERVICES_DRVRUN_H
#define TASKENV_SERVICES_DRVRUN_H

#include "drivers/driver.h"
#include "services/progress.h"

struct te_err;
struct ledger;
struct cJSON;
struct svc_project;
struct svc_service;
struct svc_resource;
struct state_resource;

/* Where each resource's server is: the admin URL (host side), what
 * containers use instead of its host and port (NULL: the same), and for
 * rabbitmq the host-side AMQP port (drv_spec.amqp_port; NULL: the server's
 * own listener). Borrowed. */
struct svc_drv_target {
	const char *server;
	const char *container_host;
	const char *container_port;
	const char *amqp_port;
	/* Called before the resource is provisioned, with the container-side
	 * VALUES of the resources provisioned before it (file order): makes the
	 * template a `template: {migrate: ...}` asks for ready and names it in
	 * *TMPL (owned; NULL leaves the resource's own template:). NULL: none. */
	int (*prepare)(void *ctx, const struct svc_resource *r, const struct svc_drv_target *t,
		       const struct cJSON *values, char **tmpl, struct te_err *err);
	void *prepare_ctx;
};

/* The pseudo-task that holds the rows and secrets of templates built from
 * migrations and of their pool databases (no task name starts with '_'):
 * they belong to no task; a pool database's row moves to the task it is
 * handed to. */
#define SVC_PG_OWNER "_pg"

/* A recorder over the ledger rows of TASK (KEY in their service column)
 * and TASK's secrets, for driver calls made outside svc_drivers_up
 * (templates, the pool refill). Borrows L, TASK and KEY. Owned. */
struct drv_recorder *svc_recorder_new(struct ledger *l, const char *task, const char *key);
void svc_recorder_free(struct drv_recorder *rec);

/* Provision every resource of PROJECT for TASK, in file order, on
 * TARGETS[i] (one per project resource). The admin URL is stored as a
 * secret first (so `down` can reach the server without the environment
 * `up` ran in). *VALUES (owned) maps resource key -> the container-side
 * values (driver describe()). Errors name the resource and the server. */
int svc_drivers_up(struct ledger *l, const struct svc_project *project, const char *task,
		   const struct svc_drv_target *targets, svc_progress_fn progress, void *progress_ctx,
		   struct cJSON **values, struct te_err *err);

/* Append to ENV (a cJSON array of "K=V" strings, borrowed) the variables
 * service S asks for under x-taskenv.env, from VALUES. */
int svc_drivers_inject(const struct svc_service *s, const struct cJSON *values, struct cJSON *env,
		       struct te_err *err);

/* Does the recorded driver object R exist on its server, as ours? (verify) */
int svc_driver_check(struct ledger *l, const struct state_resource *r, enum drv_removed *out,
		     struct te_err *err);

/* Remove the recorded driver object R of TASK (its kind has a driver). */
int svc_driver_down(struct ledger *l, const struct state_resource *r, enum drv_removed *out,
		    struct te_err *err);

/* Host-side lines for `env`: TASKENV_<KEY>_<FIELD>=value for each
 * provisioned resource (KEY, FIELD upper-cased), appended to *LINES. */
int svc_drivers_env(struct ledger *l, const char *task, char ***lines, struct te_err *err);

/* The host-side values (url, user, ...) of TASK's resource KEY whose
 * primary ledger row has kind KIND, as `taskenv env` prints them; owned
 * cJSON object, or NULL with *err set. Holds the task's password: never print. */
struct cJSON *svc_driver_describe(struct ledger *l, const char *task, const char *kind, const char *key,
				  struct te_err *err);

#endif
