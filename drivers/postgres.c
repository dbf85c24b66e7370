#include "drivers/postgres.h"
#include "drivers/pg_int.h"
#include "common/err.h"
#include "common/fault.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#define TE_WITH_PQ
#include "common/cleanup.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ---- provisioning ---- */

struct prov {
	struct pg pg;
	const struct drv_spec *s;
	const struct drv_recorder *rec;
	bool database;	/* isolation: database */
	char *role;	/* also the schema or database name */
	char *password; /* the task's, from the secrets file */
	char *detail;	/* JSON for every row */
};

static void prov_release(struct prov *p)
{
	pg_release(&p->pg);
	free(p->role);
	free(p->password);
	free(p->detail);
}

static char *detail_json(struct prov *p)
{
	te_autojson cJSON *o = cJSON_CreateObject();
	const char *host = PQhost(p->pg.c);

	cJSON_AddStringToObject(o, "host", host && *host != '/' ? host : "127.0.0.1");
	cJSON_AddStringToObject(o, "port", PQport(p->pg.c));
	cJSON_AddStringToObject(o, "maintenance_db", PQdb(p->pg.c));
	cJSON_AddStringToObject(o, "database", p->database ? p->role : PQdb(p->pg.c));
	cJSON_AddStringToObject(o, "isolation", p->database ? "database" : "schema");
	cJSON_AddStringToObject(o, "role", p->role);
	/* gc keeps a template while a task cloned from it exists. */
	if (p->s->tmpl)
		cJSON_AddStringToObject(o, "template", p->s->tmpl);
	return cJSON_PrintUnformatted(o);
}

static int role_sql(struct prov *p, bool exists, struct te_err *err)
{
	te_autofree char *r = pg_ident(&p->pg, p->role);
	te_autofree char *pw = pg_password_lit(&p->pg, p->role, p->password, err);
	te_autofree char *mark_text = pg_owner_mark(p->s->ledger_id, p->s->task);
	te_autofree char *mark = pg_lit(&p->pg, mark_text);
	te_autofree char *comment = xasprintf("COMMENT ON ROLE %s IS %s", r, mark);
	te_autofree char *sql = NULL;

	if (!pw)
		return -1;
	sql = xasprintf("%s ROLE %s WITH " PG_ROLE_ATTRS " PASSWORD %s", exists ? "ALTER" : "CREATE", r, pw);
	if (pg_run(&p->pg, sql, err) < 0)
		return -1;
	return exists ? 0 : pg_run(&p->pg, comment, err);
}

/* Create the role, or take back the one this task already made (same mark). */
static int role_create(void *ctx, const char *name, struct te_err *err)
{
	struct prov *p = ctx;
	te_autofree char *mark = pg_owner_mark(p->s->ledger_id, p->s->task);
	te_autofree char *comment = NULL;
	bool found;

	if (pg_run(&p->pg, "BEGIN", err) < 0)
		return -1;
	if (pg_comment_of(&p->pg, "pg_authid", p->role, &comment, &found, err) < 0)
		goto fail;
	if (found && (!comment || strcmp(comment, mark) != 0)) {
		te_err_set(err, TE_E_CONFLICT,
			   "postgres server %s: role '%s' exists and is not task '%s''s (no taskenv mark "
			   "of this ledger); left alone",
			   p->pg.where, p->role, p->s->task);
		goto fail;
	}
	if (role_sql(p, found, err) < 0 || pg_run(&p->pg, "COMMIT", err) < 0)
		goto fail;
	return found ? 1 : 0;
fail:
	PQclear(PQexec(p->pg.c, "ROLLBACK"));
	return -1;
}

/* One object of P under its role name, by the drivers' ledger protocol. */
static int step(struct prov *p, const char *kind, drv_create_fn create, struct te_err *err)
{
	return drv_record(p->rec, kind, p->role, p->detail, create, p, err);
}

/* Ours when owned by our role (the role itself carries the mark). */
static int check_owner(struct prov *p, const char *what, const char *owner, struct te_err *err)
{
	if (strcmp(owner, p->role) == 0)
		return 0;
	return te_err_set(err, TE_E_CONFLICT,
			  "postgres server %s: %s '%s' exists, owned by '%s', not by task "
			  "'%s''s role; left alone",
			  p->pg.where, what, p->role, owner, p->s->task);
}

