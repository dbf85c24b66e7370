/* Templates built from migrations (issue 15): the hash that names them
 * (what changes it, what does not, inputs that lead out of the project),
 * template names, and the ledger's claim of a pool row. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/err.h"
#include "common/mem.h"
#include "drivers/postgres.h"
#include "services/lifecycle/pgtpl.h"
#include "state/ledger.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[PATH_MAX];

static int setup(void **state)
{
	char tmpl[] = "/tmp/te-tpl-XXXXXX";

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

static void put(const char *rel, const char *text)
{
	te_autofree char *path = xasprintf("%s/%s", tmpdir, rel);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void mkdir_in(const char *rel)
{
	te_autofree char *path = xasprintf("%s/%s", tmpdir, rel);

	assert_int_equal(mkdir(path, 0755), 0);
}

/* The hash of project P (a directory under tmpdir) with the usual
 * command, image, server and ledger, unless given. */
static int hash(const char *p, char *const *inputs, const char *image, const char *ledger, char hex[65],
		struct te_err *err)
{
	te_autofree char *dir = xasprintf("%s/%s", tmpdir, p);
	char *cmd[] = {"psql", "-f", "/m/1.sql", NULL};

	return svc_tmpl_hash(dir, inputs, NULL, cmd, image ? image : "sha256:aaaa", "127.0.0.1:5432/postgres",
			     ledger ? ledger : "0123456789abcdef", hex, err);
}

static void test_hash_changes(void **state)
{
	char *inputs[] = {"migrations", "schema.sql", NULL};
	char *cmd2[] = {"psql", "-f", "/m/2.sql", NULL};
	char a[65], b[65], c[65];
	struct te_err err = {0};
	te_autofree char *dir = xasprintf("%s/p1", tmpdir);
	te_autofree char *name = NULL;

	mkdir_in("p1");
	mkdir_in("p1/migrations");
	put("p1/migrations/001.sql", "create table a(x int);\n");
	put("p1/migrations/002.sql", "create table b(x int);\n");
	put("p1/schema.sql", "-- schema\n");
	assert_int_equal(hash("p1", inputs, NULL, NULL, a, &err), 0);
	assert_int_equal(strlen(a), 64);
	assert_int_equal(hash("p1", inputs, NULL, NULL, b, &err), 0);
	assert_string_equal(a, b); /* stable */
	name = drv_pg_template_name(a);
	assert_int_equal(strncmp(name, "te_tpl_", 7), 0);
	assert_int_equal(strlen(name), 7 + 16);
	assert_int_equal(strncmp(name + 7, a, 16), 0);

	put("p1/migrations/002.sql", "create table b(x int, y int);\n");
	assert_int_equal(hash("p1", inputs, NULL, NULL, b, &err), 0);
	assert_string_not_equal(a, b); /* a migration's content */
	put("p1/migrations/003.sql", "");
	assert_int_equal(hash("p1", inputs, NULL, NULL, c, &err), 0);
	assert_string_not_equal(b, c); /* a new (even empty) file */
	assert_int_equal(hash("p1", inputs, "sha256:bbbb", NULL, a, &err), 0);
	assert_string_not_equal(a, c); /* the image */
	assert_int_equal(hash("p1", inputs, NULL, "fedcba9876543210", a, &err), 0);
	assert_string_not_equal(a, c); /* the ledger */
	assert_int_equal(svc_tmpl_hash(dir, inputs, NULL, cmd2, "sha256:aaaa", "127.0.0.1:5432/postgres",
				       "0123456789abcdef", a, &err),
			 0);
	assert_string_not_equal(a, c); /* the command */
	assert_int_equal(svc_tmpl_hash(dir, inputs, NULL, NULL, "sha256:aaaa", "127.0.0.1:5433/postgres",
				       "0123456789abcdef", a, &err),
			 0);
	assert_string_not_equal(a, c); /* the server */
	/* The same files in another project directory: another template. */
	mkdir_in("p2");
	mkdir_in("p2/migrations");
	put("p2/migrations/001.sql", "create table a(x int);\n");
	put("p2/migrations/002.sql", "create table b(x int, y int);\n");
	put("p2/migrations/003.sql", "");
	put("p2/schema.sql", "-- schema\n");
	assert_int_equal(hash("p2", inputs, NULL, NULL, a, &err), 0);
	assert_string_not_equal(a, c);
}

