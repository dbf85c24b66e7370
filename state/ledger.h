/* The sqlite ledger: what each task owns, recorded *before* it is created.
 * Knows nothing of engines or drivers.
 *
 * Protocol (ARCHITECTURE.md): a resource row moves
 *   intended -> created (engine id recorded) -> removing -> removed,
 * or to pending when a removal failed (the next down/gc retries it).
 * Every write is its own committed transaction, so a SIGKILL at any point
 * leaves a row that names what might exist.
 *
 * The database: mode 0600 (parent directory created 0700), WAL, busy timeout
 * 10 s, schema versioned with PRAGMA user_version and migrated on open.
 * All functions return 0 / -1 with TE_E_STATE (sqlite's message) unless
 * noted; strings in returned structs are owned by the struct (free with the
 * matching *_free). */
#ifndef TASKENV_STATE_LEDGER_H
#define TASKENV_STATE_LEDGER_H

#include <stdbool.h>
#include <stddef.h>

struct te_err;
struct ledger;

/* $XDG_STATE_HOME/taskenv/state.db, else $HOME/.local/state/taskenv/state.db
 * (TASKENV_STATE is the state setting, which cmd/ passes to state_open as
 * its path). Empty variables count as unset, and a
 * relative $XDG_STATE_HOME is ignored (XDG spec). Owned; NULL only when no
 * home directory is known ($HOME unset and no passwd entry). */
char *state_default_path(void);

/* Open (creating and migrating) the ledger at PATH (NULL: the default).
 * Creates a random ledger id (16 hex chars) on first open. Owned handle.
 * Missing parent directories are created 0700 and a new database file 0600;
 * the mode of an existing file is left alone. Safe to call from several
 * processes at once on a fresh path: each migration runs under
 * BEGIN IMMEDIATE and re-checks the version. Errors: TE_E_IO (directory or
 * file creation, randomness), TE_E_STATE (sqlite, or a schema newer than
 * this build). */
struct ledger *state_open(const char *path, struct te_err *err);
void state_close(struct ledger *l);		     /* NULL is a no-op */
const char *state_ledger_id(const struct ledger *l); /* borrowed */
/* The ledger id kept in the ledger file PATH, read-only (*id_out owned):
 * 1 found, 0 PATH is no ledger (not SQLite, or no id), -1 it cannot be read. */
int state_ledger_id_of_file(const char *path, char **id_out, struct te_err *err);
/* Does a ledger file directly under DIR hold ledger id ID? 1 yes (*file_out
 * owned: its path), 0 no, -1 DIR cannot be read. */
int state_ledger_find_id(const char *dir, const char *id, char **file_out, struct te_err *err);
const char *state_path(const struct ledger *l); /* borrowed */
/* The verb (e.g. "up", "down") that later events are recorded under; copied. */
void state_set_verb(struct ledger *l, const char *verb);
/* PRAGMA user_version of a ledger this build has migrated: the number of
 * migrations in ledger.c. */
int state_schema_version(void);

/* ---- tasks ---- */
struct state_task {
	char *name;
	char *project_dir;
	char *compose_files; /* JSON array text of absolute paths */
	char *engine;	     /* socket path the task was created on */
	char *status;	     /* "up", "partial", "down", ... free text set by services/ */
	long long created;   /* unix seconds */
	long long updated;   /* unix seconds */
	/* Owner (migration 2): the process that holds the task, see state/owner.h. */
	char *owner_host;	 /* gethostname(), NULL when never recorded */
	long long owner_pid;	 /* 0 when never recorded */
	long long owner_start;	 /* field 22 of /proc/<pid>/stat (clock ticks after boot) */
	char *owner_user;	 /* login name or uid */
	long long lease_expires; /* unix seconds; 0: no lease */
	long long retain_until;	 /* unix seconds; 0: not retained */
	char *retain_owner;	 /* who asked for the retention, or NULL */
	char *retain_reason;	 /* why, or NULL */
	/* Migration 8: the identity of the engine the task was created on
	 * (services/lifecycle/identity.h), NULL when never recorded. */
	char *engine_id;
};
void state_task_release(struct state_task *t);
void state_tasks_free(struct state_task *v, size_t n);

