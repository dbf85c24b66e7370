/* Driver provisioning and teardown time, measured on the driver API
 * itself (no engine, no ledger: an in-memory recorder), so the figures are
 * what a task pays per resource.
 *   drv_bench schema|template|vhost|bucket|pool|clone|build N
 * Servers from PG_ADMIN_URL (template: PG_TEMPLATE, default app_tpl),
 * RMQ_ADMIN_URL, S3_ADMIN_URL. Prints "KIND provision_ms teardown_ms" per
 * run; bench/drivers.sh takes the medians.
 * pool, clone, build: a template built from migrations (drivers/postgres.h),
 * its migration the SQL in PG_MIGRATION (default: two tables, an index and
 * a row) run on a session as the template's role where taskenv would run
 * a one-off container. build: lock, role and database, migration, ready
 * mark (teardown: dropping it). clone: a task's database cloned from it,
 * role included, with its pool empty. pool: a task's database handed out
 * from its pool, role included (the spare is made before the clock starts,
 * as the refill makes it after an `up`). */
#include "drivers/driver.h"
#include "drivers/postgres.h"
#include "common/err.h"
#include "common/mem.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_ROWS 16

struct rec {
	char *kind[MAX_ROWS], *name[MAX_ROWS], *detail[MAX_ROWS];
	int n;
	char *secret_name[8], *secret_value[8];
	int ns;
	char **pool; /* spare databases made for the template, for claim() */
};

static int intend(void *ctx, const char *kind, const char *name, const char *detail, long long *row,
		  struct te_err *err)
{
	struct rec *r = ctx;

	/* Idempotent, as the ledger's: the same kind and name is the same row. */
	for (int i = 0; i < r->n; i++)
		if (strcmp(r->kind[i], kind) == 0 && strcmp(r->name[i], name) == 0)
			return (void)(*row = i), 0;
	if (r->n == MAX_ROWS)
		return te_err_set(err, TE_E_FAIL, "too many rows");
	r->kind[r->n] = xstrdup(kind), r->name[r->n] = xstrdup(name), r->detail[r->n] = xstrdup(detail);
	*row = r->n++;
	return 0;
}

static int created(void *ctx, long long row, const char *id, struct te_err *err)
{
	return 0;
}

static int sget(void *ctx, const char *name, char **out, struct te_err *err)
{
	struct rec *r = ctx;

	*out = NULL;
	for (int i = 0; i < r->ns; i++)
		if (strcmp(r->secret_name[i], name) == 0)
			*out = xstrdup(r->secret_value[i]);
	return 0;
}

static int sput(void *ctx, const char *name, const char *value, struct te_err *err)
{
	struct rec *r = ctx;

	if (r->ns == 8)
		return te_err_set(err, TE_E_FAIL, "too many secrets");
	r->secret_name[r->ns] = xstrdup(name), r->secret_value[r->ns++] = xstrdup(value);
	return 0;
}

/* The hand-out's claim: the newest spare (there is no earlier claim). */
static int claim(void *ctx, const char *kind, const char *group, bool take_new, char **name, long long *row,
		 struct te_err *err)
{
	struct rec *r = ctx;
	size_t n = 0;

	*name = NULL;
	*row = -1;
	while (r->pool && r->pool[n])
		n++;
	if (take_new && n) {
		*name = r->pool[n - 1];
		r->pool[n - 1] = NULL;
	}
	return 0;
}

static int consumed(void *ctx, long long row, struct te_err *err)
{
	return 0;
}

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int teardown(const struct drv_ops *ops, struct rec *r, const char *task, const char *server,
		    struct te_err *err)
{
	char *pw = NULL;

	sget(r, "password:res", &pw, err);
	for (int i = r->n - 1; i >= 0; i--) {
		struct drv_ref ref = {task, "bench0000000000", r->kind[i], r->name[i], r->detail[i], server,
				      pw};
		enum drv_removed how;

		if (ops->teardown(&ref, &how, err) < 0 || how != DRV_REMOVED) {
			free(pw);
			drv_release_all();
			return err->code ? -1
					 : te_err_set(err, TE_E_FAIL, "'%s' was not removed", r->name[i]);
		}
	}
	free(pw);
	drv_release_all();
	return 0;
}

