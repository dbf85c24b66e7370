/* `up` and `down` (services/lifecycle) against the fake engine, for the
 * error paths a real engine does not produce on demand: a create refused
 * with 500 or 409, the connection dropped mid-answer, a removal refused.
 * Each checks the error, the engine requests sent (and the ones that must
 * not be), and the ledger rows the protocol says are left: the intended row
 * of what may exist, `down` finding it by name and removing it only when
 * its labels say it is ours, a failed removal left pending for the next
 * `down`. The real paths are tests/integration's. */
#define TE_WITH_CJSON
#include "common/cleanup.h"
#include "common/err.h"
#include "common/mem.h"
#include "engine/engine.h"
#include "services/lifecycle/guard.h"
#include "services/lifecycle/apply.h"
#include "services/lifecycle/gc.h"
#include "services/lifecycle/inuse.h"
#include "services/lifecycle/teardown.h"
#include "services/model/compose.h"
#include "services/model/load.h"
#include "state/ledger.h"
#include "tests/unit/fake_engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#define TASK "t1"
#define CONTAINER TASK "-web-1"
#define NETWORK TASK "_default"

struct fx {
	char *dir;
	struct fake_engine *f;
	struct engine *e;
	struct ledger *l;
	struct svc_project *p;
};

static int setup(void **state)
{
	struct fx *x = xcalloc(1, sizeof(*x));
	te_autofree char *compose = NULL;
	te_autofree char *db = NULL;
	char *files[2] = {NULL, NULL};
	struct te_err err = {0};
	FILE *fp;

	x->dir = xstrdup("/tmp/te-life-XXXXXX");
	assert_non_null(mkdtemp(x->dir));
	compose = xasprintf("%s/compose.yaml", x->dir);
	fp = fopen(compose, "w");
	assert_non_null(fp);
	fputs("services:\n  web:\n    image: busybox:1\n", fp);
	fclose(fp);
	files[0] = compose;
	x->p = svc_load(files, &err);
	if (!x->p)
		fail_msg("load: %s", err.msg);
	db = xasprintf("%s/state.db", x->dir);
	x->l = state_open(db, &err);
	if (!x->l)
		fail_msg("ledger: %s", err.msg);
	x->f = fake_engine_new();
	fake_engine_route_docker_ping(x->f);
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fx *x = *state;
	te_autofree char *cmd = xasprintf("rm -rf '%s'", x->dir);

	engine_free(x->e);
	fake_engine_free(x->f);
	state_close(x->l);
	svc_project_free(x->p);
	assert_int_equal(system(cmd), 0);
	free(x->dir);
	free(x);
	return 0;
}

/* Labels of an object: ours (this task, this ledger) or another task's. */
static char *labelled(struct fx *x, const char *id, const char *task, bool config)
{
	return xasprintf("{\"Id\":\"%s\",%s\"Labels\":{\"io.taskenv.task\":\"%s\","
			 "\"io.taskenv.ledger\":\"%s\"}%s,\"State\":{\"Running\":false}}",
			 id, config ? "\"Config\":{" : "", task, state_ledger_id(x->l), config ? "}" : "");
}

/* The container ID, once created, answers its inspect with this task's
 * labels: the gate asks before it lets taskenv start it. */
static void route_created(struct fx *x, const char *id)
{
	te_autofree char *path = xasprintf("/containers/%s/json", id);
	te_autofree char *json = labelled(x, id, TASK, true);

	fake_engine_route(x->f, "GET", path, 200, json);
}

/* The engine as `up` finds it: the image present, nothing of the task yet,
 * the network created; the container create answers as the test says. */
