#define TE_WITH_CJSON
#define TE_WITH_CURL
#include "engine/stream.h"
#include "engine/engine.h"
#include "engine/engine_int.h"

#include "common/buf.h"
#include "common/cleanup.h"
#include "common/err.h"
#include "common/mem.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#define CONNECT_TIMEOUT_S 5L
/* An error body (HTTP >= 400) is a short JSON message. */
#define ERROR_BODY_MAX (64u * 1024u)

/* ---- demultiplexing ---- */

void engine_demux_init(struct engine_demux *d, engine_chunk_fn fn, void *ctx)
{
	memset(d, 0, sizeof(*d));
	d->fn = fn;
	d->ctx = ctx;
}

static bool looks_framed(unsigned char c)
{
	return c <= 2;
}

/* Payload of the current frame; returns bytes used or -1. */
static long feed_payload(struct engine_demux *d, const char *p, size_t n)
{
	size_t k = n < d->left ? n : d->left;

	if (k && d->fn(d->ctx, d->stream == 2 ? 2 : 1, p, k) < 0)
		return -1;
	d->left -= k;
	return (long)k;
}

static size_t feed_header(struct engine_demux *d, const char *p, size_t n)
{
	size_t k = 8 - d->have < n ? 8 - d->have : n;

	memcpy(d->hdr + d->have, p, k);
	d->have += k;
	if (d->have == 8) {
		d->stream = d->hdr[0];
		d->left =
		    (size_t)d->hdr[4] << 24 | (size_t)d->hdr[5] << 16 | (size_t)d->hdr[6] << 8 | d->hdr[7];
		d->have = 0;
	}
	return k;
}

int engine_demux_feed(struct engine_demux *d, const char *p, size_t n)
{
	if (n && d->mode == 0)
		d->mode = looks_framed((unsigned char)p[0]) ? 1 : 2;
	if (d->mode == 2)
		return n ? d->fn(d->ctx, 1, p, n) : 0;
	while (n) {
		long used;

		if (d->left) {
			used = feed_payload(d, p, n);
			if (used < 0)
				return -1;
		} else {
			used = (long)feed_header(d, p, n);
		}
		p += used;
		n -= (size_t)used;
	}
	return 0;
}

/* ---- one streamed request ---- */

struct stream {
	CURL *curl;
	struct te_buf errbody; /* the body when HTTP >= 400 */
	struct engine_demux dx;
	bool stopped; /* the consumer asked to stop */
	char curl_err[CURL_ERROR_SIZE];
	char *url;
	const char *what; /* for messages: "logs of container 'ID'" */
	struct timespec t0;
};

static size_t stream_write(char *p, size_t size, size_t nmemb, void *ud)
{
	struct stream *s = ud;
	size_t n = size * nmemb;
	long status = 0;

	curl_easy_getinfo(s->curl, CURLINFO_RESPONSE_CODE, &status);
	if (status >= 400)
		return te_buf_add(&s->errbody, p, n) == 0 ? n : 0;
	if (engine_demux_feed(&s->dx, p, n) < 0) {
		s->stopped = true;
		return 0;
	}
	return n;
}

