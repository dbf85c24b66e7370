/* The broker's answers and forwarding (broker_int.h): buffered answers,
 * streams through a pipe MHD reads from, hijacked connections. Every
 * request goes through the engine client (engine/forward.h), so the
 * policy gate's judge on the handle sees each one that changes something. */
#include "services/lifecycle/broker_int.h"
#include "engine/engine.h"
#include "engine/forward.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/io.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* A hijack under way, owned by the upgrade handler (MHD may end the
 * request before the upgraded connection closes). */
struct tunnel {
	struct engine_conn *conn;
	struct te_buf rest; /* what the engine sent after its 101 */
};

/* ---- answers ---- */

enum MHD_Result brk_queue(struct MHD_Connection *c, unsigned status, const char *ctype, const char *p,
			  size_t n)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(n, (void *)p, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result rc;

	if (!r)
		return MHD_NO;
	if (ctype)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	MHD_add_response_header(r, "Server", "taskenv-broker");
	rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}

enum MHD_Result brk_queue_json(struct MHD_Connection *c, unsigned status, const cJSON *j)
{
	te_autofree char *s = cJSON_PrintUnformatted(j);

	return brk_queue(c, status, "application/json", s, strlen(s));
}

enum MHD_Result brk_refuse(struct MHD_Connection *c, unsigned status, const char *fmt, ...)
{
	te_autojson cJSON *j = cJSON_CreateObject();
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cJSON_AddStringToObject(j, "message", msg);
	return brk_queue_json(c, status, j);
}

enum MHD_Result brk_engine_failed(struct MHD_Connection *c, const struct te_err *err)
{
	unsigned st = err->http_status >= 400 ? (unsigned)err->http_status : 502;

	/* The gate's refusal, in its own words (the docker CLI prints it). */
	if (err->code == TE_E_POLICY)
		return brk_refuse(c, 403, "taskenv broker: %s", err->msg);
	return brk_refuse(c, st, "taskenv broker: engine: %s", err->msg);
}

/* ---- forwarding ---- */

static int answer_head(void *ctx, long status, const char *ctype)
{
	struct brk_answer *a = ctx;

	a->status = status;
	snprintf(a->ctype, sizeof(a->ctype), "%s", ctype ? ctype : "");
	return 0;
}

static int answer_data(void *ctx, const char *p, size_t n)
{
	struct brk_answer *a = ctx;

	return te_buf_add(&a->body, p, n);
}

int brk_call(struct engine *e, const char *method, const char *path, const char *body, size_t len,
	     const char *ctype, struct brk_answer *a, struct te_err *err)
{
	struct engine_fwd f = {.method = method,
			       .path = path,
			       .body = body,
			       .body_len = len,
			       .content_type = ctype,
			       .timeout_s = 600,
			       .head = answer_head,
			       .data = answer_data,
			       .ctx = a};

	te_buf_init(&a->body, BRK_ANSWER_MAX);
	a->status = 0;
	a->ctype[0] = '\0';
	return engine_forward(e, &f, err);
}

enum MHD_Result brk_queue_answer(struct MHD_Connection *c, struct brk_answer *a)
{
	enum MHD_Result rc = brk_queue(c, (unsigned)a->status, a->ctype[0] ? a->ctype : NULL,
				       a->body.data ? a->body.data : "", a->body.len);

	te_buf_release(&a->body);
	return rc;
}

enum MHD_Result brk_forward_buffered(struct MHD_Connection *c, struct engine *e, const char *method,
				     const char *path, const char *body, size_t len, const char *ctype)
{
	struct brk_answer a;
	struct te_err err = {0};

	if (brk_call(e, method, path, body, len, ctype, &a, &err) < 0) {
		te_buf_release(&a.body);
		return brk_engine_failed(c, &err);
	}
	return brk_queue_answer(c, &a);
}

/* A streamed answer: a thread forwards into a pipe MHD reads from, so the
 * client sees the engine's bytes as they come (logs -f, stats). */
struct job {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int refs;
	bool headed, failed;
	long status;
	char ctype[128];
	struct te_err err;
	int wfd;
	struct brk *b;
	struct engine *e;
	char *method, *path, *ctype_in;
	struct te_buf body;
};

static void job_unref(struct job *j)
{
	bool last;

	pthread_mutex_lock(&j->mu);
	last = --j->refs == 0;
	pthread_mutex_unlock(&j->mu);
	if (!last)
		return;
	pthread_mutex_destroy(&j->mu);
	pthread_cond_destroy(&j->cv);
	free(j->method);
	free(j->path);
	free(j->ctype_in);
	te_buf_release(&j->body);
	free(j);
}

static int job_head(void *ctx, long status, const char *ctype)
{
	struct job *j = ctx;

	pthread_mutex_lock(&j->mu);
	j->status = status;
	snprintf(j->ctype, sizeof(j->ctype), "%s", ctype ? ctype : "");
	j->headed = true;
	pthread_cond_signal(&j->cv);
	pthread_mutex_unlock(&j->mu);
	return 0;
}