static void route_up(struct fx *x)
{
	/* The engine's identity, recorded with the task (issue 18). */
	fake_engine_route(x->f, "GET", "/info", 200, "{\"ID\":\"FAKE:ENGINE\"}");
	fake_engine_route(x->f, "GET", "/images/busybox:1/json", 200, "{\"Id\":\"sha256:b0\"}");
	fake_engine_route(x->f, "GET", "/networks/" NETWORK, 404, "{\"message\":\"network not found\"}");
	fake_engine_route(x->f, "POST", "/networks/create", 201, "{\"Id\":\"net1\",\"Warning\":\"\"}");
	fake_engine_route(x->f, "GET", "/containers/" CONTAINER "/json", 404,
			  "{\"message\":\"No such container: " CONTAINER "\"}");
	route_created(x, "c1");
}

/* 204 with no body, as the engine answers a stop or a DELETE. */
static void route_204(struct fx *x, const char *method, const char *path_glob)
{
	fake_engine_route_raw(x->f, method, path_glob, 204, NULL, "", 0);
}

/* The label sweep that ends `down` finds nothing the ledger missed. */
static void route_sweep(struct fx *x)
{
	fake_engine_route(x->f, "GET", "/containers/json?all=1&filters=*", 200, "[]");
	fake_engine_route(x->f, "GET", "/networks?filters=*", 200, "[]");
	fake_engine_route(x->f, "GET", "/volumes?filters=*", 200, "{\"Volumes\":[]}");
}

/* The engine as `down` finds it after `up`: the container at
 * /containers/REF/json answers CONTAINER_JSON (404 when NULL: it never
 * was), our network net1, no other container on it (the list asked
 * before a network goes is empty), no shared server containers; stops
 * succeed. The test adds how each DELETE is answered. */
static void route_down(struct fx *x, const char *ref, const char *container_json)
{
	te_autofree char *path = xasprintf("/containers/%s/json", ref);
	te_autofree char *net = labelled(x, "net1", TASK, false);

	fake_engine_routes_clear(x->f);
	fake_engine_route_docker_ping(x->f);
	fake_engine_route(x->f, "GET", path, container_json ? 200 : 404,
			  container_json ? container_json : "{\"message\":\"no such container\"}");
	fake_engine_route(x->f, "GET", "/containers/taskenv-shared-*", 404,
			  "{\"message\":\"no such container\"}");
	route_204(x, "POST", "/containers/*/stop*");
	fake_engine_route(x->f, "GET", "/networks/net1", 200, net);
	fake_engine_route(x->f, "GET", "/containers/json?all=1", 200, "[]");
	route_sweep(x);
}

static int up(struct fx *x, struct te_err *err)
{
	struct svc_up_opts o = {.port_lo = 20000, .port_hi = 29999, .wait_timeout_s = 5};
	struct te_err perr = {0};

	assert_int_equal(state_subnet_pool_parse("10.251.0.0/16", 0, &o.pool, &perr), 0);
	if (!x->e)
		x->e = fake_engine_open(x->f);
	return svc_up(x->e, x->l, x->p, TASK, &o, err);
}

static int down(struct fx *x, struct svc_down_result *res, struct te_err *err)
{
	struct svc_down_opts o = {.stop_timeout = 1};

	return svc_down(x->e, x->l, TASK, &o, res, err);
}

/* The task's rows: KIND NAME STATE [engine id], one per line. Owned. */
static char *rows(struct fx *x)
{
	struct state_resource *r = NULL;
	struct te_err err = {0};
	size_t n = 0;
	char *s = xstrdup("");

	assert_int_equal(state_resource_list(x->l, TASK, true, &r, &n, &err), 0);
	for (size_t i = 0; i < n; i++) {
		char *next = xasprintf("%s%s %s %s %s\n", s, r[i].kind, r[i].name, r[i].state,
				       r[i].engine_id ? r[i].engine_id : "-");

		free(s);
		s = next;
	}
	state_resources_free(r, n);
	return s;
}

static void assert_status(struct fx *x, const char *want)
{
	struct state_task t;
	struct te_err err = {0};

	assert_int_equal(state_task_get(x->l, TASK, &t, &err), 0);
	assert_string_equal(t.status, want);
	state_task_release(&t);
}

