/* x-taskenv: resources and per-service injection, as the loader reads
 * them; driver naming helpers and connection values. Table-driven error cases with file:line:col. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "common/err.h"
#include "common/mem.h"
#include "drivers/driver.h"
#include "drivers/http.h"
#include "drivers/postgres.h"
#include "services/model/compose.h"
#include "services/model/load.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char tmpdir[PATH_MAX];

static int setup(void **state)
{
	char tmpl[] = "/tmp/te-res-XXXXXX";

	assert_non_null(mkdtemp(tmpl));
	assert_non_null(realpath(tmpl, tmpdir));
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static char *write_file(const char *text)
{
	char *path = xasprintf("%s/compose.yaml", tmpdir);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static struct svc_project *load(const char *path, struct te_err *err)
{
	char *files[] = {(char *)path, NULL};

	return svc_load(files, err);
}

/* No server: the ledger's shared server container, for every driver. */
static void test_resources_shared(void **state)
{
	te_autofree char *path =
	    write_file("x-taskenv:\n"
		       "  resources:\n"
		       "    db: {driver: postgres}\n"
		       "    jobs: {driver: rabbitmq}\n"
		       "    uploads: {driver: s3, buckets: [a]}\n"
		       "    mq: {driver: rabbitmq, server: \"http://a:b@h:1\", amqp_port: \"5673\"}\n"
		       "services:\n"
		       "  app: {image: x}\n");
	struct te_err err = {0};
	struct svc_project *p = load(path, &err);

	assert_non_null(p);
	assert_int_equal(p->n_resources, 4);
	assert_null(svc_project_resource(p, "jobs")->server);
	assert_null(svc_project_resource(p, "uploads")->server);
	assert_null(svc_project_resource(p, "jobs")->amqp_port);
	assert_string_equal(svc_project_resource(p, "mq")->amqp_port, "5673");
	svc_project_free(p);
}

static void test_resources_good(void **state)
{
	te_autofree char *path = write_file(
	    "x-taskenv:\n"
	    "  resources:\n"
	    "    db: {driver: postgres, server: \"${PGURL}\", isolation: database, template: app_tpl}\n"
	    "    jobs: {driver: rabbitmq, server: \"http://a:b@127.0.0.1:15672\", container_host: mq}\n"
	    "    uploads: {driver: s3, server: \"http://K:S@h:1\", buckets: [avatars, exports]}\n"
	    "services:\n"
	    "  app:\n"
	    "    image: x\n"
	    "    x-taskenv: {env: {DATABASE_URL: db.url, B: uploads.bucket_avatars}}\n");
	struct te_err err = {0};
	struct svc_project *p;
	const struct svc_resource *r;

	setenv("PGURL", "postgresql://admin:pw@127.0.0.1:5432/postgres", 1);
	p = load(path, &err);
	assert_non_null(p);
	assert_int_equal(p->n_resources, 3);
	r = svc_project_resource(p, "db");
	assert_string_equal(r->driver, "postgres");
	assert_string_equal(r->server, "postgresql://admin:pw@127.0.0.1:5432/postgres");
	assert_string_equal(r->isolation, "database");
	assert_string_equal(r->tmpl, "app_tpl");
	assert_int_equal(r->loc.line, 3);
	assert_string_equal(svc_project_resource(p, "jobs")->container_host, "mq");
	r = svc_project_resource(p, "uploads");
	assert_string_equal(r->buckets[0], "avatars");
	assert_string_equal(r->buckets[1], "exports");
	assert_null(r->buckets[2]);
	assert_int_equal(p->services[0].n_inject, 2);
	assert_string_equal(p->services[0].inject[0].key, "DATABASE_URL");
	assert_string_equal(p->services[0].inject[0].value, "db.url");
	svc_project_free(p);
	unsetenv("PGURL");
}

struct err_case {
	const char *res;  /* the resource line(s) under "resources:" */
	const char *svc;  /* the service's x-taskenv, or NULL */
	const char *want; /* message after "FILE:" */
};

