/* The broker's path normalisation and allow-list (broker_rules.h), and its
 * socket path (broker.h): table-driven. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "services/lifecycle/broker.h"
#include "services/lifecycle/broker_rules.h"
#include "common/err.h"
#include "common/mem.h"

#include <stdlib.h>
#include <string.h>

static void test_normalize(void **state)
{
	static const struct {
		const char *in, *out;
	} ok[] = {
	    {"/_ping", "/_ping"},
	    {"/v1.41/containers/json", "/containers/json"},
	    {"/v1.43/containers/json", "/containers/json"},
	    {"/v1/info", "/info"},
	    {"//containers//json", "/containers/json"},
	    {"/containers/./json", "/containers/json"},
	    {"/containers/x/../json", "/containers/json"},
	    {"/v1.41/containers/%6aso%6E", "/containers/json"},
	    {"/containers%2Fjson", "/containers/json"},
	    {"/info/../v1.41/info", "/v1.41/info"}, /* only a leading version is one */
	    {"/", "/"},
	    {"/v1.41", "/"},
	    {"/containers/abc/logs/", "/containers/abc/logs"},
	};
	static const char *const bad[] = {
	    "",	      "containers/json", "/..",	    "/v1.41/../..",	    "/a%zz", "/a%4", "/a%00b",
	    "/a%0Ab", "/a\tb",		 "/%2e%2e", "/v1.41/../v1.41/info",
	};
	char out[512];

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct te_err err = {0};

		if (svc_brk_normalize(ok[i].in, out, sizeof(out), &err) < 0)
			fail_msg("'%s': %s", ok[i].in, err.msg);
		assert_string_equal(out, ok[i].out);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct te_err err = {0};

		assert_int_equal(svc_brk_normalize(bad[i], out, sizeof(out), &err), -1);
		assert_int_equal(err.code, TE_E_USAGE);
	}
}

static void test_route(void **state)
{
	static const struct {
		const char *method, *path;
		enum svc_brk_action action;
		const char *ref, *op;
		int status;
	} t[] = {
	    {"GET", "/_ping", SVC_BRK_PING, "", "", 0},
	    {"HEAD", "/v1.41/_ping", SVC_BRK_PING, "", "", 0},
	    {"GET", "/v1.41/version", SVC_BRK_FORWARD, "", "", 0},
	    {"GET", "/v1.41/info", SVC_BRK_INFO, "", "", 0},
	    {"GET", "/v1.41/containers/json", SVC_BRK_LIST, "", "", 0},
	    {"GET", "/v1.41/images/json", SVC_BRK_FORWARD, "", "", 0},
	    {"GET", "/v1.41/containers/t1-app-1/json", SVC_BRK_CONTAINER, "t1-app-1", "json", 0},
	    {"GET", "/v1.41/containers/abc123/logs", SVC_BRK_CONTAINER, "abc123", "logs", 0},
	    {"POST", "/v1.41/containers/abc/restart", SVC_BRK_CONTAINER, "abc", "restart", 0},
	    {"POST", "/v1.41/containers/abc/exec", SVC_BRK_CONTAINER, "abc", "exec", 0},
	    {"PUT", "/v1.41/containers/abc/archive", SVC_BRK_CONTAINER, "abc", "archive", 0},
	    {"POST", "/v1.41/exec/e1/start", SVC_BRK_EXEC, "e1", "start", 0},
	    {"GET", "/v1.41/exec/e1/json", SVC_BRK_EXEC, "e1", "json", 0},
	    /* served, the body judged by the policy gate on the way */
	    {"POST", "/v1.41/containers/create", SVC_BRK_CREATE, "", "", 0},
	    {"POST", "/v1.41/containers/abc/update", SVC_BRK_CONTAINER, "abc", "update", 0},
	    /* a trick that normalises to create is a create: judged as one */
	    {"POST", "/v1.41/containers/x/../create", SVC_BRK_CREATE, "", "", 0},
	    /* refused: not on the list, wrong method, tricks */
	    {"POST", "/v1.41/containers/abc/rename", SVC_BRK_DENY, "", "", 403},
	    {"GET", "/v1.41/containers/abc/export", SVC_BRK_DENY, "", "", 403},
	    {"POST", "/v1.41/commit", SVC_BRK_DENY, "", "", 403},
	    {"DELETE", "/v1.41/containers/abc", SVC_BRK_DENY, "", "", 403},
	    {"POST", "/v1.41/containers/abc/json", SVC_BRK_DENY, "", "", 403},
	    {"GET", "/v1.41/containers/abc/logs/extra", SVC_BRK_DENY, "", "", 403},
	    {"POST", "/v1.41/containers/prune", SVC_BRK_DENY, "", "", 403},
	    {"POST", "/v1.41/images/create", SVC_BRK_DENY, "", "", 403},
	    {"POST", "/v1.41/volumes/create", SVC_BRK_DENY, "", "", 403},
	    {"POST", "/v1.41/networks/create", SVC_BRK_DENY, "", "", 403},
	    {"GET", "/v1.41/events", SVC_BRK_DENY, "", "", 403},
	    {"GET", "/v1.41/system/df", SVC_BRK_DENY, "", "", 403},
	    {"POST", "/v1.41/build", SVC_BRK_DENY, "", "", 403},
	    {"POST", "/v1.41/swarm/init", SVC_BRK_DENY, "", "", 403},
	    {"GET", "/v4.0.0/libpod/info", SVC_BRK_DENY, "", "", 403},
	    {"POST", "/v1.41/containers/abc%2F..%2F..%2Fcreate", SVC_BRK_DENY, "", "", 403},
	    {"POST", "/v1.41/containers/abc%2Frestart", SVC_BRK_CONTAINER, "abc", "restart", 0},
	    {"POST", "/v1.41/containers/-x/restart", SVC_BRK_DENY, "", "", 400},
	    {"GET", "/../../etc/passwd", SVC_BRK_DENY, "", "", 400},
	    {"GET", "/v1.41/containers/a%00b/json", SVC_BRK_DENY, "", "", 400},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct svc_brk_route r;

		svc_brk_route(t[i].method, t[i].path, &r);
		if (r.action != t[i].action)
			fail_msg("%s %s: action %d, expected %d (%s)", t[i].method, t[i].path, r.action,
				 t[i].action, r.rule);
		if (t[i].action == SVC_BRK_DENY) {
			assert_int_equal(r.status, t[i].status);
			assert_true(strstr(r.rule, "rule") || t[i].status == 400);
			continue;
		}
		assert_string_equal(r.ref, t[i].ref);
		assert_string_equal(r.op, t[i].op);
	}
}