static void assert_task_gone(struct fx *x)
{
	struct state_task t;
	struct te_err err = {0};

	assert_int_equal(state_task_get(x->l, TASK, &t, &err), -1);
	assert_int_equal(err.code, TE_E_NOTFOUND);
}

/* A failed create leaves what the ledger says: the network created (its
 * id), the container intended (no id), the task partial. */
static void assert_after_failed_up(struct fx *x)
{
	te_autofree char *r = rows(x);

	assert_string_equal(r, "network " NETWORK " created net1\n"
			       "container " CONTAINER " intended -\n");
	assert_status(x, "partial");
	assert_int_equal(fake_engine_count(x->f, "POST", "/containers/create?name=" CONTAINER), 1);
	assert_int_equal(fake_engine_count(x->f, "POST", "/containers/*/start"), 0);
}

/* 500 on create: nothing was made; down finds no container by the intended
 * name, removes the network, forgets the task. */
static void test_create_500(void **state)
{
	struct fx *x = *state;
	struct svc_down_result res;
	struct te_err err = {0};

	route_up(x);
	fake_engine_route(x->f, "POST", "/containers/create*", 500,
			  "{\"message\":\"failed to create shim task: boom\"}");
	assert_int_equal(up(x, &err), -1);
	assert_int_equal(err.code, TE_E_ENGINE);
	assert_string_equal(err.msg, "service 'web': create container '" CONTAINER
				     "': failed to create shim task: boom");
	assert_after_failed_up(x);

	route_down(x, CONTAINER, NULL);
	route_204(x, "DELETE", "/networks/net1");
	assert_int_equal(down(x, &res, &err), 0);
	assert_int_equal(res.gone, 1);
	assert_int_equal(res.removed, 1);
	assert_int_equal(fake_engine_count(x->f, "DELETE", "/containers/*"), 0);
	assert_int_equal(fake_engine_count(x->f, "DELETE", "/networks/net1"), 1);
	assert_task_gone(x);
}

/* 409 on create: another client took the name between our inspect and our
 * create. The container is not ours: down leaves it alone (no stop, no
 * DELETE) and forgets the row. */
static void test_create_409_not_ours(void **state)
{
	struct fx *x = *state;
	struct svc_down_result res;
	struct te_err err = {0};
	te_autofree char *theirs = NULL;

	route_up(x);
	fake_engine_route(x->f, "POST", "/containers/create*", 409,
			  "{\"message\":\"Conflict. The container name \\\"/" CONTAINER
			  "\\\" is already in use\"}");
	assert_int_equal(up(x, &err), -1);
	assert_int_equal(err.code, TE_E_CONFLICT);
	assert_non_null(strstr(err.msg, "service 'web': create container '" CONTAINER "': Conflict."));
	assert_after_failed_up(x);

	theirs = labelled(x, "c-other", "someone-else", true);
	route_down(x, CONTAINER, theirs);
	route_204(x, "DELETE", "/networks/net1");
	assert_int_equal(down(x, &res, &err), 0);
	assert_int_equal(res.refused, 1);
	assert_int_equal(res.removed, 1);
	assert_int_equal(fake_engine_count(x->f, "POST", "/containers/*/stop*"), 0);
	assert_int_equal(fake_engine_count(x->f, "DELETE", "/containers/*"), 0);
	assert_task_gone(x);
}

/* The engine went away mid-answer to the create: it may have made the
 * container. The intended row names it; down finds it by that name, sees
 * our labels, stops and removes it. */
