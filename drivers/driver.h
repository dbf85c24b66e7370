/* Task-scoped server resources (issue 4): one interface, one file per driver.
 *
 * A driver turns one declared resource (x-taskenv.resources.<key>) into
 * objects on a server the task does not own (a role and a schema on a
 * Postgres server, ...), and removes them again. Drivers know nothing of the
 * ledger, the engine or the Compose model: services/ hands them a recorder
 * and they report every step through it, so services/ can write the ledger
 * protocol around each object:
 *
 *   intend(kind, name, detail) -> [fault point] create on the server
 *   -> [fault point] created(row, id)
 *
 * The intended row is committed before the server call, so a process killed
 * in between leaves a row naming the object; teardown then finds it by name
 * and checks it is ours (Postgres: the role carries a COMMENT naming ledger
 * and task; schemas and databases must be owned by that role).
 *
 * Drivers never print and never exit; every function returns 0 / -1 and
 * fills ERR (last argument) with a message naming the resource key and the
 * server (host:port, never a password).
 *
 * Secrets. Admin URLs (which carry admin passwords) and the task's own
 * passwords never go into the ledger: the recorder stores them in the
 * task's secrets file (state/secrets.h, mode 0600) before the object that
 * uses them is created. The ledger's detail JSON holds only host, port,
 * database, user names. */
#ifndef TASKENV_DRIVERS_DRIVER_H
#define TASKENV_DRIVERS_DRIVER_H

#include <stdbool.h>
#include <stddef.h>

struct te_err;
struct cJSON;

/* One declared resource as a driver sees it. All strings borrowed. */
struct drv_spec {
	const char *task;      /* task name, already valid */
	const char *ledger_id; /* written into ownership marks on the server */
	const char *key;       /* resource key, [a-z][a-z0-9_]{0,29} */
	const char *server;    /* admin URL (a secret: never put it in a message) */
	const char *isolation; /* postgres: "schema" (default) or "database" */
	const char *tmpl;      /* postgres database mode: template database, or NULL */
	char *const *buckets;  /* s3: NULL-terminated bucket keys */
	const char *amqp_port; /* rabbitmq: the AMQP port clients use on the host side, or NULL:
				* the listener the server reports (wrong when it is remapped, as
				* for any RabbitMQ in a container: the shared one sets it) */
	/* The name an earlier `up` of this task recorded for the resource's
	 * primary object, or NULL: the driver derives it. Keeps a task made
	 * under an older naming rule on the names it has. */
	const char *name;
	/* postgres database mode: TMPL is a template taskenv built from the
	 * project's migrations (drivers/postgres.h): a spare database of its pool
	 * is taken when there is one (REC's claim), else it is cloned. */
	bool built;
};

/* How a driver records its steps (implemented by services/ over the
 * ledger and the secrets file). Every function returns 0 / -1 with ERR. */
struct drv_recorder {
	void *ctx;
	/* Commit an intended row for KIND NAME with DETAIL (JSON text, no
	 * secrets) before creating it; *ROW identifies it for created(). */
	int (*intend)(void *ctx, const char *kind, const char *name, const char *detail, long long *row,
		      struct te_err *err);
	/* The object exists now (ID: the server's name or id for it). */
	int (*created)(void *ctx, long long row, const char *id, struct te_err *err);
	/* The task's secret NAME: *OUT owned, or NULL when none is stored. */
	int (*secret_get)(void *ctx, const char *name, char **out, struct te_err *err);
	/* Store the task's secret NAME (replaces an older value). */
	int (*secret_put)(void *ctx, const char *name, const char *value, struct te_err *err);
	/* Take a spare object of KIND made for GROUP (a pool database of
	 * template GROUP) for this resource: its row moves to the task (state
	 * removing, so `down` removes it by name if the hand-out never ends) and
	 * *NAME / *ROW say which. This resource's earlier claim that never
	 * ended (a killed hand-out) comes first; with TAKE_NEW false only that
	 * one. *NAME (owned) is NULL when there is none. May be NULL: no pool. */
	int (*claim)(void *ctx, const char *kind, const char *group, bool take_new, char **name,
		     long long *row, struct te_err *err);
	/* Claimed row ROW is used up (its name no longer exists): removed. */
	int (*consumed)(void *ctx, long long row, struct te_err *err);
	/* Optional (may be NULL): the object of ROW was already on the server
	 * (create() returned 1), so the step is "exists", not "created" or
	 * "recreated". */
	void (*found)(void *ctx, long long row);
};