static int schema_create(void *ctx, const char *name, struct te_err *err)
{
	struct prov *p = ctx;
	te_autofree char *id = pg_ident(&p->pg, p->role);
	te_autofree char *db = pg_ident(&p->pg, PQdb(p->pg.c));
	te_autofree char *owner = NULL;
	te_autofree char *create = xasprintf("CREATE SCHEMA %s AUTHORIZATION %s", id, id);
	te_autofree char *path = xasprintf("ALTER ROLE %s IN DATABASE %s SET search_path = %s", id, db, id);
	bool found;

	if (pg_value(&p->pg, "SELECT pg_get_userbyid(nspowner) FROM pg_namespace WHERE nspname = $1", p->role,
		     &owner, &found, err) < 0)
		return -1;
	if (found && check_owner(p, "schema", owner, err) < 0)
		return -1;
	if (!found && pg_run(&p->pg, create, err) < 0)
		return -1;
	if (pg_run(&p->pg, path, err) < 0)
		return -1;
	return found ? 1 : 0;
}

/* Hand the objects a hand-named template gave the clone to the task's role. */
static int adopt_sql(struct pg *pg, const char *role, struct te_err *err)
{
	static const char *const q =
	    "SELECT CASE c.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'S' "
	    "THEN 'SEQUENCE' WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END, n.nspname, c.relname "
	    "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
	    "WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%' "
	    "AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f') AND pg_get_userbyid(c.relowner) <> $1 "
	    "AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass "
	    "AND d.objid = c.oid AND d.deptype IN ('a', 'i')) "
	    "UNION ALL SELECT 'SCHEMA', NULL, nspname FROM pg_namespace "
	    "WHERE nspname NOT IN ('pg_catalog', 'information_schema') AND nspname NOT LIKE 'pg\\_%' "
	    "AND pg_get_userbyid(nspowner) NOT IN ($1, 'pg_database_owner')";
	te_autopgres PGresult *r = NULL;
	te_autofree char *to = pg_ident(pg, role);

	if (pg_exec(pg, q, 1, &role, &r, err) < 0)
		return -1;
	for (int i = 0; i < PQntuples(r); i++) {
		te_autofree char *rel = pg_ident(pg, PQgetvalue(r, i, 2));
		te_autofree char *nsp = PQgetisnull(r, i, 1) ? NULL : pg_ident(pg, PQgetvalue(r, i, 1));
		te_autofree char *sql = xasprintf("ALTER %s %s%s%s OWNER TO %s", PQgetvalue(r, i, 0),
						  nsp ? nsp : "", nsp ? "." : "", rel, to);

		if (pg_run(pg, sql, err) < 0)
			return -1;
	}
	return 0;
}

/* A built template's role owns everything its migration made and no shared
 * object (the admin owns the ready template), so one REASSIGN OWNED moves
 * all of it, of any kind; DROP OWNED then drops its privileges in the
 * clone, so the template's role can be dropped with the template. */
int pg_reassign_from_template(struct pg *inner, const char *tmpl, const char *role, struct te_err *err)
{
	te_autofree char *from = pg_ident(inner, tmpl);
	te_autofree char *to = pg_ident(inner, role);
	te_autofree char *sql = xasprintf("REASSIGN OWNED BY %s TO %s; DROP OWNED BY %s", from, to, from);

	return pg_run(inner, sql, err);
}

static int adopt_template_objects(struct prov *p, struct te_err *err)
{
	autopgs struct pg inner = {0};

	if (pg_connect(&inner, p->s->server, p->role, err) < 0)
		return -1;
	if (p->s->built)
		return pg_reassign_from_template(&inner, p->s->tmpl, p->role, err);
	if (pg_run(&inner, "BEGIN", err) < 0 || adopt_sql(&inner, p->role, err) < 0)
		return -1;
	return pg_run(&inner, "COMMIT", err);
}

