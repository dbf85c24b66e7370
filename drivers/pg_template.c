/* Templates built from a project's migrations and their pool of spare
 * clones (postgres.h describes both). The migration itself is run by
 * services/lifecycle/pgtpl.c between drv_pg_tpl_create and
 * drv_pg_tpl_mark_ready, while this session holds the template lock. */
#include "drivers/postgres.h"
#include "drivers/pg_int.h"
#include "common/err.h"
#include "common/fault.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#define TE_WITH_PQ
#include "common/cleanup.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

struct drv_pg_tpl {
	struct pg pg;
	char *name;
	char *hash;
	char *ledger_id;
};

char *drv_pg_template_name(const char *hash)
{
	return xasprintf("te_tpl_%.16s", hash);
}

/* On the template's role, and (with " building" / " ready") its database. */
static char *tpl_mark(const char *ledger_id, const char *hash)
{
	return xasprintf("taskenv ledger=%s template=%s", ledger_id, hash);
}

static char *pool_mark(const char *ledger_id, const char *tmpl)
{
	return xasprintf("taskenv ledger=%s pool=%s", ledger_id, tmpl);
}

void drv_pg_tpl_close(struct drv_pg_tpl *t)
{
	if (!t)
		return;
	pg_release(&t->pg);
	free(t->name);
	free(t->hash);
	free(t->ledger_id);
	free(t);
}

int drv_pg_tpl_open(const char *server, const char *ledger_id, const char *name, const char *hash, bool wait,
		    struct drv_pg_tpl **out, struct te_err *err)
{
	struct drv_pg_tpl *t = xcalloc(1, sizeof(*t));
	te_autofree char *got = NULL;
	const char *sql = wait ? "SELECT pg_advisory_lock(" PG_TEMPLATE_LOCK_KEY ")::text"
			       : "SELECT pg_try_advisory_lock(" PG_TEMPLATE_LOCK_KEY ")::text";
	bool found;

	*out = NULL;
	t->name = xstrdup(name);
	t->hash = xstrdup(hash);
	t->ledger_id = xstrdup(ledger_id);
	if (pg_connect(&t->pg, server, NULL, err) < 0 || pg_value(&t->pg, sql, name, &got, &found, err) < 0) {
		drv_pg_tpl_close(t);
		return -1;
	}
	if (!wait && (!got || strcmp(got, "true") != 0)) {
		drv_pg_tpl_close(t);
		return 1;
	}
	*out = t;
	return 0;
}

/* The template's database is ours: marked, or (a build killed between
 * CREATE DATABASE and its COMMENT) owned by our marked role. */
static int tpl_db_ours(struct pg *pg, const char *name, const char *mark, bool *found, bool *ours,
		       char **comment, struct te_err *err)
{
	static const char q[] = "SELECT coalesce(shobj_description(d.oid, 'pg_database'), ''), "
				"coalesce(shobj_description(r.oid, 'pg_authid'), '') FROM pg_database d "
				"LEFT JOIN pg_roles r ON r.oid = d.datdba AND r.rolname = d.datname "
				"WHERE d.datname = $1";
	te_autopgres PGresult *r = NULL;

	if (pg_exec(pg, q, 1, &name, &r, err) < 0)
		return -1;
	*found = PQntuples(r) > 0;
	*ours = *found && (strncmp(PQgetvalue(r, 0, 0), mark, strlen(mark)) == 0 ||
			   strcmp(PQgetvalue(r, 0, 1), mark) == 0);
	if (comment)
		*comment = *found ? xstrdup(PQgetvalue(r, 0, 0)) : NULL;
	return 0;
}

