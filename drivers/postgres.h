/* The postgres driver (libpq), talking to a server given by an admin URL.
 *
 * Object names: role = schema = database = drv_plain_name("te_", ledger,
 * task, key): only [a-z0-9_] (a task's '-' becomes '_'), ending in 8 hex
 * digits of a hash that keeps "feat-email" and "feat_email" apart, so
 * `set search_path to te_feat_email_db_1a2b3c4d` works unquoted. A task
 * recorded under the older rule ("te_<task>_<key>", '-' kept) keeps its
 * names (drv_spec.name); teardown only ever uses the names the ledger
 * holds. Every identifier still goes through PQescapeIdentifier, every
 * literal through PQescapeLiteral or a parameter.
 *
 * isolation: schema (default), in the admin URL's database:
 *   CREATE ROLE r LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE
 *     NOREPLICATION NOBYPASSRLS CONNECTION LIMIT 32 PASSWORD '<verifier>';
 *   COMMENT ON ROLE r IS 'taskenv ledger=<id> task=<task>'    (ownership mark)
 *   CREATE SCHEMA s AUTHORIZATION r;
 *   ALTER ROLE r IN DATABASE d SET search_path = s;
 * then verify: the role is no superuser and has no CREATE on schema public
 * (PostgreSQL 15 no longer grants that to PUBLIC; on a server that still
 * does, provisioning fails with the fix rather than revoking it from every
 * user of that server).
 * isolation: database:
 *   the same role, then CREATE DATABASE d OWNER r [TEMPLATE t];
 *   REVOKE CONNECT, TEMPORARY ON DATABASE d FROM PUBLIC.
 *   A hand-named template: clones are serialised with a session advisory
 *   lock (pg_advisory_lock(hashtextextended('taskenv-template:' || t, 0)))
 *   on the maintenance connection, so concurrent tasks never hit SQLSTATE
 *   55006; the template's tables, views, sequences and schemas are then
 *   handed to r (ALTER ... OWNER TO r) inside the clone.
 *   A template taskenv built (drv_spec.built, below): a spare database of
 *   its pool is renamed to d and its role to r when there is one (the
 *   hand-out: no new files), else it is cloned under the same lock taken
 *   shared (nobody can connect to such a template, so clones run side by
 *   side) and everything the template's role owns in the clone is given
 *   to r (REASSIGN OWNED BY, then DROP OWNED BY for its privileges).
 * (INHERIT stays on: the owner of a PostgreSQL 15 database reaches its
 * public schema through the implicit pg_database_owner membership.)
 *
 * Templates built from migrations (drv_pg_tpl_*): te_tpl_<16 hex of the
 * hash>, a login role and a database of that name it owns while the
 * migration runs, REVOKE CONNECT, TEMPORARY FROM PUBLIC, COMMENT
 * 'taskenv ledger=<id> template=<hash> building' on both. Ready: the role
 * loses LOGIN, the database gets ALLOW_CONNECTIONS false, IS_TEMPLATE true,
 * the admin as owner (so the template's role owns no shared object and one
 * REASSIGN OWNED in a clone takes every object of it, of any kind) and the
 * comment '... ready'. Builds hold the template lock exclusively for their
 * whole length, on a session of their own: concurrent `up`s wait for it
 * and clone; a builder killed by SIGKILL loses its session and with it the
 * lock, and the next builder (or gc) drops what it left.
 * The pool (drv_pg_pool_make): te_pool_<16 hex>_<8 random hex>, a login
 * role with no password and a clone of the template it owns, everything in
 * it already REASSIGNed to that role, REVOKE CONNECT FROM PUBLIC, COMMENT
 * 'taskenv ledger=<id> pool=<template>' on the role. A hand-out renames
 * the role and the database in one transaction and sets the task's
 * password and mark there too.
 *
 * Teardown (ledger rows newest first): database: DROP DATABASE d WITH
 * (FORCE) when owned by r; schema: DROP SCHEMA s CASCADE when owned by r;
 * role: when its COMMENT is our mark, pg_terminate_backend of its sessions,
 * DROP OWNED BY r, DROP ROLE r; template: when marked (IS_TEMPLATE false
 * first), its role when marked; pool database: when its role carries the
 * pool mark and owns it, then that role.
 *
 * Ledger kinds: "postgres-role", "postgres-schema", "postgres-database",
 * "postgres-template", "postgres-pool". Detail JSON of each row:
 * {"host","port","maintenance_db","database","isolation","role"} plus
 * "template" (the template cloned or built, or absent) and for a
 * template "hash" (no password). */
