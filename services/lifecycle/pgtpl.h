/* Postgres templates built from a project's migrations, and their pool of
 * spare clones (issue 15; the server side is drivers/postgres.h).
 *
 * Identity. A template's name is te_tpl_<first 16 hex of a SHA-256> over:
 * the ledger id and the project directory (templates are never shared
 * between projects or ledgers), the server (host:port/database of the
 * admin URL: a template lives on one server), the migration service's
 * image ID, the
 * migration command, and the content of every listed input (paths inside
 * the project: each resolved with realpath, every symlink followed, and
 * refused when it leads outside; directories walked in name order, each
 * file's path relative to the input and its bytes). Change any of them and
 * the next `up` builds a new template; tasks cloned from the old one keep
 * their databases.
 *
 * Ledger. Template and pool rows belong to pseudo-task SVC_PG_OWNER
 * ("_pg"): kinds "postgres-template" (service: its own name; created =
 * ready) and "postgres-pool" (service: the template). Their admin URL and
 * the template role's password are "_pg" secrets (server:<template>,
 * password:<template>). A hand-out moves a pool row to the task
 * (state_resource_claim), so a hand-out killed half-way leaves a row of
 * the task that `down` removes by name.
 *
 * Build. Under the template lock (a Postgres advisory lock on a session of
 * its own, drivers/pg_template.c): intended row, role and database marked
 * "building", the migration as a one-off container of the service
 * (svc_run, so through the same code and gate as `taskenv run`, on the
 * task's networks, with the template's connection in the variables the
 * service's x-taskenv.env names), ready mark, created row. A failed
 * migration drops both and leaves the row removed; its exit status, the
 * command and its last lines of output go into the error and the events.
 *
 * Pool. After a successful `up` that used built templates, svc_pool_spawn
 * starts `taskenv --pool-refill` as a process of its own (setsid, not
 * waited for), which under the flock "<ledger>.locks/_pg.lock" first
 * removes pool rows a killed refill left intended, then makes each
 * template's pool up to pool_size (or trims it). A hand-out takes no lock
 * of the refill: it claims a created row in the ledger and renames what
 * the refill finished. */
#ifndef TASKENV_SERVICES_LIFECYCLE_PGTPL_H
#define TASKENV_SERVICES_LIFECYCLE_PGTPL_H

#include <stdbool.h>
#include <stddef.h>

#include "services/progress.h"

struct te_err;
struct cJSON;
struct engine;
struct ledger;
struct svc_project;
struct svc_plan;
struct svc_resource;
struct svc_tmpl_build;
struct svc_drv_target;

/* The SHA-256 (64 lowercase hex + NUL in HEX) of a template of the
 * project in PROJECT_DIR built from INPUTS (paths relative to it) by
 * ENTRYPOINT + COMMAND (NULL-terminated, each may be NULL) in image IMAGE_ID,
 * on server SERVER_ID (drv_pg_server_id), for ledger LEDGER_ID (see above). TE_E_USAGE naming the input when
 * one cannot be read, leads out of the project (after every symlink), is neither a file nor a directory, or
 * the inputs pass 256 MiB. */
int svc_tmpl_hash(const char *project_dir, char *const *inputs, char *const *entrypoint, char *const *command,
		  const char *image_id, const char *server_id, const char *ledger_id, char hex[65],
		  struct te_err *err);

/* Is TMPL (may be NULL) a template taskenv built from migrations and
 * recorded ready in ledger L (a created "postgres-template" row of
 * SVC_PG_OWNER)? What the policy gate may accept as a template not named
 * from the trusted side. */
int svc_tmpl_built(struct ledger *l, const char *tmpl, bool *built, struct te_err *err);

/* Before `up` creates anything: every server: URL of PROJECT (borrowed)
 * has its driver's scheme (TE_E_USAGE), and every Postgres `template:
 * NAME` may be cloned: never a system database (postgres, template0, template1) nor a
 * database any task of ledger L holds (a postgres-database or pool row),
 * even when granted; else a template taskenv built (svc_tmpl_built) or
 * one the trusted side granted: "template:NAME" in ALLOW (--allow or the
 * user config's allow:, NULL-terminated or NULL; a Compose file's
 * x-taskenv.allow never counts). TE_E_POLICY "FILE:LINE:COL: resource
 * 'KEY': template: ..." naming the --allow that would grant it. */
int svc_resources_admit(struct ledger *l, const struct svc_project *project, char *const *allow,
			struct te_err *err);

/* The scheme part of svc_resources_admit alone (no ledger): for check. */
int svc_resources_schemes(const struct svc_project *project, struct te_err *err);

/* What svc_tmpl_prepare needs from the `up` that calls it. */
struct svc_tmpl_ctx {
	struct engine *e;
	struct ledger *l;
	const struct svc_plan *plan; /* borrowed; its task's networks exist */
	svc_progress_fn progress;    /* may be NULL */
	void *progress_ctx;
	char **used; /* templates this `up` used (owned, NULL-terminated): the refill's list */
};

/* svc_drv_target.prepare for a resource with template: {migrate: ...}:
 * the template built (once, under its lock) or found ready; *TMPL owned. */
int svc_tmpl_prepare(void *ctx, const struct svc_resource *r, const struct svc_drv_target *t,
		     const struct cJSON *values, char **tmpl, struct te_err *err);

/* Start `taskenv --state <ledger> --pool-refill NAME...` detached (its
 * own session, stdio on /dev/null, no descriptor of ours) and return at
 * once; the refill records its pid in an event. It reads pool_size
 * itself. */
int svc_pool_spawn(struct ledger *l, char *const *names, struct te_err *err);

/* The refill, under the "_pg" lock (waited for): pool rows left intended
 * by a killed refill removed, then each template in NAMES (NULL: every
 * ready one) given SIZE spare databases (more are removed). *MADE counts
 * the new ones. */
int svc_pool_refill(struct ledger *l, char *const *names, long size, size_t *made, struct te_err *err);

struct svc_tmpl_gc_result {
	size_t removed;	  /* templates and pool databases removed */
	size_t kept;	  /* in use, being built, or younger than the age */
	size_t remaining; /* a removal failed: pending */
};

/* gc of templates and pools (under the "_pg" lock, skipped when a refill
 * holds it): rows a killed build or refill left (when no build holds the
 * template's lock), then each ready template no task of the ledger was
 * cloned from and unused for AGE_S seconds, with its pool. */
int svc_tmpl_gc(struct ledger *l, long long age_s, bool dry_run, svc_progress_fn progress, void *pctx,
		struct svc_tmpl_gc_result *res, struct te_err *err);

#endif