static int stream_setup(struct stream *s, struct engine *e, const char *path, const char *post_body)
{
	s->curl = curl_easy_init();
	if (!s->curl)
		return -1;
	s->url = xasprintf("http://localhost/v%s%s", engine_api_version(e), path);
	te_buf_init(&s->errbody, ERROR_BODY_MAX);
	curl_easy_setopt(s->curl, CURLOPT_UNIX_SOCKET_PATH, engine_socket(e));
	curl_easy_setopt(s->curl, CURLOPT_URL, s->url);
	curl_easy_setopt(s->curl, CURLOPT_ERRORBUFFER, s->curl_err);
	curl_easy_setopt(s->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(s->curl, CURLOPT_CONNECTTIMEOUT, CONNECT_TIMEOUT_S);
	curl_easy_setopt(s->curl, CURLOPT_WRITEFUNCTION, stream_write);
	curl_easy_setopt(s->curl, CURLOPT_WRITEDATA, s);
	if (post_body) {
		curl_easy_setopt(s->curl, CURLOPT_POSTFIELDS, post_body);
		curl_easy_setopt(s->curl, CURLOPT_POSTFIELDSIZE, (long)strlen(post_body));
	}
	clock_gettime(CLOCK_MONOTONIC, &s->t0);
	return 0;
}

static void stream_release(struct stream *s)
{
	if (s->curl)
		curl_easy_cleanup(s->curl);
	te_buf_release(&s->errbody);
	free(s->url);
}

static long since_ms(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (long)(t1.tv_sec - t0->tv_sec) * 1000L + (t1.tv_nsec - t0->tv_nsec) / 1000000L;
}

/* Turn a finished transfer into 0 or an error naming S->what. */
static int stream_result(struct engine *e, struct stream *s, const char *method, CURLcode rc,
			 struct te_err *err)
{
	long status = 0;
	te_autojson cJSON *j = NULL;
	const char *m;

	curl_easy_getinfo(s->curl, CURLINFO_RESPONSE_CODE, &status);
	engine_trace(e, method, s->url + strlen("http://localhost"), status,
		     status ? NULL : curl_easy_strerror(rc), since_ms(&s->t0));
	if (s->stopped)
		return 0;
	if (rc != CURLE_OK && rc != CURLE_PARTIAL_FILE)
		return te_err_set(err, rc == CURLE_COULDNT_CONNECT ? TE_E_UNREACHABLE : TE_E_FAIL,
				  "%s: engine at '%s': %s", s->what, engine_socket(e),
				  s->curl_err[0] ? s->curl_err : curl_easy_strerror(rc));
	if (status < 400)
		return 0;
	j = s->errbody.len ? cJSON_ParseWithLength(s->errbody.data, s->errbody.len) : NULL;
	m = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "message"));
	te_err_set(err,
		   status == 404   ? TE_E_NOTFOUND
		   : status == 409 ? TE_E_CONFLICT
				   : TE_E_ENGINE,
		   "%s: %s", s->what, m ? m : "engine answered with an error");
	if (err)
		err->http_status = (int)status;
	return -1;
}

/* ---- logs ---- */

struct log_src {
	struct stream s;
	struct te_buf line[3]; /* partial line per stream (index 1, 2) */
	size_t idx;
	engine_line_fn fn;
	void *ctx;
	char what[128];
};

static int flush_line(struct log_src *ls, int stream)
{
	struct te_buf *b = &ls->line[stream];
	int rc = ls->fn(ls->ctx, ls->idx, stream, b->data ? b->data : "", b->len);

	te_buf_reset(b);
	return rc;
}

static int log_chunk(void *ctx, int stream, const char *p, size_t n)
{
	struct log_src *ls = ctx;
	struct te_buf *b = &ls->line[stream];

	while (n) {
		const char *nl = memchr(p, '\n', n);
		size_t k = nl ? (size_t)(nl - p) : n;

		if (b->len + k > ENGINE_LOG_LINE_MAX && b->len && flush_line(ls, stream) < 0)
			return -1;
		if (k > ENGINE_LOG_LINE_MAX)
			k = ENGINE_LOG_LINE_MAX;
		te_buf_add(b, p, k);
		p += k;
		n -= k;
		if (nl && p == nl) {
			p++;
			n--;
			if (flush_line(ls, stream) < 0)
				return -1;
		}
	}
	return 0;
}

static char *logs_path(struct engine *e, const char *id, const struct engine_logs_opts *o)
{
	te_autofree char *s = engine_escape(e, id);
	te_autofree char *tail = o->tail < 0 ? xstrdup("all") : xasprintf("%d", o->tail);

	return xasprintf("/containers/%s/logs?stdout=1&stderr=1&follow=%d&tail=%s&timestamps=%d", s,
			 o->follow ? 1 : 0, tail, o->timestamps ? 1 : 0);
}