static void rec_free(struct rec *r)
{
	for (int i = 0; i < r->n; i++)
		free(r->kind[i]), free(r->name[i]), free(r->detail[i]);
	for (int i = 0; i < r->ns; i++)
		free(r->secret_name[i]), free(r->secret_value[i]);
	te_strv_free(r->pool);
	memset(r, 0, sizeof(*r));
}

#define LEDGER "bench0000000000"
#define BENCH_HASH "be7c4000000000000000000000000000000000000000000000000000000000ff"
#define MIGRATION                                                                                            \
	"CREATE TABLE users (id serial PRIMARY KEY, email text NOT NULL UNIQUE);"                            \
	"CREATE TABLE orders (id serial PRIMARY KEY, user_id int NOT NULL REFERENCES users (id),"            \
	" total numeric(10, 2));"                                                                            \
	"CREATE INDEX orders_user ON orders (user_id);"                                                      \
	"INSERT INTO users (email) VALUES ('first@example.com');"

/* Run the migration as the template's role, in the template (where taskenv
 * runs a one-off container with the template's URL). */
static int run_migration(const char *server, const char *name, const char *password, struct te_err *err)
{
	const char *kw[] = {"dbname", "user", "password", "dbname", NULL};
	const char *val[] = {server, name, password, name, NULL};
	const char *sql = getenv("PG_MIGRATION") ? getenv("PG_MIGRATION") : MIGRATION;
	PGconn *c = PQconnectdbParams(kw, val, 1);
	PGresult *r = PQstatus(c) == CONNECTION_OK ? PQexec(c, sql) : NULL;
	int rc = r && PQresultStatus(r) == PGRES_COMMAND_OK ? 0 : -1;

	if (rc < 0)
		te_err_set(err, TE_E_FAIL, "migration: %s", PQerrorMessage(c));
	PQclear(r);
	PQfinish(c);
	return rc;
}

/* Build the bench's template (dropping what an earlier run left). */
static int build_template(const char *server, const char *name, struct te_err *err)
{
	struct drv_pg_tpl *t = NULL;
	int rc = drv_pg_tpl_open(server, LEDGER, name, BENCH_HASH, true, &t, err);

	if (rc == 0)
		rc = drv_pg_tpl_create(t, "bench-template-password", err);
	if (rc == 0)
		rc = run_migration(server, name, "bench-template-password", err);
	if (rc == 0)
		rc = drv_pg_tpl_mark_ready(t, err);
	drv_pg_tpl_close(t);
	return rc;
}

static int drop_template(const char *server, const char *name, struct te_err *err)
{
	struct drv_pg_tpl *t = NULL;
	int rc = drv_pg_tpl_open(server, LEDGER, name, BENCH_HASH, true, &t, err);

	if (rc == 0)
		rc = drv_pg_tpl_drop(t, err);
	drv_pg_tpl_close(t);
	return rc;
}

/* One spare database of the template into R's pool (untimed). */
static int make_spare(const char *server, const char *tmpl, struct rec *r, struct te_err *err)
{
	struct rec pr = {0};
	struct drv_recorder rc = {&pr, intend, created, sget, sput, NULL, NULL, NULL};
	char *name = NULL;
	int ret = drv_pg_pool_make(server, LEDGER, tmpl, &rc, &name, err);

	rec_free(&pr);
	if (ret == 0)
		r->pool = te_strv_push(r->pool, name);
	else
		free(name);
	return ret;
}