/* Insert or update the task row (created is kept on update). */
int state_task_upsert(struct ledger *l, const char *name, const char *project_dir, const char *compose_files,
		      const char *engine, const char *status, struct te_err *err);
/* TE_E_NOTFOUND when there is no such task. */
int state_task_set_status(struct ledger *l, const char *name, const char *status, struct te_err *err);
/* TE_E_NOTFOUND when there is no such task. */
int state_task_get(struct ledger *l, const char *name, struct state_task *out, struct te_err *err);
/* The policy exceptions the task was brought up with: ALLOW_JSON a JSON
 * array of names (borrowed), stored as given. TE_E_NOTFOUND when there is
 * no such task. */
int state_task_set_allow(struct ledger *l, const char *name, const char *allow_json, struct te_err *err);
/* Record ENGINE_ID (borrowed) as the identity of task NAME's engine.
 * TE_E_NOTFOUND when there is no such task. */
int state_task_set_engine_id(struct ledger *l, const char *name, const char *engine_id, struct te_err *err);
/* *allow_json owned, NULL when none was recorded. TE_E_NOTFOUND when there is no such task. */
int state_task_get_allow(struct ledger *l, const char *name, char **allow_json, struct te_err *err);
/* All tasks ordered by name; *out owned (state_tasks_free). */
int state_task_list(struct ledger *l, struct state_task **out, size_t *n, struct te_err *err);
/* Delete the task row; refused (TE_E_CONFLICT) while it has resources not
 * in state removed or port reservations. The task's removed resource rows
 * are deleted with it (the events table is the history), so a task name
 * used again starts with an empty resource list. TE_E_NOTFOUND when there
 * is no such task row. */
int state_task_delete(struct ledger *l, const char *name, struct te_err *err);

/* ---- resources ---- */
#define STATE_INTENDED "intended"
#define STATE_CREATED "created"
#define STATE_REMOVING "removing"
#define STATE_REMOVED "removed"
#define STATE_PENDING "pending"

struct state_resource {
	long long id;
	char *task;
	char *kind;	 /* "container", "network", "volume", later "postgres-schema", ... */
	char *name;	 /* the exact name given to the engine/driver */
	char *engine_id; /* NULL until created */
	char *service;	 /* the Compose service/key it came from, or NULL */
	char *state;	 /* one of STATE_* */
	char *detail;	 /* free JSON text or NULL (never secrets) */
	long long created;
	long long updated;
};
void state_resources_free(struct state_resource *v, size_t n);

/* Record the intent to create KIND NAME for TASK (state intended) and commit.
 * Idempotent: when TASK already holds an active (not removed) row for KIND
 * NAME, returns that row's id unchanged. When another task holds an active
 * row with that KIND NAME, fails with TE_E_CONFLICT. */
int state_resource_intend(struct ledger *l, const char *task, const char *kind, const char *name,
			  const char *service, long long *id_out, struct te_err *err);
/* Record the engine id and move to created. The id-taking functions below
 * fail with TE_E_NOTFOUND when no row has ID. */
int state_resource_created(struct ledger *l, long long id, const char *engine_id, struct te_err *err);
/* Move to STATE (one of STATE_*; anything else fails with TE_E_STATE). */
int state_resource_set_state(struct ledger *l, long long id, const char *state, struct te_err *err);
/* Set the detail JSON text (NULL clears it). */
int state_resource_set_detail(struct ledger *l, long long id, const char *detail, struct te_err *err);
/* Rename row ID to NAME (up's recreate: the new container, created under
 * a temporary name, takes the old one's). Fails with TE_E_STATE when an
 * active row already has KIND NAME. */
int state_resource_rename(struct ledger *l, long long id, const char *name, struct te_err *err);
/* Rows of TASK in insertion order; removed rows only when INCLUDE_REMOVED. */
int state_resource_list(struct ledger *l, const char *task, bool include_removed, struct state_resource **out,
			size_t *n, struct te_err *err);

/* Rows of KIND of every task (pseudo-tasks such as "_pg" included), not
 * removed, in insertion order. */
int state_resource_list_kind(struct ledger *l, const char *kind, struct state_resource **out, size_t *n,
			     struct te_err *err);

/* Bump the updated time of created row ID (no event: nothing about it
 * changed; gc reads it as "last used"). TE_E_NOTFOUND when no created row
 * has ID (gc may be removing it). */