static void test_create_dropped(void **state)
{
	struct fx *x = *state;
	struct svc_down_result res;
	struct te_err err = {0};
	te_autofree char *ours = NULL;

	route_up(x);
	fake_engine_route_drop(x->f, "POST", "/containers/create*", 201, "{\"Id\":\"c1\",\"Warnings\":[]}");
	assert_int_equal(up(x, &err), -1);
	assert_int_equal(err.code, TE_E_FAIL);
	assert_non_null(strstr(err.msg, "service 'web': create container '" CONTAINER "': "));
	assert_after_failed_up(x);

	ours = labelled(x, "c1", TASK, true);
	route_down(x, CONTAINER, ours);
	fake_engine_route(x->f, "GET", "/containers/c1/json", 200, ours);
	route_204(x, "DELETE", "/containers/c1?v=1&force=1");
	route_204(x, "DELETE", "/networks/net1");
	assert_int_equal(down(x, &res, &err), 0);
	assert_int_equal(res.removed, 2);
	assert_int_equal(fake_engine_count(x->f, "POST", "/containers/c1/stop?t=1"), 1);
	assert_int_equal(fake_engine_count(x->f, "DELETE", "/containers/c1?v=1&force=1"), 1);
	assert_task_gone(x);
}

/* The task's rows after a `down` that could not remove them: both pending,
 * TE_E_REMAINS naming them, the task pending. */
static void assert_both_pending(struct fx *x, int rc, const struct te_err *err)
{
	te_autofree char *r = rows(x);

	assert_int_equal(rc, -1);
	assert_int_equal(err->code, TE_E_REMAINS);
	assert_non_null(
	    strstr(err->msg, "2 owned resource(s) remain (network " NETWORK ", container " CONTAINER ")"));
	assert_string_equal(r, "network " NETWORK " pending net1\ncontainer " CONTAINER " pending c1\n");
	assert_status(x, "pending");
}

/* A whole up, then a down whose container removal the engine refuses
 * (500), then one whose answer is cut off: the rows stay pending and down
 * fails naming them (the network the container still holds is refused
 * too); a later down removes both and forgets the task. */
static void test_remove_refused_then_retried(void **state)
{
	struct fx *x = *state;
	struct svc_down_result res;
	struct te_err err = {0};
	te_autofree char *ours = NULL;

	route_up(x);
	fake_engine_route(x->f, "POST", "/containers/create*", 201, "{\"Id\":\"c1\",\"Warnings\":[]}");
	route_204(x, "POST", "/containers/c1/start");
	assert_int_equal(up(x, &err), 0);
	assert_status(x, "up");
	ours = labelled(x, "c1", TASK, true);

	route_down(x, "c1", ours);
	fake_engine_route(x->f, "DELETE", "/containers/c1*", 500,
			  "{\"message\":\"removal of container c1 is already in progress\"}");
	fake_engine_route(x->f, "DELETE", "/networks/net1", 403,
			  "{\"message\":\"error while removing network: network has active endpoints\"}");
	assert_both_pending(x, down(x, &res, &err), &err);

	route_down(x, "c1", ours);
	fake_engine_route_drop(x->f, "DELETE", "/containers/c1*", 500,
			       "{\"message\":\"cut off in the middle\"}");
	fake_engine_route(x->f, "DELETE", "/networks/net1", 403,
			  "{\"message\":\"network has active endpoints\"}");
	te_err_clear(&err);
	assert_both_pending(x, down(x, &res, &err), &err);

	route_down(x, "c1", ours);
	route_204(x, "DELETE", "/containers/c1*");
	route_204(x, "DELETE", "/networks/net1");
	te_err_clear(&err);
	assert_int_equal(down(x, &res, &err), 0);
	assert_int_equal(res.removed, 2);
	assert_task_gone(x);
}

/* svc_container_uses on the shapes both engines answer: Networks keyed
 * by name, NetworkID the id (dockerd; "" before the first start) or the
 * name (Podman); only volume mounts of that name count. */