static int clone_locked(struct prov *p, const char *create, struct te_err *err)
{
	const char *t = p->s->tmpl;
	const char *mode = p->s->built ? "_shared" : "";
	te_autofree char *lock = xasprintf("SELECT pg_advisory_lock%s(" PG_TEMPLATE_LOCK_KEY ")", mode);
	te_autofree char *unlock = xasprintf("SELECT pg_advisory_unlock%s(" PG_TEMPLATE_LOCK_KEY ")", mode);
	int rc;

	if (pg_exec(&p->pg, lock, 1, &t, NULL, err) < 0)
		return -1;
	rc = pg_run(&p->pg, create, err);
	PQclear(PQexecParams(p->pg.c, unlock, 1, NULL, &t, NULL, NULL, 0));
	return rc;
}

static int database_create(void *ctx, const char *name, struct te_err *err)
{
	struct prov *p = ctx;
	te_autofree char *id = pg_ident(&p->pg, p->role);
	te_autofree char *tp = p->s->tmpl ? pg_ident(&p->pg, p->s->tmpl) : NULL;
	te_autofree char *owner = NULL;
	te_autofree char *create =
	    xasprintf("CREATE DATABASE %s OWNER %s%s%s", id, id, tp ? " TEMPLATE " : "", tp ? tp : "");
	te_autofree char *revoke = xasprintf("REVOKE CONNECT, TEMPORARY ON DATABASE %s FROM PUBLIC", id);
	bool found;

	if (pg_value(&p->pg, "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = $1", p->role,
		     &owner, &found, err) < 0)
		return -1;
	if (found && check_owner(p, "database", owner, err) < 0)
		return -1;
	if (!found && (tp ? clone_locked(p, create, err) : pg_run(&p->pg, create, err)) < 0)
		return -1;
	if (pg_run(&p->pg, revoke, err) < 0 || (tp && adopt_template_objects(p, err) < 0))
		return -1;
	return found ? 1 : 0;
}

/* ---- the hand-out: a pool database becomes the task's ---- */

/* 1 when neither a role nor a database named P's role exists. */
static int names_free(struct prov *p, struct te_err *err)
{
	static const char q[] = "SELECT NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)"
				" AND NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)";
	te_autofree char *v = NULL;
	bool found;

	if (pg_value(&p->pg, q, p->role, &v, &found, err) < 0)
		return -1;
	return v && strcmp(v, "t") == 0;
}

/* Pool database NAME is whole: its role carries the pool mark of P's
 * template and owns the database of the same name. */
static int pool_whole(struct prov *p, const char *name, struct te_err *err)
{
	static const char q[] = "SELECT shobj_description(r.oid, 'pg_authid') FROM pg_roles r"
				" JOIN pg_database d ON d.datdba = r.oid AND d.datname = r.rolname"
				" WHERE r.rolname = $1";
	te_autofree char *mark = xasprintf("taskenv ledger=%s pool=%s", p->s->ledger_id, p->s->tmpl);
	te_autofree char *v = NULL;
	bool found;

	if (pg_value(&p->pg, q, name, &v, &found, err) < 0)
		return -1;
	return v && strcmp(v, mark) == 0;
}

/* One transaction: role and database NAME become P's, with the task's
 * password (hashed here) and mark. Renames, not new files. */
static int rename_pool(struct prov *p, const char *name, struct te_err *err)
{
	te_autofree char *from = pg_ident(&p->pg, name);
	te_autofree char *to = pg_ident(&p->pg, p->role);
	te_autofree char *pw = pg_password_lit(&p->pg, p->role, p->password, err);
	te_autofree char *mark_text = pg_owner_mark(p->s->ledger_id, p->s->task);
	te_autofree char *mark = pg_lit(&p->pg, mark_text);
	te_autofree char *sql = NULL;

	if (!pw)
		return -1;
	sql = xasprintf("ALTER ROLE %s RENAME TO %s; ALTER ROLE %s WITH PASSWORD %s; COMMENT ON ROLE %s IS "
			"%s; ALTER DATABASE %s RENAME TO %s",
			from, to, to, pw, to, mark, from, to);
	return pg_run(&p->pg, sql, err);
}

/* The task's role and database rows intended, then a pool database of
 * the built template claimed and renamed: *DONE when the task got one. A
 * claim already renamed or vanished is used up; one that cannot be renamed
 * (someone connected to it) stays the task's row for `down` to drop. */