static const struct err_case err_cases[] = {
    {"    db: {driver: mysql, server: u}\n", NULL,
     "3:5: x-taskenv.resources.db: unknown driver 'mysql' (this build has: postgres, rabbitmq, s3)"},
    {"    db: {server: u}\n", NULL,
     "3:5: x-taskenv.resources.db: no driver (one of: postgres, rabbitmq, s3)"},
    {"    q: {driver: rabbitmq, amqp_port: \"5672\"}\n", NULL,
     "3:5: x-taskenv.resources.q: amqp_port goes with server: (the shared server sets its own)"},
    {"    q: {driver: rabbitmq, server: u, amqp_port: \"70000\"}\n", NULL,
     "3:5: x-taskenv.resources.q: amqp_port must be a port number (1-65535), not '70000'"},
    {"    q: {driver: s3, server: u, buckets: [a], amqp_port: \"1\"}\n", NULL,
     "3:5: x-taskenv.resources.q: amqp_port is not a key of the s3 driver (it is for: rabbitmq)"},
    /* A driver-specific key another driver would ignore is refused (drv_ops.keys). */
    {"    q: {driver: rabbitmq, server: u, isolation: database}\n", NULL,
     "3:5: x-taskenv.resources.q: isolation is not a key of the rabbitmq driver (it is for: postgres)"},
    {"    db: {driver: postgres, server: u, buckets: [a]}\n", NULL,
     "3:5: x-taskenv.resources.db: buckets is not a key of the postgres driver (it is for: s3)"},
    {"    up: {driver: s3, server: u, buckets: [a], template: t}\n", NULL,
     "3:5: x-taskenv.resources.up: template is not a key of the s3 driver (it is for: postgres)"},
    {"    db: {driver: postgres, server: \"${NOPE_UNSET}\"}\n", NULL,
     "3:5: x-taskenv.resources.db: server is empty: is the variable it names set?"},
    {"    db: {driver: postgres, server: u, isolation: table}\n", NULL,
     "3:5: x-taskenv.resources.db: isolation must be 'schema' or 'database', not 'table'"},
    {"    db: {driver: postgres, server: u, template: t}\n", NULL,
     "3:5: x-taskenv.resources.db: template needs isolation: database"},
    {"    db: {driver: postgres, server: u, sever: x}\n", NULL,
     "3:39: unknown key 'sever' in x-taskenv.resources.db; did you mean 'server'?"},
    {"    Db: {driver: postgres, server: u}\n", NULL,
     "3:5: invalid resource key 'Db': must match [a-z][a-z0-9_]{0,29}"},
    {"    up: {driver: s3, server: u}\n", NULL,
     "3:5: x-taskenv.resources.up: the s3 driver needs buckets: [name, ...]"},
    {"    up: {driver: s3, server: u, buckets: [\"a.b\"]}\n", NULL,
     "3:5: x-taskenv.resources.up: invalid bucket name 'a.b': must match [a-z][a-z0-9_]{0,29}"},
    {"    db: {driver: postgres, server: u}\n", "{env: {A: nope.url}}",
     "7:26: services.app.x-taskenv.env: no resource 'nope' under x-taskenv.resources"},
    {"    db: {driver: postgres, server: u}\n", "{env: {A: dburl}}",
     "7:26: services.app.x-taskenv.env: 'dburl' is not <resource>.<field>"},
    {"    db: {driver: postgres, server: u}\n", "{inject: {}}",
     "7:17: unknown key 'inject' in services.app.x-taskenv"},
    {"    up: {driver: s3, server: u, buckets: [a, b, a]}\n", NULL,
     "3:5: x-taskenv.resources.up: bucket 'a' is listed twice"},
    {"    up: {driver: s3, server: u, buckets: [a]}\n", "{env: {X: up.bucket_b}}",
     "7:26: services.app.x-taskenv.env: resource 'up' (driver s3) has no field 'bucket_b' (it has: "
     "endpoint, region, access_key, secret_key, credentials, bucket_<name> for each of its buckets)"},
    {"    db: {driver: postgres, server: u}\n", "{env: {X: db.vhost}}",
     "7:26: services.app.x-taskenv.env: resource 'db' (driver postgres) has no field 'vhost' (it has: "
     "url, host, port, user, password, database, schema)"},
    /* template: {migrate: ...} (issue 15) */
    {"    db: {driver: postgres, server: u, template: {migrate: {service: app}}}\n", NULL,
     "3:5: x-taskenv.resources.db: template needs isolation: database"},
    {"    db: {driver: postgres, server: u, isolation: database, template: {inputs: [m]}}\n", NULL,
     "3:60: x-taskenv.resources.db.template: needs migrate: {service: SERVICE, command: [...]}"},
    {"    db: {driver: postgres, server: u, isolation: database, template: {migrate: {service: app, "
     "cmd: [x]}}}\n",
     NULL, "3:95: unknown key 'cmd' in x-taskenv.resources.db.template.migrate"},
    {"    db: {driver: postgres, server: u, isolation: database, template: {migrate: {service: app}, "
     "input: [m]}}\n",
     NULL, "3:96: unknown key 'input' in x-taskenv.resources.db.template; did you mean 'inputs'?"},
    {"    db: {driver: postgres, server: u, isolation: database, template: {migrate: {service: app}, "
     "inputs: [/etc]}}\n",
     NULL,
     "3:104: x-taskenv.resources.db.template.inputs: '/etc' must be a path relative to the project "
     "directory"},
    {"    db: {driver: postgres, server: u, isolation: database, template: {migrate: {service: nope}}}\n",
     NULL, "3:60: x-taskenv.resources.db.template.migrate: no service 'nope'"},
    {"    q: {driver: rabbitmq, server: u, template: {migrate: {service: app}}}\n", NULL,
     "3:5: x-taskenv.resources.q: template is not a key of the rabbitmq driver (it is for: postgres)"},
};

