/* Issue 18's pure pieces: the journal's output tail, the host-side rewrite
 * of "service:port", and the engine identity against a fake engine. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/mem.h"
#include "services/lifecycle/hostenv.h"
#include "services/lifecycle/journal.h"

#include <string.h>

static void test_tail_lines(void **state)
{
	struct svc_tail t = {0};
	char big[SVC_TAIL_BYTES + 100];
	te_autofree char *a = NULL;
	te_autofree char *b = NULL;
	te_autofree char *c = NULL;
	te_autofree char *d = NULL;

	(void)state;
	svc_tail_add(&t, "one\ntwo\n", 8);
	svc_tail_add(&t, "three\nfour", 10);
	a = svc_tail_lines(&t, 2);
	assert_string_equal(a, "three\nfour");
	b = svc_tail_lines(&t, 20);
	assert_string_equal(b, "one\ntwo\nthree\nfour");
	assert_int_equal(t.total, 18);
	/* More than the buffer: only its end is kept, the count goes on. */
	memset(big, 'x', sizeof(big));
	big[sizeof(big) - 1] = '\n';
	svc_tail_add(&t, big, sizeof(big));
	svc_tail_add(&t, "last\n", 5);
	assert_int_equal(t.len, SVC_TAIL_BYTES);
	assert_int_equal(t.total, 18 + sizeof(big) + 5);
	c = svc_tail_lines(&t, 1);
	assert_string_equal(c, "last");
	assert_true(svc_tail_has(&t, "last"));
	assert_false(svc_tail_has(&t, "three"));
	/* Invalid UTF-8 is replaced, valid kept. */
	memset(&t, 0, sizeof(t));
	svc_tail_add(&t, "a\xff\xc3\xa9z", 5);
	d = svc_tail_lines(&t, 5);
	assert_string_equal(d, "a?\xc3\xa9z");
}

static void test_host_rewrite(void **state)
{
	const struct svc_host_port p[] = {{"web", 80, 21001}, {"db", 5432, 21002}, {"web", 8080, 21003}};
	static const char *const cases[][2] = {
	    {"http://web:80/health", "http://127.0.0.1:21001/health"},
	    {"postgres://u:pw@db:5432/app", "postgres://u:pw@127.0.0.1:21002/app"},
	    {"web:8080", "127.0.0.1:21003"},
	    {"web:80", "127.0.0.1:21001"},
	    {"web:8081", "web:8081"}, /* not a published port */
	    {"myweb:80", "myweb:80"}, /* another host name */
	    {"web", "web"},	      /* no port: left alone */
	    {"a=web:80,b", "a=127.0.0.1:21001,b"},
	    {"", ""},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		te_autofree char *got = svc_host_rewrite(cases[i][0], p, 3);

		assert_string_equal(got, cases[i][1]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tail_lines),
	    cmocka_unit_test(test_host_rewrite),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