static int handout(struct prov *p, bool *done, struct te_err *err)
{
	long long rrow, drow, prow;
	int rc;

	*done = false;
	if (!p->rec->claim)
		return 0;
	rc = names_free(p, err);
	if (rc <= 0)
		return rc;
	if (p->rec->intend(p->rec->ctx, "postgres-role", p->role, p->detail, &rrow, err) < 0 ||
	    p->rec->intend(p->rec->ctx, "postgres-database", p->role, p->detail, &drow, err) < 0)
		return -1;
	for (int attempt = 0; attempt < 4 && !*done; attempt++) {
		te_autofree char *name = NULL;

		if (p->rec->claim(p->rec->ctx, "postgres-pool", p->s->tmpl, true, &name, &prow, err) < 0)
			return -1;
		if (!name)
			return 0;
		rc = pool_whole(p, name, err);
		if (rc < 0)
			return -1;
		if (rc == 0) {
			/* Not whole (it should be): drop what of it is ours. */
			struct drv_ref ref = {p->s->task, p->s->ledger_id, "postgres-pool", name, NULL, NULL,
					      NULL};
			enum drv_removed how;

			if (pg_pool_teardown(&p->pg, &ref, p->s->tmpl, false, &how, err) < 0 ||
			    p->rec->consumed(p->rec->ctx, prow, err) < 0)
				return -1;
			continue;
		}
		te_fault_point("before-handout", "postgres-database", p->role);
		if (rename_pool(p, name, err) < 0) {
			te_err_clear(err);
			return 0;
		}
		te_fault_point("after-handout", "postgres-database", p->role);
		*done = true;
	}
	if (!*done)
		return 0;
	if (p->rec->created(p->rec->ctx, rrow, p->role, err) < 0 ||
	    p->rec->created(p->rec->ctx, drow, p->role, err) < 0)
		return -1;
	return p->rec->consumed(p->rec->ctx, prow, err);
}

/* A claim of this resource that a killed hand-out left, when the task got
 * its database another way: drop that pool database (if still whole) and
 * record it used up. */
static int settle_claim(struct prov *p, struct te_err *err)
{
	te_autofree char *name = NULL;
	struct drv_ref ref = {p->s->task, p->s->ledger_id, "postgres-pool", NULL, NULL, NULL, NULL};
	long long row;
	enum drv_removed how;

	if (!p->s->built || !p->rec->claim)
		return 0;
	if (p->rec->claim(p->rec->ctx, "postgres-pool", p->s->tmpl, false, &name, &row, err) < 0)
		return -1;
	if (!name)
		return 0;
	ref.name = name;
	if (pg_pool_teardown(&p->pg, &ref, p->s->tmpl, false, &how, err) < 0)
		return -1;
	return p->rec->consumed(p->rec->ctx, row, err);
}

static int check_template(struct prov *p, struct te_err *err)
{
	te_autofree char *v = NULL;
	bool found;

	/* A built template was made ready by the caller, under its lock. */
	if (!p->s->tmpl || p->s->built)
		return 0;
	if (pg_value(&p->pg, "SELECT datname FROM pg_database WHERE datname = $1", p->s->tmpl, &v, &found,
		     err) < 0)
		return -1;
	if (!found)
		return te_err_set(err, TE_E_NOTFOUND,
				  "postgres server %s: template database '%s' does not exist", p->pg.where,
				  p->s->tmpl);
	return 0;
}

/* What the contract promises, checked on the server as the admin sees it. */
static int verify(struct prov *p, struct te_err *err)
{
	const char *q = "SELECT rolsuper OR rolcreatedb OR rolcreaterole, "
			"has_schema_privilege($1, 'public', 'CREATE') FROM pg_roles WHERE rolname = $1";
	te_autopgres PGresult *r = NULL;
	const char *role = p->role;

	if (pg_exec(&p->pg, q, 1, &role, &r, err) < 0)
		return -1;
	if (PQntuples(r) != 1 || strcmp(PQgetvalue(r, 0, 0), "f") != 0)
		return te_err_set(err, TE_E_FAIL,
				  "postgres server %s: role '%s' is not the plain login role "
				  "taskenv created",
				  p->pg.where, p->role);
	if (!p->database && strcmp(PQgetvalue(r, 0, 1), "f") != 0)
		return te_err_set(
		    err, TE_E_FAIL,
		    "postgres server %s: database '%s' grants CREATE on schema public to PUBLIC "
		    "(the PostgreSQL < 15 default), so task roles could write into it; taskenv "
		    "does not revoke it for every user: run REVOKE CREATE ON SCHEMA public FROM "
		    "PUBLIC there, or use isolation: database",
		    p->pg.where, PQdb(p->pg.c));
	return 0;
}