static void test_resources_errors(void **state)
{
	unsetenv("NOPE_UNSET");
	for (size_t i = 0; i < sizeof(err_cases) / sizeof(err_cases[0]); i++) {
		te_autofree char *text =
		    xasprintf("x-taskenv:\n  resources:\n%sservices:\n  app:\n    image: x\n%s%s%s",
			      err_cases[i].res, err_cases[i].svc ? "    x-taskenv: " : "",
			      err_cases[i].svc ? err_cases[i].svc : "", err_cases[i].svc ? "\n" : "");
		te_autofree char *path = write_file(text);
		te_autofree char *want = xasprintf("%s:%s", path, err_cases[i].want);
		struct te_err err = {0};

		print_message("case %zu\n", i);
		assert_null(load(path, &err));
		assert_int_equal(err.code, TE_E_COMPOSE);
		assert_string_equal(err.msg, want);
	}
}

static void test_object_names(void **state)
{
	te_autofree char *a = drv_object_name("te_", "auth-refactor", "db", 63);
	te_autofree char *l1 =
	    drv_object_name("te_", "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij1", "db", 63);
	te_autofree char *l2 =
	    drv_object_name("te_", "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij2", "db", 63);
	te_autofree char *pw1 = drv_random_password(NULL);
	te_autofree char *pw2 = drv_random_password(NULL);

	assert_string_equal(a, "te_auth-refactor_db");
	assert_int_equal(strlen(l1), 63);
	assert_string_not_equal(l1, l2);
	assert_int_equal(strlen(pw1), 32);
	assert_string_not_equal(pw1, pw2);
}

static bool plain(const char *s)
{
	return strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(s);
}

/* Postgres names (issue 18): only [a-z0-9_], a hash that keeps "feat-email"
 * and "feat_email" (and two ledgers) apart, 63 bytes at most, stable. */
static void test_plain_names(void **state)
{
	te_autofree char *h = drv_plain_name("te_", "0123456789abcdef", "feat-email", "db", 63);
	te_autofree char *u = drv_plain_name("te_", "0123456789abcdef", "feat_email", "db", 63);
	te_autofree char *h2 = drv_plain_name("te_", "0123456789abcdef", "feat-email", "db", 63);
	te_autofree char *other = drv_plain_name("te_", "fedcba9876543210", "feat-email", "db", 63);
	te_autofree char *key2 = drv_plain_name("te_", "0123456789abcdef", "feat-email", "db2", 63);
	const char *longtask = "a-very-long-task-name-that-goes-on-and-on-and-on-past-the-limit-x";
	te_autofree char *l1 =
	    drv_plain_name("te_", "0123456789abcdef", longtask, "resource_key_of_thirty_chars_", 63);
	te_autofree char *l2 = drv_plain_name(
	    "te_", "0123456789abcdef", "a-very-long-task-name-that-goes-on-and-on-and-on-past-the-limit-y",
	    "resource_key_of_thirty_chars_", 63);

	assert_true(plain(h) && plain(u) && plain(l1) && plain(other));
	assert_int_equal(strncmp(h, "te_feat_email_db_", 17), 0);
	assert_int_equal(strlen(h), 17 + 8);
	assert_string_not_equal(h, u);
	assert_string_equal(h, h2);
	assert_string_not_equal(h, other);
	assert_string_not_equal(h, key2);
	assert_int_equal(strlen(l1), 63);
	assert_string_not_equal(l1, l2);
	assert_int_equal(l1[63 - 9], '_');
}