static void test_container_uses(void **state)
{
	static const struct {
		const char *json;
		enum svc_res_kind kind;
		bool want;
	} cases[] = {
	    {"{\"NetworkSettings\":{\"Networks\":{\"t1_default\":{\"NetworkID\":\"\"}}}}", SVC_RES_NETWORK,
	     true},
	    {"{\"NetworkSettings\":{\"Networks\":{\"other\":{\"NetworkID\":\"net1\"}}}}", SVC_RES_NETWORK,
	     true},
	    {"{\"NetworkSettings\":{\"Networks\":{\"x\":{\"NetworkID\":\"t1_default\"}}}}", SVC_RES_NETWORK,
	     true},
	    {"{\"NetworkSettings\":{\"Networks\":{\"bridge\":{\"NetworkID\":\"b0\"}}}}", SVC_RES_NETWORK,
	     false},
	    {"{\"NetworkSettings\":{\"Networks\":{\"t1_default2\":{}}}}", SVC_RES_NETWORK, false},
	    {"{\"NetworkSettings\":null}", SVC_RES_NETWORK, false},
	    {"{}", SVC_RES_NETWORK, false},
	    {"{\"Mounts\":[{\"Type\":\"volume\",\"Name\":\"t1_default\"}]}", SVC_RES_VOLUME, true},
	    {"{\"Mounts\":[{\"Type\":\"bind\",\"Name\":\"t1_default\"}]}", SVC_RES_VOLUME, false},
	    {"{\"Mounts\":[{\"Type\":\"volume\",\"Name\":\"t1_data\"}]}", SVC_RES_VOLUME, false},
	    {"{\"Mounts\":[{\"Type\":\"volume\",\"Name\":\"t1_default\"}]}", SVC_RES_NETWORK, false},
	    {"{\"Mounts\":[{\"Type\":\"volume\",\"Name\":\"t1_default\"}]}", SVC_RES_IMAGE, false},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		te_autojson cJSON *c = cJSON_Parse(cases[i].json);

		print_message("%s\n", cases[i].json);
		assert_non_null(c);
		assert_int_equal(svc_container_uses(c, cases[i].kind, NETWORK, "net1"), cases[i].want);
	}
}

static void keep_last(void *ctx, const char *kind, const char *name, const char *what)
{
	char **last = ctx;

	if (strcmp(kind, "network") != 0)
		return;
	free(*last);
	*last = xasprintf("%s %s", name, what);
}

/* A container outside the task on the network (Podman's shapes: the
 * network's Containers, NetworkID = its name): down keeps the network,
 * sends no DELETE for it, leaves the row pending and names the container;
 * once it is gone, the next down removes the network. */