/* The ledger protocol around one driver object (ARCHITECTURE.md): commit
 * the intended row for KIND NAME with DETAIL, fault point "before-create",
 * CREATE(CTX, NAME), fault point "after-create", then record it created
 * under NAME. Every driver creates its objects through here, so a crash
 * between any two steps leaves a row that names what may exist. */
/* Create NAME: 0 created, 1 it was there already (and is ours), -1. */
typedef int (*drv_create_fn)(void *ctx, const char *name, struct te_err *err);
int drv_record(const struct drv_recorder *rec, const char *kind, const char *name, const char *detail,
	       drv_create_fn create, void *ctx, struct te_err *err);

/* A recorded object to remove: a ledger row plus what teardown needs. */
struct drv_ref {
	const char *task;
	const char *ledger_id;
	const char *kind;     /* e.g. "postgres-role" */
	const char *name;     /* the exact name on the server */
	const char *detail;   /* the JSON written at intend time, or NULL */
	const char *server;   /* admin URL from the secrets file, or NULL if lost */
	const char *password; /* the task's password for the resource, or NULL */
};

enum drv_removed {
	DRV_REMOVED,  /* it existed and is gone now */
	DRV_GONE,     /* it did not exist (never created, or removed by hand) */
	DRV_NOT_OURS, /* an object of that name exists but is not marked as ours: left alone */
};

/* The server container taskenv runs, one per driver, ledger and engine (or
 * per task: PER_TASK), for the resources that name no server:
 * (services/lifecycle/shared.c). Its
 * admin URL is SCHEME://USER:PASSWORD@127.0.0.1:<published ADMIN_PORT>PATH. */
struct drv_shared {
	const char *image;		  /* default image (the resource's image: overrides it) */
	const char *ports[3];		  /* container ports published on 127.0.0.1, NULL-terminated;
					   * [0] is the one tasks connect to */
	const char *admin_port;		  /* one of PORTS: where the admin URL points */
	const char *secret;		  /* the random admin password's name in the ledger's
					   * "_shared" secrets, or NULL: FIXED_PASSWORD */
	const char *fixed_password;	  /* the image's one credential when SECRET is NULL */
	const char *user_env;		  /* variable the image takes the admin user from, or NULL */
	const char *password_env;	  /* variable it takes the admin password from, or NULL */
	const char *scheme, *user, *path; /* of the admin URL */
	bool amqp;			  /* PORTS[0] as published is drv_spec.amqp_port */
	/* One container per task instead of one per ledger: on the task's own
	 * networks only, with a random USER and password of the task (kept in
	 * its secrets, handed over as USER_ENV / PASSWORD_ENV), removed by the
	 * task's `down` (svc_shared_start_task). For servers whose one identity
	 * would otherwise be every task's (s3rver). */
	bool per_task;
	const char *user_secret; /* PER_TASK: the name USER's random value is kept as */
};