int state_resource_touch(struct ledger *l, long long id, struct te_err *err);

/* Move row ID from state FROM to TO only if it is still in FROM (one
 * transaction, with its event): *MOVED says whether it was. What removes a
 * spare uses it, so a spare a task claimed meanwhile is never removed. */
int state_resource_transition(struct ledger *l, long long id, const char *from, const char *to, bool *moved,
			      struct te_err *err);

/* Hand a spare object over to TASK, in one BEGIN IMMEDIATE transaction
 * (state/claim.c): TASK's row of KIND for SERVICE still in state removing
 * (an earlier claim whose hand-out never ended) comes first; else, when
 * TAKE_NEW, the oldest created row of KIND that FROM_TASK holds for
 * GROUP (its service column) moves to TASK with service SERVICE and state
 * removing (event "claimed by TASK"). *ID and *NAME (owned) name the row;
 * *NAME is NULL when there is none. */
int state_resource_claim(struct ledger *l, const char *from_task, const char *kind, const char *group,
			 const char *task, const char *service, bool take_new, long long *id, char **name,
			 struct te_err *err);

/* Does any task hold an active (not removed) row for KIND NAME? 1 yes, 0
 * no, -1 on error. For gc: an engine object with our labels and no row is
 * an orphan. */
int state_resource_held(struct ledger *l, const char *kind, const char *name, struct te_err *err);

/* ---- host ports ---- */
struct state_port {
	char *task;
	char *service;
	int replica; /* the container's number, 1..N */
	int container_port;
	char proto[8];
	char *host_ip;
	int host_port;
};
void state_ports_free(struct state_port *v, size_t n);

/* Is HOST_IP:PORT (PROTO) free on this machine? Return 0 if free, -1 if not. */
typedef int (*state_port_probe_fn)(const char *host_ip, int port, const char *proto, void *ctx);

/* The default probe (CTX unused): bind(2) a fresh socket to HOST_IP:PORT
 * without SO_REUSEADDR and close it; SOCK_STREAM for "tcp", SOCK_DGRAM for
 * "udp", SCTP for "sctp". 0 when the bind succeeds, -1 when it fails for any
 * reason (in use, EACCES below 1024, an address not on this host, a HOST_IP
 * that does not parse). A socket that cannot be created at all (no SCTP in
 * the kernel, unknown PROTO) counts as free: the engine reports a real clash.
 * HOST_IP is an IPv4 or IPv6 literal; it is IPv6 when it contains ':'. */
int state_port_probe_bind(const char *host_ip, int port, const char *proto, void *ctx);
/* The same with SO_REUSEADDR: -1 only when another socket holds the port
 * for good (a listener, a bound UDP socket), not for a TIME_WAIT. What
 * tells "another process took the task's port" (up, start): a recent
 * connection to the task's own container must not read as that. */
int state_port_probe_listen(const char *host_ip, int port, const char *proto);

/* Reserve a host port for TASK/SERVICE/CONTAINER_PORT/PROTO on HOST_IP inside
 * one BEGIN IMMEDIATE transaction (unique on host_ip + host_port + proto):
 *  - the same task/service/container_port/proto already holds one on
 *    HOST_IP: reuse it (no probe: our own container may be holding it);
 *    one held on another HOST_IP is dropped and a new one chosen;
 *  - else HINT if it lies in [LO, HI], is unreserved and PROBE says free;
 *  - else scan [LO, HI] from a start derived from a hash (FNV-1a) of
 *    "task/service/container_port/proto", so tasks spread out and a task
 *    tends to get the same port again, skipping reserved ports and those
 *    PROBE reports busy.
 * A port counts as reserved when a row holds it with the same PROTO on
 * HOST_IP, or when either address is a wildcard ("0.0.0.0", "::").
 * HOST_IP NULL means "127.0.0.1"; HINT 0 means none; PROBE NULL means every
 * unreserved port is free. *PORT_OUT is set only on success.
 * Errors: TE_E_USAGE for 1 <= LO <= HI <= 65535 not holding, a container
 * port outside 1-65535 or a PROTO not 1-7 chars; exhausted: TE_E_PORTS
 * "no free host port in LO-HI for service 'SVC' port P (N reserved in the
 * ledger); widen the range or bring a task down"; TE_E_STATE otherwise. */
