/* Interpolation rules (table) and .env parsing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/err.h"
#include "common/mem.h"
#include "services/model/interp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The variables the interpolation table sees: a fixed map, not the
 * process environment, so the cases do not depend on who runs them. */
static const char *const vars[][2] = {
    {"A", "a"}, {"B", "bee"}, {"EMPTY", ""}, {"N", "42"}, {"SP", "x y"}, {"_u_1", "und"}, {"DOLLAR", "$X"},
};

static const char *table_lookup(const char *name, void *ctx)
{
	int *calls = ctx;

	(*calls)++;
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (strcmp(vars[i][0], name) == 0)
			return vars[i][1];
	return NULL;
}

struct interp_case {
	const char *in;
	const char *out; /* NULL: an error is expected */
	const char *msg; /* exact error message when out is NULL */
};

#define INVALID(s) "invalid interpolation format for \"" s "\": you may need to escape any $ with another $"

static const struct interp_case interp_cases[] = {
    {"plain text", "plain text", NULL},
    {"", "", NULL},
    {"$A", "a", NULL},
    {"${A}", "a", NULL},
    {"x${A}y", "xay", NULL},
    {"$A$B", "abee", NULL},
    {"$A-b", "a-b", NULL},
    {"$Ab", "", NULL},
    {"${UNSET}", "", NULL},
    {"$UNSET.x", ".x", NULL},
    {"${UNSET:-def}", "def", NULL},
    {"${EMPTY:-def}", "def", NULL},
    {"${EMPTY-def}", "", NULL},
    {"${UNSET-def}", "def", NULL},
    {"${A:-def}", "a", NULL},
    {"${A-def}", "a", NULL},
    {"${A:+alt}", "alt", NULL},
    {"${EMPTY:+alt}", "", NULL},
    {"${EMPTY+alt}", "alt", NULL},
    {"${UNSET+alt}", "", NULL},
    {"${UNSET:+alt}", "", NULL},
    {"$$", "$", NULL},
    {"$${A}", "${A}", NULL},
    {"a$$b$$$A", "a$b$a", NULL},
    {"${UNSET:-${B}}", "bee", NULL},
    {"${UNSET:-${U2:-deep}}", "deep", NULL},
    {"${UNSET:-${B}-${A}}", "bee-a", NULL},
    {"${UNSET:-x}}", "x}", NULL},
    {"${UNSET:-$$}", "$", NULL},
    {"${UNSET:-a b c}", "a b c", NULL},
    {"${_u_1:-no}", "und", NULL},
    {"${N}${SP}", "42x y", NULL},
    {"${DOLLAR}", "$X", NULL}, /* values are not re-interpolated */
    {"${A:?need A}", "a", NULL},
    {"${EMPTY?msg}", "", NULL},
    {"${X:?need X}", NULL, "required variable X is missing a value: need X"},
    {"${X?need X}", NULL, "required variable X is missing a value: need X"},
    {"${EMPTY:?}", NULL, "required variable EMPTY is missing a value"},
    {"${UNSET:?${A} is missing}", NULL, "required variable UNSET is missing a value: a is missing"},
    {"pre ${UNSET:-${X:?inner}} post", NULL, "required variable X is missing a value: inner"},
    /* A '$' that starts no variable stays, as compose-go keeps it. */
    {"$", "$", NULL},
    {"a $ b", "a $ b", NULL},
    {"cost: 5$", "cost: 5$", NULL},
    {"$1", "$1", NULL},
    {"echo $(date) $$HOME", "echo $(date) $HOME", NULL},
    {"${UNSET:-$2a$14$.abc}", "$2a$14$.abc", NULL},
    {"${A", NULL, INVALID("${A")},
    {"${}", NULL, INVALID("${}")},
    {"${1A}", NULL, INVALID("${1A}")},
    {"${A B}", NULL, INVALID("${A B}")},
    {"${A:x}", NULL, INVALID("${A:x}")},
    {"${A:}", NULL, INVALID("${A:}")},
    {"${A=x}", NULL, INVALID("${A=x}")},
    {"${UNSET:-${B}", NULL, INVALID("${UNSET:-${B}")},
    {"${UNSET:?$}", NULL, "required variable UNSET is missing a value: $"},
};