static int job_data(void *ctx, const char *p, size_t n)
{
	struct job *j = ctx;

	while (n) {
		ssize_t w = write(j->wfd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1; /* the client went away: MHD closed the read end */
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void *job_run(void *arg)
{
	struct job *j = arg;
	struct engine_fwd f = {.method = j->method,
			       .path = j->path,
			       .body = j->body.data,
			       .body_len = j->body.len,
			       .content_type = j->ctype_in,
			       .head = job_head,
			       .data = job_data,
			       .ctx = j};
	struct te_err err = {0};

	if (engine_forward(j->e, &f, &err) < 0) {
		pthread_mutex_lock(&j->mu);
		if (!j->headed) {
			j->failed = true;
			j->err = err;
			j->headed = true;
			pthread_cond_signal(&j->cv);
		}
		pthread_mutex_unlock(&j->mu);
	}
	close(j->wfd);
	brk_give_engine(j->b, j->e);
	job_unref(j);
	return NULL;
}

enum MHD_Result brk_forward_stream(struct MHD_Connection *c, struct brk *b, struct engine *e,
				   const char *method, const char *path, struct rq *q, const char *ctype)
{
	struct job *j = xcalloc(1, sizeof(*j));
	struct MHD_Response *r;
	pthread_t t;
	int fds[2];
	enum MHD_Result rc;

	if (pipe2(fds, O_CLOEXEC) < 0) {
		free(j);
		brk_give_engine(b, e);
		return brk_refuse(c, 500, "taskenv broker: pipe: %s", strerror(errno));
	}
	pthread_mutex_init(&j->mu, NULL);
	pthread_cond_init(&j->cv, NULL);
	j->refs = 2;
	j->wfd = fds[1];
	j->b = b;
	j->e = e;
	j->method = xstrdup(method);
	j->path = xstrdup(path);
	j->ctype_in = ctype ? xstrdup(ctype) : NULL;
	j->body = q->body;
	memset(&q->body, 0, sizeof(q->body));
	if (pthread_create(&t, NULL, job_run, j) != 0) {
		close(fds[0]);
		close(fds[1]);
		brk_give_engine(b, e);
		j->refs = 1;
		job_unref(j);
		return brk_refuse(c, 500, "taskenv broker: cannot start a thread");
	}
	pthread_detach(t);
	pthread_mutex_lock(&j->mu);
	while (!j->headed)
		pthread_cond_wait(&j->cv, &j->mu);
	pthread_mutex_unlock(&j->mu);
	if (j->failed) {
		close(fds[0]);
		rc = brk_engine_failed(c, &j->err);
		job_unref(j);
		return rc;
	}
	/* A stream may stay quiet for long (logs -f of an idle service). */
	MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT, 0u);
	r = MHD_create_response_from_pipe(fds[0]);
	if (!r) {
		close(fds[0]);
		job_unref(j);
		return MHD_NO;
	}
	if (j->ctype[0])
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, j->ctype);
	rc = MHD_queue_response(c, (unsigned)j->status, r);
	MHD_destroy_response(r);
	job_unref(j);
	return rc;
}

/* ---- hijack ---- */

/* Both ways until the engine closes; the client's end of input is passed
 * on as a half close (docker's CloseWrite), so the process sees EOF. */
static void pump(int client, int engine)
{
	struct pollfd p[2] = {{.fd = client, .events = POLLIN}, {.fd = engine, .events = POLLIN}};
	char buf[16384];

	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		for (int i = 0; i < 2; i++) {
			ssize_t n;

			if (!p[i].revents || p[i].fd < 0)
				continue;
			n = read(p[i].fd, buf, sizeof(buf));
			if (n < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (n <= 0 && i == 1)
				return; /* the process ended */
			if (n <= 0) {
				shutdown(engine, SHUT_WR);
				p[0].fd = -1;
				continue;
			}
			if (te_send_all(i == 0 ? engine : client, buf, (size_t)n) < 0)
				return;
		}
	}
}

static void on_upgrade(void *cls, struct MHD_Connection *c, void *con_cls, const char *extra_in,
		       size_t extra_n, MHD_socket sock, struct MHD_UpgradeResponseHandle *urh)
{
	struct tunnel *t = cls;
	int efd = engine_conn_fd(t->conn);

	if ((t->rest.len == 0 || te_send_all(sock, t->rest.data, t->rest.len) == 0) &&
	    (extra_n == 0 || te_send_all(efd, extra_in, extra_n) == 0))
		pump(sock, efd);
	shutdown(sock, SHUT_RDWR);
	engine_conn_free(t->conn);
	te_buf_release(&t->rest);
	free(t);
	MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE);
}

enum MHD_Result brk_hijack(struct MHD_Connection *c, struct engine *e, const char *path, struct rq *q)
{
	struct tunnel *t = xcalloc(1, sizeof(*t));
	struct te_err err = {0};
	struct MHD_Response *r;
	long status = 0;
	enum MHD_Result rc;

	te_buf_init(&t->rest, BRK_BODY_MAX);
	if (engine_hijack(e, "POST", path, q->body.data, q->body.len, &t->conn, &status, &t->rest, &err) <
	    0) {
		free(t);
		return brk_engine_failed(c, &err);
	}
	r = status < 300 ? MHD_create_response_for_upgrade(on_upgrade, t) : NULL;
	if (!r) {
		/* An error: its body follows the head (or came with it). */
		rc = status >= 300 ? brk_queue(c, (unsigned)status, "application/json",
					       t->rest.data ? t->rest.data : "", t->rest.len)
				   : MHD_NO;
		engine_conn_free(t->conn);
		te_buf_release(&t->rest);
		free(t);
		return rc;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_UPGRADE, "tcp");
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/vnd.docker.raw-stream");
	MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT, 0u);
	rc = MHD_queue_response(c, MHD_HTTP_SWITCHING_PROTOCOLS, r);
	MHD_destroy_response(r);
	return rc;
}
