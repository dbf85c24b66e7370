/* common/: error struct, buffers with caps, string vectors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "common/buf.h"
#include "common/duration.h"
#include "common/err.h"
#include "common/mem.h"

static void test_err_set_and_prefix(void **state)
{
	struct te_err err = {0};

	assert_int_equal(te_err_set(&err, TE_E_ENGINE, "port is %s", "already allocated"), -1);
	assert_int_equal(err.code, TE_E_ENGINE);
	assert_int_equal(te_err_prefix(&err, "service '%s': ", "db"), -1);
	assert_string_equal(err.msg, "service 'db': port is already allocated");
	assert_int_equal(err.code, TE_E_ENGINE);
	te_err_clear(&err);
	assert_int_equal(err.code, TE_OK);
	assert_string_equal(err.msg, "");
	assert_int_equal(te_err_set(NULL, TE_E_FAIL, "x"), -1);
}

static void test_err_truncates(void **state)
{
	struct te_err err = {0};
	char big[4096];

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	te_err_set(&err, TE_E_FAIL, "%s", big);
	assert_int_equal(strlen(err.msg), sizeof(err.msg) - 1);
	te_err_prefix(&err, "ctx: ");
	assert_int_equal(strncmp(err.msg, "ctx: aaa", 8), 0);
	assert_int_equal(strlen(err.msg), sizeof(err.msg) - 1);
}

static char words[256];
static int word_calls;

static void keep_words(const char *line)
{
	snprintf(words, sizeof(words), "%s", line);
	word_calls++;
}

/* The library's last words go to the installed printer, and nowhere
 * without one (nothing below cmd/ prints). */
static void test_last_words(void **state)
{
	te_last_words("dropped %d", 1);
	te_set_last_words(keep_words);
	te_last_words("taskenv: out of memory allocating %zu bytes", (size_t)42);
	te_set_last_words(NULL);
	te_last_words("dropped %d", 2);
	assert_int_equal(word_calls, 1);
	assert_string_equal(words, "taskenv: out of memory allocating 42 bytes");
}

static void test_buf_cap(void **state)
{
	te_autobuf struct te_buf b = TE_BUF_INIT(10);

	assert_int_equal(te_buf_adds(&b, "hello"), 0);
	assert_int_equal(te_buf_adds(&b, "world"), 0);
	assert_int_equal(b.len, 10);
	assert_int_equal(te_buf_adds(&b, "!"), -1);
	assert_string_equal(b.data, "helloworld");
	te_buf_reset(&b);
	assert_int_equal(b.len, 0);
	assert_int_equal(te_buf_addf(&b, "%d-%s", 42, "x"), 0);
	assert_string_equal(b.data, "42-x");
}

static void test_buf_detach(void **state)
{
	struct te_buf b = TE_BUF_INIT(0);
	te_autofree char *s = NULL;
	te_autofree char *e = NULL;

	for (int i = 0; i < 1000; i++)
		assert_int_equal(te_buf_adds(&b, "0123456789"), 0);
	assert_int_equal(b.len, 10000);
	s = te_buf_detach(&b);
	assert_int_equal(strlen(s), 10000);
	assert_null(b.data);
	e = te_buf_detach(&b);
	assert_string_equal(e, "");
}

static void test_strv(void **state)
{
	te_autostrv char **v = NULL;
	te_autostrv char **d = NULL;

	assert_int_equal(te_strv_len(v), 0);
	v = te_strv_push(v, xstrdup("a"));
	v = te_strv_push(v, xasprintf("%s-%d", "b", 2));
	assert_int_equal(te_strv_len(v), 2);
	assert_string_equal(v[1], "b-2");
	assert_null(v[2]);
	d = te_strv_dup(v);
	assert_ptr_not_equal(d[0], v[0]);
	assert_string_equal(d[0], "a");
	assert_null(te_strv_dup(NULL));
}

static void test_steal(void **state)
{
	te_autofree char *p = xstrdup("x");
	char *q = TE_STEAL(p);

	assert_null(p);
	assert_string_equal(q, "x");
	free(q);
}

static void test_duration(void **state)
{
	static const struct {
		const char *in;
		long long secs; /* -1: refused */
	} cases[] = {
	    {"30s", 30}, {"5m", 300}, {"2h", 7200}, {"1d", 86400}, {"45", 45},	   {"0s", -1},	{"", -1},
	    {"-1h", -1}, {"1w", -1},  {"h", -1},    {"1.5h", -1},  {"99999d", -1}, {" 1h", -1},
	};
	struct te_err err = {0};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		long long v = -7;
		int rc = te_duration_parse(cases[i].in, &v, &err);

		if (cases[i].secs < 0) {
			assert_int_equal(rc, -1);
			assert_int_equal(err.code, TE_E_USAGE);
			assert_non_null(strstr(err.msg, "invalid duration"));
			assert_int_equal(v, -7);
		} else {
			assert_int_equal(rc, 0);
			assert_int_equal(v, cases[i].secs);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_err_set_and_prefix),
	    cmocka_unit_test(test_err_truncates),
	    cmocka_unit_test(test_last_words),
	    cmocka_unit_test(test_buf_cap),
	    cmocka_unit_test(test_buf_detach),
	    cmocka_unit_test(test_strv),
	    cmocka_unit_test(test_steal),
	    cmocka_unit_test(test_duration),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
