#define TE_WITH_CJSON
#define TE_WITH_CURL
#include "engine/build.h"
#include "engine/engine.h"
#include "engine/engine_int.h"

#include "common/buf.h"
#include "common/cleanup.h"
#include "common/err.h"
#include "common/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define CONNECT_TIMEOUT_S 5L
#define STALL_TIME_S 600L
/* One JSON message of the build stream; a longer line is refused. */
#define LINE_MAX_BYTES (1024u * 1024u)
/* Output kept for the error message: the tail of the failing step. */
#define TAIL_BYTES 640u
/* Error bodies (HTTP >= 400) are small JSON objects. */
#define ERROR_BODY_MAX (64u * 1024u)

struct bstream {
	struct te_buf line;    /* an incomplete message carried to the next write */
	struct te_buf body;    /* the body when HTTP >= 400 */
	char step[256];	       /* the last "Step N/M : ..." line */
	char tail[TAIL_BYTES]; /* ring of output since that step */
	size_t tail_len;
	char msg[512];
	bool failed;
	bool overflow;
	CURL *curl;
	engine_build_line_fn on_line;
	void *ctx;
};

static bool is_step(const char *s)
{
	return strncmp(s, "Step ", 5) == 0 || strncmp(s, "STEP ", 5) == 0;
}

static void keep_tail(struct bstream *bs, const char *s)
{
	size_t n = strlen(s) + 1;

	if (n > TAIL_BYTES - 1) {
		s += n - (TAIL_BYTES - 1);
		n = TAIL_BYTES - 1;
	}
	if (bs->tail_len + n >= TAIL_BYTES) {
		size_t drop = bs->tail_len + n - (TAIL_BYTES - 1);

		memmove(bs->tail, bs->tail + drop, bs->tail_len - drop);
		bs->tail_len -= drop;
	}
	memcpy(bs->tail + bs->tail_len, s, n - 1);
	bs->tail[bs->tail_len + n - 1] = '\n';
	bs->tail_len += n;
	bs->tail[bs->tail_len] = '\0';
}

/* Each "stream" value may hold several lines, or a part of one. */
static void on_text(struct bstream *bs, const char *text)
{
	te_autofree char *copy = xstrdup(text);
	char *save = NULL;

	for (char *ln = strtok_r(copy, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save)) {
		size_t n = strlen(ln);

		while (n && ln[n - 1] == '\r')
			ln[--n] = '\0';
		if (!n)
			continue;
		if (is_step(ln)) {
			snprintf(bs->step, sizeof(bs->step), "%s", ln);
			bs->tail_len = 0;
			bs->tail[0] = '\0';
		} else {
			keep_tail(bs, ln);
		}
		if (bs->on_line)
			bs->on_line(bs->ctx, ln);
	}
}

static void on_message(struct bstream *bs, const cJSON *obj)
{
	const cJSON *detail = cJSON_GetObjectItemCaseSensitive(obj, "errorDetail");
	const char *m = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(detail, "message"));
	const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(obj, "stream"));

	if (s)
		on_text(bs, s);
	if (!m)
		m = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(obj, "error"));
	if ((m || detail) && !bs->failed) {
		size_t n;

		snprintf(bs->msg, sizeof(bs->msg), "%s", m ? m : "the engine reported an error");
		n = strlen(bs->msg);
		while (n && (bs->msg[n - 1] == '\n' || bs->msg[n - 1] == '\r'))
			bs->msg[--n] = '\0';
		bs->failed = true;
	}
}

/* Complete lines of BS->line are messages; the rest waits for more. */
static void scan_lines(struct bstream *bs, bool final)
{
	char *p = bs->line.data;
	size_t left = bs->line.len;

	while (left) {
		char *nl = memchr(p, '\n', left);
		size_t n = nl ? (size_t)(nl - p) : (final ? left : 0);
		cJSON *obj;

		if (!nl && !final)
			break;
		obj = cJSON_ParseWithLength(p, n);
		if (obj)
			on_message(bs, obj);
		cJSON_Delete(obj);
		p += n + (nl ? 1 : 0);
		left -= n + (nl ? 1 : 0);
	}
	memmove(bs->line.data, p, left);
	bs->line.len = left;
}

static size_t on_write(char *p, size_t size, size_t nmemb, void *ud)
{
	struct bstream *bs = ud;
	size_t n = size * nmemb;
	long status = 0;

	curl_easy_getinfo(bs->curl, CURLINFO_RESPONSE_CODE, &status);
	if (status >= 400) {
		if (te_buf_add(&bs->body, p, n) == 0)
			return n;
		bs->overflow = true;
		return 0;
	}
	if (te_buf_add(&bs->line, p, n) < 0) {
		bs->overflow = true;
		return 0;
	}
	scan_lines(bs, false);
	return n;
}