/* template: {migrate: ...} as the loader keeps it. */
static void test_template_build(void **state)
{
	te_autofree char *path =
	    write_file("x-taskenv:\n"
		       "  resources:\n"
		       "    db:\n"
		       "      driver: postgres\n"
		       "      isolation: database\n"
		       "      template:\n"
		       "        migrate: {service: migrate, command: [sh, -c, \"psql -f /m/1.sql\"]}\n"
		       "        inputs: [migrations/, schema.sql]\n"
		       "services:\n"
		       "  app: {image: x}\n"
		       "  migrate: {image: y}\n");
	struct te_err err = {0};
	struct svc_project *p = load(path, &err);
	const struct svc_resource *r;

	assert_non_null(p);
	r = svc_project_resource(p, "db");
	assert_null(r->tmpl);
	assert_non_null(r->build);
	assert_string_equal(r->build->service, "migrate");
	assert_string_equal(r->build->command[2], "psql -f /m/1.sql");
	assert_null(r->build->command[3]);
	assert_string_equal(r->build->inputs[0], "migrations/");
	assert_string_equal(r->build->inputs[1], "schema.sql");
	assert_int_equal(r->build->loc.line, 6);
	svc_project_free(p);
}

/* The admin-URL parser of the rabbitmq and s3 drivers: credentials
 * decoded, never in base or where; required ones missing is an error. */
static void test_admin_url(void **state)
{
	struct drv_http_server s;
	struct te_err err = {0};

	assert_int_equal(drv_http_server_parse("http://adm:p%40ss@127.0.0.1:15672", "rabbitmq server", true,
					       "usage", &s, &err),
			 0);
	assert_string_equal(s.base, "http://127.0.0.1:15672");
	assert_string_equal(s.where, "rabbitmq server 127.0.0.1:15672");
	assert_string_equal(s.user, "adm");
	assert_string_equal(s.password, "p@ss");
	drv_http_server_release(&s);
	/* No port: the scheme's; no credentials: NULL unless required. */
	assert_int_equal(drv_http_server_parse("https://mq.example", "x", false, "usage", &s, &err), 0);
	assert_string_equal(s.base, "https://mq.example:443");
	assert_null(s.user);
	assert_null(s.password);
	drv_http_server_release(&s);
	assert_int_equal(
	    drv_http_server_parse("http://only@h:9000", "s3 server", true, "need keys", &s, &err), -1);
	assert_int_equal(err.code, TE_E_USAGE);
	assert_string_equal(err.msg, "need keys");
	assert_null(s.base);
	assert_int_equal(drv_http_server_parse("not a url", "x", false, "bad", &s, &err), -1);
	assert_string_equal(err.msg, "bad");
	/* http(s) only: a file:// or gopher:// "server" is no server (issue 13). */
	assert_int_equal(drv_http_server_parse("file://a:b@localhost/etc/passwd", "x", true, "bad", &s, &err),
			 -1);
	assert_int_equal(drv_http_server_parse("gopher://a:b@h:70", "x", true, "bad", &s, &err), -1);
}

/* The server image is the trusted side's (issue 13): refused, as the
 * policy refuses (TE_E_POLICY: exit 1), with the key's position. */
static void test_resource_image_refused(void **state)
{
	te_autofree char *path = write_file("x-taskenv:\n  resources:\n    db: {driver: postgres, image: x}\n"
					    "services:\n  app: {image: x}\n");
	te_autofree char *want = xasprintf(
	    "%s:3:28: x-taskenv.resources.db.image: the server container's image comes from taskenv or the "
	    "trusted config (shared_images.postgres in the user config file), never from the Compose file",
	    path);
	struct te_err err = {0};

	assert_null(load(path, &err));
	assert_int_equal(err.code, TE_E_POLICY);
	assert_string_equal(err.msg, want);
}

