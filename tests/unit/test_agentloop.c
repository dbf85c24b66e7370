/* Issue 18's pure pieces: the journal's output tail, the host-side rewrite
 * of "service:port", and the engine identity against a fake engine. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/err.h"
#include "common/mem.h"
#include "engine/engine.h"
#include "fake_engine.h"
#include "services/lifecycle/hostenv.h"
#include "services/lifecycle/identity.h"
#include "services/lifecycle/journal.h"
#include "state/ledger.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The identity an engine gives, and the check against the one recorded. */
static void test_engine_identity(void **state)
{
	struct fake_engine *f = fake_engine_new();
	struct engine *e;
	struct ledger *l;
	struct te_err err = {0};
	char dir[] = "/tmp/te-ident-XXXXXX";
	te_autofree char *path = NULL;
	te_autofree char *id = NULL;
	te_autofree char *claimed = NULL;

	(void)state;
	assert_non_null(mkdtemp(dir));
	path = xasprintf("%s/state.db", dir);
	fake_engine_route_docker_ping(f);
	fake_engine_route(f, "GET", "/info", 200,
			  "{\"ID\":\"AB:CD\",\"Name\":\"h\",\"DockerRootDir\":\"/d\"}");
	e = fake_engine_open(f);
	assert_int_equal(svc_engine_identity(e, &id, &err), 0);
	assert_string_equal(id, "docker:AB:CD");
	l = state_open(path, &err);
	assert_non_null(l);
	/* No task yet: claim gives the identity; recorded, the check passes. */
	assert_int_equal(svc_engine_claim(e, l, "t1", &claimed, &err), 0);
	assert_string_equal(claimed, "docker:AB:CD");
	assert_int_equal(state_task_upsert(l, "t1", "/p", "[]", "/run/a.sock", "up", &err), 0);
	assert_int_equal(state_task_set_engine_id(l, "t1", claimed, &err), 0);
	assert_int_equal(svc_engine_check(e, l, "t1", &err), 0);
	/* Another engine on the same socket: refused, both sockets named. */
	fake_engine_routes_clear(f);
	fake_engine_route_docker_ping(f);
	fake_engine_route(f, "GET", "/info", 200, "{\"ID\":\"EF:GH\"}");
	assert_int_equal(svc_engine_check(e, l, "t1", &err), -1);
	assert_int_equal(err.code, TE_E_WRONG_ENGINE);
	assert_non_null(strstr(err.msg, "unix:///run/a.sock"));
	assert_non_null(strstr(err.msg, fake_engine_socket(f)));
	/* A task with nothing left may move; one that owns a row may not. */
	free(claimed);
	claimed = NULL;
	assert_int_equal(svc_engine_claim(e, l, "t1", &claimed, &err), 0);
	free(claimed);
	claimed = NULL;
	{
		long long row;

		assert_int_equal(state_resource_intend(l, "t1", "network", "t1_default", NULL, &row, &err),
				 0);
	}
	assert_int_equal(svc_engine_claim(e, l, "t1", &claimed, &err), -1);
	assert_int_equal(err.code, TE_E_WRONG_ENGINE);
	/* /info with neither ID nor DockerRootDir cannot name the engine. */
	fake_engine_routes_clear(f);
	fake_engine_route_docker_ping(f);
	fake_engine_route(f, "GET", "/info", 200, "{}");
	free(id);
	id = NULL;
	assert_int_equal(svc_engine_identity(e, &id, &err), -1);
	assert_int_equal(err.code, TE_E_ENGINE);
	state_close(l);
	engine_free(e);
	fake_engine_free(f);
	{
		te_autofree char *cmd = xasprintf("rm -rf '%s'", dir);

		assert_int_equal(system(cmd), 0);
	}
}

/* Podman's /info ID changes on every call: its name and storage root do not. */
static void test_engine_identity_podman(void **state)
{
	struct fake_engine *f = fake_engine_new();
	struct engine *e;
	struct te_err err = {0};
	te_autofree char *id = NULL;
	static const char ping[] = "API-Version: 1.41\r\nLibpod-API-Version: 4.3.1\r\n";

	(void)state;
	fake_engine_route_raw(f, "GET", "/_ping", 200, ping, "OK", 2);
	fake_engine_route(f, "GET", "/info", 200,
			  "{\"ID\":\"4ca7d059-ff76\",\"Name\":\"vm\",\"DockerRootDir\":\"/srv/storage\"}");
	e = fake_engine_open(f);
	assert_string_equal(engine_flavor(e), "podman");
	assert_int_equal(svc_engine_identity(e, &id, &err), 0);
	assert_string_equal(id, "podman:vm:/srv/storage");
	engine_free(e);
	fake_engine_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tail_lines),
	    cmocka_unit_test(test_host_rewrite),
	    cmocka_unit_test(test_engine_identity),
	    cmocka_unit_test(test_engine_identity_podman),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
