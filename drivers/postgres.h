/* The postgres driver (libpq), talking to a server given by an admin URL.
 *
 * isolation: schema (default), in the admin URL's database:
 *   CREATE ROLE r LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE
 *     NOREPLICATION NOBYPASSRLS CONNECTION LIMIT 32 PASSWORD '...';
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
 *   Clones of one template are serialised with a session advisory lock
 *   (pg_advisory_lock(hashtextextended('taskenv-template:' || t, 0))) taken
 *   on the maintenance connection, so concurrent tasks never hit SQLSTATE
 *   55006; the template's tables, views, sequences and schemas are then
 *   handed to r (ALTER ... OWNER TO r) inside the clone.
 * (INHERIT stays on: the owner of a PostgreSQL 15 database reaches its
 * public schema through the implicit pg_database_owner membership.)
 * Object names: role = schema = database = "te_<task>_<key>" (63 bytes at
 * most, see drv_object_name). Every identifier goes through
 * PQescapeIdentifier, every literal through PQescapeLiteral or a parameter.
 *
 * Teardown (ledger rows newest first): database: DROP DATABASE d WITH
 * (FORCE) when owned by r; schema: DROP SCHEMA s CASCADE when owned by r;
 * role: when its COMMENT is our mark, pg_terminate_backend of its sessions,
 * DROP OWNED BY r, DROP ROLE r.
 *
 * Ledger kinds: "postgres-role", "postgres-schema", "postgres-database".
 * Detail JSON of each row: {"host","port","maintenance_db","database",
 * "isolation","role"} (no password). */
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

#endif