int drv_pg_tpl_state(struct drv_pg_tpl *t, enum drv_pg_tpl_state *out, struct te_err *err)
{
	te_autofree char *mark = tpl_mark(t->ledger_id, t->hash);
	te_autofree char *ready = xasprintf("%s ready", mark);
	te_autofree char *dbc = NULL;
	te_autofree char *rc = NULL;
	bool db, role, ours;

	if (tpl_db_ours(&t->pg, t->name, mark, &db, &ours, &dbc, err) < 0 ||
	    pg_comment_of(&t->pg, "pg_authid", t->name, &rc, &role, err) < 0)
		return -1;
	if ((db && !ours) || (role && (!rc || strcmp(rc, mark) != 0)))
		return te_err_set(err, TE_E_CONFLICT,
				  "postgres server %s: a database or role '%s' exists without this ledger's "
				  "template mark; left alone",
				  t->pg.where, t->name);
	*out = db && dbc && strcmp(dbc, ready) == 0 ? DRV_PG_TPL_READY
	       : db || role			    ? DRV_PG_TPL_STALE
						    : DRV_PG_TPL_ABSENT;
	return 0;
}

char *drv_pg_tpl_detail(const struct drv_pg_tpl *t)
{
	te_autojson cJSON *o = cJSON_CreateObject();
	const char *host = PQhost(t->pg.c);

	cJSON_AddStringToObject(o, "host", host && *host != '/' ? host : "127.0.0.1");
	cJSON_AddStringToObject(o, "port", PQport(t->pg.c));
	cJSON_AddStringToObject(o, "maintenance_db", PQdb(t->pg.c));
	cJSON_AddStringToObject(o, "database", t->name);
	cJSON_AddStringToObject(o, "isolation", "database");
	cJSON_AddStringToObject(o, "role", t->name);
	cJSON_AddStringToObject(o, "hash", t->hash);
	return cJSON_PrintUnformatted(o);
}

/* Drop database and role NAME when they carry MARK (the database: or is
 * owned by the marked role); *OUT says what was there. */
static int drop_marked(struct pg *pg, const char *name, const char *mark, bool check_only,
		       enum drv_removed *out, struct te_err *err)
{
	te_autofree char *id = pg_ident(pg, name);
	te_autofree char *untemplate = xasprintf("ALTER DATABASE %s IS_TEMPLATE false", id);
	te_autofree char *drop_db = xasprintf("DROP DATABASE %s WITH (FORCE)", id);
	te_autofree char *drop_role = xasprintf("DROP OWNED BY %s; DROP ROLE %s", id, id);
	te_autofree char *rc = NULL;
	bool db, ours, role;

	if (tpl_db_ours(pg, name, mark, &db, &ours, NULL, err) < 0 ||
	    pg_comment_of(pg, "pg_authid", name, &rc, &role, err) < 0)
		return -1;
	role = role && rc && strcmp(rc, mark) == 0;
	*out = (db && ours) || role ? DRV_REMOVED : db ? DRV_NOT_OURS : DRV_GONE;
	if (check_only || *out != DRV_REMOVED)
		return 0;
	if (db && ours && (pg_run(pg, untemplate, err) < 0 || pg_run(pg, drop_db, err) < 0))
		return -1;
	return role ? pg_run(pg, drop_role, err) : 0;
}

int drv_pg_tpl_create(struct drv_pg_tpl *t, const char *password, struct te_err *err)
{
	te_autofree char *mark_text = tpl_mark(t->ledger_id, t->hash);
	te_autofree char *building_text = xasprintf("%s building", mark_text);
	te_autofree char *id = pg_ident(&t->pg, t->name);
	te_autofree char *mark = pg_lit(&t->pg, mark_text);
	te_autofree char *building = pg_lit(&t->pg, building_text);
	te_autofree char *pw = pg_password_lit(&t->pg, t->name, password, err);
	te_autofree char *role = NULL;
	te_autofree char *db = xasprintf("CREATE DATABASE %s OWNER %s", id, id);
	te_autofree char *db_mark = xasprintf("COMMENT ON DATABASE %s IS %s; REVOKE CONNECT, TEMPORARY ON "
					      "DATABASE %s FROM PUBLIC",
					      id, building, id);
	enum drv_removed how;

	if (!pw || drop_marked(&t->pg, t->name, mark_text, false, &how, err) < 0)
		return -1;
	role = xasprintf("CREATE ROLE %s WITH " PG_ROLE_ATTRS " PASSWORD %s; COMMENT ON ROLE %s IS %s", id,
			 pw, id, mark);
	if (pg_run(&t->pg, role, err) < 0 || pg_run(&t->pg, db, err) < 0)
		return -1;
	return pg_run(&t->pg, db_mark, err);
}