static void test_interp_table(void **state)
{
	for (size_t i = 0; i < sizeof(interp_cases) / sizeof(interp_cases[0]); i++) {
		const struct interp_case *c = &interp_cases[i];
		struct te_err err = {0};
		char *out = (char *)"untouched";
		int calls = 0;
		int rc = svc_interp(c->in, table_lookup, &calls, &out, &err);

		print_message("case %zu: %s\n", i, c->in);
		if (c->out) {
			assert_int_equal(rc, 0);
			assert_string_equal(out, c->out);
			free(out);
		} else {
			assert_int_equal(rc, -1);
			assert_null(out);
			assert_int_equal(err.code, TE_E_COMPOSE);
			assert_string_equal(err.msg, c->msg);
		}
	}
}

/* Defaults are evaluated only when taken, as in Compose: an unused default
 * holding ${X:?} must not fail, and must not even be looked up. */
static void test_interp_lazy_default(void **state)
{
	struct te_err err = {0};
	char *out = NULL;
	int calls = 0;

	assert_int_equal(svc_interp("${A:-${X:?never}}", table_lookup, &calls, &out, &err), 0);
	assert_string_equal(out, "a");
	assert_int_equal(calls, 1);
	free(out);
}

static void test_interp_depth_cap(void **state)
{
	char in[4096] = "";
	struct te_err err = {0};
	char *out = NULL;
	int calls = 0;
	size_t n = 0;

	for (int i = 0; i < 100; i++)
		n += (size_t)snprintf(in + n, sizeof(in) - n, "${U:-");
	n += (size_t)snprintf(in + n, sizeof(in) - n, "x");
	for (int i = 0; i < 100; i++)
		n += (size_t)snprintf(in + n, sizeof(in) - n, "}");
	assert_int_equal(svc_interp(in, table_lookup, &calls, &out, &err), -1);
	assert_int_equal(err.code, TE_E_COMPOSE);
	assert_non_null(strstr(err.msg, "nested more than"));
	assert_null(out);
}

/* ---- .env files ---- */

static char tmpdir[256];

static int make_tmpdir(void **state)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/te-interp-XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	return 0;
}