static int pg_provision(const struct drv_spec *s, const struct drv_recorder *rec, struct te_err *err)
{
	struct prov p = {.s = s, .rec = rec};
	bool done = false;
	int rc = -1;

	p.database = s->isolation && strcmp(s->isolation, "database") == 0;
	p.role =
	    s->name ? xstrdup(s->name) : drv_plain_name("te_", s->ledger_id, s->task, s->key, PG_NAME_MAX);
	if (pg_connect(&p.pg, s->server, NULL, err) < 0 || check_template(&p, err) < 0 ||
	    drv_task_password(p.rec, s->key, &p.password, err) < 0)
		goto out;
	p.detail = detail_json(&p);
	if (p.database && s->built && handout(&p, &done, err) < 0)
		goto out;
	if (!done) {
		if (step(&p, "postgres-role", role_create, err) < 0)
			goto out;
		if (step(&p, p.database ? "postgres-database" : "postgres-schema",
			 p.database ? database_create : schema_create, err) < 0)
			goto out;
		if (settle_claim(&p, err) < 0)
			goto out;
	}
	rc = verify(&p, err);
out:
	prov_release(&p);
	return rc;
}

/* ---- describe ---- */

static const char *jstr(const cJSON *o, const char *k)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
}

static cJSON *pg_describe(const char *detail, const char *password, const char *host, const char *cport,
			  struct te_err *err)
{
	te_autojson cJSON *d = cJSON_Parse(detail ? detail : "");
	te_autojson cJSON *o = cJSON_CreateObject();
	const char *h, *port, *role, *db;
	te_autofree char *url = NULL;

	if (!d || !jstr(d, "host") || !jstr(d, "port") || !jstr(d, "role") || !jstr(d, "database")) {
		te_err_set(err, TE_E_STATE, "postgres resource: ledger detail is not what taskenv wrote");
		return NULL;
	}
	h = host ? host : jstr(d, "host");
	port = cport ? cport : jstr(d, "port"), role = jstr(d, "role"), db = jstr(d, "database");
	url = xasprintf("postgresql://%s:%s@%s%s%s:%s/%s", role, password ? password : "",
			strchr(h, ':') ? "[" : "", h, strchr(h, ':') ? "]" : "", port, db);
	cJSON_AddStringToObject(o, "url", url);
	cJSON_AddStringToObject(o, "host", h);
	cJSON_AddStringToObject(o, "port", port);
	cJSON_AddStringToObject(o, "user", role);
	cJSON_AddStringToObject(o, "password", password ? password : "");
	cJSON_AddStringToObject(o, "database", db);
	if (strcmp(jstr(d, "isolation") ?: "", "schema") == 0)
		cJSON_AddStringToObject(o, "schema", role);
	return TE_STEAL(o);
}

/* ---- readiness ---- */

static int pg_ready(const char *server, int timeout_s, struct te_err *err)
{
	const char *kw[] = {"dbname", "connect_timeout", NULL};
	const char *val[] = {server, "2", NULL};
	char where[256];
	struct pg pg = {0};

	for (int i = 0; i < timeout_s * 10; i++) {
		if (PQpingParams(kw, val, 1) == PQPING_OK) {
			/* The entrypoint may still be initialising: insist on a session. */
			struct te_err ignored;
			int rc = pg_connect(&pg, server, NULL, &ignored);

			pg_release(&pg);
			if (rc == 0)
				return 0;
		}
		usleep(100 * 1000);
	}
	pg_where_of(server, where, sizeof(where));
	return te_err_set(err, TE_E_FAIL, "postgres server %s: not ready after %d s", where, timeout_s);
}

/* ---- teardown (and check: the same lookups, nothing dropped) ---- */

static int drop_database(struct pg *pg, const struct drv_ref *ref, const char *role, bool check_only,
			 enum drv_removed *out, struct te_err *err)
{
	te_autofree char *owner = NULL;
	te_autofree char *id = pg_ident(pg, ref->name);
	te_autofree char *sql = xasprintf("DROP DATABASE %s WITH (FORCE)", id);
	bool found;