int drv_pg_tpl_mark_ready(struct drv_pg_tpl *t, struct te_err *err)
{
	te_autofree char *mark_text = tpl_mark(t->ledger_id, t->hash);
	te_autofree char *ready_text = xasprintf("%s ready", mark_text);
	te_autofree char *id = pg_ident(&t->pg, t->name);
	te_autofree char *ready = pg_lit(&t->pg, ready_text);
	te_autofree char *close =
	    xasprintf("ALTER DATABASE %s WITH ALLOW_CONNECTIONS false; ALTER ROLE %s NOLOGIN", id, id);
	te_autofree char *mark =
	    xasprintf("ALTER DATABASE %s WITH IS_TEMPLATE true; ALTER DATABASE %s OWNER TO "
		      "CURRENT_USER; COMMENT ON DATABASE %s IS %s",
		      id, id, id, ready);

	/* First nobody new, then nobody at all: a session left open (a
	 * migration tool's pool) would fail every clone with SQLSTATE 55006. */
	if (pg_run(&t->pg, close, err) < 0 || pg_wait_unused(&t->pg, t->name, err) < 0)
		return -1;
	return pg_run(&t->pg, mark, err);
}

int drv_pg_tpl_drop(struct drv_pg_tpl *t, struct te_err *err)
{
	te_autofree char *mark = tpl_mark(t->ledger_id, t->hash);
	enum drv_removed how;

	return drop_marked(&t->pg, t->name, mark, false, &how, err);
}

int pg_tpl_teardown(struct pg *pg, const struct drv_ref *ref, bool check_only, enum drv_removed *out,
		    struct te_err *err)
{
	te_autojson cJSON *d = cJSON_Parse(ref->detail ? ref->detail : "");
	const char *hash = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "hash"));
	te_autofree char *mark = NULL;

	if (!hash)
		return te_err_set(err, TE_E_STATE, "%s '%s': ledger detail has no hash", ref->kind,
				  ref->name);
	mark = tpl_mark(ref->ledger_id, hash);
	return drop_marked(pg, ref->name, mark, check_only, out, err);
}

/* ---- the pool ---- */

int pg_pool_teardown(struct pg *pg, const struct drv_ref *ref, const char *tmpl, bool check_only,
		     enum drv_removed *out, struct te_err *err)
{
	te_autofree char *mark = pool_mark(ref->ledger_id, tmpl);
	te_autofree char *id = pg_ident(pg, ref->name);
	te_autofree char *drop_db = xasprintf("DROP DATABASE %s WITH (FORCE)", id);
	te_autofree char *drop_role = xasprintf("DROP OWNED BY %s; DROP ROLE %s", id, id);
	te_autofree char *rc = NULL;
	te_autofree char *owner = NULL;
	bool role, db, ours;

	if (pg_comment_of(pg, "pg_authid", ref->name, &rc, &role, err) < 0 ||
	    pg_value(pg, "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = $1", ref->name,
		     &owner, &db, err) < 0)
		return -1;
	/* Ours: the role carries the pool mark (the database is ours when that role owns it). */
	ours = role && rc && strcmp(rc, mark) == 0;
	*out = ours ? DRV_REMOVED : role || db ? DRV_NOT_OURS : DRV_GONE;
	if (check_only || !ours)
		return 0;
	if (db && owner && strcmp(owner, ref->name) == 0 && pg_run(pg, drop_db, err) < 0)
		return -1;
	return pg_run(pg, drop_role, err);
}

