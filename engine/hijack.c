/* The hijacked connection of an interactive exec (engine/stream.h). */
#define TE_WITH_CURL
#include "engine/engine.h"
#include "engine/engine_int.h"
#include "engine/stream.h"

#include "common/buf.h"
#include "common/cleanup.h"
#include "common/err.h"
#include "common/mem.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* The engine's answer headers are a few hundred bytes. */
#define HEADERS_MAX (16u * 1024u)
#define IO_CHUNK 16384

struct hijack {
	CURL *curl;
	curl_socket_t fd;
	struct engine_demux dx;
	const char *what;
	long status; /* of the upgrade answer, for the trace */
};

static int wait_fd(curl_socket_t fd, short events)
{
	struct pollfd p = {.fd = fd, .events = events};

	return poll(&p, 1, 30000) > 0 ? 0 : -1;
}

static int send_all(struct hijack *h, const char *p, size_t n, struct te_err *err)
{
	while (n) {
		size_t sent = 0;
		CURLcode rc = curl_easy_send(h->curl, p, n, &sent);

		if (rc == CURLE_AGAIN) {
			if (wait_fd(h->fd, POLLOUT) < 0)
				return te_err_set(err, TE_E_FAIL, "%s: the engine does not take input",
						  h->what);
			continue;
		}
		if (rc != CURLE_OK)
			return te_err_set(err, TE_E_FAIL, "%s: send: %s", h->what, curl_easy_strerror(rc));
		p += sent;
		n -= sent;
	}
	return 0;
}

/* Read up to N bytes: >0 read, 0 the engine closed, -1 error, -2 nothing yet. */
static long recv_some(struct hijack *h, char *p, size_t n)
{
	size_t got = 0;
	CURLcode rc = curl_easy_recv(h->curl, p, n, &got);

	if (rc == CURLE_AGAIN)
		return -2;
	if (rc != CURLE_OK)
		return -1;
	return (long)got;
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (long)(t1.tv_sec - t0->tv_sec) * 1000L + (t1.tv_nsec - t0->tv_nsec) / 1000000L;
}

static int engine_error(struct hijack *h, long status, const char *body, struct te_err *err)
{
	const char *m = strstr(body, "\"message\":\"");
	int code = status == 404 ? TE_E_NOTFOUND : status == 409 ? TE_E_CONFLICT : TE_E_ENGINE;

	if (m)
		te_err_set(err, code, "%s: %.*s", h->what, (int)strcspn(m + 11, "\""), m + 11);
	else
		te_err_set(err, code, "%s: engine answered HTTP %ld", h->what, status);
	if (err)
		err->http_status = (int)status;
	return -1;
}

/* Read the answer's headers; bytes after them are the first output. */
static int read_headers(struct hijack *h, struct te_err *err)
{
	te_autobuf struct te_buf b = TE_BUF_INIT(HEADERS_MAX);
	char chunk[1024];
	const char *end;
	long status = 0, n;

	while (!(b.data && (end = strstr(b.data, "\r\n\r\n")))) {
		n = recv_some(h, chunk, sizeof(chunk));
		if (n == -2 && wait_fd(h->fd, POLLIN) == 0)
			continue;
		if (n <= 0 || te_buf_add(&b, chunk, (size_t)n) < 0)
			return te_err_set(err, TE_E_FAIL, "%s: no valid answer from the engine", h->what);
	}
	if (sscanf(b.data, "HTTP/%*s %ld", &status) != 1)
		return te_err_set(err, TE_E_FAIL, "%s: malformed answer from the engine", h->what);
	h->status = status;
	if (status >= 400)
		return engine_error(h, status, end + 4, err);
	end += 4;
	if ((size_t)(end - b.data) < b.len &&
	    engine_demux_feed(&h->dx, end, b.len - (size_t)(end - b.data)) < 0)
		return 1;
	return 0;
}