static void test_network_foreign_kept(void **state)
{
	struct fx *x = *state;
	struct svc_down_result res;
	struct te_err err = {0};
	struct svc_down_opts o = {.stop_timeout = 1, .progress = keep_last};
	te_autofree char *ours = NULL;
	te_autofree char *last = NULL;
	te_autofree char *r = NULL;
	te_autofree char *netj =
	    xasprintf("{\"Id\":\"net1\",\"Name\":\"" NETWORK "\",\"Labels\":{\"io.taskenv.task\":\"" TASK
		      "\",\"io.taskenv.ledger\":\"%s\"},\"Containers\":{\"f1\":{\"Name\":\"foreign\"}}}",
		      state_ledger_id(x->l));
	const char *foreign =
	    "{\"Id\":\"f1\",\"Name\":\"/foreign\",\"Config\":{\"Labels\":{\"io.taskenv.task\":\"" TASK
	    "\"}},\"NetworkSettings\":{\"Networks\":{\"" NETWORK "\":{\"NetworkID\":\"" NETWORK "\"}}}}";

	route_up(x);
	fake_engine_route(x->f, "POST", "/containers/create*", 201, "{\"Id\":\"c1\",\"Warnings\":[]}");
	route_204(x, "POST", "/containers/c1/start");
	assert_int_equal(up(x, &err), 0);
	ours = labelled(x, "c1", TASK, true);

	fake_engine_routes_clear(x->f);
	fake_engine_route_docker_ping(x->f);
	fake_engine_route(x->f, "GET", "/containers/c1/json", 200, ours);
	route_204(x, "POST", "/containers/*/stop*");
	route_204(x, "DELETE", "/containers/c1*");
	fake_engine_route(x->f, "GET", "/networks/net1", 200, netj);
	/* Not in the list (it came after it): the network's word, checked by
	 * the container's own inspect. A task label without the ledger's is
	 * not ours. */
	fake_engine_route(x->f, "GET", "/containers/json?all=1", 200, "[]");
	route_sweep(x);
	fake_engine_route(x->f, "GET", "/containers/f1/json", 200, foreign);
	route_204(x, "DELETE", "/networks/net1");
	o.progress_ctx = &last;
	assert_int_equal(svc_down(x->e, x->l, TASK, &o, &res, &err), -1);
	assert_int_equal(err.code, TE_E_REMAINS);
	assert_int_equal(res.remaining, 1);
	assert_int_equal(fake_engine_count(x->f, "DELETE", "/networks/*"), 0);
	assert_string_equal(last, NETWORK " failed: network '" NETWORK
					  "' is in use by container 'foreign' (not of task '" TASK
					  "'): left in place");
	r = rows(x);
	assert_string_equal(r, "network " NETWORK " pending net1\ncontainer " CONTAINER " removed c1\n");
	assert_status(x, "pending");

	/* Gone now: dockerd would still list its endpoint, which is dropped. */
	fake_engine_routes_clear(x->f);
	fake_engine_route_docker_ping(x->f);
	fake_engine_route(x->f, "GET", "/networks/net1", 200, netj);
	fake_engine_route(x->f, "GET", "/containers/json?all=1", 200, "[]");
	fake_engine_route(x->f, "GET", "/containers/*/json", 404, "{\"message\":\"no such container\"}");
	route_sweep(x);
	fake_engine_route(x->f, "POST", "/networks/net1/disconnect", 200, "");
	route_204(x, "DELETE", "/networks/net1");
	te_err_clear(&err);
	assert_int_equal(svc_down(x->e, x->l, TASK, &o, &res, &err), 0);
	assert_int_equal(fake_engine_count(x->f, "POST", "/networks/net1/disconnect"), 1);
	assert_int_equal(fake_engine_count(x->f, "DELETE", "/networks/net1"), 1);
	assert_task_gone(x);
}

/* svc_container_remove on Podman: v=1 while every anonymous volume it
 * mounts was made with it; one older than the container (to the
 * nanosecond: "loot" is from the same second) makes it v=0, and then its
 * own anonymous volumes go one by one (times in UTC or with an offset),
 * the named one and the foreign one stay. On dockerd v=1, asking nothing:
 * dockerd keeps what was given by name itself. */