struct pool_make {
	struct pg pg;
	const char *server;
	const char *ledger_id;
	const char *tmpl;
};

/* The role (no password: no one logs in until a hand-out sets one), the
 * clone it owns, everything in it given to that role, and no session left
 * in it, so a hand-out is renames alone. */
static int pool_create(void *ctx, const char *name, struct te_err *err)
{
	struct pool_make *m = ctx;
	te_autofree char *id = pg_ident(&m->pg, name);
	te_autofree char *tp = pg_ident(&m->pg, m->tmpl);
	te_autofree char *mark_text = pool_mark(m->ledger_id, m->tmpl);
	te_autofree char *mark = pg_lit(&m->pg, mark_text);
	te_autofree char *role =
	    xasprintf("CREATE ROLE %s WITH " PG_ROLE_ATTRS "; COMMENT ON ROLE %s IS %s", id, id, mark);
	te_autofree char *clone = xasprintf("CREATE DATABASE %s OWNER %s TEMPLATE %s", id, id, tp);
	te_autofree char *revoke = xasprintf("REVOKE CONNECT, TEMPORARY ON DATABASE %s FROM PUBLIC", id);
	const char *t = m->tmpl;
	autopgs struct pg inner = {0};
	int rc;

	if (pg_run(&m->pg, role, err) < 0 ||
	    pg_exec(&m->pg, "SELECT pg_advisory_lock_shared(" PG_TEMPLATE_LOCK_KEY ")", 1, &t, NULL, err) < 0)
		return -1;
	rc = pg_run(&m->pg, clone, err);
	PQclear(PQexecParams(m->pg.c, "SELECT pg_advisory_unlock_shared(" PG_TEMPLATE_LOCK_KEY ")", 1, NULL,
			     &t, NULL, NULL, 0));
	if (rc < 0 || pg_run(&m->pg, revoke, err) < 0 || pg_connect(&inner, m->server, name, err) < 0 ||
	    pg_reassign_from_template(&inner, m->tmpl, name, err) < 0)
		return -1;
	pg_release(&inner);
	return pg_wait_unused(&m->pg, name, err);
}

static char *pool_name(const char *tmpl, struct te_err *err)
{
	unsigned char raw[4];

	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) {
		te_err_set(err, TE_E_IO, "getrandom: %s", strerror(errno));
		return NULL;
	}
	/* te_tpl_<16 hex> -> te_pool_<16 hex>_<8 hex> */
	return xasprintf("te_pool_%s_%02x%02x%02x%02x", tmpl + strlen("te_tpl_"), raw[0], raw[1], raw[2],
			 raw[3]);
}

int drv_pg_pool_make(const char *server, const char *ledger_id, const char *tmpl,
		     const struct drv_recorder *rec, char **name, struct te_err *err)
{
	struct pool_make m = {.server = server, .ledger_id = ledger_id, .tmpl = tmpl};
	te_autojson cJSON *o = cJSON_CreateObject();
	te_autofree char *detail = NULL;
	const char *host;
	int rc;

	*name = pool_name(tmpl, err);
	if (!*name || pg_connect(&m.pg, server, NULL, err) < 0) {
		pg_release(&m.pg);
		return -1;
	}
	host = PQhost(m.pg.c);
	cJSON_AddStringToObject(o, "host", host && *host != '/' ? host : "127.0.0.1");
	cJSON_AddStringToObject(o, "port", PQport(m.pg.c));
	cJSON_AddStringToObject(o, "maintenance_db", PQdb(m.pg.c));
	cJSON_AddStringToObject(o, "database", *name);
	cJSON_AddStringToObject(o, "isolation", "database");
	cJSON_AddStringToObject(o, "role", *name);
	cJSON_AddStringToObject(o, "template", tmpl);
	detail = cJSON_PrintUnformatted(o);
	rc = drv_record(rec, "postgres-pool", *name, detail, pool_create, &m, err);
	pg_release(&m.pg);
	return rc;
}