/* build: N templates built and dropped, each timed. */
static int bench_build(const char *server, int n)
{
	for (int i = 0; i < n; i++) {
		struct te_err err = {0};
		double t0 = now_ms(), t1, t2;

		if (build_template(server, "te_tpl_bench00000000b", &err) < 0) {
			fprintf(stderr, "drv_bench: build: %s\n", err.msg);
			return 1;
		}
		t1 = now_ms();
		if (drop_template(server, "te_tpl_bench00000000b", &err) < 0) {
			fprintf(stderr, "drv_bench: drop: %s\n", err.msg);
			return 1;
		}
		t2 = now_ms();
		printf("build %.2f %.2f\n", t1 - t0, t2 - t1);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";
	int n = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 20;
	char *buckets[] = {"bench", NULL};
	struct drv_spec spec = {NULL, LEDGER, "res", NULL, NULL, NULL, buckets, NULL, NULL, false};
	const char *tmpl = "te_tpl_bench00000000c";
	bool pool = strcmp(what, "pool") == 0;
	const struct drv_ops *ops;
	const char *env;
	int rc = 0;

	if (strcmp(what, "build") == 0) {
		if (!getenv("PG_ADMIN_URL"))
			return fprintf(stderr, "drv_bench: PG_ADMIN_URL is not set\n"), 2;
		return bench_build(getenv("PG_ADMIN_URL"), n);
	}
	if (pool || strcmp(what, "clone") == 0) {
		ops = drv_find("postgres"), env = "PG_ADMIN_URL";
		spec.isolation = "database", spec.tmpl = tmpl, spec.built = true;
	} else if (strcmp(what, "schema") == 0 || strcmp(what, "template") == 0) {
		ops = drv_find("postgres"), env = "PG_ADMIN_URL";
		spec.isolation = what[0] == 't' ? "database" : "schema";
		spec.tmpl =
		    what[0] == 't' ? (getenv("PG_TEMPLATE") ? getenv("PG_TEMPLATE") : "app_tpl") : NULL;
	} else if (strcmp(what, "vhost") == 0) {
		ops = drv_find("rabbitmq"), env = "RMQ_ADMIN_URL";
	} else if (strcmp(what, "bucket") == 0) {
		ops = drv_find("s3"), env = "S3_ADMIN_URL";
	} else {
		fprintf(stderr, "usage: drv_bench schema|template|vhost|bucket|pool|clone|build N\n");
		return 2;
	}
	spec.server = getenv(env);
	if (!spec.server) {
		fprintf(stderr, "drv_bench: %s is not set\n", env);
		return 2;
	}
	if (spec.built) {
		struct te_err err = {0};

		if (build_template(spec.server, tmpl, &err) < 0) {
			fprintf(stderr, "drv_bench: build: %s\n", err.msg);
			return 1;
		}
	}
	for (int i = 0; i < n && rc == 0; i++) {
		struct rec r = {0};
		struct drv_recorder rcd = {&r, intend, created, sget, sput, claim, consumed, NULL};
		struct te_err err = {0};
		char task[32];
		double t0, t1, t2;

		snprintf(task, sizeof(task), "bench%d", i);
		spec.task = task;
		if (pool && make_spare(spec.server, tmpl, &r, &err) < 0) {
			fprintf(stderr, "drv_bench: pool: %s\n", err.msg);
			rc = 1;
			break;
		}
		t0 = now_ms();
		if (ops->provision(&spec, &rcd, &err) < 0) {
			fprintf(stderr, "drv_bench: provision: %s\n", err.msg);
			teardown(ops, &r, task, spec.server, &err);
			rc = 1;
			break;
		}
		t1 = now_ms();
		if (pool && r.pool && r.pool[0])
			fprintf(stderr, "drv_bench: the spare was not handed out\n"), rc = 1;
		if (teardown(ops, &r, task, spec.server, &err) < 0) {
			fprintf(stderr, "drv_bench: teardown: %s\n", err.msg);
			rc = 1;
		}
		t2 = now_ms();
		if (rc == 0)
			printf("%s %.2f %.2f\n", what, t1 - t0, t2 - t1);
		rec_free(&r);
	}
	if (spec.built) {
		struct te_err err = {0};

		if (drop_template(spec.server, tmpl, &err) < 0)
			fprintf(stderr, "drv_bench: drop the template: %s\n", err.msg), rc = 1;
	}
	return rc;
}