	if (pg_value(pg, "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = $1", ref->name,
		     &owner, &found, err) < 0)
		return -1;
	if (!found || strcmp(owner, role) != 0) {
		*out = found ? DRV_NOT_OURS : DRV_GONE;
		return 0;
	}
	*out = DRV_REMOVED;
	return check_only ? 0 : pg_run(pg, sql, err);
}

static int drop_schema(struct pg *pg, const struct drv_ref *ref, const char *role, bool check_only,
		       enum drv_removed *out, struct te_err *err)
{
	te_autofree char *owner = NULL;
	te_autofree char *id = pg_ident(pg, ref->name);
	te_autofree char *sql = xasprintf("DROP SCHEMA %s CASCADE", id);
	bool found;

	if (pg_value(pg, "SELECT pg_get_userbyid(nspowner) FROM pg_namespace WHERE nspname = $1", ref->name,
		     &owner, &found, err) < 0)
		return -1;
	if (!found || strcmp(owner, role) != 0) {
		*out = found ? DRV_NOT_OURS : DRV_GONE;
		return 0;
	}
	*out = DRV_REMOVED;
	return check_only ? 0 : pg_run(pg, sql, err);
}

static int drop_role(struct pg *pg, const struct drv_ref *ref, bool check_only, enum drv_removed *out,
		     struct te_err *err)
{
	te_autofree char *mark = pg_owner_mark(ref->ledger_id, ref->task);
	te_autofree char *comment = NULL;
	te_autofree char *id = pg_ident(pg, ref->name);
	te_autofree char *sql = xasprintf("DROP OWNED BY %s; DROP ROLE %s", id, id);
	bool found;

	if (pg_comment_of(pg, "pg_authid", ref->name, &comment, &found, err) < 0)
		return -1;
	if (!found || !comment || strcmp(comment, mark) != 0) {
		*out = found ? DRV_NOT_OURS : DRV_GONE;
		return 0;
	}
	*out = DRV_REMOVED;
	if (check_only)
		return 0;
	if (pg_exec(pg, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1", 1,
		    &ref->name, NULL, err) < 0)
		return -1;
	return pg_run(pg, sql, err);
}

/* Teardown's admin session, kept between the teardown calls of one
 * process until drv_release_all(): the rows of one resource (database or
 * schema, then role) live on one server and are reached through one
 * database, so a `down` pays one connection and one SCRAM exchange per
 * resource instead of one per row. */
static struct {
	char *server; /* admin URL (secret) */
	char *db;
	struct pg pg;
} kept;

static void pg_release_kept(void)
{
	pg_release(&kept.pg);
	free(kept.server);
	free(kept.db);
	kept.server = kept.db = NULL;
}

/* The kept session when it is to SERVER / DB and idle, else a new one;
 * *REUSED says which. */
static int kept_session(const char *server, const char *db, bool *reused, struct te_err *err)
{
	*reused = kept.pg.c && strcmp(kept.server, server) == 0 && strcmp(kept.db, db) == 0 &&
		  PQstatus(kept.pg.c) == CONNECTION_OK && PQtransactionStatus(kept.pg.c) == PQTRANS_IDLE;
	if (*reused)
		return 0;
	pg_release_kept();
	if (pg_connect(&kept.pg, server, db, err) < 0) {
		pg_release_kept();
		return -1;
	}
	kept.server = xstrdup(server);
	kept.db = xstrdup(db);
	return 0;
}

static int teardown_on(struct pg *pg, const struct drv_ref *ref, const cJSON *d, bool check_only,
		       enum drv_removed *out, struct te_err *err)
{
	const char *role = jstr(d, "role");

	if (strcmp(ref->kind, "postgres-database") == 0)
		return drop_database(pg, ref, role, check_only, out, err);
	if (strcmp(ref->kind, "postgres-schema") == 0)
		return drop_schema(pg, ref, role, check_only, out, err);
	if (strcmp(ref->kind, "postgres-role") == 0)
		return drop_role(pg, ref, check_only, out, err);
	if (strcmp(ref->kind, "postgres-template") == 0)
		return pg_tpl_teardown(pg, ref, check_only, out, err);
	if (strcmp(ref->kind, "postgres-pool") == 0 && jstr(d, "template"))
		return pg_pool_teardown(pg, ref, jstr(d, "template"), check_only, out, err);
	return te_err_set(err, TE_E_STATE, "unknown postgres resource kind '%s'", ref->kind);
}

