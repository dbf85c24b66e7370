/* Resource kinds: every kind of object the ledger records (the kind column
 * of resources), one row each in one table (reskind.c) with what the verbs
 * do with it, so no verb compares kind strings of its own.
 *
 * Engine objects (containers, networks, volumes, images) carry the engine
 * calls that find, list and remove them; driver objects (a Postgres role,
 * a RabbitMQ vhost, an S3 bucket, ...) name their driver, which creates,
 * checks and removes them (drivers/driver.h). Adding a kind: one enum
 * value and one row (docs/internals/EXTENDING.md, "A new resource kind"). */
#ifndef TASKENV_SERVICES_LIFECYCLE_RESKIND_H
#define TASKENV_SERVICES_LIFECYCLE_RESKIND_H

#include <stdbool.h>

struct cJSON;
struct engine;
struct ledger;
struct te_err;

enum svc_res_kind {
	SVC_RES_CONTAINER,
	SVC_RES_NETWORK,
	SVC_RES_VOLUME,
	SVC_RES_IMAGE,
	SVC_RES_POSTGRES_ROLE,
	SVC_RES_POSTGRES_SCHEMA,
	SVC_RES_POSTGRES_DATABASE,
	SVC_RES_POSTGRES_TEMPLATE, /* a template built from migrations (pseudo-task "_pg") */
	SVC_RES_POSTGRES_POOL,	   /* a spare database of one; a task's while its hand-out runs */
	SVC_RES_RABBITMQ_USER,
	SVC_RES_RABBITMQ_VHOST,
	SVC_RES_S3_BUCKET,
	SVC_RES_S3_SERVER, /* a task's own s3rver container (shared.h, per task) */
	SVC_RES_BROKER,	   /* the task's Engine API broker: a host process (broker.h) */
	SVC_RES_COUNT,
	SVC_RES_UNKNOWN = -1, /* a kind this build does not know (svc_res_kind_of) */
};

/* What the contract says of a driver kind's credentials. */
enum svc_res_cred {
	SVC_CRED_NONE,	 /* an object a login is scoped to (schema, database, vhost) */
	SVC_CRED_OWN,	 /* the task's own login (a Postgres role, a RabbitMQ user) */
	SVC_CRED_SHARED, /* one identity for every task on the server (s3rver): the object is the scope */
};

struct svc_res_kind_ops {
	enum svc_res_kind kind;
	const char *name;   /* as stored in the ledger, shown by ps, progress and events */
	const char *driver; /* the driver that owns it (drv_find), NULL for an engine object */
	enum svc_res_cred cred;
	/* `down` removes kinds in rising order: containers (0) before the
	 * driver objects they use (1), then the task's own server containers
	 * those lived on (2), networks (3), images (4), volumes (5). */
	int down_order;
	/* An engine container (the service containers, a task's own server):
	 * what the engine lists as containers may be a row of this kind. */
	bool container;

	/* ---- host processes taskenv started for the task (the broker) ----
	 * The row's name is what it serves at (a socket), its engine id
	 * "PID:START". `down` stops them before anything else (an agent must
	 * not act through one while the task goes); `gc` clears the rows of
	 * dead ones. */
	bool (*proc_alive)(const char *engine_id);
	int (*proc_stop)(const char *name, const char *engine_id, struct te_err *err);