struct drv_ops {
	const char *name; /* the `driver:` value, e.g. "postgres" */
	/* The ledger kinds it records, NULL-terminated, e.g. "postgres-role";
	 * each is a row of the kind table (services/lifecycle/kind.c). */
	const char *const *kinds;
	const char *primary_kind; /* the row describe() starts from, e.g. "postgres-role" */
	/* The keys of x-taskenv.resources.<key> it reads besides driver,
	 * server, image and container_host, NULL-terminated (may be NULL: none);
	 * the loader refuses the others. */
	const char *const *keys;
	/* The fields describe() returns, NULL-terminated: what `x-taskenv.env`
	 * may name after "<key>." (the loader checks them). */
	const char *const *fields;
	/* It takes buckets: (at least one), and describe() also returns
	 * bucket_<name> for each (the loader checks those against buckets:). */
	bool buckets;
	/* Its shared server container, or NULL when it has none. */
	const struct drv_shared *shared;
	/* Create (or take back, idempotently) everything SPEC asks for, each
	 * object recorded through REC first, then check the result
	 * (verify). */
	int (*provision)(const struct drv_spec *spec, const struct drv_recorder *rec, struct te_err *err);
	/* Connection values of a provisioned resource, from the primary row's
	 * DETAIL and the task's PASSWORD: an owned cJSON object of strings
	 * (postgres: url, host, port, user, password, database, schema). When
	 * HOST / PORT are non-NULL they replace the server's host and port
	 * (the container side). */
	struct cJSON *(*describe)(const char *detail, const char *password, const char *host,
				  const char *port, struct te_err *err);
	/* Wait until the server at admin URL SERVER answers, at most TIMEOUT_S
	 * seconds (a server container that is still starting). May be NULL. */
	int (*ready)(const char *server, int timeout_s, struct te_err *err);
	/* Remove one recorded object (*OUT says what happened). May keep an
	 * admin session open for the next call (postgres). */
	int (*teardown)(const struct drv_ref *ref, enum drv_removed *out, struct te_err *err);
	/* Close what teardown kept open. May be NULL. */
	void (*release)(void);
	/* Does the recorded object exist on its server, as ours (`verify`)?
	 * *OUT: DRV_REMOVED means present and ours, DRV_GONE absent,
	 * DRV_NOT_OURS present but not marked as ours. May be NULL. */
	int (*check)(const struct drv_ref *ref, enum drv_removed *out, struct te_err *err);
};

/* How many drivers this build has: drv_at(0 .. DRV_COUNT - 1). */
#define DRV_COUNT 3
const struct drv_ops *drv_at(size_t i);
/* The driver called NAME, or NULL. */
const struct drv_ops *drv_find(const char *name);
/* The driver owning ledger KIND, or NULL (engine kinds: container, ...). */
const struct drv_ops *drv_for_kind(const char *kind);
/* Call every driver's release(): after the last teardown of a `down`. */
void drv_release_all(void);
/* Comma-separated names of the drivers this build has, for messages. */
const char *drv_names(void);

/* Name of the secret holding the admin URL / the task password of KEY:
 * "server:KEY" / "password:KEY". Owned. */
char *drv_secret_server(const char *key);
char *drv_secret_password(const char *key);

/* A random password: 32 lowercase hex characters (128 bits, getrandom).
 * Owned; NULL with TE_E_IO when the kernel gives no randomness. */
char *drv_random_password(struct te_err *err);

/* The task's password for resource KEY, through REC's secrets: the stored
 * one, or a new random one stored before it is returned (so a role or
 * user made with it can always be logged into again after a crash).
 * *OUT owned (a secret). */
int drv_task_password(const struct drv_recorder *rec, const char *key, char **out, struct te_err *err);

/* An object name that needs no quoting anywhere (SQL included): only
 * [a-z0-9_]. PREFIX + TASK + "_" + KEY with every other character ('-')
 * turned into '_', cut to MAX - 9 bytes, then "_" + 8 hex digits of an
 * FNV-1a hash of "LEDGER_ID/TASK/KEY": tasks "feat-email" and "feat_email"
 * (and two ledgers' tasks of one name) never share a name. Owned. */
char *drv_plain_name(const char *prefix, const char *ledger_id, const char *task, const char *key,
		     size_t max);

/* An object name from the task and the resource key: PREFIX + TASK + "_" +
 * KEY with '-' kept, at most MAX bytes; longer names keep their first bytes
 * and end in "_" + 8 hex digits of an FNV-1a hash of the full name, so
 * distinct tasks keep distinct names. Owned. */
char *drv_object_name(const char *prefix, const char *task, const char *key, size_t max);

#endif
