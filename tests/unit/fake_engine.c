/* The fake Engine API of the unit tests (fake_engine.h). */
#include "tests/unit/fake_engine.h"

#include "common/buf.h"
#include "common/cleanup.h"
#include "common/err.h"
#include "common/mem.h"
#include "engine/engine.h"

#include <fnmatch.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <cmocka.h>

#define QUEUE_MAX 32
#define ROUTE_MAX 64
#define REQ_MAX 256

const char fake_engine_docker_version[] =
    "{\"Platform\":{\"Name\":\"Docker Engine - Community\"},\"Components\":[{\"Name\":"
    "\"Engine\",\"Version\":\"24.0.7\"}],\"Version\":\"24.0.7\",\"ApiVersion\":\"1.43\","
    "\"MinAPIVersion\":\"1.12\"}";

struct canned {
	char *data; /* the whole response, owned */
	size_t len;
	size_t split; /* >0: send this many bytes, pause, then the rest */
	bool drop;    /* send the first SPLIT bytes only, then close */
};

struct route {
	char *method, *glob; /* owned */
	struct canned c;
};

struct fake_engine {
	char *dir;
	char *sock;
	int lfd;
	bool started;
	pthread_t thread;
	pthread_mutex_t lock;
	int stop;
	struct canned queue[QUEUE_MAX];
	size_t nqueue, next;
	struct route routes[ROUTE_MAX];
	size_t nroutes;
	char *req[REQ_MAX];  /* "METHOD PATH" */
	char *body[REQ_MAX]; /* request bodies */
	size_t nreq;
	int accepts;
};

/* ---- setup ---- */

static char *make_tmpdir(void)
{
	char *dir = xstrdup("/tmp/te-fake-XXXXXX");

	assert_non_null(mkdtemp(dir));
	return dir;
}

struct fake_engine *fake_engine_new(void)
{
	struct fake_engine *f = xcalloc(1, sizeof(*f));

	f->dir = make_tmpdir();
	f->sock = xasprintf("%s/engine.sock", f->dir);
	f->lfd = -1;
	pthread_mutex_init(&f->lock, NULL);
	return f;
}

static struct canned canned_make(int status, const char *headers, const char *body, size_t len)
{
	struct te_buf b = TE_BUF_INIT(0);
	struct canned c = {0};

	te_buf_addf(&b, "HTTP/1.1 %d Fake\r\nContent-Length: %zu\r\n%s\r\n", status, len,
		    headers ? headers : "");
	te_buf_add(&b, body, len);
	c.len = b.len;
	c.data = te_buf_detach(&b);
	return c;
}

void fake_engine_queue_raw(struct fake_engine *f, int status, const char *headers, const char *body,
			   size_t len)
{
	pthread_mutex_lock(&f->lock);
	assert_true(f->nqueue < QUEUE_MAX);
	f->queue[f->nqueue++] = canned_make(status, headers, body, len);
	pthread_mutex_unlock(&f->lock);
}

void fake_engine_queue(struct fake_engine *f, int status, const char *body)
{
	fake_engine_queue_raw(f, status, "Content-Type: application/json\r\n", body, strlen(body));
}

void fake_engine_queue_open(struct fake_engine *f, const char *version_json)
{
	fake_engine_queue_raw(f, 200, "Content-Type: text/plain\r\n", "OK", 2);
	fake_engine_queue(f, 200, version_json);
}

static size_t header_len(const struct canned *c)
{
	const char *end = strstr(c->data, "\r\n\r\n");

	assert_non_null(end);
	return (size_t)(end - c->data) + 4;
}

void fake_engine_split_last(struct fake_engine *f, size_t body_bytes)
{
	struct canned *c;

	pthread_mutex_lock(&f->lock);
	assert_true(f->nqueue > 0);
	c = &f->queue[f->nqueue - 1];
	c->split = header_len(c) + body_bytes;
	assert_true(c->split <= c->len);
	pthread_mutex_unlock(&f->lock);
}

static void add_route(struct fake_engine *f, const char *method, const char *glob, struct canned c)
{
	pthread_mutex_lock(&f->lock);
	assert_true(f->nroutes < ROUTE_MAX);
	f->routes[f->nroutes++] = (struct route){xstrdup(method), xstrdup(glob), c};
	pthread_mutex_unlock(&f->lock);
}

void fake_engine_route_raw(struct fake_engine *f, const char *method, const char *path_glob, int status,
			   const char *headers, const char *body, size_t len)
{
	add_route(f, method, path_glob, canned_make(status, headers, body, len));
}

void fake_engine_route(struct fake_engine *f, const char *method, const char *path_glob, int status,
		       const char *body)
{
	fake_engine_route_raw(f, method, path_glob, status, "Content-Type: application/json\r\n", body,
			      strlen(body));
}