static void test_container_remove_volumes(void **state)
{
	struct fx *x = *state;
	struct te_err err = {0};
#define MOUNTS(last)                                                                                         \
	"{\"Id\":\"c1\",\"Config\":{\"Labels\":{\"io.taskenv.task\":\"" TASK                                 \
	"\",\"io.taskenv.ledger\":\"%s\"}},\"Created\":\"2024-05-01T10:00:05.9Z\",\"Mounts\":[{\"Type\":"    \
	"\"volume\",\"Name\":"                                                                               \
	"\"anon1\"},{\"Type\":\"volume\",\"Name\":\"t1_data\"},{\"Type\":\"bind\",\"Source\":\"/etc\"},"     \
	"{\"Type\":\"volume\",\"Name\":\"anon2\"},{\"Type\":\"volume\",\"Name\":\"" last "\"}]}"
	te_autofree char *plain = xasprintf(MOUNTS("gone"), state_ledger_id(x->l));
	te_autofree char *given = xasprintf(MOUNTS("loot"), state_ledger_id(x->l));
	size_t inspects, libpod;
#undef MOUNTS

	fake_engine_routes_clear(x->f);
	fake_engine_route_raw(x->f, "GET", "/_ping", 200,
			      "API-Version: 1.41\r\nLibpod-API-Version: 4.3.1\r\n", "OK", 2);
	fake_engine_route(x->f, "GET", "/libpod/volumes/anon1/json", 200,
			  "{\"Anonymous\":true,\"CreatedAt\":\"2024-05-01T10:00:05.95Z\"}");
	fake_engine_route(x->f, "GET", "/libpod/volumes/anon2/json", 200,
			  "{\"Anonymous\":true,\"CreatedAt\":\"2024-05-01T12:00:06+02:00\"}");
	fake_engine_route(x->f, "GET", "/libpod/volumes/t1_data/json", 200,
			  "{\"CreatedAt\":\"2024-05-01T09:00:00Z\"}");
	fake_engine_route(x->f, "GET", "/libpod/volumes/loot/json", 200,
			  "{\"Anonymous\":true,\"CreatedAt\":\"2024-05-01T10:00:05.1Z\"}");
	fake_engine_route(x->f, "GET", "/libpod/volumes/gone/json", 404, "{\"message\":\"no such volume\"}");
	route_204(x, "DELETE", "/containers/*");
	route_204(x, "DELETE", "/volumes/*");
	fake_engine_route(x->f, "GET", "/containers/plain/json", 200, plain);
	fake_engine_route(x->f, "GET", "/containers/given/json", 200, given);
	fake_engine_route(x->f, "GET", "/containers/gone/json", 404, "{\"message\":\"no such container\"}");
	/* The gate lets taskenv remove an anonymous volume without labels
	 * (force=0: the engine keeps one a container still uses). */
	fake_engine_route(x->f, "GET", "/volumes/anon*", 200, "{\"Name\":\"anon\",\"Labels\":null}");
	x->e = fake_engine_open(x->f);
	svc_guard(x->e, x->l);

	assert_int_equal(svc_container_remove(x->e, "plain", -1, &err), 0);
	assert_int_equal(fake_engine_count(x->f, "DELETE", "/containers/plain?v=1&force=1"), 1);
	assert_int_equal(fake_engine_count(x->f, "DELETE", "/volumes/*"), 0);

	assert_int_equal(svc_container_remove(x->e, "given", -1, &err), 0);
	assert_int_equal(fake_engine_count(x->f, "DELETE", "/containers/given?v=0&force=1"), 1);
	assert_int_equal(fake_engine_count(x->f, "DELETE", "/volumes/anon1?force=0"), 1);
	assert_int_equal(fake_engine_count(x->f, "DELETE", "/volumes/anon2?force=0"), 1);
	assert_int_equal(fake_engine_count(x->f, "DELETE", "/volumes/*"), 2);
	assert_int_equal(fake_engine_count(x->f, "POST", "/containers/*/stop*"), 0);

	assert_int_equal(svc_container_remove(x->e, "gone", -1, &err), -1);
	assert_int_equal(err.code, TE_E_NOTFOUND);
	engine_free(x->e);

	/* dockerd: svc_container_remove asks nothing more there; the gate
	 * inspects "given" once before it lets the DELETE go. */
	inspects = fake_engine_count(x->f, "GET", "/containers/given/json");
	libpod = fake_engine_count(x->f, "GET", "/libpod/*");
	fake_engine_routes_clear(x->f);
	fake_engine_route_docker_ping(x->f);
	route_204(x, "DELETE", "/containers/*");
	fake_engine_route(x->f, "GET", "/containers/given/json", 200, given);
	x->e = engine_open(fake_engine_socket(x->f), &err);
	assert_non_null(x->e);
	svc_guard(x->e, x->l);
	assert_int_equal(svc_container_remove(x->e, "given", -1, &err), 0);
	assert_int_equal(fake_engine_count(x->f, "DELETE", "/containers/given?v=1&force=1"), 1);
	assert_int_equal(fake_engine_count(x->f, "GET", "/containers/given/json"), inspects + 1);
	assert_int_equal(fake_engine_count(x->f, "GET", "/libpod/*"), libpod);
	/* 4 mounts each, on Podman, and the gate's look at each anonymous volume removed */
	assert_int_equal(libpod, 8 + 2);
}

/* An engine that ignores the label filter of gc's list calls answers
 * everything: gc removes nothing that lacks this ledger's labels (another
 * ledger's, a task label alone, none, a bad task name), whatever the list
 * said; only the true orphan "e" of each kind goes. The real engines
 * honour the filter (tests/integration). */