static void test_flags(void **state)
{
	struct svc_brk_route r;

	svc_brk_route("GET", "/v1.41/containers/a/logs", &r);
	assert_true(r.stream);
	assert_false(r.hijack);
	svc_brk_route("POST", "/v1.41/exec/a/start", &r);
	assert_true(r.hijack);
	svc_brk_route("POST", "/v1.41/containers/a/attach", &r);
	assert_true(r.hijack);
	svc_brk_route("POST", "/v1.41/containers/a/stop", &r);
	assert_false(r.stream);
	assert_false(r.hijack);
}

static void test_refs_and_queries(void **state)
{
	char big[300];

	assert_true(svc_brk_ref_ok("t1-app-1"));
	assert_true(svc_brk_ref_ok("0123abcdef"));
	assert_false(svc_brk_ref_ok(""));
	assert_false(svc_brk_ref_ok("-x"));
	assert_false(svc_brk_ref_ok(".x"));
	assert_false(svc_brk_ref_ok("a b"));
	assert_false(svc_brk_ref_ok("a/b"));
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_false(svc_brk_ref_ok(big));
	assert_true(svc_brk_query_ok(NULL));
	assert_true(svc_brk_query_ok("all=1&filters=%7B%22label%22%3A%5B%5D%7D"));
	assert_false(svc_brk_query_ok("a=b c"));
	assert_false(svc_brk_query_ok("a=b\r\nX: y"));
	assert_false(svc_brk_query_ok("a=\"b\""));
}

static void test_socket_path(void **state)
{
	struct te_err err = {0};
	char *p = svc_broker_socket_path("/run/user/1000/taskenv", "ledger-id", "t1", &err);
	char *q = svc_broker_socket_path("/run/user/1000/taskenv", "ledger-id", "t2", &err);
	char *same = svc_broker_socket_path("/run/user/1000/taskenv", "ledger-id", "t1", &err);
	char longbase[120];

	assert_non_null(p);
	assert_int_equal(strlen(p), strlen("/run/user/1000/taskenv/") + 12 + strlen("/docker.sock"));
	assert_string_not_equal(p, q);
	assert_string_equal(p, same);
	memset(longbase, 'd', sizeof(longbase) - 1);
	longbase[0] = '/';
	longbase[sizeof(longbase) - 1] = '\0';
	assert_null(svc_broker_socket_path(longbase, "ledger-id", "t1", &err));
	assert_int_equal(err.code, TE_E_USAGE);
	assert_non_null(strstr(err.msg, longbase));
	free(p);
	free(q);
	free(same);
	p = svc_broker_base("/run/user/7");
	assert_string_equal(p, "/run/user/7/taskenv");
	free(p);
	p = svc_broker_base(NULL);
	assert_true(strncmp(p, "/run/taskenv", 12) == 0 || strncmp(p, "/tmp/taskenv-", 13) == 0);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_normalize),	cmocka_unit_test(test_route),
	    cmocka_unit_test(test_flags),	cmocka_unit_test(test_refs_and_queries),
	    cmocka_unit_test(test_socket_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