void fake_engine_route_drop(struct fake_engine *f, const char *method, const char *path_glob, int status,
			    const char *body)
{
	struct canned c = canned_make(status, "Content-Type: application/json\r\n", body, strlen(body));

	c.drop = true;
	c.split = header_len(&c) + strlen(body) / 2;
	add_route(f, method, path_glob, c);
}

void fake_engine_route_docker_ping(struct fake_engine *f)
{
	fake_engine_route_raw(
	    f, "GET", "/_ping", 200,
	    "API-Version: 1.41\r\nServer: Docker/24.0.7 (linux)\r\nContent-Type: text/plain\r\n", "OK", 2);
}

static void routes_free(struct fake_engine *f)
{
	for (size_t i = 0; i < f->nroutes; i++) {
		free(f->routes[i].method);
		free(f->routes[i].glob);
		free(f->routes[i].c.data);
	}
	f->nroutes = 0;
}

void fake_engine_routes_clear(struct fake_engine *f)
{
	pthread_mutex_lock(&f->lock);
	routes_free(f);
	pthread_mutex_unlock(&f->lock);
}

/* ---- serving ---- */

static bool stopping(struct fake_engine *f)
{
	bool s;

	pthread_mutex_lock(&f->lock);
	s = f->stop;
	pthread_mutex_unlock(&f->lock);
	return s;
}

/* Wait for FD to be readable; false when the test is over. */
static bool wait_readable(struct fake_engine *f, int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	while (!stopping(f)) {
		if (poll(&p, 1, 20) > 0)
			return true;
	}
	return false;
}

static size_t content_length(const char *hdr)
{
	const char *p = strcasestr(hdr, "\r\ncontent-length:");

	return p ? strtoul(p + 17, NULL, 10) : 0;
}

/* Read one request into BUF (headers + body). Returns its header length,
 * or 0 at EOF / shutdown. */
static size_t read_request(struct fake_engine *f, int fd, struct te_buf *buf)
{
	char chunk[4096];
	char *end = NULL;

	te_buf_reset(buf);
	while (!end || buf->len < (size_t)(end - buf->data) + 4 + content_length(buf->data)) {
		ssize_t n;

		if (!wait_readable(f, fd))
			return 0;
		n = read(fd, chunk, sizeof(chunk));
		if (n <= 0)
			return 0;
		assert_int_equal(te_buf_add(buf, chunk, (size_t)n), 0);
		end = strstr(buf->data, "\r\n\r\n");
	}
	return (size_t)(end - buf->data) + 4;
}

/* "METHOD PATH" of the request line (without " HTTP/1.1"). Owned. */
static char *request_line(const struct te_buf *buf)
{
	size_t line = strcspn(buf->data, "\r\n");
	const char *sp = memrchr(buf->data, ' ', line);

	return xstrndup(buf->data, sp ? (size_t)(sp - buf->data) : line);
}

static void record(struct fake_engine *f, const struct te_buf *buf, size_t hdr_len)
{
	pthread_mutex_lock(&f->lock);
	if (f->nreq < REQ_MAX) {
		f->req[f->nreq] = request_line(buf);
		f->body[f->nreq] = xstrndup(buf->data + hdr_len, buf->len - hdr_len);
		f->nreq++;
	}
	pthread_mutex_unlock(&f->lock);
}

/* Does "METHOD PATH" (PATH as sent) match METHOD and GLOB? The /vX.Y
 * prefix is not part of what routes name. */
static bool matches(const char *req, const char *method, const char *glob)
{
	size_t ml = strlen(method);
	const char *path;

	if (strncmp(req, method, ml) != 0 || req[ml] != ' ')
		return false;
	path = req + ml + 1;
	if (path[0] == '/' && path[1] == 'v' && path[2] >= '0' && path[2] <= '9') {
		const char *slash = strchr(path + 1, '/');

		path = slash ? slash : "/";
	}
	return fnmatch(glob, path, 0) == 0;
}

static void send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w <= 0)
			return; /* the client gave up (e.g. over its cap) */
		p += w;
		n -= (size_t)w;
	}
}

/* A copy of C whose data the caller owns (answers may hold NUL bytes). */
static struct canned canned_copy(const struct canned *c)
{
	struct canned d = *c;

	d.data = xmalloc(c->len + 1);
	memcpy(d.data, c->data, c->len + 1);
	return d;
}

/* The answer to REQ, copied out under the lock (routes may change). */
static struct canned pick(struct fake_engine *f, const char *req)
{
	static const char none_body[] = "{\"message\":\"fake engine: no canned response\"}";
	struct canned c = {0};