/* A file moved within an input, or the listed inputs reordered, is a new
 * hash; the order files were created in is not. */
static void test_hash_order(void **state)
{
	char *ab[] = {"m/a.sql", "m/b.sql", NULL};
	char *ba[] = {"m/b.sql", "m/a.sql", NULL};
	char *dir[] = {"m", NULL};
	char x[65], y[65];
	struct te_err err = {0};
	te_autofree char *from = xasprintf("%s/p4/m/b.sql", tmpdir);
	te_autofree char *to = xasprintf("%s/p4/m/c.sql", tmpdir);

	mkdir_in("p3");
	mkdir_in("p3/m");
	put("p3/m/b.sql", "b\n");
	put("p3/m/a.sql", "a\n");
	mkdir_in("p4");
	mkdir_in("p4/m");
	put("p4/m/a.sql", "a\n");
	put("p4/m/b.sql", "b\n");
	assert_int_equal(hash("p3", ab, NULL, NULL, x, &err), 0);
	assert_int_equal(hash("p3", ba, NULL, NULL, y, &err), 0);
	assert_string_not_equal(x, y);
	/* A directory is walked by name, so only names and bytes count; a
	 * file renamed inside it is another template. */
	assert_int_equal(hash("p4", dir, NULL, NULL, x, &err), 0);
	assert_int_equal(rename(from, to), 0);
	assert_int_equal(hash("p4", dir, NULL, NULL, y, &err), 0);
	assert_string_not_equal(x, y);
}

/* Inputs are resolved with every symlink followed and must stay inside
 * the project; a symlink inside it is hashed as what it points at. */
static void test_hash_outside(void **state)
{
	char *up[] = {"../outside.sql", NULL};
	char *ln[] = {"link.sql", NULL};
	char *in[] = {"inner", NULL};
	char *missing[] = {"nope.sql", NULL};
	char x[65], y[65];
	struct te_err err = {0};
	te_autofree char *out = xasprintf("%s/outside.sql", tmpdir);
	te_autofree char *link = xasprintf("%s/p5/link.sql", tmpdir);
	te_autofree char *inner = xasprintf("%s/p5/inner/escape", tmpdir);

	mkdir_in("p5");
	mkdir_in("p5/inner");
	put("outside.sql", "secret\n");
	put("p5/real.sql", "x\n");
	assert_int_equal(hash("p5", up, NULL, NULL, x, &err), -1);
	assert_int_equal(err.code, TE_E_USAGE);
	assert_non_null(
	    strstr(err.msg, "template input '../outside.sql' leads outside the project directory"));
	assert_int_equal(symlink(out, link), 0);
	assert_int_equal(hash("p5", ln, NULL, NULL, x, &err), -1);
	assert_non_null(strstr(err.msg, "template input 'link.sql' leads outside the project directory"));
	/* Inside a listed directory too. */
	assert_int_equal(symlink("/etc", inner), 0);
	assert_int_equal(hash("p5", in, NULL, NULL, x, &err), -1);
	assert_non_null(strstr(err.msg, "template input 'inner/escape' leads outside"));
	assert_int_equal(hash("p5", missing, NULL, NULL, x, &err), -1);
	assert_non_null(strstr(err.msg, "template input 'nope.sql': No such file or directory"));
	/* A symlink to a file inside: hashed as its target's content. */
	unlink(link);
	assert_int_equal(symlink("real.sql", link), 0);
	assert_int_equal(hash("p5", ln, NULL, NULL, x, &err), 0);
	put("p5/real.sql", "y\n");
	assert_int_equal(hash("p5", ln, NULL, NULL, y, &err), 0);
	assert_string_not_equal(x, y);
}

/* A pool row moves to the task that claims it; an earlier claim of the
 * same resource comes first; touch only bumps created rows. */
