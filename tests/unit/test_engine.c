/* Unit tests for engine/: socket discovery, and the Engine API client
 * against the fake engine of fake_engine.h (canned HTTP/1.1 answers on a
 * UNIX socket, every request recorded, as curl's tests do). The real
 * dockerd and Podman are exercised by tests/integration. */
#define TE_WITH_CJSON
#include "common/buf.h"
#include "common/cleanup.h"
#include "common/err.h"
#include "common/mem.h"
#include "engine/engine.h"
#include "tests/unit/fake_engine.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* ---- helpers ---- */

/* The engine client refuses every change without a judge (the gate is
 * tested in test_gate.c): these tests of the client itself let all pass,
 * recording the last request the judge saw. */
struct seen {
	char method[16], path[256], query[256];
	char *body; /* owned */
	int calls;
	bool refuse;
};

static struct seen judged;

static int allow_all(void *ctx, const char *method, const char *path, const char *query, const cJSON *body,
		     struct te_err *err)
{
	struct seen *s = ctx;

	s->calls++;
	snprintf(s->method, sizeof(s->method), "%s", method);
	snprintf(s->path, sizeof(s->path), "%s", path);
	snprintf(s->query, sizeof(s->query), "%s", query);
	free(s->body);
	s->body = body ? cJSON_PrintUnformatted(body) : NULL;
	if (s->refuse)
		return te_err_set(err, TE_E_POLICY, "refused: test");
	return 0;
}

static struct engine *open_judged(struct fake_engine *f)
{
	struct engine *e = fake_engine_open(f);

	engine_set_judge(e, allow_all, &judged);
	return e;
}

static char *make_tmpdir(void)
{
	char *dir = xstrdup("/tmp/te-engine-XXXXXX");

	assert_non_null(mkdtemp(dir));
	return dir;
}

static void rm_rf(const char *dir)
{
	te_autofree char *cmd = xasprintf("rm -rf '%s'", dir);

	assert_int_equal(system(cmd), 0);
}

/* A bound UNIX socket at PATH; listening when LISTEN, else refused. */
static int bind_socket(const char *path, bool listen_too)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_true(strlen(path) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, path, strlen(path) + 1);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	if (listen_too)
		assert_int_equal(listen(fd, 8), 0);
	return fd;
}

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* ---- engine_resolve_socket ---- */

struct resolve_case {
	const char *host;
	const char *docker_host;
	const char *container_host;
	int code;	   /* TE_OK or the expected error */
	const char *want;  /* the path, or a substring of the message */
	const char *want2; /* a second message substring, or NULL */
};

static void set_or_unset(const char *name, const char *value)
{
	if (value)
		assert_int_equal(setenv(name, value, 1), 0);
	else
		assert_int_equal(unsetenv(name), 0);
}

static void test_resolve_table(void **state)
{
	static const struct resolve_case cases[] = {
	    {"unix:///a", "unix:///b", "unix:///c", TE_OK, "/a", NULL},
	    {"unix:///a", "tcp://1.2.3.4:2375", NULL, TE_OK, "/a", NULL},
	    {NULL, "unix:///b", "unix:///c", TE_OK, "/b", NULL},
	    {NULL, NULL, "unix:///c", TE_OK, "/c", NULL},
	    {NULL, "", "unix:///c", TE_OK, "/c", NULL},
	    {NULL, "tcp://1.2.3.4:2375", NULL, TE_E_USAGE, "unix://", "DOCKER_HOST"},
	    {NULL, NULL, "tcp://1.2.3.4:2375", TE_E_USAGE, "unix://", "CONTAINER_HOST"},
	    {"ssh://me@build", NULL, NULL, TE_E_USAGE, "'ssh://me@build'", "--host"},
	    {"/var/run/docker.sock", NULL, NULL, TE_E_USAGE, "unix://", NULL},
	    {"unix://", NULL, NULL, TE_E_USAGE, "no socket path", NULL},
	};
	te_autofree char *dir = make_tmpdir();

	set_or_unset("XDG_RUNTIME_DIR", dir);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct resolve_case *c = &cases[i];
		struct te_err err = {0};
		te_autofree char *path = NULL;
		int rc;

		set_or_unset("DOCKER_HOST", c->docker_host);
		set_or_unset("CONTAINER_HOST", c->container_host);
		rc = engine_resolve_socket(c->host, &path, &err);
		if (c->code == TE_OK) {
			assert_int_equal(rc, 0);
			assert_string_equal(path, c->want);
			continue;
		}
		assert_int_equal(rc, -1);
		assert_null(path);
		assert_int_equal(err.code, c->code);
		assert_non_null(strstr(err.msg, c->want));
		if (c->want2)
			assert_non_null(strstr(err.msg, c->want2));
	}
	unsetenv("DOCKER_HOST");
	unsetenv("CONTAINER_HOST");
	unsetenv("XDG_RUNTIME_DIR");
	rm_rf(dir);
}

