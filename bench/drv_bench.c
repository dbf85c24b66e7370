/* Driver provisioning and teardown time, measured on the driver API
 * itself (no engine, no ledger: an in-memory recorder), so the figures are
 * what a task pays per resource.
 *   drv_bench schema|template|vhost|bucket N
 * Servers from PG_ADMIN_URL (template: PG_TEMPLATE, default app_tpl),
 * RMQ_ADMIN_URL, S3_ADMIN_URL. Prints "KIND provision_ms teardown_ms" per
 * run; bench/drivers.sh takes the medians. */
#include "drivers/driver.h"
#include "common/err.h"
#include "common/mem.h"

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
};

static int intend(void *ctx, const char *kind, const char *name, const char *detail, long long *row,
		  struct te_err *err)
{
	struct rec *r = ctx;

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
	memset(r, 0, sizeof(*r));
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";
	int n = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 20;
	char *buckets[] = {"bench", NULL};
	struct drv_spec spec = {NULL, "bench0000000000", "res", NULL, NULL, NULL, buckets, NULL};
	const struct drv_ops *ops;
	const char *env;

	if (strcmp(what, "schema") == 0 || strcmp(what, "template") == 0) {
		ops = drv_find("postgres"), env = "PG_ADMIN_URL";
		spec.isolation = what[0] == 't' ? "database" : "schema";
		spec.tmpl =
		    what[0] == 't' ? (getenv("PG_TEMPLATE") ? getenv("PG_TEMPLATE") : "app_tpl") : NULL;
	} else if (strcmp(what, "vhost") == 0) {
		ops = drv_find("rabbitmq"), env = "RMQ_ADMIN_URL";
	} else if (strcmp(what, "bucket") == 0) {
		ops = drv_find("s3"), env = "S3_ADMIN_URL";
	} else {
		fprintf(stderr, "usage: drv_bench schema|template|vhost|bucket N\n");
		return 2;
	}
	spec.server = getenv(env);
	if (!spec.server) {
		fprintf(stderr, "drv_bench: %s is not set\n", env);
		return 2;
	}
	for (int i = 0; i < n; i++) {
		struct rec r = {0};
		struct drv_recorder rc = {&r, intend, created, sget, sput};
		struct te_err err = {0};
		char task[32];
		double t0, t1, t2;

		snprintf(task, sizeof(task), "bench%d", i);
		spec.task = task;
		t0 = now_ms();
		if (ops->provision(&spec, &rc, &err) < 0) {
			fprintf(stderr, "drv_bench: provision: %s\n", err.msg);
			teardown(ops, &r, task, spec.server, &err);
			return 1;
		}
		t1 = now_ms();
		if (teardown(ops, &r, task, spec.server, &err) < 0) {
			fprintf(stderr, "drv_bench: teardown: %s\n", err.msg);
			return 1;
		}
		t2 = now_ms();
		printf("%s %.2f %.2f\n", what, t1 - t0, t2 - t1);
		rec_free(&r);
	}
	return 0;
}
