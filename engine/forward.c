/* Forwarded requests and hijacked connections (engine/forward.h). */
#define TE_WITH_CURL
#include "engine/forward.h"
#include "engine/engine.h"
#include "engine/engine_int.h"

#include "common/buf.h"
#include "common/cleanup.h"
#include "common/err.h"
#include "common/io.h"
#include "common/mem.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* An engine's error answer is a JSON message of a few hundred bytes. */
#define ERROR_BODY_MAX (1024u * 1024u)
#define HEAD_MAX (16u * 1024u)
#define HEAD_WAIT_MS 600000

struct fwd_state {
	const struct engine_fwd *f;
	struct xfer *x;
	bool headed;
	bool abandoned;
};

static int give_head(struct fwd_state *s)
{
	long status = 0;
	char *ct = NULL;

	if (s->headed)
		return 0;
	s->headed = true;
	curl_easy_getinfo(s->x->curl, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_getinfo(s->x->curl, CURLINFO_CONTENT_TYPE, &ct);
	if (s->f->head(s->f->ctx, status, ct) < 0)
		return s->abandoned = true, -1;
	return 0;
}

static int on_stream(void *ctx, const char *p, size_t n)
{
	struct fwd_state *s = ctx;

	if (give_head(s) < 0 || s->f->data(s->f->ctx, p, n) < 0)
		return s->abandoned = true, -1;
	return 0;
}

static int on_headed(void *ctx)
{
	return give_head(ctx);
}

int engine_forward(struct engine *e, const struct engine_fwd *f, struct te_err *err)
{
	te_autobuf struct te_buf body = TE_BUF_INIT(ERROR_BODY_MAX);
	te_autofree char *full = xasprintf("/v%s%s", engine_api_version(e), f->path);
	struct xfer x = {.body = &body, .stream = on_stream, .stream_max = 1, .headed = on_headed};
	struct fwd_state s = {.f = f, .x = &x};
	struct request rq = {.method = f->method,
			     .path = full,
			     .body = f->body,
			     .timeout_s = f->timeout_s,
			     .body_len = f->body_len,
			     .content_type = f->content_type};
	long status = 0;
	struct te_err e2 = {0};

	x.stream_ctx = &s;
	if (f->body && !f->body_len)
		rq.body = NULL; /* an empty body is no body (curl would strlen it) */
	/* An HTTP error is the engine's answer, forwarded like any other:
	 * only no answer at all fails here. */
	if (engine_send(e, &rq, &x, &status, &e2) < 0 && status == 0) {
		if (s.abandoned)
			return te_err_set(err, TE_E_IO, "'%s %s': the client went away", f->method, f->path);
		if (err)
			*err = e2;
		return -1;
	}
	if (give_head(&s) < 0)
		return te_err_set(err, TE_E_IO, "'%s %s': the client went away", f->method, f->path);
	if (body.len && f->data(f->ctx, body.data, body.len) < 0)
		return te_err_set(err, TE_E_IO, "'%s %s': the client went away", f->method, f->path);
	return 0;
}

/* ---- hijacked connections ---- */

struct engine_conn {
	int fd;
};

int engine_conn_fd(const struct engine_conn *c)
{
	return c->fd;
}

void engine_conn_free(struct engine_conn *c)
{
	if (!c)
		return;
	if (c->fd >= 0)
		close(c->fd);
	free(c);
}

static int dial(const char *path, struct te_err *err)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int fd;

	if (strlen(path) >= sizeof(a.sun_path))
		return te_err_set(err, TE_E_USAGE, "engine socket path '%s' is too long", path);
	memcpy(a.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return te_err_set(err, TE_E_IO, "socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		te_err_set(err, TE_E_UNREACHABLE, "cannot reach an engine at '%s': %s", path,
			   strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Read the answer's head into HEAD; what follows it goes to REST. */
static int read_head(int fd, struct te_buf *head, struct te_buf *rest, long *status, struct te_err *err)
{
	char chunk[4096];
	const char *end = NULL;

	while (!(head->data && (end = strstr(head->data, "\r\n\r\n")))) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		ssize_t n;

		if (poll(&p, 1, HEAD_WAIT_MS) <= 0)
			return te_err_set(err, TE_E_FAIL, "the engine did not answer the upgrade");
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || te_buf_add(head, chunk, (size_t)n) < 0)
			return te_err_set(err, TE_E_FAIL, "no valid answer from the engine to the upgrade");
	}
	if (sscanf(head->data, "HTTP/%*s %ld", status) != 1)
		return te_err_set(err, TE_E_FAIL, "malformed answer from the engine to the upgrade");
	end += 4;
	if (te_buf_add(rest, end, head->len - (size_t)(end - head->data)) < 0)
		return te_err_set(err, TE_E_FAIL, "answer from the engine over the cap");
	return 0;
}

int engine_hijack(struct engine *e, const char *method, const char *path, const char *body, size_t len,
		  struct engine_conn **out, long *status, struct te_buf *rest, struct te_err *err)
{
	te_autobuf struct te_buf head = TE_BUF_INIT(HEAD_MAX);
	te_autofree char *full = xasprintf("/v%s%s", engine_api_version(e), path);
	te_autofree char *rq = xasprintf("%s %s HTTP/1.1\r\nHost: localhost\r\n"
					 "Content-Type: application/json\r\nConnection: Upgrade\r\n"
					 "Upgrade: tcp\r\nContent-Length: %zu\r\n\r\n",
					 method, full, len);
	struct engine_conn *c = xcalloc(1, sizeof(*c));
	te_autofree char *judged = body ? xstrndup(body, len) : NULL;

	*out = NULL;
	*status = 0;
	if (engine_judge_request(e, method, path, judged, err) < 0) {
		free(c);
		return -1;
	}
	c->fd = dial(engine_socket(e), err);
	if (c->fd < 0)
		goto fail;
	if (te_send_all(c->fd, rq, strlen(rq)) < 0 || (len && te_send_all(c->fd, body, len) < 0)) {
		te_err_set(err, TE_E_IO, "'%s %s': the engine closed the connection", method, path);
		goto fail;
	}
	if (read_head(c->fd, &head, rest, status, err) < 0)
		goto fail;
	engine_trace(e, method, full, *status, NULL, 0);
	*out = c;
	return 0;
fail:
	engine_trace(e, method, full, 0, err ? err->msg : "failed", 0);
	engine_conn_free(c);
	return -1;
}