static int build_http_error(long status, const struct te_buf *body, struct te_err *err)
{
	te_autojson cJSON *j = body->len ? cJSON_ParseWithLength(body->data, body->len) : NULL;
	const char *m = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "message"));
	int code = status == 404 ? TE_E_NOTFOUND : status == 409 ? TE_E_CONFLICT : TE_E_ENGINE;

	if (m)
		te_err_set(err, code, "build: %s", m);
	else if (body->len)
		te_err_set(err, code, "build: engine answered HTTP %ld: %.*s", status,
			   (int)(body->len > 300 ? 300 : body->len), body->data);
	else /* Podman's 400s for a malformed parameter have no body */
		te_err_set(err, code,
			   "build: engine answered HTTP %ld with no message (a build option it "
			   "does not accept?)",
			   status);
	err->http_status = (int)status;
	return -1;
}

static int build_failed(const struct bstream *bs, struct te_err *err)
{
	size_t n = bs->tail_len;

	while (n && bs->tail[n - 1] == '\n')
		n--;
	te_err_set(err, TE_E_ENGINE, "build failed: %s%s%s%s%.*s", bs->msg, bs->step[0] ? "\n  at " : "",
		   bs->step, n ? "\n  output:\n" : "", (int)n, bs->tail);
	err->http_status = 200;
	return -1;
}

static void setup(CURL *c, struct engine *e, const char *url, FILE *tar, curl_off_t size,
		  struct curl_slist *headers, struct bstream *bs, char *errbuf)
{
	curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, engine_socket(e));
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, CONNECT_TIMEOUT_S);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, STALL_TIME_S);
	curl_easy_setopt(c, CURLOPT_POST, 1L);
	/* curl's default read callback is fread() on READDATA. */
	curl_easy_setopt(c, CURLOPT_READDATA, tar);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, size);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_write);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, bs);
}

int engine_build(struct engine *e, const char *query, FILE *tar, engine_build_line_fn on_line, void *ctx,
		 struct te_err *err)
{
	te_autocurl CURL *c = curl_easy_init();
	te_autoslist struct curl_slist *headers = NULL;
	te_autofree char *url = xasprintf("http://localhost/v%s/build?%s", engine_api_version(e), query);
	struct bstream bs = {.line = TE_BUF_INIT(LINE_MAX_BYTES), .body = TE_BUF_INIT(ERROR_BODY_MAX)};
	char errbuf[CURL_ERROR_SIZE] = "";
	struct stat st;
	struct timespec t0, t1;
	long status = 0;
	CURLcode rc;
	int ret = 0;

	if (!c)
		return te_err_set(err, TE_E_FAIL, "build: curl_easy_init failed");
	if (engine_judge_request(e, "POST", url + strlen("http://localhost"), NULL, err) < 0)
		return -1;
	if (fstat(fileno(tar), &st) < 0 || fseek(tar, 0, SEEK_SET) < 0)
		return te_err_set(err, TE_E_IO, "build: the context tar cannot be read");
	bs.curl = c;
	bs.on_line = on_line;
	bs.ctx = ctx;
	headers = curl_slist_append(headers, "Expect:");
	headers = curl_slist_append(headers, "Content-Type: application/x-tar");
	setup(c, e, url, tar, (curl_off_t)st.st_size, headers, &bs, errbuf);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	engine_trace(e, "POST", url + strlen("http://localhost"), status,
		     status ? NULL : curl_easy_strerror(rc),
		     (long)(t1.tv_sec - t0.tv_sec) * 1000L + (t1.tv_nsec - t0.tv_nsec) / 1000000L);
	if (rc == CURLE_OK && status < 400)
		scan_lines(&bs, true);
	if (bs.overflow)
		ret = te_err_set(err, TE_E_FAIL, "build: a message from the engine exceeds %u bytes",
				 LINE_MAX_BYTES);
	else if (rc == CURLE_COULDNT_CONNECT)
		ret = te_err_set(err, TE_E_UNREACHABLE, "cannot reach an engine at '%s'", engine_socket(e));
	else if (rc != CURLE_OK)
		ret = te_err_set(err, TE_E_FAIL, "build: %s", errbuf[0] ? errbuf : curl_easy_strerror(rc));
	else if (status >= 400)
		ret = build_http_error(status, &bs.body, err);
	else if (bs.failed)
		ret = build_failed(&bs, err);
	te_buf_release(&bs.line);
	te_buf_release(&bs.body);
	return ret;
}

int engine_image_remove(struct engine *e, const char *name, bool force, struct te_err *err)
{
	te_autofree char *q = engine_escape(e, name);
	te_autofree char *path = xasprintf("/images/%s?force=%d", q, force ? 1 : 0);

	return engine_call(e, "DELETE", path, NULL, NULL, NULL, err);
}