static int logs_add(struct engine *e, CURLM *m, struct log_src *ls, const char *id,
		    const struct engine_logs_opts *o)
{
	te_autofree char *path = logs_path(e, id, o);

	snprintf(ls->what, sizeof(ls->what), "logs of container '%.64s'", id);
	ls->s.what = ls->what;
	for (int k = 1; k < 3; k++)
		te_buf_init(&ls->line[k], ENGINE_LOG_LINE_MAX + 1);
	engine_demux_init(&ls->s.dx, log_chunk, ls);
	if (stream_setup(&ls->s, e, path, NULL) < 0)
		return -1;
	curl_easy_setopt(ls->s.curl, CURLOPT_PRIVATE, ls);
	return curl_multi_add_handle(m, ls->s.curl) == CURLM_OK ? 0 : -1;
}

/* Run every transfer to its end, recording the first failure. */
static int logs_drive(struct engine *e, CURLM *m, const volatile sig_atomic_t *cancel, struct te_err *err)
{
	int running = 1, rc = 0, left;
	CURLMsg *msg;

	while (running) {
		if (cancel && *cancel)
			return 0;
		if (curl_multi_perform(m, &running) != CURLM_OK)
			return te_err_set(err, TE_E_FAIL, "logs: curl_multi_perform failed");
		while ((msg = curl_multi_info_read(m, &left))) {
			struct log_src *ls = NULL;
			struct te_err e2 = {0};

			if (msg->msg != CURLMSG_DONE)
				continue;
			curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&ls);
			for (int k = 1; k < 3; k++)
				if (ls->line[k].len && !ls->s.stopped)
					flush_line(ls, k);
			if (stream_result(e, &ls->s, "GET", msg->data.result, &e2) < 0 && rc == 0) {
				rc = -1;
				if (err)
					*err = e2;
			}
		}
		if (running && curl_multi_poll(m, NULL, 0, 1000, NULL) != CURLM_OK)
			return te_err_set(err, TE_E_FAIL, "logs: curl_multi_poll failed");
	}
	return rc;
}

int engine_logs(struct engine *e, char *const *ids, const struct engine_logs_opts *o, engine_line_fn fn,
		void *ctx, struct te_err *err)
{
	size_t n = te_strv_len(ids);
	struct log_src *src = xcalloc(n + 1, sizeof(*src));
	CURLM *m = curl_multi_init();
	int rc = m ? 0 : te_err_set(err, TE_E_FAIL, "cannot initialise libcurl");

	for (size_t i = 0; rc == 0 && i < n; i++) {
		src[i].idx = i;
		src[i].fn = fn;
		src[i].ctx = ctx;
		if (logs_add(e, m, &src[i], ids[i], o) < 0)
			rc = te_err_set(err, TE_E_FAIL, "cannot set up the log stream of '%s'", ids[i]);
	}
	if (rc == 0)
		rc = logs_drive(e, m, o->cancel, err);
	for (size_t i = 0; i < n; i++) {
		if (src[i].s.curl && m)
			curl_multi_remove_handle(m, src[i].s.curl);
		stream_release(&src[i].s);
		for (int k = 1; k < 3; k++)
			te_buf_release(&src[i].line[k]);
	}
	if (m)
		curl_multi_cleanup(m);
	free(src);
	return rc;
}

/* ---- exec ---- */

static cJSON *strv_json(char *const *v)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; v && v[i]; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
	return a;
}