/* A libpq URL, and only parameters that pick the server and the login. */
static void test_pg_url(void **state)
{
	assert_true(drv_pg_url_ok("postgresql://a:b@127.0.0.1:5432/postgres"));
	assert_true(drv_pg_url_ok("postgres://a:b@h/db?sslmode=require&connect_timeout=3"));
	assert_false(drv_pg_url_ok("host=h user=a passfile=/etc/shadow"));
	assert_false(drv_pg_url_ok("postgresql://a@h/db?passfile=/etc/shadow"));
	assert_false(drv_pg_url_ok("postgresql://a@h/db?sslkey=/home/u/.ssh/id_rsa"));
	assert_false(drv_pg_url_ok("postgresql://a@h/db?service=x"));
	assert_false(drv_pg_url_ok("http://a:b@h:1"));
	assert_false(drv_pg_url_ok(NULL));
}

/* Connection values from the ledger detail: host side as recorded; the
 * container side swaps in the alias and port, scheme kept, no path (clients
 * join "$S3_ENDPOINT/bucket/key"; s3rver answers 404 to "//bucket"). */
static void test_s3_describe(void **state)
{
	const struct drv_ops *s3 = drv_find("s3");
	const char *detail = "{\"endpoint\":\"http://127.0.0.1:4568\",\"region\":\"us-east-1\","
			     "\"access_key\":\"S3RVER\",\"buckets\":{\"avatars\":\"te-t-up-avatars\"}}";
	struct te_err err = {0};
	cJSON *o;

	assert_non_null(s3);
	o = s3->describe(detail, "sk", NULL, NULL, &err);
	assert_non_null(o);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o, "endpoint")),
			    "http://127.0.0.1:4568");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o, "bucket_avatars")),
			    "te-t-up-avatars");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o, "secret_key")), "sk");
	cJSON_Delete(o);
	o = s3->describe(detail, "sk", "uploads", "4568", &err);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o, "endpoint")), "http://uploads:4568");
	cJSON_Delete(o);
	o = s3->describe(detail, "sk", "fd00::5", NULL, &err);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o, "endpoint")),
			    "http://[fd00::5]:4568");
	cJSON_Delete(o);
	assert_null(s3->describe("{}", "sk", NULL, NULL, &err));
	assert_int_equal(err.code, TE_E_STATE);
}

/* Each driver's describe() returns exactly its .fields (s3: plus
 * bucket_<name>), the list the loader checks `x-taskenv.env` against. */
static void test_describe_fields(void **state)
{
	static const struct {
		const char *driver, *detail;
	} cases[] = {
	    {"postgres", "{\"host\":\"127.0.0.1\",\"port\":\"5432\",\"role\":\"te_t_db\","
			 "\"database\":\"app\",\"isolation\":\"schema\"}"},
	    {"rabbitmq", "{\"host\":\"127.0.0.1\",\"port\":5672,\"vhost\":\"te_t_q\",\"user\":\"te_t_q\"}"},
	    {"s3", "{\"endpoint\":\"http://127.0.0.1:4568\",\"access_key\":\"S3RVER\","
		   "\"buckets\":{\"a\":\"te-t-up-a\"}}"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct drv_ops *ops = drv_find(cases[i].driver);
		struct te_err err = {0};
		cJSON *o = ops->describe(cases[i].detail, "pw", NULL, NULL, &err);
		const cJSON *v;
		size_t n = 0, nf = 0;

		assert_non_null(o);
		while (ops->fields[nf])
			assert_non_null(cJSON_GetObjectItemCaseSensitive(o, ops->fields[nf++]));
		cJSON_ArrayForEach (v, o)
			if (strncmp(v->string, "bucket_", 7) != 0)
				n++;
		assert_int_equal(n, nf);
		cJSON_Delete(o);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_resources_good),
	    cmocka_unit_test(test_resources_shared),
	    cmocka_unit_test(test_resources_errors),
	    cmocka_unit_test(test_object_names),
	    cmocka_unit_test(test_admin_url),
	    cmocka_unit_test(test_s3_describe),
	    cmocka_unit_test(test_describe_fields),
	    cmocka_unit_test(test_plain_names),
	    cmocka_unit_test(test_template_build),
	    cmocka_unit_test(test_pg_url),
	    cmocka_unit_test(test_resource_image_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
