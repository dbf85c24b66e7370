/* Internals of the postgres driver shared by postgres.c (task resources)
 * and pg_template.c (templates built from migrations, the pool): one admin
 * session, statements, quoting, the ownership marks. Not public API. */
#ifndef TASKENV_DRIVERS_PG_INT_H
#define TASKENV_DRIVERS_PG_INT_H

#include <stdbool.h>
#include <libpq-fe.h>

#include "drivers/driver.h"

struct te_err;

#define PG_NAME_MAX 63
/* Every login role taskenv makes (a task's, a pool database's, a template's). */
#define PG_ROLE_ATTRS                                                                                        \
	"LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS CONNECTION LIMIT 32"

/* One admin session and what messages say about it. */
struct pg {
	PGconn *c;
	char where[256]; /* "host:port", never credentials */
};

/* "host:port" of URL for messages (never its credentials). */
void pg_where_of(const char *url, char *out, size_t n);
/* The first line of libpq message M, in BUF. */
const char *pg_msg(const char *m, char *buf, size_t n);

/* Connect to URL (its dbname replaced by DBNAME unless NULL). */
int pg_connect(struct pg *pg, const char *url, const char *dbname, struct te_err *err);
void pg_release(struct pg *pg);
#define autopgs __attribute__((cleanup(pg_release)))

/* Run SQL with N text parameters; *OUT (when non-NULL) gets the result. */
int pg_exec(struct pg *pg, const char *sql, int n, const char *const *params, PGresult **out,
	    struct te_err *err);
int pg_run(struct pg *pg, const char *sql, struct te_err *err);
/* The single text value of a one-parameter query: *OUT owned, NULL when
 * there is no row; *FOUND says whether there was one (the value may be
 * NULL in a row). */
int pg_value(struct pg *pg, const char *sql, const char *param, char **out, bool *found, struct te_err *err);

/* Quoted identifier / literal (PQescapeIdentifier / PQescapeLiteral). Owned. */
char *pg_ident(struct pg *pg, const char *s);
char *pg_lit(struct pg *pg, const char *s);

/* The password of ROLE as the server stores it (SCRAM verifier, per its
 * password_encryption), hashed here with PQencryptPasswordConn, quoted:
 * the clear password never reaches a server log that records DDL. Owned. */
char *pg_password_lit(struct pg *pg, const char *role, const char *password, struct te_err *err);

/* The COMMENT on a task's role: "taskenv ledger=<id> task=<task>". Owned. */
char *pg_owner_mark(const char *ledger_id, const char *task);
/* The COMMENT on shared object NAME of CATALOG ("pg_authid" for a role,
 * "pg_database"): *OUT owned or NULL; *FOUND whether NAME exists. */
int pg_comment_of(struct pg *pg, const char *catalog, const char *name, char **out, bool *found,
		  struct te_err *err);
/* Terminate every session on database DB (but ours) and wait until they
 * are gone, at most ~5 s: a database is renamed or cloned only when no one
 * is connected to it (SQLSTATE 55006). */
int pg_wait_unused(struct pg *pg, const char *db, struct te_err *err);

/* Key of the template lock (pg_advisory_lock*) of template NAME: taken
 * exclusively to build or drop it, shared to clone it. SQL text. */
#define PG_TEMPLATE_LOCK_KEY "hashtextextended('taskenv-template:' || $1, 0)"

/* pg_template.c, for postgres.c's teardown and check of the rows of kind
 * "postgres-template" and "postgres-pool" (TMPL: the pool database's
 * template), on admin session PG; CHECK_ONLY looks without dropping. */
int pg_tpl_teardown(struct pg *pg, const struct drv_ref *ref, bool check_only, enum drv_removed *out,
		    struct te_err *err);
int pg_pool_teardown(struct pg *pg, const struct drv_ref *ref, const char *tmpl, bool check_only,
		     enum drv_removed *out, struct te_err *err);
/* In a clone of built template TMPL (session INNER connected to it): every
 * object of the template's role to ROLE, then its privileges dropped. */
int pg_reassign_from_template(struct pg *inner, const char *tmpl, const char *role, struct te_err *err);

#endif
