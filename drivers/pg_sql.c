/* The postgres driver's session, statement and quoting helpers (pg_int.h). */
#include "drivers/pg_int.h"
#include "drivers/postgres.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_PQ
#include "common/cleanup.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

void pg_where_of(const char *url, char *out, size_t n)
{
	PQconninfoOption *opts = PQconninfoParse(url, NULL);
	const char *host = NULL, *port = NULL;

	for (PQconninfoOption *o = opts; o && o->keyword; o++) {
		if (strcmp(o->keyword, "host") == 0 && o->val && *o->val)
			host = o->val;
		if (strcmp(o->keyword, "port") == 0 && o->val && *o->val)
			port = o->val;
	}
	snprintf(out, n, "%s:%s", host ? host : "local socket", port ? port : "5432");
	PQconninfoFree(opts);
}

char *drv_pg_server_id(const char *url)
{
	PQconninfoOption *opts = PQconninfoParse(url, NULL);
	const char *db = NULL;
	char where[256];
	char *out;

	pg_where_of(url, where, sizeof(where));
	for (PQconninfoOption *o = opts; o && o->keyword; o++)
		if (strcmp(o->keyword, "dbname") == 0 && o->val && *o->val)
			db = o->val;
	out = xasprintf("%s/%s", where, db ? db : "");
	PQconninfoFree(opts);
	return out;
}

bool drv_pg_url_ok(const char *url)
{
	static const char *const ok[] = {"host",
					 "hostaddr",
					 "port",
					 "dbname",
					 "user",
					 "password",
					 "sslmode",
					 "connect_timeout",
					 "application_name",
					 "target_session_attrs"};
	PQconninfoOption *opts;
	bool good = true;

	if (!url || (strncmp(url, "postgresql://", 13) != 0 && strncmp(url, "postgres://", 11) != 0))
		return false;
	opts = PQconninfoParse(url, NULL);
	if (!opts)
		return false;
	/* Its query may set any connection parameter: only those that pick
	 * the server and the login, none that names a file (passfile, sslkey,
	 * sslrootcert, service, ...). */
	for (PQconninfoOption *o = opts; good && o->keyword; o++) {
		bool known = false;

		for (size_t i = 0; o->val && i < sizeof(ok) / sizeof(ok[0]) && !known; i++)
			known = strcmp(o->keyword, ok[i]) == 0;
		good = !o->val || known;
	}
	PQconninfoFree(opts);
	return good;
}

/* libpq messages end in a newline and may span lines: keep the first. */
const char *pg_msg(const char *m, char *buf, size_t n)
{
	snprintf(buf, n, "%s", m ? m : "unknown error");
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static void quiet(void *arg, const char *message)
{
}

int pg_connect(struct pg *pg, const char *url, const char *dbname, struct te_err *err)
{
	const char *kw[] = {"dbname", "dbname", "connect_timeout", "application_name", NULL};
	const char *val[] = {url, dbname, "5", "taskenv", NULL};
	char m[512];

	pg_where_of(url, pg->where, sizeof(pg->where));
	/* A URL, not a keyword=value string: "service=", "passfile=" and
	 * friends would read files the trusted side never named. */
	if (!drv_pg_url_ok(url))
		return te_err_set(err, TE_E_USAGE, "postgres server: not a postgresql:// URL");
	pg->c = PQconnectdbParams(kw, val, 1);
	if (!pg->c)
		TE_BUG("PQconnectdbParams returned NULL");
	/* Drivers never print: libpq's default prints NOTICEs to stderr. */
	PQsetNoticeProcessor(pg->c, quiet, NULL);
	if (PQstatus(pg->c) != CONNECTION_OK)
		return te_err_set(err, TE_E_FAIL, "postgres server %s: %s", pg->where,
				  pg_msg(PQerrorMessage(pg->c), m, sizeof(m)));
	return 0;
}

void pg_release(struct pg *pg)
{
	if (pg->c)
		PQfinish(pg->c);
	pg->c = NULL;
}

int pg_exec(struct pg *pg, const char *sql, int n, const char *const *params, PGresult **out,
	    struct te_err *err)
{
	te_autopgres PGresult *r =
	    n ? PQexecParams(pg->c, sql, n, NULL, params, NULL, NULL, 0) : PQexec(pg->c, sql);
	ExecStatusType st = PQresultStatus(r);
	const char *state;
	char m[512];

	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
		state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
		return te_err_set(err, TE_E_FAIL, "postgres server %s: %s%s%s%s", pg->where,
				  pg_msg(PQresultErrorMessage(r), m, sizeof(m)), state ? " (SQLSTATE " : "",
				  state ? state : "", state ? ")" : "");
	}
	if (out)
		*out = TE_STEAL(r);
	return 0;
}