static void test_resolve_xdg_podman(void **state)
{
	te_autofree char *dir = make_tmpdir();
	te_autofree char *sub = xasprintf("%s/podman", dir);
	te_autofree char *sock = xasprintf("%s/podman/podman.sock", dir);
	te_autofree char *path = NULL;
	struct te_err err = {0};
	int fd;

	unsetenv("DOCKER_HOST");
	unsetenv("CONTAINER_HOST");
	setenv("XDG_RUNTIME_DIR", dir, 1);
	assert_int_equal(mkdir(sub, 0700), 0);
	fd = bind_socket(sock, true);
	assert_int_equal(engine_resolve_socket(NULL, &path, &err), 0);
	/* /var/run/docker.sock comes first when this machine has one. */
	assert_string_equal(path, exists("/var/run/docker.sock") ? "/var/run/docker.sock" : sock);
	close(fd);
	unsetenv("XDG_RUNTIME_DIR");
	rm_rf(dir);
}

static void test_resolve_none(void **state)
{
	te_autofree char *dir = make_tmpdir();
	te_autofree char *xdg_sock = xasprintf("%s/podman/podman.sock", dir);
	te_autofree char *path = NULL;
	struct te_err err = {0};

	if (exists("/var/run/docker.sock") || exists("/run/podman/podman.sock")) {
		rm_rf(dir);
		skip(); /* a system engine socket exists here, so "none found" cannot happen */
	}
	unsetenv("DOCKER_HOST");
	unsetenv("CONTAINER_HOST");
	setenv("XDG_RUNTIME_DIR", dir, 1);
	assert_int_equal(engine_resolve_socket(NULL, &path, &err), -1);
	assert_null(path);
	assert_int_equal(err.code, TE_E_UNREACHABLE);
	assert_non_null(strstr(err.msg, "/var/run/docker.sock"));
	assert_non_null(strstr(err.msg, xdg_sock));
	assert_non_null(strstr(err.msg, "/run/podman/podman.sock"));
	assert_non_null(strstr(err.msg, "podman system service"));
	unsetenv("XDG_RUNTIME_DIR");
	rm_rf(dir);
}

/* ---- engine_open ---- */

struct open_case {
	const char *version_json;
	const char *api;
	const char *flavor;
	const char *version;
};