static int on_server(const struct drv_ref *ref, bool check_only, enum drv_removed *out, struct te_err *err)
{
	te_autojson cJSON *d = cJSON_Parse(ref->detail ? ref->detail : "");
	const char *db;
	bool reused;

	if (!ref->server)
		return te_err_set(err, TE_E_FAIL,
				  "%s '%s': the admin URL is no longer in the task's secrets file", ref->kind,
				  ref->name);
	if (!d || !jstr(d, "role") || !jstr(d, "maintenance_db") || !jstr(d, "database"))
		return te_err_set(err, TE_E_STATE, "%s '%s': ledger detail is not what taskenv wrote",
				  ref->kind, ref->name);
	db = strcmp(ref->kind, "postgres-schema") == 0 ? jstr(d, "database") : jstr(d, "maintenance_db");
	if (kept_session(ref->server, db, &reused, err) < 0)
		return -1;
	if (teardown_on(&kept.pg, ref, d, check_only, out, err) == 0)
		return 0;
	/* A kept session the server closed since (restart): once more on a
	 * new one. Every drop checks what exists first, so a retry is safe. */
	if (!reused || PQstatus(kept.pg.c) == CONNECTION_OK) {
		pg_release_kept();
		return -1;
	}
	te_err_clear(err);
	if (kept_session(ref->server, db, &reused, err) < 0)
		return -1;
	if (teardown_on(&kept.pg, ref, d, check_only, out, err) == 0)
		return 0;
	pg_release_kept();
	return -1;
}

static int pg_teardown(const struct drv_ref *ref, enum drv_removed *out, struct te_err *err)
{
	return on_server(ref, false, out, err);
}

static int pg_check(const struct drv_ref *ref, enum drv_removed *out, struct te_err *err)
{
	return on_server(ref, true, out, err);
}

static const char *const pg_fields[] = {"url",	    "host",	"port",	  "user",
					"password", "database", "schema", NULL};

static const char *const pg_kinds[] = {"postgres-role",	    "postgres-schema", "postgres-database",
				       "postgres-template", "postgres-pool",   NULL};
static const char *const pg_keys[] = {"isolation", "template", NULL};

static const struct drv_shared pg_shared = {
    .image = "taskenv-example/postgres:15",
    .ports = {"5432", NULL},
    .admin_port = "5432",
    .secret = "postgres-admin",
    .password_env = "POSTGRES_PASSWORD",
    .scheme = "postgresql",
    .user = "postgres",
    .path = "/postgres",
};

const struct drv_ops drv_postgres = {
    .name = "postgres",
    .kinds = pg_kinds,
    .primary_kind = "postgres-role",
    .keys = pg_keys,
    .fields = pg_fields,
    .shared = &pg_shared,
    .provision = pg_provision,
    .describe = pg_describe,
    .teardown = pg_teardown,
    .ready = pg_ready,
    .release = pg_release_kept,
    .check = pg_check,
};

int drv_pg_may_use(const char *url, const char *kind, const char *name, bool *allowed, struct te_err *err)
{
	static const char schema_sql[] =
	    "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)"
	    " AND (has_schema_privilege($1, 'USAGE') OR has_schema_privilege($1, 'CREATE'))";
	static const char db_sql[] = "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)"
				     " AND has_database_privilege($1, 'CONNECT')";
	const char *params[] = {name};
	struct pg pg = {0};
	te_autopgres PGresult *r = NULL;
	char m[512];
	int rc = 0;

	*allowed = false;
	if (pg_connect(&pg, url, NULL, err) < 0) {
		pg_release(&pg);
		return -1;
	}
	r = PQexecParams(pg.c, strcmp(kind, "postgres-database") == 0 ? db_sql : schema_sql, 1, NULL, params,
			 NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK)
		rc = te_err_set(err, TE_E_FAIL, "postgres server %s: %s", pg.where,
				pg_msg(PQresultErrorMessage(r), m, sizeof(m)));
	else
		*allowed = strcmp(PQgetvalue(r, 0, 0), "t") == 0;
	pg_release(&pg);
	return rc;
}