	/* ---- engine objects only (NULL / false for driver and process kinds) ---- */
	/* Found and removed by the ledger's name, not the engine id: a volume's
	 * name is its id; an image's tag moves with a rebuild and the tag is
	 * what the ledger owns. */
	bool by_name;
	/* GET /<kind>/{REF}/json: *out owned. */
	int (*inspect)(struct engine *e, const char *ref, struct cJSON **out, struct te_err *err);
	/* The objects carrying LABEL (engine_*_list), *out an owned array; NULL
	 * for kinds no verb lists by label (images). */
	int (*list)(struct engine *e, const char *label, struct cJSON **out, struct te_err *err);
	/* The name of one entry of list()'s answer (a container's "/name" without
	 * the slash), borrowed, or NULL. */
	const char *(*entry_name)(const struct cJSON *entry);
	/* The field of a list entry to remove it by ("Id"; volumes: "Name"). */
	const char *entry_ref;
	/* Remove REF. Containers: stopped first, giving STOP_TIMEOUT seconds
	 * (< 0: not stopped, removed by force at once), a container already
	 * gone when stopped is not an error. Others ignore STOP_TIMEOUT. */
	int (*remove)(struct engine *e, const char *ref, int stop_timeout, struct te_err *err);
	/* Before REF of TASK is removed (svc_res_before_remove): refuse while
	 * something outside the task uses it, then let go of what taskenv holds
	 * it with (the shared server containers are detached from a task
	 * network). May be NULL. */
	int (*before_remove)(struct engine *e, struct ledger *l, const char *task, const char *ref,
			     struct te_err *err);
	/* After `down` marked NAME removed: what the ledger kept for it goes
	 * back (a network's subnet to the pool). May be NULL. */
	int (*after_remove)(struct ledger *l, const char *name, struct te_err *err);
};

/* The row of K (0 <= K < SVC_RES_COUNT); a broken K is a bug (aborts). */
const struct svc_res_kind_ops *svc_res_kind(enum svc_res_kind k);
/* The row whose ledger name is NAME, or NULL for an unknown kind. */
const struct svc_res_kind_ops *svc_res_kind_find(const char *name);

/* For each kind the engine lists by label (containers, networks, volumes),
 * in down order (containers first: they hold the rest): list the objects
 * carrying LABEL ("key" or "key=value", engine_*_list) and call FN on each
 * entry (borrowed for the call). Stops at the first FN that returns -1;
 * a failed list fails with "PREFIX: list KINDs: ..." (PREFIX borrowed). */
typedef int (*svc_res_entry_fn)(void *ctx, const struct svc_res_kind_ops *k, const struct cJSON *entry,
				struct te_err *err);
int svc_res_each_labelled(struct engine *e, const char *label, const char *prefix, svc_res_entry_fn fn,
			  void *ctx, struct te_err *err);
/* The kind called NAME, or SVC_RES_UNKNOWN. */
enum svc_res_kind svc_res_kind_of(const char *name);
/* The ledger name of K (static). */
const char *svc_res_kind_name(enum svc_res_kind k);
/* Is K an engine object (not a driver's, not a host process)? */
bool svc_res_kind_engine(enum svc_res_kind k);
/* Rows of kind NAME are engine containers (svc_res_kind_ops.container). */
bool svc_res_kind_container(const char *name);
/* Is K a host process (proc_stop set)? */
bool svc_res_kind_process(enum svc_res_kind k);

/* Make engine object REF of TASK (kind K; REF as k->remove takes it: a
 * network's id, a volume's name) ready to be removed, or refuse:
 * every path that removes or recreates a task's network or volume calls
 * this first, right before its DELETE (down, gc of expired or retained
 * tasks and of orphans, reconcile's recreate). A network or volume that a
 * container outside TASK uses is kept: -1 with TE_E_CONFLICT naming the
 * container(s) (svc_res_refuse_foreign, inuse.h), and the caller leaves
 * its row pending. Then the shared server containers leave a network and
 * endpoints dockerd kept for gone containers are dropped. TASK NULL: an
 * orphan gc found by its labels, which every container but this ledger's
 * shared servers keeps. Kinds without a hook: 0. */
int svc_res_before_remove(struct engine *e, struct ledger *l, const char *task, enum svc_res_kind k,
			  const char *ref, struct te_err *err);

/* Inspect the object of a ledger row: by its engine id, or by NAME when the
 * kind is found by name or no id was recorded yet (an intended row). A
 * driver kind or an unknown one fails with TE_E_FAIL naming it. */
int svc_res_inspect(struct engine *e, const char *kind, const char *name, const char *engine_id,
		    struct cJSON **out, struct te_err *err);

#endif