static void test_open_negotiates(void **state)
{
	static const struct open_case cases[] = {
	    {fake_engine_docker_version, "1.41", "docker", "24.0.7"},
	    {"{\"Version\":\"20.10.24\",\"ApiVersion\":\"1.40\"}", "1.40", "docker", "20.10.24"},
	    {"{\"Version\":\"1.0\",\"ApiVersion\":\"1.9\"}", "1.9", "docker", "1.0"},
	    {"{\"Version\":\"9\",\"ApiVersion\":\"2.0\"}", "1.41", "docker", "9"},
	    {"{\"Platform\":{\"Name\":\"linux/amd64/debian-12\"},\"Components\":[{\"Name\":"
	     "\"Podman Engine\",\"Version\":\"4.3.1\"}],\"Version\":\"4.3.1\","
	     "\"ApiVersion\":\"1.41\",\"MinAPIVersion\":\"1.24\"}",
	     "1.41", "podman", "4.3.1"},
	    {"{\"Platform\":{\"Name\":\"podman\"},\"ApiVersion\":\"1.40\"}", "1.40", "podman", "unknown"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fake_engine *f = fake_engine_new();
		struct engine *e;

		fake_engine_queue_open(f, cases[i].version_json);
		e = open_judged(f);
		assert_string_equal(engine_api_version(e), cases[i].api);
		assert_string_equal(engine_flavor(e), cases[i].flavor);
		assert_string_equal(engine_version(e), cases[i].version);
		assert_string_equal(engine_socket(e), fake_engine_socket(f));
		fake_engine_assert_req(f, 0, "GET /_ping");
		fake_engine_assert_req(f, 1, "GET /version");
		assert_int_equal(fake_engine_accepts(f), 1); /* one kept-alive connection */
		engine_free(e);
		fake_engine_free(f);
	}
}

struct open_fail_case {
	int ping_status;
	const char *version_json;
	int code;
	const char *want;
};

static void test_open_failures(void **state)
{
	static const struct open_fail_case cases[] = {
	    {500, NULL, TE_E_ENGINE, "daemon is shutting down"},
	    {200, "{\"Version\":\"x\"}", TE_E_FAIL, "no usable ApiVersion"},
	    {200, "{\"ApiVersion\":\"one.four\"}", TE_E_FAIL, "no usable ApiVersion"},
	    {200, "not json", TE_E_FAIL, "malformed JSON"},
	    {200, "{\"ApiVersion\":\"1.51\",\"MinAPIVersion\":\"1.44\"}", TE_E_ENGINE,
	     "DOCKER_MIN_API_VERSION"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct open_fail_case *c = &cases[i];
		struct fake_engine *f = fake_engine_new();
		struct te_err err = {0};

		if (c->ping_status == 200)
			fake_engine_queue_open(f, c->version_json);
		else
			fake_engine_queue(f, c->ping_status, "{\"message\":\"daemon is shutting down\"}");
		fake_engine_start(f);
		assert_null(engine_open(fake_engine_socket(f), &err));
		assert_int_equal(err.code, c->code);
		assert_non_null(strstr(err.msg, c->want));
		fake_engine_free(f);
	}
}

/* ---- negotiation from the /_ping headers ---- */

/* What dockerd 20.10 and Podman 4.3 answer GET /_ping with (curl -i). */
#define DOCKERD_PING                                                                                         \
	"Api-Version: 1.41\r\nDocker-Experimental: false\r\nOstype: linux\r\n"                               \
	"Server: Docker/20.10.24+dfsg1 (linux)\r\n"
#define PODMAN_PING                                                                                          \
	"Api-Version: 1.41\r\nDocker-Experimental: true\r\nLibpod-Api-Version: 4.3.1\r\n"                    \
	"Libpod-Buildah-Version: 1.28.2\r\nServer: Libpod/4.3.1 (linux)\r\n"

struct ping_case {
	const char *headers;	  /* of the /_ping answer */
	const char *version_json; /* the /version answer queued next, or NULL */
	bool asks_version;	  /* engine_open itself must ask GET /version */
	const char *api;
	const char *flavor;
};

static void test_open_from_ping(void **state)
{
	static const struct ping_case cases[] = {
	    {DOCKERD_PING, NULL, false, "1.41", "docker"},
	    {PODMAN_PING, NULL, false, "1.41", "podman"},
	    {"API-Version: 1.40\r\nLIBPOD-API-VERSION: 2.2.1\r\n", NULL, false, "1.40", "podman"},
	    {"API-Version: 1.9\r\n", NULL, false, "1.9", "docker"},
	    /* Newer than ours: only /version tells whether it still accepts ours. */
	    {"API-Version: 1.44\r\n", fake_engine_docker_version, true, "1.41", "docker"},
	    {"API-Version: 1.45\r\nLibpod-API-Version: 5.0.0\r\n", "{\"ApiVersion\":\"1.45\"}", true, "1.41",
	     "podman"},
	    {"API-Version: junk\r\n", "{\"ApiVersion\":\"1.40\"}", true, "1.40", "docker"},
	    {"X-Other: 1\r\n", "{\"ApiVersion\":\"1.40\",\"Platform\":{\"Name\":\"Podman\"}}", true, "1.40",
	     "podman"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct ping_case *c = &cases[i];
		struct fake_engine *f = fake_engine_new();
		struct engine *e;

		fake_engine_queue_raw(f, 200, c->headers, "OK", 2);
		if (c->version_json)
			fake_engine_queue(f, 200, c->version_json);
		e = open_judged(f);
		assert_string_equal(engine_api_version(e), c->api);
		assert_string_equal(engine_flavor(e), c->flavor);
		fake_engine_assert_req(f, 0, "GET /_ping");
		assert_int_equal(fake_engine_nreq(f), c->asks_version ? 2 : 1);
		if (c->asks_version)
			fake_engine_assert_req(f, 1, "GET /version");
		engine_free(e);
		fake_engine_free(f);
	}
}

/* engine_version asks GET /version once, on first use. */
static void test_version_lazy(void **state)
{
	struct fake_engine *f = fake_engine_new();
	struct engine *e;

	fake_engine_queue_raw(f, 200, DOCKERD_PING, "OK", 2);
	fake_engine_queue(f, 200, fake_engine_docker_version);
	e = open_judged(f);
	assert_int_equal(fake_engine_nreq(f), 1);
	assert_string_equal(engine_version(e), "24.0.7");
	assert_string_equal(engine_version(e), "24.0.7");
	assert_int_equal(fake_engine_nreq(f), 2);
	fake_engine_assert_req(f, 1, "GET /version");
	engine_free(e);
	fake_engine_free(f);

	/* A failing /version (the fake answers 500) gives "unknown". */
	f = fake_engine_new();
	fake_engine_queue_raw(f, 200, PODMAN_PING, "OK", 2);
	e = open_judged(f);
	assert_string_equal(engine_version(e), "unknown");
	assert_string_equal(engine_flavor(e), "podman");
	engine_free(e);
	fake_engine_free(f);
}

/* An engine newer than us whose minimum is above what we speak is refused
 * at open, as when /version alone decided. */
static void test_open_ping_min_api(void **state)
{
	struct fake_engine *f = fake_engine_new();
	struct te_err err = {0};

	fake_engine_queue_raw(f, 200, "API-Version: 1.52\r\nServer: Docker/29.0.0 (linux)\r\n", "OK", 2);
	fake_engine_queue(f, 200,
			  "{\"Version\":\"29.0.0\",\"ApiVersion\":\"1.52\",\"MinAPIVersion\":\"1.44\"}");
	fake_engine_start(f);
	assert_null(engine_open(fake_engine_socket(f), &err));
	assert_int_equal(err.code, TE_E_ENGINE);
	assert_non_null(strstr(err.msg, "requires API 1.44"));
	assert_non_null(strstr(err.msg, "DOCKER_MIN_API_VERSION"));
	fake_engine_assert_req(f, 1, "GET /version");
	fake_engine_free(f);
}

static void test_unreachable(void **state)
{
	te_autofree char *dir = make_tmpdir();
	te_autofree char *missing = xasprintf("%s/missing.sock", dir);
	te_autofree char *dead = xasprintf("%s/dead.sock", dir);
	struct te_err err = {0};

	assert_null(engine_open(missing, &err));
	assert_int_equal(err.code, TE_E_UNREACHABLE);
	assert_non_null(strstr(err.msg, missing));
	assert_non_null(strstr(err.msg, strerror(ENOENT)));
	assert_non_null(strstr(err.msg, "DOCKER_HOST"));

	/* A socket file nobody listens on (an engine that died). */
	close(bind_socket(dead, false));
	te_err_clear(&err);
	assert_null(engine_open(dead, &err));
	assert_int_equal(err.code, TE_E_UNREACHABLE);
	assert_non_null(strstr(err.msg, dead));
	assert_non_null(strstr(err.msg, strerror(ECONNREFUSED)));
	rm_rf(dir);
}

/* ---- HTTP errors ---- */

static int call_inspect(struct engine *e, struct te_err *err)
{
	te_autojson cJSON *j = NULL;

	return engine_container_inspect(e, "nope", &j, err);
}

static int call_create(struct engine *e, struct te_err *err)
{
	te_autojson cJSON *cfg = cJSON_Parse("{\"Image\":\"alpine\"}");
	te_autofree char *id = NULL;
	int rc = engine_container_create(e, "t1-app-1", cfg, &id, err);

	assert_null(id);
	return rc;
}

static int call_start(struct engine *e, struct te_err *err)
{
	return engine_container_start(e, "c1", err);
}

static int call_net_remove(struct engine *e, struct te_err *err)
{
	return engine_network_remove(e, "t1_default", err);
}

struct http_error_case {
	int (*call)(struct engine *e, struct te_err *err);
	int status;
	const char *body;
	int code;
	const char *msg; /* exact */
	const char *req;
};

static void test_http_errors(void **state)
{
	static const struct http_error_case cases[] = {
	    {call_inspect, 404, "{\"message\":\"No such container: nope\"}", TE_E_NOTFOUND,
	     "No such container: nope", "GET /v1.41/containers/nope/json"},
	    {call_inspect, 404,
	     "{\"cause\":\"no such container\",\"message\":\"no container with name or ID "
	     "\\\"nope\\\" found: no such container\",\"response\":404}",
	     TE_E_NOTFOUND, "no container with name or ID \"nope\" found: no such container",
	     "GET /v1.41/containers/nope/json"},
	    {call_create, 409,
	     "{\"message\":\"Conflict. The container name \\\"/t1-app-1\\\" is already in use\"}",
	     TE_E_CONFLICT, "Conflict. The container name \"/t1-app-1\" is already in use",
	     "POST /v1.41/containers/create?name=t1-app-1"},
	    {call_start, 500, "{\"message\":\"driver failed programming external connectivity\"}",
	     TE_E_ENGINE, "driver failed programming external connectivity",
	     "POST /v1.41/containers/c1/start"},
	    {call_net_remove, 403,
	     "{\"message\":\"error while removing network: has active "
	     "endpoints\"}",
	     TE_E_ENGINE, "error while removing network: has active endpoints",
	     "DELETE /v1.41/networks/t1_default"},
	    {call_start, 502, "Bad Gateway\n", TE_E_ENGINE, "Bad Gateway", "POST /v1.41/containers/c1/start"},
	    {call_start, 500, "", TE_E_ENGINE, "engine answered HTTP 500 with no message",
	     "POST /v1.41/containers/c1/start"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct http_error_case *c = &cases[i];
		struct fake_engine *f = fake_engine_new();
		struct te_err err = {0};
		struct engine *e;

		fake_engine_queue_open(f, fake_engine_docker_version);
		fake_engine_queue(f, c->status, c->body);
		e = open_judged(f);
		assert_int_equal(c->call(e, &err), -1);
		assert_int_equal(err.code, c->code);
		assert_int_equal(err.http_status, c->status);
		assert_string_equal(err.msg, c->msg);
		fake_engine_assert_req(f, 2, c->req);
		engine_free(e);
		fake_engine_free(f);
	}
}

/* ---- successes and engine quirks ---- */

static void test_create_sends_body(void **state)
{
	struct fake_engine *f = fake_engine_new();
	te_autojson cJSON *cfg = cJSON_Parse("{\"Image\":\"alpine\",\"Cmd\":[\"true\"]}");
	te_autojson cJSON *sent = NULL;
	te_autofree char *body = NULL;
	te_autofree char *id = NULL;
	struct te_err err = {0};
	struct engine *e;

	fake_engine_queue_open(f, fake_engine_docker_version);
	fake_engine_queue(f, 201, "{\"Id\":\"abc123\",\"Warnings\":[]}");
	fake_engine_queue(f, 201, "{\"Id\":\"net9\",\"Warning\":\"\"}");
	e = open_judged(f);
	assert_int_equal(engine_container_create(e, "t1-app-1", cfg, &id, &err), 0);
	assert_string_equal(id, "abc123");
	free(id);
	id = NULL;
	assert_int_equal(engine_network_create(e, cfg, &id, &err), 0);
	assert_string_equal(id, "net9");
	fake_engine_assert_req(f, 2, "POST /v1.41/containers/create?name=t1-app-1");
	fake_engine_assert_req(f, 3, "POST /v1.41/networks/create");
	body = fake_engine_body(f, 2);
	sent = cJSON_Parse(body);
	assert_true(cJSON_Compare(sent, cfg, true));
	engine_free(e);
	fake_engine_free(f);
}

static void test_quirks_succeed(void **state)
{
	struct fake_engine *f = fake_engine_new();
	struct te_err err = {0};
	struct engine *e;
	long status = 0;

	fake_engine_queue_open(f, fake_engine_docker_version);
	fake_engine_queue_raw(f, 304, NULL, "", 0);				  /* start: running */
	fake_engine_queue_raw(f, 304, NULL, "", 0);				  /* stop: stopped */
	fake_engine_queue(f, 200, "{\"Id\":\"x\",\"Warnings\":null}");		  /* podman DELETE */
	fake_engine_queue_raw(f, 204, NULL, "", 0);				  /* container remove */
	fake_engine_queue_raw(f, 204, NULL, "", 0);				  /* volume remove */
	fake_engine_queue(f, 201, "{\"Name\":\"t1_data\",\"Driver\":\"local\"}"); /* volume create */
	fake_engine_queue_raw(f, 204, NULL, "", 0);				  /* engine_call */
	e = open_judged(f);
	assert_int_equal(engine_container_start(e, "c1", &err), 0);
	assert_int_equal(engine_container_stop(e, "c1", 10, &err), 0);
	assert_int_equal(engine_network_remove(e, "t1_default", &err), 0);
	assert_int_equal(engine_container_remove(e, "c1", true, &err), 0);
	assert_int_equal(engine_volume_remove(e, "t1_data", false, &err), 0);
	assert_int_equal(engine_volume_create(e, NULL, &err), 0);
	assert_int_equal(engine_call(e, "POST", "/containers/c1/kill", NULL, &status, NULL, &err), 0);
	assert_int_equal(status, 204);
	fake_engine_assert_req(f, 2, "POST /v1.41/containers/c1/start");
	fake_engine_assert_req(f, 3, "POST /v1.41/containers/c1/stop?t=10");
	fake_engine_assert_req(f, 4, "DELETE /v1.41/networks/t1_default");
	fake_engine_assert_req(f, 5, "DELETE /v1.41/containers/c1?v=1&force=1");
	fake_engine_assert_req(f, 6, "DELETE /v1.41/volumes/t1_data?force=0");
	fake_engine_assert_req(f, 7, "POST /v1.41/volumes/create");
	fake_engine_assert_req(f, 8, "POST /v1.41/containers/c1/kill");
	assert_int_equal(fake_engine_accepts(f), 1);
	engine_free(e);
	fake_engine_free(f);
}

static void test_connection_close(void **state)
{
	struct fake_engine *f = fake_engine_new();
	te_autojson cJSON *j = NULL;
	struct te_err err = {0};
	struct engine *e;

	fake_engine_queue_open(f, fake_engine_docker_version);
	fake_engine_queue_raw(f, 200, "Connection: close\r\n", "{\"Id\":\"c1\"}", 11);
	fake_engine_queue(f, 200, "{\"Id\":\"c1\"}");
	e = open_judged(f);
	assert_int_equal(engine_container_inspect(e, "c1", &j, &err), 0);
	cJSON_Delete(j);
	j = NULL;
	assert_int_equal(engine_container_inspect(e, "c1", &j, &err), 0);
	assert_string_equal(cJSON_GetObjectItem(j, "Id")->valuestring, "c1");
	assert_int_equal(fake_engine_accepts(f), 2); /* reconnected after the close */
	engine_free(e);
	fake_engine_free(f);
}

/* ---- filters, escaping, lists ---- */

#define LABEL_Q "filters=%7B%22label%22%3A%5B%22io.taskenv.task%3Dt1%22%5D%7D"

static void test_filters(void **state)
{
	struct fake_engine *f = fake_engine_new();
	te_autojson cJSON *a = NULL, *b = NULL, *c = NULL, *d = NULL, *v = NULL;
	te_autofree char *esc = NULL;
	struct te_err err = {0};
	struct engine *e;

	fake_engine_queue_open(f, fake_engine_docker_version);
	fake_engine_queue(f, 200, "[{\"Id\":\"c1\"}]");
	fake_engine_queue(f, 200, "[]");
	fake_engine_queue(f, 200, "[{\"Name\":\"t1_default\"}]");
	fake_engine_queue(f, 200, "{\"Volumes\":null,\"Warnings\":null}");
	fake_engine_queue(f, 200, "{\"Volumes\":[{\"Name\":\"t1_data\"}],\"Warnings\":[]}");
	e = open_judged(f);
	assert_int_equal(engine_container_list(e, "io.taskenv.task=t1", &a, &err), 0);
	assert_int_equal(cJSON_GetArraySize(a), 1);
	assert_int_equal(engine_container_list(e, NULL, &b, &err), 0);
	assert_int_equal(engine_network_list(e, "io.taskenv.task=t1", &c, &err), 0);
	assert_int_equal(engine_volume_list(e, "io.taskenv.task=t1", &d, &err), 0);
	assert_true(cJSON_IsArray(d));
	assert_int_equal(cJSON_GetArraySize(d), 0);
	assert_int_equal(engine_volume_list(e, NULL, &v, &err), 0);
	assert_int_equal(cJSON_GetArraySize(v), 1);
	assert_string_equal(cJSON_GetArrayItem(v, 0)->child->valuestring, "t1_data");
	fake_engine_assert_req(f, 2, "GET /v1.41/containers/json?all=1&" LABEL_Q);
	fake_engine_assert_req(f, 3, "GET /v1.41/containers/json?all=1");
	fake_engine_assert_req(f, 4, "GET /v1.41/networks?" LABEL_Q);
	fake_engine_assert_req(f, 5, "GET /v1.41/volumes?" LABEL_Q);
	fake_engine_assert_req(f, 6, "GET /v1.41/volumes");
	esc = engine_escape(e, "a b/c:d&e=f");
	assert_string_equal(esc, "a%20b%2Fc%3Ad%26e%3Df");
	engine_free(e);
	fake_engine_free(f);
}

static void test_wrong_shape(void **state)
{
	struct fake_engine *f = fake_engine_new();
	te_autojson cJSON *j = NULL;
	struct te_err err = {0};
	struct engine *e;

	fake_engine_queue_open(f, fake_engine_docker_version);
	fake_engine_queue(f, 200, "{\"not\":\"an array\"}");
	fake_engine_queue(f, 200, "[1, 2");
	e = open_judged(f);
	assert_int_equal(engine_container_list(e, NULL, &j, &err), -1);
	assert_null(j);
	assert_int_equal(err.code, TE_E_FAIL);
	assert_int_equal(engine_network_list(e, NULL, &j, &err), -1);
	assert_null(j);
	assert_int_equal(err.code, TE_E_FAIL);
	assert_non_null(strstr(err.msg, "malformed JSON"));
	engine_free(e);
	fake_engine_free(f);
}

static void test_response_cap(void **state)
{
	struct fake_engine *f = fake_engine_new();
	te_autojson cJSON *j = NULL;
	char big[1001];
	struct te_err err = {0};
	struct engine *e;

	memset(big, ' ', sizeof(big) - 1);
	big[0] = '[';
	big[sizeof(big) - 2] = ']';
	big[sizeof(big) - 1] = '\0';
	fake_engine_queue_open(f, fake_engine_docker_version);
	fake_engine_queue(f, 200, big);
	fake_engine_queue(f, 200, big);
	e = open_judged(f);
	engine_set_response_cap(e, 64);
	assert_int_equal(engine_container_list(e, NULL, &j, &err), -1);
	assert_null(j);
	assert_int_equal(err.code, TE_E_FAIL);
	assert_non_null(strstr(err.msg, "exceeds 64 bytes"));
	engine_set_response_cap(e, 0); /* back to ENGINE_RESPONSE_MAX: the engine is still usable */
	assert_int_equal(engine_container_list(e, NULL, &j, &err), 0);
	assert_int_equal(cJSON_GetArraySize(j), 0);
	engine_free(e);
	fake_engine_free(f);
}

/* ---- pull ---- */

struct pull_case {
	const char *image;
	const char *req;
};

static void test_pull_refs(void **state)
{
	static const struct pull_case cases[] = {
	    {"alpine", "fromImage=alpine&tag=latest"},
	    {"alpine:3.19", "fromImage=alpine&tag=3.19"},
	    {"library/postgres:16", "fromImage=library%2Fpostgres&tag=16"},
	    {"localhost:5000/x", "fromImage=localhost%3A5000%2Fx&tag=latest"},
	    {"localhost:5000/x:1.2", "fromImage=localhost%3A5000%2Fx&tag=1.2"},
	    {"alpine@sha256:abcd", "fromImage=alpine&tag=sha256%3Aabcd"},
	    {"alpine:3@sha256:abcd", "fromImage=alpine&tag=sha256%3Aabcd"},
	    {"localhost:5000/x@sha256:ab", "fromImage=localhost%3A5000%2Fx&tag=sha256%3Aab"},
	};
	static const char stream[] =
	    "{\"status\":\"Pulling from library/alpine\",\"id\":\"3.19\"}\r\n"
	    "{\"status\":\"Downloading\",\"progressDetail\":{\"current\":1,\"total\":2}}\r\n"
	    "{\"status\":\"Status: Downloaded newer image for alpine:3.19\"}\r\n";
	struct fake_engine *f = fake_engine_new();
	struct te_err err = {0};
	struct engine *e;
	size_t n = sizeof(cases) / sizeof(cases[0]);

	fake_engine_queue_open(f, fake_engine_docker_version);
	for (size_t i = 0; i < n; i++)
		fake_engine_queue(f, 200, stream);
	e = open_judged(f);
	for (size_t i = 0; i < n; i++) {
		te_autofree char *want = xasprintf("POST /v1.41/images/create?%s", cases[i].req);

		assert_int_equal(engine_image_pull(e, cases[i].image, &err), 0);
		fake_engine_assert_req(f, 2 + i, want);
	}
	engine_free(e);
	fake_engine_free(f);
}

struct pull_fail_case {
	int status;
	const char *body;
	size_t split; /* split the response this many bytes into the body */
	int code;
	const char *msg;
};

static void test_pull_failures(void **state)
{
	static const char err_line[] =
	    "{\"errorDetail\":{\"message\":\"manifest for alpine:3.99 not found: manifest "
	    "unknown\"},\"error\":\"manifest for alpine:3.99 not found: manifest unknown\"}";
	static const char progress[] = "{\"status\":\"Pulling from library/alpine\"}\r\n";
	te_autofree char *split_body = xasprintf("%s%s\r\n", progress, err_line);
	te_autofree char *no_nl = xasprintf("%s%s", progress, err_line);
	const struct pull_fail_case cases[] = {
	    /* The stream's error object arrives in two writes, split mid-object. */
	    {200, split_body, sizeof(progress) + 20, TE_E_ENGINE,
	     "pull 'alpine:3.99': manifest for alpine:3.99 not found: manifest unknown"},
	    {200, no_nl, 0, TE_E_ENGINE,
	     "pull 'alpine:3.99': manifest for alpine:3.99 not found: manifest unknown"},
	    {200, "{\"error\":\"only the old field\"}\n", 0, TE_E_ENGINE,
	     "pull 'alpine:3.99': only the old field"},
	    {404, "{\"message\":\"pull access denied for nope, repository does not exist\"}", 0,
	     TE_E_NOTFOUND, "pull 'alpine:3.99': pull access denied for nope, repository does not exist"},
	    {500, "{\"message\":\"Get \\\"https://registry-1.docker.io/v2/\\\": EOF\"}", 0, TE_E_ENGINE,
	     "pull 'alpine:3.99': Get \"https://registry-1.docker.io/v2/\": EOF"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct pull_fail_case *c = &cases[i];
		struct fake_engine *f = fake_engine_new();
		struct te_err err = {0};
		struct engine *e;

		fake_engine_queue_open(f, fake_engine_docker_version);
		fake_engine_queue(f, c->status, c->body);
		if (c->split)
			fake_engine_split_last(f, c->split);
		e = open_judged(f);
		assert_int_equal(engine_image_pull(e, "alpine:3.99", &err), -1);
		assert_int_equal(err.code, c->code);
		assert_int_equal(err.http_status, c->status);
		assert_string_equal(err.msg, c->msg);
		fake_engine_assert_req(f, 2, "POST /v1.41/images/create?fromImage=alpine&tag=3.99");
		engine_free(e);
		fake_engine_free(f);
	}
}

/* ---- logs ---- */

static void test_logs(void **state)
{
	static const char framed[] = "\x01\0\0\0\0\0\0\x06hello\n"
				     "\x02\0\0\0\0\0\0\x05oops\n";
	struct fake_engine *f = fake_engine_new();
	te_autobuf struct te_buf out = TE_BUF_INIT(0);
	te_autobuf struct te_buf small = TE_BUF_INIT(8);
	struct te_err err = {0};
	struct engine *e;

	fake_engine_queue_open(f, fake_engine_docker_version);
	fake_engine_queue_raw(f, 200, NULL, framed, sizeof(framed) - 1);
	fake_engine_queue_raw(f, 200, NULL, "plain tty text\r\n", 16);
	fake_engine_queue_raw(f, 200, NULL, framed, sizeof(framed) - 1);
	fake_engine_queue_raw(f, 200, NULL, framed, 12); /* truncated mid-frame */
	e = open_judged(f);
	assert_int_equal(engine_container_logs(e, "c1", 100, &out, &err), 0);
	assert_string_equal(out.data, "hello\noops\n");
	te_buf_reset(&out);
	assert_int_equal(engine_container_logs(e, "c1", -1, &out, &err), 0);
	assert_string_equal(out.data, "plain tty text\r\n");
	assert_int_equal(engine_container_logs(e, "c1", 0, &small, &err), -1);
	assert_int_equal(err.code, TE_E_FAIL);
	assert_non_null(strstr(err.msg, "exceed 8 bytes"));
	te_buf_reset(&out);
	assert_int_equal(engine_container_logs(e, "c1", 5, &out, &err), 0);
	assert_string_equal(out.data, "hell");
	fake_engine_assert_req(f, 2, "GET /v1.41/containers/c1/logs?stdout=1&stderr=1&tail=100");
	fake_engine_assert_req(f, 3, "GET /v1.41/containers/c1/logs?stdout=1&stderr=1&tail=all");
	engine_free(e);
	fake_engine_free(f);
}

/* ---- trace ---- */

struct traced {
	int calls;
	char line[256];
};

static void record_trace(void *ctx, const char *method, const char *path, long status, const char *error,
			 long ms)
{
	struct traced *t = ctx;

	t->calls++;
	snprintf(t->line, sizeof(t->line), "%s %s %ld %s %ld", method, path, status, error ? error : "-",
		 ms >= 0 ? 0L : -1L);
}

/* The -v trace is a callback: each call reported once, as sent, and
 * nothing printed by the library. */
static void test_trace(void **state)
{
	struct fake_engine *f = fake_engine_new();
	te_autojson cJSON *j = NULL;
	te_autojson cJSON *k = NULL;
	struct te_err err = {0};
	struct traced t = {0};
	struct engine *e;

	fake_engine_queue_open(f, fake_engine_docker_version);
	fake_engine_queue(f, 200, "[]");
	fake_engine_queue(f, 200, "[]");
	e = open_judged(f);
	engine_set_trace(e, record_trace, &t);
	assert_int_equal(engine_container_list(e, NULL, &j, &err), 0);
	assert_int_equal(t.calls, 1);
	assert_string_equal(t.line, "GET /v1.41/containers/json?all=1 200 - 0");
	engine_set_trace(e, NULL, NULL);
	assert_int_equal(engine_container_list(e, NULL, &k, &err), 0);
	assert_int_equal(t.calls, 1);
	engine_free(e);
	fake_engine_free(f);
}

/* Without a judge every change is refused before anything is sent; GET
 * passes. With one, it sees the method, the path without /vX, the query
 * and the body as sent, and its refusal stops the request. */
static void test_judge(void **state)
{
	struct fake_engine *f = fake_engine_new();
	te_autojson cJSON *cfg = cJSON_Parse("{\"Image\":\"busybox\"}");
	te_autojson cJSON *out = NULL;
	te_autofree char *id = NULL;
	struct te_err err = {0};
	struct engine *e;

	(void)state;
	fake_engine_queue_open(f, fake_engine_docker_version);
	fake_engine_queue(f, 200, "{\"Id\":\"x\"}");
	fake_engine_queue(f, 201, "{\"Id\":\"abc\"}");
	e = fake_engine_open(f);
	assert_int_equal(engine_container_create(e, "t1-app-1", cfg, &id, &err), -1);
	assert_int_equal(err.code, TE_E_POLICY);
	assert_non_null(strstr(err.msg, "no policy gate"));
	assert_int_equal(engine_container_remove(e, "x", true, &err), -1);
	assert_int_equal(err.code, TE_E_POLICY);
	assert_int_equal(engine_container_inspect(e, "x", &out, &err), 0);
	memset(&judged, 0, sizeof(judged));
	engine_set_judge(e, allow_all, &judged);
	judged.refuse = true;
	assert_int_equal(engine_container_create(e, "t1-app-1", cfg, &id, &err), -1);
	assert_string_equal(judged.method, "POST");
	assert_string_equal(judged.path, "/containers/create");
	assert_string_equal(judged.query, "name=t1-app-1");
	assert_string_equal(judged.body, "{\"Image\":\"busybox\"}");
	judged.refuse = false;
	assert_int_equal(engine_container_create(e, "t1-app-1", cfg, &id, &err), 0);
	assert_string_equal(id, "abc");
	assert_int_equal(judged.calls, 2);
	free(judged.body);
	memset(&judged, 0, sizeof(judged));
	engine_free(e);
	fake_engine_free(f);
}

static int released;

static void count_release(void *ctx)
{
	(void)ctx;
	released++;
}

/* A clone has no judge of its own (every change refused); svc_par_run's
 * clones share their original's (engine_share_judge): a refusal there
 * sends nothing, and the context stays the original's: freeing the clone
 * does not release it. */
static void test_clone_shares_judge(void **state)
{
	struct fake_engine *f = fake_engine_new();
	te_autojson cJSON *cfg = cJSON_Parse("{\"Image\":\"busybox\"}");
	te_autofree char *id = NULL;
	struct te_err err = {0};
	struct engine *e, *c;

	(void)state;
	fake_engine_queue_open(f, fake_engine_docker_version);
	e = fake_engine_open(f);
	memset(&judged, 0, sizeof(judged));
	engine_set_judge(e, allow_all, &judged);
	engine_own_judge_ctx(e, count_release);
	released = 0;
	c = engine_clone(e, &err);
	assert_non_null(c);
	assert_int_equal(engine_container_create(c, "t1-app-1", cfg, &id, &err), -1);
	assert_non_null(strstr(err.msg, "no policy gate"));
	assert_int_equal(judged.calls, 0);
	engine_share_judge(c, e);
	judged.refuse = true;
	assert_int_equal(engine_container_create(c, "t1-app-1", cfg, &id, &err), -1);
	assert_int_equal(err.code, TE_E_POLICY);
	assert_int_equal(judged.calls, 1);
	assert_string_equal(judged.query, "name=t1-app-1");
	engine_free(c);
	assert_int_equal(released, 0);
	engine_free(e);
	assert_int_equal(released, 1);
	free(judged.body);
	memset(&judged, 0, sizeof(judged));
	fake_engine_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_resolve_table),  cmocka_unit_test(test_resolve_xdg_podman),
	    cmocka_unit_test(test_resolve_none),   cmocka_unit_test(test_open_negotiates),
	    cmocka_unit_test(test_open_failures),  cmocka_unit_test(test_unreachable),
	    cmocka_unit_test(test_http_errors),	   cmocka_unit_test(test_create_sends_body),
	    cmocka_unit_test(test_quirks_succeed), cmocka_unit_test(test_connection_close),
	    cmocka_unit_test(test_filters),	   cmocka_unit_test(test_wrong_shape),
	    cmocka_unit_test(test_response_cap),   cmocka_unit_test(test_pull_refs),
	    cmocka_unit_test(test_judge),	   cmocka_unit_test(test_clone_shares_judge),
	    cmocka_unit_test(test_pull_failures),  cmocka_unit_test(test_logs),
	    cmocka_unit_test(test_trace),	   cmocka_unit_test(test_open_from_ping),
	    cmocka_unit_test(test_version_lazy),   cmocka_unit_test(test_open_ping_min_api),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