static int remove_tmpdir(void **state)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Write TEXT to a fresh file in tmpdir; returns its owned path. */
static char *write_env(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", tmpdir, name);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static const char env_text[] = "# a comment\n"
			       "\n"
			       "TE_IA=1\n"
			       "   # indented comment\n"
			       "export TE_IB=two\n"
			       "TE_IC = spaced   \n"
			       "TE_ID='lit $TE_IA # not a comment'\n"
			       "TE_IE=\"x\\ny\\\"z\\\\\"\n"
			       "TE_IF=val #comment\n"
			       "TE_IG=a#b\n"
			       "TE_IH=${TE_IA}-x\n"
			       "TE_II=\"${TE_IB}\"\n"
			       "TE_IJ='${TE_IB}'\n"
			       "TE_IK=\n"
			       "TE_IL\n"
			       "TE_IM: yaml style\n"
			       "TE_IN=\"multi\n"
			       "line\"\n"
			       "TE_IO=\"\\$TE_IA\"\n"
			       "TE_IP=dup1\n"
			       "TE_IP=dup2\r\n"
			       "TE_IQ='quoted' # trailing comment\n"
			       "TE_WIN=file\n"
			       "TE_IR=${TE_WIN}\n"
			       "TE_IS=${TE_NOPE:-dflt}\n"
			       "TE_IT=\"tab\\tend\"\n"
			       "TE_IU=a b  c\n"
			       "last.key-x=no newline at end";

static const char *const env_expect[][2] = {
    {"TE_IA", "1"},	     {"TE_IB", "two"},
    {"TE_IC", "spaced"},     {"TE_ID", "lit $TE_IA # not a comment"},
    {"TE_IE", "x\ny\"z\\"},  {"TE_IF", "val"},
    {"TE_IG", "a#b"},	     {"TE_IH", "1-x"},
    {"TE_II", "two"},	     {"TE_IJ", "${TE_IB}"},
    {"TE_IK", ""},	     {"TE_IL", NULL},
    {"TE_IM", "yaml style"}, {"TE_IN", "multi\nline"},
    {"TE_IO", "$TE_IA"},     {"TE_IP", "dup2"},
    {"TE_IQ", "quoted"},     {"TE_WIN", "process"}, /* the process environment wins */
    {"TE_IR", "process"},			    /* ...also inside the file */
    {"TE_IS", "dflt"},	     {"TE_IT", "tab\tend"},
    {"TE_IU", "a b  c"},     {"last.key-x", "no newline at end"},
    {"TE_NOT_THERE", NULL},
};

static void test_env_parse(void **state)
{
	te_autofree char *path = write_env("good.env", env_text);
	struct te_err err = {0};
	struct svc_env *env;

	setenv("TE_WIN", "process", 1);
	unsetenv("TE_IL");
	unsetenv("TE_NOPE");
	env = svc_env_load(path, &err);
	assert_non_null(env);
	for (size_t i = 0; i < sizeof(env_expect) / sizeof(env_expect[0]); i++) {
		const char *got = svc_env_lookup(env_expect[i][0], env);

		print_message("key %s\n", env_expect[i][0]);
		if (env_expect[i][1]) {
			assert_non_null(got);
			assert_string_equal(got, env_expect[i][1]);
		} else {
			assert_null(got);
		}
	}
	svc_env_free(env);
	unsetenv("TE_WIN");
}

static void test_env_missing_file(void **state)
{
	te_autofree char *path = xasprintf("%s/does-not-exist.env", tmpdir);
	struct te_err err = {0};
	struct svc_env *env = svc_env_load(path, &err);

	assert_non_null(env);
	assert_int_equal(err.code, TE_OK);
	assert_null(svc_env_lookup("TE_NOT_THERE", env));
	setenv("TE_ONLY_PROC", "p", 1);
	assert_string_equal(svc_env_lookup("TE_ONLY_PROC", env), "p");
	assert_string_equal(svc_env_lookup("TE_ONLY_PROC", NULL), "p");
	unsetenv("TE_ONLY_PROC");
	svc_env_free(env);
}

static void test_env_directory_is_io_error(void **state)
{
	struct te_err err = {0};

	assert_null(svc_env_load(tmpdir, &err));
	assert_int_equal(err.code, TE_E_IO);
}

struct env_err_case {
	const char *text;
	const char *msg; /* after "PATH:" */
};

static const struct env_err_case env_err_cases[] = {
    {"TE_A='unterminated\nTE_B=1\n", "1: unterminated single-quoted value for 'TE_A'"},
    {"TE_A=1\nTE_B=\"open\nmore\n", "2: unterminated double-quoted value for 'TE_B'"},
    {"TE_A=1\nbad key=3\n", "2: unexpected character 'k' in variable name 'bad'"},
    {"=value\n", "1: expected a variable name, found '='"},
    {"export \n", "1: missing variable name"},
    {"TE_A='x' junk\n", "1: unexpected characters after the quoted value of 'TE_A'"},
    {"\n\nTE_A=${X:?need X}\n", "3: required variable X is missing a value: need X"},
    {"TE_A=${\n", "1: invalid interpolation format for \"${\": you may need to escape any $ "
		  "with another $"},
};

static void test_env_errors(void **state)
{
	unsetenv("X");
	for (size_t i = 0; i < sizeof(env_err_cases) / sizeof(env_err_cases[0]); i++) {
		te_autofree char *path = write_env("bad.env", env_err_cases[i].text);
		te_autofree char *want = xasprintf("%s:%s", path, env_err_cases[i].msg);
		struct te_err err = {0};

		print_message("case %zu\n", i);
		assert_null(svc_env_load(path, &err));
		assert_int_equal(err.code, TE_E_COMPOSE);
		assert_string_equal(err.msg, want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_interp_table),     cmocka_unit_test(test_interp_lazy_default),
	    cmocka_unit_test(test_interp_depth_cap), cmocka_unit_test(test_env_parse),
	    cmocka_unit_test(test_env_missing_file), cmocka_unit_test(test_env_directory_is_io_error),
	    cmocka_unit_test(test_env_errors),
	};

	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