static void test_gc_filter_ignored(void **state)
{
	struct fx *x = *state;
	struct svc_gc_opts o = {.stop_timeout = 0};
	struct svc_gc_result res;
	struct te_err err = {0};
	te_autofree char *list = xasprintf(
	    "[{\"Id\":\"a\",\"Name\":\"a\",\"Names\":[\"/a\"],\"Labels\":{\"io.taskenv.task\":\"t9\","
	    "\"io.taskenv.ledger\":\"0000000000000000\"}},"
	    "{\"Id\":\"b\",\"Name\":\"b\",\"Names\":[\"/b\"],\"Labels\":{\"io.taskenv.task\":\"t9\"}},"
	    "{\"Id\":\"c\",\"Name\":\"c\",\"Names\":[\"/c\"],\"Labels\":{}},"
	    "{\"Id\":\"d\",\"Name\":\"d\",\"Names\":[\"/d\"],\"Labels\":{\"io.taskenv.task\":\"../x\","
	    "\"io.taskenv.ledger\":\"%s\"}},"
	    "{\"Id\":\"e\",\"Name\":\"e\",\"Names\":[\"/e\"],\"Labels\":{\"io.taskenv.task\":\"t9\","
	    "\"io.taskenv.ledger\":\"%s\"}}]",
	    state_ledger_id(x->l), state_ledger_id(x->l));
	te_autofree char *vols = xasprintf("{\"Volumes\":%s}", list);

	fake_engine_route(x->f, "GET", "/containers/json?all=1&filters=*", 200, list);
	fake_engine_route(x->f, "GET", "/networks?filters=*", 200, list);
	fake_engine_route(x->f, "GET", "/volumes?filters=*", 200, vols);
	fake_engine_route(x->f, "GET", "/containers/json?all=1", 200, "[]");
	te_autofree char *e_labels = xasprintf(
	    "\"Labels\":{\"io.taskenv.task\":\"t9\",\"io.taskenv.ledger\":\"%s\"}", state_ledger_id(x->l));
	te_autofree char *e_container = xasprintf("{\"Id\":\"e\",\"Config\":{%s}}", e_labels);
	te_autofree char *e_object = xasprintf("{\"Id\":\"e\",\"Name\":\"e\",%s}", e_labels);

	fake_engine_route(x->f, "GET", "/containers/e/json", 200, e_container);
	fake_engine_route(x->f, "GET", "/networks/e", 200, e_object);
	fake_engine_route(x->f, "GET", "/volumes/e", 200, e_object);
	fake_engine_route(x->f, "GET", "/containers/*/json", 404, "{\"message\":\"no such container\"}");
	route_204(x, "DELETE", "*/e*");
	x->e = fake_engine_open(x->f);
	assert_int_equal(svc_gc(x->e, x->l, &o, &res, &err), 0);
	assert_int_equal(res.orphans, 3);
	assert_int_equal(fake_engine_count(x->f, "DELETE", "/containers/e?v=1&force=1"), 1);
	assert_int_equal(fake_engine_count(x->f, "DELETE", "/networks/e"), 1);
	assert_int_equal(fake_engine_count(x->f, "DELETE", "/volumes/e?force=0"), 1);
	assert_int_equal(fake_engine_count(x->f, "DELETE", "*"), 3);
	assert_int_equal(fake_engine_count(x->f, "POST", "*"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_create_500, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_create_409_not_ours, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_create_dropped, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_remove_refused_then_retried, setup, teardown),
	    cmocka_unit_test(test_container_uses),
	    cmocka_unit_test_setup_teardown(test_network_foreign_kept, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_container_remove_volumes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_gc_filter_ignored, setup, teardown),
	};

	/* No user config or engine variables leak into the test. */
	setenv("HOME", "/nonexistent", 1);
	unsetenv("TASKENV_CONFIG");
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("TASKENV_FAULT");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