#ifndef TASKENV_DRIVERS_POSTGRES_H
#define TASKENV_DRIVERS_POSTGRES_H

#include "drivers/driver.h"

extern const struct drv_ops drv_postgres;

/* The cross-task probe of `taskenv verify`: connect with URL (one task's
 * own credentials) and ask the server what that role may do to another
 * task's object NAME: KIND "postgres-schema" checks USAGE or CREATE on the
 * schema, "postgres-database" CONNECT on the database (has_*_privilege).
 * *allowed is false too when no such object exists on that server.
 * -1 with TE_E_FAIL (naming the server, never the password) when the
 * connection or the query fails. */
int drv_pg_may_use(const char *url, const char *kind, const char *name, bool *allowed, struct te_err *err);

/* ---- templates built from migrations, and their pool ----
 * Used by services/lifecycle/pgtpl.c, which runs the migration container,
 * keeps the ledger rows and spawns the pool refill. */

/* "host:port/database" of admin URL URL (no credentials): which server a
 * template is on, part of its identity. Owned. */
char *drv_pg_server_id(const char *url);

/* URL is a postgresql:// (or postgres://) URL whose parameters are only
 * host, hostaddr, port, dbname, user, password, sslmode,
 * connect_timeout, application_name, target_session_attrs: no
 * keyword=value string, nothing that names a file (passfile, sslkey,
 * service ...). Every connection of the driver checks it. */
bool drv_pg_url_ok(const char *url);

/* "te_tpl_" + the first 16 hex digits of HASH (64 hex digits). Owned. */
char *drv_pg_template_name(const char *hash);

enum drv_pg_tpl_state {
	DRV_PG_TPL_ABSENT, /* no such database or role */
	DRV_PG_TPL_STALE,  /* ours but not ready: a build that failed or was killed */
	DRV_PG_TPL_READY,  /* marked ready */
};

/* An admin session holding the template lock of NAME exclusively. */
struct drv_pg_tpl;

/* Connect to SERVER (admin URL) and take NAME's template lock
 * exclusively; NAME was built from HASH for ledger LEDGER_ID. WAIT false:
 * 1 at once when another session holds it (a build, a clone), nothing
 * kept. 0 with *OUT (drv_pg_tpl_close) when held. */
int drv_pg_tpl_open(const char *server, const char *ledger_id, const char *name, const char *hash, bool wait,
		    struct drv_pg_tpl **out, struct te_err *err);
/* Releases the lock with the session. NULL is a no-op. */
void drv_pg_tpl_close(struct drv_pg_tpl *t);
/* What exists of it on the server. TE_E_CONFLICT when a database or role
 * of that name is not marked as this ledger's. */
int drv_pg_tpl_state(struct drv_pg_tpl *t, enum drv_pg_tpl_state *out, struct te_err *err);
/* The ledger detail of the template row (no secret). Owned. */
char *drv_pg_tpl_detail(const struct drv_pg_tpl *t);
/* Drop what a killed build left (only what carries the mark), then create
 * the role (login, PASSWORD hashed here) and the database it owns, marked
 * "building", REVOKE CONNECT, TEMPORARY FROM PUBLIC. */
int drv_pg_tpl_create(struct drv_pg_tpl *t, const char *password, struct te_err *err);
/* The migration exited 0: no more logins or connections, its sessions
 * ended, IS_TEMPLATE, owner the admin, marked "ready" (one transaction). */
int drv_pg_tpl_mark_ready(struct drv_pg_tpl *t, struct te_err *err);
/* Drop the database and the role (what carries the mark). */
int drv_pg_tpl_drop(struct drv_pg_tpl *t, struct te_err *err);

/* Make one spare database of ready template TMPL on SERVER, recorded
 * through REC first (kind "postgres-pool", created only when it is complete:
 * a refill killed half-way leaves an intended row naming it). *NAME owned. */
int drv_pg_pool_make(const char *server, const char *ledger_id, const char *tmpl,
		     const struct drv_recorder *rec, char **name, struct te_err *err);

#endif