	pthread_mutex_lock(&f->lock);
	if (f->next < f->nqueue)
		c = canned_copy(&f->queue[f->next++]);
	for (size_t i = 0; !c.data && i < f->nroutes; i++)
		if (matches(req, f->routes[i].method, f->routes[i].glob))
			c = canned_copy(&f->routes[i].c);
	pthread_mutex_unlock(&f->lock);
	if (!c.data)
		c = canned_make(500, "Content-Type: application/json\r\n", none_body, sizeof(none_body) - 1);
	return c;
}

/* Answer; false when the connection is to be closed after it. */
static bool respond(struct fake_engine *f, int fd, const char *req)
{
	struct canned c = pick(f, req);
	bool keep = !c.drop && strstr(c.data, "\r\nConnection: close\r\n") == NULL;

	if (c.split) {
		send_all(fd, c.data, c.split);
		if (!c.drop)
			usleep(50 * 1000);
	}
	if (!c.drop)
		send_all(fd, c.data + c.split, c.len - c.split);
	free(c.data);
	return keep;
}

static void *serve(void *arg)
{
	struct fake_engine *f = arg;
	te_autobuf struct te_buf buf = TE_BUF_INIT(0);

	while (wait_readable(f, f->lfd)) {
		int fd = accept(f->lfd, NULL, NULL);
		size_t hdr;

		if (fd < 0)
			continue;
		pthread_mutex_lock(&f->lock);
		f->accepts++;
		pthread_mutex_unlock(&f->lock);
		/* Serve requests on this connection until the client closes it
		 * (keep-alive) or an answer closes it. */
		while ((hdr = read_request(f, fd, &buf)) > 0) {
			te_autofree char *req = request_line(&buf);

			record(f, &buf, hdr);
			if (!respond(f, fd, req))
				break;
		}
		close(fd);
	}
	return NULL;
}

void fake_engine_start(struct fake_engine *f)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};

	f->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(f->lfd >= 0);
	assert_true(strlen(f->sock) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, f->sock, strlen(f->sock) + 1);
	assert_int_equal(bind(f->lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(f->lfd, 8), 0);
	assert_int_equal(pthread_create(&f->thread, NULL, serve, f), 0);
	f->started = true;
}

struct engine *fake_engine_open(struct fake_engine *f)
{
	struct te_err err = {0};
	struct engine *e;

	fake_engine_start(f);
	e = engine_open(f->sock, &err);
	if (!e)
		fail_msg("engine_open: %s", err.msg);
	return e;
}

void fake_engine_free(struct fake_engine *f)
{
	te_autofree char *cmd = NULL;

	if (!f)
		return;
	pthread_mutex_lock(&f->lock);
	f->stop = 1;
	pthread_mutex_unlock(&f->lock);
	if (f->started)
		pthread_join(f->thread, NULL);
	if (f->lfd >= 0)
		close(f->lfd);
	for (size_t i = 0; i < f->nqueue; i++)
		free(f->queue[i].data);
	routes_free(f);
	for (size_t i = 0; i < f->nreq; i++) {
		free(f->req[i]);
		free(f->body[i]);
	}
	pthread_mutex_destroy(&f->lock);
	cmd = xasprintf("rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f->dir);
	free(f->sock);
	free(f);
}

/* ---- what was asked ---- */

const char *fake_engine_socket(const struct fake_engine *f)
{
	return f->sock;
}

const char *fake_engine_dir(const struct fake_engine *f)
{
	return f->dir;
}

size_t fake_engine_nreq(struct fake_engine *f)
{
	size_t n;

	pthread_mutex_lock(&f->lock);
	n = f->nreq;
	pthread_mutex_unlock(&f->lock);
	return n;
}

char *fake_engine_req(struct fake_engine *f, size_t i)
{
	char *r = NULL;

	pthread_mutex_lock(&f->lock);
	if (i < f->nreq)
		r = xstrdup(f->req[i]);
	pthread_mutex_unlock(&f->lock);
	return r ? r : xstrdup("(no request)");
}

char *fake_engine_body(struct fake_engine *f, size_t i)
{
	char *b = NULL;

	pthread_mutex_lock(&f->lock);
	if (i < f->nreq)
		b = xstrdup(f->body[i]);
	pthread_mutex_unlock(&f->lock);
	return b ? b : xstrdup("");
}

size_t fake_engine_count(struct fake_engine *f, const char *method, const char *path_glob)
{
	size_t n = 0;

	pthread_mutex_lock(&f->lock);
	for (size_t i = 0; i < f->nreq; i++)
		n += matches(f->req[i], method, path_glob);
	pthread_mutex_unlock(&f->lock);
	return n;
}

int fake_engine_accepts(struct fake_engine *f)
{
	int n;

	pthread_mutex_lock(&f->lock);
	n = f->accepts;
	pthread_mutex_unlock(&f->lock);
	return n;
}

void fake_engine_assert_req(struct fake_engine *f, size_t i, const char *want)
{
	te_autofree char *r = fake_engine_req(f, i);

	assert_string_equal(r, want);
}