static void test_claim(void **state)
{
	te_autofree char *path = xasprintf("%s/ledger.db", tmpdir);
	struct te_err err = {0};
	struct ledger *l = state_open(path, &err);
	long long p1, p2, t, id;
	char *name = NULL;
	struct state_resource *rows = NULL;
	size_t n = 0;
	bool built = true, moved = true;

	assert_non_null(l);
	assert_int_equal(
	    state_resource_intend(l, "_pg", "postgres-template", "te_tpl_1", "te_tpl_1", &t, &err), 0);
	assert_int_equal(
	    state_resource_intend(l, "_pg", "postgres-pool", "te_pool_1_a", "te_tpl_1", &p1, &err), 0);
	assert_int_equal(
	    state_resource_intend(l, "_pg", "postgres-pool", "te_pool_1_b", "te_tpl_1", &p2, &err), 0);
	/* Intended (a refill still making it): never handed out. */
	assert_int_equal(
	    state_resource_claim(l, "_pg", "postgres-pool", "te_tpl_1", "t1", "db", true, &id, &name, &err),
	    0);
	assert_null(name);
	assert_int_equal(state_resource_created(l, p1, "te_pool_1_a", &err), 0);
	assert_int_equal(state_resource_created(l, p2, "te_pool_1_b", &err), 0);
	assert_int_equal(
	    state_resource_claim(l, "_pg", "postgres-pool", "te_tpl_2", "t1", "db", true, &id, &name, &err),
	    0);
	assert_null(name); /* another template's pool */
	assert_int_equal(
	    state_resource_claim(l, "_pg", "postgres-pool", "te_tpl_1", "t1", "db", true, &id, &name, &err),
	    0);
	assert_string_equal(name, "te_pool_1_a");
	assert_int_equal(id, p1);
	free(name);
	assert_int_equal(state_resource_list(l, "t1", false, &rows, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(rows[0].state, STATE_REMOVING);
	assert_string_equal(rows[0].service, "db");
	state_resources_free(rows, n);
	/* A refill or gc that read p1 as a created spare cannot remove it now. */
	assert_int_equal(state_resource_transition(l, p1, STATE_CREATED, STATE_REMOVING, &moved, &err), 0);
	assert_false(moved);
	/* The hand-out was killed: the same claim comes back first, also without TAKE_NEW. */
	assert_int_equal(
	    state_resource_claim(l, "_pg", "postgres-pool", "te_tpl_1", "t1", "db", false, &id, &name, &err),
	    0);
	assert_string_equal(name, "te_pool_1_a");
	free(name);
	assert_int_equal(
	    state_resource_claim(l, "_pg", "postgres-pool", "te_tpl_1", "t1", "db", true, &id, &name, &err),
	    0);
	assert_string_equal(name, "te_pool_1_a");
	free(name);
	assert_int_equal(state_resource_set_state(l, p1, STATE_REMOVED, &err), 0);
	assert_int_equal(
	    state_resource_claim(l, "_pg", "postgres-pool", "te_tpl_1", "t1", "db", false, &id, &name, &err),
	    0);
	assert_null(name);
	assert_int_equal(
	    state_resource_claim(l, "_pg", "postgres-pool", "te_tpl_1", "t2", "db", true, &id, &name, &err),
	    0);
	assert_string_equal(name, "te_pool_1_b");
	free(name);
	assert_int_equal(state_resource_transition(l, p2, STATE_REMOVING, STATE_REMOVED, &moved, &err), 0);
	assert_true(moved);
	/* touch: only a created row (gc marks one removing before it drops it). */
	assert_int_equal(state_resource_touch(l, t, &err), -1);
	assert_int_equal(err.code, TE_E_NOTFOUND);
	assert_int_equal(svc_tmpl_built(l, "te_tpl_1", &built, &err), 0);
	assert_false(built); /* intended: not ready */
	assert_int_equal(state_resource_created(l, t, "te_tpl_1", &err), 0);
	assert_int_equal(state_resource_touch(l, t, &err), 0);
	assert_int_equal(svc_tmpl_built(l, "te_tpl_1", &built, &err), 0);
	assert_true(built);
	assert_int_equal(svc_tmpl_built(l, "te_tpl_2", &built, &err), 0);
	assert_false(built);
	assert_int_equal(svc_tmpl_built(l, NULL, &built, &err), 0);
	assert_false(built);
	assert_int_equal(state_resource_list_kind(l, "postgres-pool", &rows, &n, &err), 0);
	assert_int_equal(n, 0); /* p1 and p2 removed */
	state_resources_free(rows, n);
	assert_int_equal(state_resource_list_kind(l, "postgres-template", &rows, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(rows[0].task, "_pg");
	state_resources_free(rows, n);
	state_close(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hash_changes),
	    cmocka_unit_test(test_hash_order),
	    cmocka_unit_test(test_hash_outside),
	    cmocka_unit_test(test_claim),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