/* Copy IN_FD to the engine and the engine to the demuxer until the engine closes. */
static int pump(struct hijack *h, int in_fd, bool tty, struct te_err *err)
{
	char buf[IO_CHUNK];
	struct pollfd p[2] = {{.fd = h->fd, .events = POLLIN}, {.fd = in_fd, .events = POLLIN}};

	for (;;) {
		long n;

		if (poll(p, in_fd >= 0 ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			return te_err_set(err, TE_E_IO, "%s: poll: %s", h->what, strerror(errno));
		}
		if (in_fd >= 0 && p[1].revents) {
			n = read(in_fd, buf, sizeof(buf));
			if (n > 0 && send_all(h, buf, (size_t)n, err) < 0)
				return -1;
			if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
				in_fd = -1; /* end of our input: tell the process, without a TTY */
				if (!tty)
					shutdown(h->fd, SHUT_WR);
			}
		}
		if (!p[0].revents)
			continue;
		n = recv_some(h, buf, sizeof(buf));
		if (n == -2)
			continue;
		if (n <= 0)
			return 0; /* the engine closed: the process ended */
		if (engine_demux_feed(&h->dx, buf, (size_t)n) < 0)
			return 0;
	}
}

static char *request_text(const char *path, bool tty)
{
	const char *body = tty ? "{\"Detach\":false,\"Tty\":true}" : "{\"Detach\":false,\"Tty\":false}";

	return xasprintf("POST %s HTTP/1.1\r\nHost: localhost\r\n"
			 "Content-Type: application/json\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n"
			 "Content-Length: %zu\r\n\r\n%s",
			 path, strlen(body), body);
}

static int attach(struct engine *e, const char *exec_id, bool tty, int in_fd, const int size[2],
		  engine_chunk_fn fn, void *ctx, struct te_err *err)
{
	te_autocurl CURL *c = curl_easy_init();
	te_autofree char *id = engine_escape(e, exec_id);
	te_autofree char *path = xasprintf("/v%s/exec/%s/start", engine_api_version(e), id);
	te_autofree char *rq = request_text(path, tty);
	char what[128];
	struct hijack h = {.curl = c, .what = what};
	struct timespec t0;
	CURLcode rc;
	int r;

	snprintf(what, sizeof(what), "attach to exec '%.64s'", exec_id);
	if (engine_judge_request(e, "POST", path, NULL, err) < 0)
		return -1;
	if (!c)
		return te_err_set(err, TE_E_FAIL, "cannot initialise libcurl");
	engine_demux_init(&h.dx, fn, ctx);
	if (tty)
		h.dx.mode = 2; /* a TTY's stream is raw, whatever its first byte */
	curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, engine_socket(e));
	curl_easy_setopt(c, CURLOPT_URL, "http://localhost/");
	curl_easy_setopt(c, CURLOPT_CONNECT_ONLY, 1L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	rc = curl_easy_perform(c);
	if (rc == CURLE_OK)
		rc = curl_easy_getinfo(c, CURLINFO_ACTIVESOCKET, &h.fd);
	if (rc != CURLE_OK)
		return te_err_set(err, rc == CURLE_COULDNT_CONNECT ? TE_E_UNREACHABLE : TE_E_FAIL,
				  "%s: engine at '%s': %s", what, engine_socket(e), curl_easy_strerror(rc));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = send_all(&h, rq, strlen(rq), err) < 0 ? -1 : read_headers(&h, err);
	engine_trace(e, "POST", path, h.status, h.status ? NULL : "no answer to the upgrade", ms_since(&t0));
	if (r != 0)
		return r < 0 ? -1 : 0;
	if (size && size[0] > 0 && size[1] > 0) {
		struct te_err ignored; /* a process that already ended cannot be resized */

		engine_exec_resize(e, exec_id, size[0], size[1], &ignored);
	}
	return pump(&h, in_fd, tty, err);
}

int engine_exec_attach(struct engine *e, const char *exec_id, bool tty, int in_fd, engine_chunk_fn fn,
		       void *ctx, struct te_err *err)
{
	return attach(e, exec_id, tty, in_fd, NULL, fn, ctx, err);
}

int engine_exec_attach_sized(struct engine *e, const char *exec_id, int in_fd, int rows, int cols,
			     engine_chunk_fn fn, void *ctx, struct te_err *err)
{
	const int size[2] = {rows, cols};

	return attach(e, exec_id, true, in_fd, size, fn, ctx, err);
}

int engine_exec_resize(struct engine *e, const char *exec_id, int rows, int cols, struct te_err *err)
{
	te_autofree char *id = engine_escape(e, exec_id);
	te_autofree char *path = xasprintf("/exec/%s/resize?h=%d&w=%d", id, rows, cols);

	return engine_call(e, "POST", path, NULL, NULL, NULL, err);
}