int state_port_reserve(struct ledger *l, const char *task, const char *service, int container_port,
		       const char *proto, const char *host_ip, int hint, int lo, int hi,
		       state_port_probe_fn probe, void *probe_ctx, int *port_out, struct te_err *err);
/* The same for replica REPLICA (>= 1) of SERVICE: each replica holds its
 * own ports (state_port_reserve is replica 1). Replicas above 1 scan from
 * a hash that includes their number; HINT applies as for any reservation. */
int state_port_reserve_replica(struct ledger *l, const char *task, const char *service, int replica,
			       int container_port, const char *proto, const char *host_ip, int hint, int lo,
			       int hi, state_port_probe_fn probe, void *probe_ctx, int *port_out,
			       struct te_err *err);
/* Reservations of TASK (NULL: all tasks), ordered by task, service,
 * replica, container port, proto. *out owned (state_ports_free). */
int state_port_list(struct ledger *l, const char *task, struct state_port **out, size_t *n,
		    struct te_err *err);
/* Drop every reservation of TASK. */
int state_port_release_task(struct ledger *l, const char *task, struct te_err *err);
/* Drop the reservations of SERVICE's replica REPLICA of TASK (scaled down). */
int state_port_release_replica(struct ledger *l, const char *task, const char *service, int replica,
			       struct te_err *err);

/* ---- events (the audit trail) ----
 * Every ledger change is also a row in the events table, written by the
 * function that makes the change: task upsert/status/delete, resource
 * intend/created/state/detail (in the same transaction as the change), port
 * reservation and release, worktree add/remove. Columns: id, ts (unix
 * seconds), task, verb (state_set_verb; NULL outside a verb), resource
 * ("container t1-app-1", "port 127.0.0.1:20001->3000/tcp", "task",
 * "worktree"), outcome ("intended", "created", "removed", "reserved", a task
 * status...), message (free text, never secrets). Rows are never deleted. */
struct state_event {
	long long id;
	long long ts;
	char *task;
	char *verb;
	char *resource;
	char *outcome;
	char *message;
};
void state_events_free(struct state_event *v, size_t n);

/* Append an audit record (ts = now) under the current verb. Any of TASK,
 * VERB, MESSAGE may be NULL; VERB NULL means the current verb. */
int state_event_add(struct ledger *l, const char *task, const char *verb, const char *message,
		    struct te_err *err);
/* Append an event naming RESOURCE (e.g. "exec app") and OUTCOME (e.g.
 * "exit 7") with MESSAGE (e.g. JSON text; the caller caps it and keeps
 * secrets out) for TASK, under the current verb: the journal of exec/run. */
int state_event_journal(struct ledger *l, const char *task, const char *resource, const char *outcome,
			const char *message, struct te_err *err);
/* Did the ledger ever know TASK (any event names it, also after its row
 * was deleted by `down`: the events are its tombstone)? 1 yes, 0 no, -1. */
int state_task_known(struct ledger *l, const char *task, struct te_err *err);
/* Events of TASK (NULL: all) in order of id. *out owned (state_events_free). */
int state_event_list(struct ledger *l, const char *task, struct state_event **out, size_t *n,
		     struct te_err *err);

/* ---- worktrees (the source boundary) ---- */
struct state_worktree {
	char *task;
	char *repo;	      /* absolute git common dir of the repository */
	char *path;	      /* absolute worktree path */
	char *branch;	      /* e.g. "task/t1" */
	char *base;	      /* full commit id the branch started at */
	char *initial_status; /* `git status --porcelain` right after creation */
	long long created;
};
void state_worktree_release(struct state_worktree *w);

/* Record TASK's worktree (one per task): TE_E_CONFLICT when TASK has one. */
int state_worktree_add(struct ledger *l, const struct state_worktree *w, struct te_err *err);
/* TE_E_NOTFOUND when TASK has none. */
int state_worktree_get(struct ledger *l, const char *task, struct state_worktree *out, struct te_err *err);
/* The worktree whose path is PATH or contains it; TE_E_NOTFOUND if none. */
int state_worktree_find_path(struct ledger *l, const char *path, struct state_worktree *out,
			     struct te_err *err);
/* Forget TASK's worktree (the events keep its history). */
int state_worktree_delete(struct ledger *l, const char *task, struct te_err *err);

#endif