int engine_exec_create(struct engine *e, const char *container, const struct engine_exec_opts *o,
		       char **id_out, struct te_err *err)
{
	te_autojson cJSON *b = cJSON_CreateObject();
	te_autojson cJSON *j = NULL;
	te_autofree char *s = engine_escape(e, container);
	te_autofree char *path = xasprintf("/containers/%s/exec", s);
	const char *id;

	*id_out = NULL;
	cJSON_AddBoolToObject(b, "AttachStdin", o->attach_stdin);
	cJSON_AddBoolToObject(b, "AttachStdout", 1);
	cJSON_AddBoolToObject(b, "AttachStderr", 1);
	cJSON_AddBoolToObject(b, "Tty", o->tty);
	cJSON_AddBoolToObject(b, "Privileged", o->privileged);
	cJSON_AddItemToObject(b, "Cmd", strv_json(o->cmd));
	if (o->env)
		cJSON_AddItemToObject(b, "Env", strv_json(o->env));
	if (o->user)
		cJSON_AddStringToObject(b, "User", o->user);
	if (o->workdir)
		cJSON_AddStringToObject(b, "WorkingDir", o->workdir);
	if (engine_call(e, "POST", path, b, NULL, &j, err) < 0)
		return te_err_prefix(err, "exec in container '%s': ", container);
	id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "Id"));
	if (!id || !*id)
		return te_err_set(err, TE_E_FAIL, "engine answered 'POST %s' without an Id", path);
	*id_out = xstrdup(id);
	return 0;
}

int engine_exec_start(struct engine *e, const char *exec_id, bool tty, engine_chunk_fn fn, void *ctx,
		      struct te_err *err)
{
	struct stream s = {0};
	te_autofree char *id = engine_escape(e, exec_id);
	te_autofree char *path = xasprintf("/exec/%s/start", id);
	const char *body = tty ? "{\"Detach\":false,\"Tty\":true}" : "{\"Detach\":false,\"Tty\":false}";
	te_autoslist struct curl_slist *h = NULL;
	char what[128];
	int rc;

	snprintf(what, sizeof(what), "start exec '%.64s'", exec_id);
	if (engine_judge_request(e, "POST", path, body, err) < 0)
		return -1;
	s.what = what;
	engine_demux_init(&s.dx, fn, ctx);
	if (tty)
		s.dx.mode = 2; /* a TTY's stream is raw, whatever its first byte */
	if (stream_setup(&s, e, path, body) < 0) {
		stream_release(&s);
		return te_err_set(err, TE_E_FAIL, "cannot initialise libcurl");
	}
	h = curl_slist_append(h, "Content-Type: application/json");
	h = curl_slist_append(h, "Expect:");
	curl_easy_setopt(s.curl, CURLOPT_HTTPHEADER, h);
	rc = stream_result(e, &s, "POST", curl_easy_perform(s.curl), err);
	stream_release(&s);
	return rc;
}

int engine_exec_exit_code(struct engine *e, const char *exec_id, int *code, struct te_err *err)
{
	te_autofree char *id = engine_escape(e, exec_id);
	te_autofree char *path = xasprintf("/exec/%s/json", id);
	te_autojson cJSON *j = NULL;
	const cJSON *c;

	*code = -1;
	if (engine_call(e, "GET", path, NULL, NULL, &j, err) < 0)
		return -1;
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "Running")))
		return 0;
	c = cJSON_GetObjectItemCaseSensitive(j, "ExitCode");
	if (!cJSON_IsNumber(c))
		return te_err_set(err, TE_E_FAIL, "exec '%s' reports no ExitCode", exec_id);
	*code = c->valueint;
	return 0;
}

int engine_container_wait(struct engine *e, const char *id, int *code, struct te_err *err)
{
	te_autofree char *s = engine_escape(e, id);
	te_autofree char *path = xasprintf("/containers/%s/wait", s);
	te_autojson cJSON *j = NULL;
	const cJSON *c;

	if (engine_call(e, "POST", path, NULL, NULL, &j, err) < 0)
		return te_err_prefix(err, "wait for container '%s': ", id);
	c = cJSON_GetObjectItemCaseSensitive(j, "StatusCode");
	if (!cJSON_IsNumber(c))
		return te_err_set(err, TE_E_FAIL, "wait for container '%s': no StatusCode", id);
	*code = c->valueint;
	return 0;
}

int engine_container_top(struct engine *e, const char *id, struct cJSON **out, struct te_err *err)
{
	te_autofree char *s = engine_escape(e, id);
	te_autofree char *path = xasprintf("/containers/%s/top", s);

	return engine_call(e, "GET", path, NULL, NULL, out, err);
}