int pg_run(struct pg *pg, const char *sql, struct te_err *err)
{
	return pg_exec(pg, sql, 0, NULL, NULL, err);
}

int pg_value(struct pg *pg, const char *sql, const char *param, char **out, bool *found, struct te_err *err)
{
	te_autopgres PGresult *r = NULL;

	*out = NULL;
	if (pg_exec(pg, sql, 1, &param, &r, err) < 0)
		return -1;
	*found = PQntuples(r) > 0;
	if (*found && !PQgetisnull(r, 0, 0))
		*out = xstrdup(PQgetvalue(r, 0, 0));
	return 0;
}

static char *quote(PGconn *c, const char *s, bool literal)
{
	char *q = literal ? PQescapeLiteral(c, s, strlen(s)) : PQescapeIdentifier(c, s, strlen(s));
	char *out;

	if (!q)
		TE_BUG("PQescapeIdentifier/PQescapeLiteral failed");
	out = xstrdup(q);
	PQfreemem(q);
	return out;
}

char *pg_ident(struct pg *pg, const char *s)
{
	return quote(pg->c, s, false);
}

char *pg_lit(struct pg *pg, const char *s)
{
	return quote(pg->c, s, true);
}

char *pg_password_lit(struct pg *pg, const char *role, const char *password, struct te_err *err)
{
	char *hash = PQencryptPasswordConn(pg->c, password, role, NULL);
	char *q;

	if (!hash) {
		te_err_set(err, TE_E_FAIL, "postgres server %s: hash the password of role '%s': %s",
			   pg->where, role, PQerrorMessage(pg->c));
		return NULL;
	}
	q = pg_lit(pg, hash);
	PQfreemem(hash);
	return q;
}

char *pg_owner_mark(const char *ledger_id, const char *task)
{
	return xasprintf("taskenv ledger=%s task=%s", ledger_id, task);
}

int pg_comment_of(struct pg *pg, const char *catalog, const char *name, char **out, bool *found,
		  struct te_err *err)
{
	const char *sql =
	    strcmp(catalog, "pg_authid") == 0
		? "SELECT shobj_description(oid, 'pg_authid') FROM pg_roles WHERE rolname = $1"
		: "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = $1";

	return pg_value(pg, sql, name, out, found, err);
}

int pg_wait_unused(struct pg *pg, const char *db, struct te_err *err)
{
	static const char kill_sql[] = "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
				       " WHERE datname = $1 AND pid <> pg_backend_pid()";
	static const char count_sql[] =
	    "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()";

	for (int i = 0; i < 500; i++) {
		te_autofree char *n = NULL;
		bool found;

		if (i % 50 == 0 && pg_exec(pg, kill_sql, 1, &db, NULL, err) < 0)
			return -1;
		if (pg_value(pg, count_sql, db, &n, &found, err) < 0)
			return -1;
		if (n && strcmp(n, "0") == 0)
			return 0;
		usleep(10 * 1000);
	}
	return te_err_set(err, TE_E_FAIL, "postgres server %s: sessions on database '%s' do not end",
			  pg->where, db);
}
