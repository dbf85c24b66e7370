#define TE_WITH_CJSON
#define TE_WITH_CURL
#include "engine/engine.h"
#include "engine/engine_int.h"

#include "common/buf.h"
#include "common/cleanup.h"
#include "common/err.h"
#include "common/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define CONNECT_TIMEOUT_S 5L
/* A pull has no overall limit (big images on slow links) but streams
 * progress, so one that receives nothing for this long is given up on. */
#define STALL_TIME_S 600L

struct engine {
	CURL *curl; /* one handle for the engine's life: curl keeps the connection */
	char *socket;
	char *api_version;
	char *flavor;
	char *version;
	size_t response_max;
	engine_trace_fn trace;
	void *trace_ctx;
	engine_judge_fn judge;
	void *judge_ctx;
	void (*judge_release)(void *ctx);
	/* Called around each blocking transfer (engine_set_wait_hooks). */
	void (*wait_leave)(void *ctx);
	void (*wait_enter)(void *ctx);
	void *wait_ctx;
	char curl_err[CURL_ERROR_SIZE];
};

static void judge_drop(struct engine *e);

static size_t on_write(char *p, size_t size, size_t nmemb, void *ud)
{
	struct xfer *x = ud;
	size_t n = size * nmemb;
	long status = 0;

	if (x->stream) {
		curl_easy_getinfo(x->curl, CURLINFO_RESPONSE_CODE, &status);
		if (status < 400) {
			if (x->stream(x->stream_ctx, p, n) == 0)
				return n;
			x->overflow = x->stream_max;
			return 0;
		}
	}
	if (te_buf_add(x->body, p, n) == 0)
		return n;
	x->overflow = x->body->max;
	return 0; /* makes curl stop with CURLE_WRITE_ERROR */
}

/* The end of a head (its empty line) of a final answer, not a 1xx. */
static size_t on_header(char *p, size_t size, size_t nmemb, void *ud)
{
	struct xfer *x = ud;
	size_t n = size * nmemb;
	long status = 0;

	if (n > 2 || (n == 2 && (p[0] != '\r' || p[1] != '\n')) || (n == 1 && p[0] != '\n'))
		return n;
	curl_easy_getinfo(x->curl, CURLINFO_RESPONSE_CODE, &status);
	if (status >= 200 && x->headed(x->stream_ctx) < 0)
		return 0;
	return n;
}

static long elapsed_ms(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (long)(t1.tv_sec - t0->tv_sec) * 1000L + (t1.tv_nsec - t0->tv_nsec) / 1000000L;
}

static void set_method(CURL *c, const struct request *rq)
{
	if (strcmp(rq->method, "GET") == 0 && !rq->body) {
		curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
		return;
	}
	if (strcmp(rq->method, "HEAD") == 0) {
		curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
		return;
	}
	/* POSTFIELDS gives a Content-Length even for an empty body, which
	 * POST needs; CUSTOMREQUEST then renames the method when it is not POST. */
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, rq->body ? rq->body : "");
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
			 (curl_off_t)(!rq->body	     ? 0
				      : rq->body_len ? rq->body_len
						     : strlen(rq->body)));
	if (strcmp(rq->method, "POST") != 0)
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, rq->method);
}

static void setup_handle(struct engine *e, const struct request *rq, struct xfer *x, const char *url,
			 struct curl_slist *headers)
{
	CURL *c = e->curl;

	curl_easy_reset(c); /* keeps the connection cache */
	curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, e->socket);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, e->curl_err);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, CONNECT_TIMEOUT_S);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, rq->timeout_s);
	if (!rq->timeout_s) {
		curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
		curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, STALL_TIME_S);
	}
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_write);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
	if (x->headed) {
		curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
		curl_easy_setopt(c, CURLOPT_HEADERDATA, x);
	}
	set_method(c, rq);
	e->curl_err[0] = '\0';
}

static int transport_error(struct engine *e, const struct request *rq, const struct xfer *x, CURLcode rc,
			   struct te_err *err)
{
	long os_errno = 0;

	if (x->overflow)
		return te_err_set(err, TE_E_FAIL, "response from engine exceeds %zu bytes ('%s %s')",
				  x->overflow, rq->method, rq->path);
	if (rc == CURLE_COULDNT_CONNECT) {
		curl_easy_getinfo(e->curl, CURLINFO_OS_ERRNO, &os_errno);
		return te_err_set(err, TE_E_UNREACHABLE,
				  "cannot reach an engine at '%s': %s; start one (e.g. `dockerd --host "
				  "unix://%s` or `podman system service --time=0 unix://%s`) or point "
				  "--host/DOCKER_HOST at a running engine's unix:// socket",
				  e->socket, os_errno ? strerror((int)os_errno) : curl_easy_strerror(rc),
				  e->socket, e->socket);
	}
	return te_err_set(err, TE_E_FAIL, "engine at '%s': '%s %s': %s", e->socket, rq->method, rq->path,
			  e->curl_err[0] ? e->curl_err : curl_easy_strerror(rc));
}

/* Send RQ and collect the response into X. Returns 0 with *STATUS set for
 * any HTTP answer, -1 for transport failures and an over-cap body. */
static int do_request(struct engine *e, const struct request *rq, struct xfer *x, long *status,
		      struct te_err *err)
{
	te_autoslist struct curl_slist *headers = NULL;
	te_autofree char *url = xasprintf("http://localhost%s", rq->path);
	struct timespec t0;
	CURLcode rc;

	/* Without this curl may wait for "100 Continue" before sending a body. */
	headers = curl_slist_append(headers, "Expect:");
	if (rq->body && rq->content_type) {
		te_autofree char *ct = xasprintf("Content-Type: %s", rq->content_type);

		headers = curl_slist_append(headers, ct);
	} else if (rq->body) {
		headers = curl_slist_append(headers, "Content-Type: application/json");
	}
	x->curl = e->curl;
	setup_handle(e, rq, x, url, headers);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (e->wait_leave)
		e->wait_leave(e->wait_ctx);
	rc = curl_easy_perform(e->curl);
	if (e->wait_enter)
		e->wait_enter(e->wait_ctx);
	*status = 0;
	curl_easy_getinfo(e->curl, CURLINFO_RESPONSE_CODE, status);
	engine_trace(e, rq->method, rq->path, rc == CURLE_OK ? *status : 0,
		     rc == CURLE_OK ? NULL : curl_easy_strerror(rc), elapsed_ms(&t0));
	if (rc != CURLE_OK)
		return transport_error(e, rq, x, rc, err);
	return 0;
}

/* Both dockerd and Podman answer errors with {"message": "..."} (Podman
 * adds "cause", already part of its message). */
static int http_error(long status, const struct te_buf *body, struct te_err *err)
{
	te_autojson cJSON *j = NULL;
	const cJSON *m;
	int code = status == 404 ? TE_E_NOTFOUND : status == 409 ? TE_E_CONFLICT : TE_E_ENGINE;

	if (body->len)
		j = cJSON_ParseWithLength(body->data, body->len);
	m = cJSON_GetObjectItemCaseSensitive(j, "message");
	if (cJSON_IsString(m))
		te_err_set(err, code, "%s", m->valuestring);
	else if (body->len)
		te_err_set(err, code, "%.*s", (int)strcspn(body->data, "\r\n"), body->data);
	else
		te_err_set(err, code, "engine answered HTTP %ld with no message", status);
	if (err)
		err->http_status = (int)status;
	return -1;
}

/* CTYPE (NULL: the default, JSON) is application/json. */
static bool json_type(const char *ctype)
{
	size_t n = strlen("application/json");

	return !ctype || (strncasecmp(ctype, "application/json", n) == 0 && strchr("; \t", ctype[n]));
}

int engine_send(struct engine *e, const struct request *rq, struct xfer *x, long *status, struct te_err *err)
{
	long st = 0;

	x->overflow = 0;
	if (status)
		*status = 0; /* no HTTP status when the transport fails */
	/* A body that is not JSON (PUT archive's tar) is judged by its route
	 * alone: the gate refuses a route that needs a JSON body without one. */
	if (engine_judge_request(e, rq->method, rq->path, json_type(rq->content_type) ? rq->body : NULL,
				 err) < 0)
		return -1;
	if (do_request(e, rq, x, &st, err) < 0)
		return -1;
	if (status)
		*status = st;
	if (st >= 400)
		return http_error(st, x->body, err);
	return 0;
}

static bool is_blank(const char *p, size_t n)
{
	return strspn(p, " \t\r\n") >= n;
}

/* Parse a 2xx/3xx body; an empty body gives NULL. */
static int parse_body(const struct request *rq, const struct te_buf *body, cJSON **out, struct te_err *err)
{
	*out = NULL;
	if (!body->len || is_blank(body->data, body->len))
		return 0;
	*out = cJSON_ParseWithLength(body->data, body->len);
	if (!*out)
		return te_err_set(err, TE_E_FAIL, "malformed JSON from engine for '%s %s'", rq->method,
				  rq->path);
	return 0;
}

/* A versioned or unversioned call with a JSON body and JSON answer. */
static int call_json(struct engine *e, const char *method, const char *path, const cJSON *body,
		     long timeout_s, long *status, cJSON **out, struct te_err *err)
{
	te_autobuf struct te_buf resp = TE_BUF_INIT(e->response_max);
	te_autofree char *text = NULL;
	struct xfer x = {.body = &resp};
	struct request rq = {method, path, NULL, timeout_s, 0, NULL};

	if (out)
		*out = NULL;
	if (body) {
		text = cJSON_PrintUnformatted(body); /* default cJSON hooks: free() fits */
		if (!text)
			return te_err_set(err, TE_E_FAIL, "cannot serialise the body of '%s %s'", method,
					  path);
		rq.body = text;
	}
	if (engine_send(e, &rq, &x, status, err) < 0)
		return -1;
	return out ? parse_body(&rq, &resp, out, err) : 0;
}

static char *vpath(const struct engine *e, const char *path)
{
	return xasprintf("/v%s%s", e->api_version, path);
}

int engine_call_v(struct engine *e, const char *method, const char *path, const cJSON *body, long timeout_s,
		  cJSON **out, struct te_err *err)
{
	te_autofree char *full = vpath(e, path);

	return call_json(e, method, full, body, timeout_s, NULL, out, err);
}

int engine_call(struct engine *e, const char *method, const char *path, const struct cJSON *body,
		long *status, struct cJSON **out, struct te_err *err)
{
	te_autofree char *full = vpath(e, path);

	return call_json(e, method, full, body, ENGINE_CALL_TIMEOUT_S, status, out, err);
}

int engine_get_typed(struct engine *e, const char *path, int type, cJSON **out, struct te_err *err)
{
	te_autojson cJSON *j = NULL;

	*out = NULL;
	if (engine_call_v(e, "GET", path, NULL, ENGINE_CALL_TIMEOUT_S, &j, err) < 0)
		return -1;
	if (!j || (j->type & 0xff) != type)
		return te_err_set(err, TE_E_FAIL, "unexpected response from engine for 'GET %s'", path);
	*out = TE_STEAL(j);
	return 0;
}

/* Percent-encode everything but RFC 3986 unreserved characters and KEEP. */
static char *escape_keep(const char *s, const char *keep)
{
	static const char hex[] = "0123456789ABCDEF";
	char *out = xmalloc(strlen(s) * 3 + 1);
	char *o = out;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~", *p) || strchr(keep, *p)) {
			*o++ = (char)*p;
			continue;
		}
		*o++ = '%';
		*o++ = hex[*p >> 4];
		*o++ = hex[*p & 0xf];
	}
	*o = '\0';
	return out;
}

char *engine_escape(struct engine *e, const char *s)
{
	return escape_keep(s, "");
}

/* Object names and image references go into the path as the docker CLI
 * puts them: "/" ":" "@" stay (dockerd routes /images/{name:.*}/json). */
char *engine_seg(const char *s)
{
	return escape_keep(s, "/:@");
}

/* "" for no label, else SEP + filters={"label":[LABEL]} escaped. */
char *engine_label_filter(const char *label, char sep)
{
	te_autojson cJSON *f = NULL;
	te_autofree char *text = NULL;
	te_autofree char *esc = NULL;
	cJSON *arr;

	if (!label)
		return xstrdup("");
	f = cJSON_CreateObject();
	arr = cJSON_AddArrayToObject(f, "label");
	if (!arr || !cJSON_AddItemToArray(arr, cJSON_CreateString(label)))
		TE_BUG("cJSON allocation failed");
	text = cJSON_PrintUnformatted(f);
	if (!text)
		TE_BUG("cJSON allocation failed");
	esc = escape_keep(text, "");
	return xasprintf("%cfilters=%s", sep, esc);
}

/* ---- open / negotiate ---- */

/* "1.41" -> 1, 41. Compared as numbers: 1.9 < 1.41. */
static int parse_api(const char *s, long v[2])
{
	char *end;

	if (!s)
		return -1;
	v[0] = strtol(s, &end, 10);
	if (end == s || *end != '.' || v[0] < 0)
		return -1;
	s = end + 1;
	v[1] = strtol(s, &end, 10);
	if (end == s || *end != '\0' || v[1] < 0)
		return -1;
	return 0;
}

static int cmp_api(const long a[2], const long b[2])
{
	if (a[0] != b[0])
		return a[0] < b[0] ? -1 : 1;
	return a[1] < b[1] ? -1 : a[1] > b[1];
}

static bool names_podman(const cJSON *name)
{
	return cJSON_IsString(name) && strcasestr(name->valuestring, "podman");
}

static bool version_names_podman(const cJSON *ver)
{
	const cJSON *c;
	const cJSON *plat = cJSON_GetObjectItemCaseSensitive(ver, "Platform");

	cJSON_ArrayForEach (c, cJSON_GetObjectItemCaseSensitive(ver, "Components")) {
		if (names_podman(cJSON_GetObjectItemCaseSensitive(c, "Name")))
			return true;
	}
	return names_podman(cJSON_GetObjectItemCaseSensitive(plat, "Name"));
}

/* Speak min(engine's ApiVersion, ENGINE_API_MAX); refuse an engine whose
 * MinAPIVersion is above what we speak (Docker 29 raised it to 1.44), since
 * every later call would fail with a less helpful message. */
static int negotiate(struct engine *e, const cJSON *ver, struct te_err *err)
{
	const cJSON *api = cJSON_GetObjectItemCaseSensitive(ver, "ApiVersion");
	const cJSON *min = cJSON_GetObjectItemCaseSensitive(ver, "MinAPIVersion");
	long have[2], ours[2], lo[2];

	if (parse_api(ENGINE_API_MAX, ours) < 0)
		TE_BUG("ENGINE_API_MAX is not MAJOR.MINOR");
	if (parse_api(cJSON_GetStringValue(api), have) < 0)
		return te_err_set(err, TE_E_FAIL, "engine at '%s' reports no usable ApiVersion", e->socket);
	if (cmp_api(have, ours) > 0)
		memcpy(have, ours, sizeof(have));
	if (parse_api(cJSON_GetStringValue(min), lo) == 0 && cmp_api(lo, have) > 0)
		return te_err_set(err, TE_E_ENGINE,
				  "engine at '%s' requires API %s or later but taskenv speaks at most "
				  "%ld.%ld (dockerd accepts DOCKER_MIN_API_VERSION=%s in its environment)",
				  e->socket, min->valuestring, have[0], have[1], ENGINE_API_MAX);
	free(e->api_version);
	e->api_version = xasprintf("%ld.%ld", have[0], have[1]);
	return 0;
}

/* GET /version: the engine's version, and with NEGOTIATE the API version
 * and flavor too (when /_ping could not give them). */
static int read_version(struct engine *e, bool negotiate_too, struct te_err *err)
{
	te_autojson cJSON *ver = NULL;
	const char *v;

	if (call_json(e, "GET", "/version", NULL, ENGINE_CALL_TIMEOUT_S, NULL, &ver, err) < 0)
		return -1;
	if (!cJSON_IsObject(ver))
		return te_err_set(err, TE_E_FAIL, "engine at '%s' sent no /version object", e->socket);
	if (negotiate_too && negotiate(e, ver, err) < 0)
		return -1;
	if (negotiate_too && !e->flavor)
		e->flavor = xstrdup(version_names_podman(ver) ? "podman" : "docker");
	v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ver, "Version"));
	e->version = xstrdup(v ? v : "unknown");
	return 0;
}

/* Value of response header NAME (case-insensitive) of the last transfer on
 * E's handle, borrowed until the next transfer; NULL when absent. */
static const char *last_header(struct engine *e, const char *name)
{
	struct curl_header *h = NULL;

	if (curl_easy_header(e->curl, name, 0, CURLH_HEADER, -1, &h) != CURLHE_OK)
		return NULL;
	return h->value;
}

/* Negotiate from the headers /_ping answered with, which dockerd and Podman
 * both send: "API-Version: 1.41", and from Podman only "Libpod-API-Version"
 * (Podman's own API). Podman is slow to answer GET /version (over a second),
 * so it is asked only when the ping cannot settle things: no usable
 * API-Version, or one above ours (then the engine's MinAPIVersion, which
 * only /version tells, may be above ours too; an engine whose newest API is
 * at most ours cannot require more). Returns 1 when /version is needed. */
static int negotiate_ping(struct engine *e, const char *api, const char *libpod)
{
	long have[2], ours[2];

	if (parse_api(ENGINE_API_MAX, ours) < 0)
		TE_BUG("ENGINE_API_MAX is not MAJOR.MINOR");
	if (libpod)
		e->flavor = xstrdup("podman");
	if (parse_api(api, have) < 0 || cmp_api(have, ours) > 0)
		return 1;
	e->api_version = xasprintf("%ld.%ld", have[0], have[1]);
	if (!e->flavor)
		e->flavor = xstrdup("docker");
	return 0;
}

static int ping(struct engine *e, struct te_err *err)
{
	/* /_ping answers "OK" (not JSON) and is the cheapest liveness check. */
	if (call_json(e, "GET", "/_ping", NULL, ENGINE_CALL_TIMEOUT_S, NULL, NULL, err) < 0)
		return -1;
	if (negotiate_ping(e, last_header(e, "API-Version"), last_header(e, "Libpod-API-Version")) == 0)
		return 0;
	return read_version(e, true, err);
}

struct engine *engine_open(const char *path, struct te_err *err)
{
	struct engine *e = xcalloc(1, sizeof(*e));

	e->socket = xstrdup(path);
	e->response_max = ENGINE_RESPONSE_MAX;
	e->curl = curl_easy_init();
	if (!e->curl) {
		te_err_set(err, TE_E_FAIL, "cannot initialise libcurl");
		goto fail;
	}
	if (ping(e, err) < 0)
		goto fail;
	return e;
fail:
	engine_free(e);
	return NULL;
}

/* Every per-handle setting is copied here: a field added to struct engine
 * must be handed on too, or the clones skip it. Not the judge (its context
 * is one handle's: engine_share_judge where that is safe) nor the wait
 * hooks (the caller's: svc_par_run sets both on each clone). */
struct engine *engine_clone(const struct engine *e, struct te_err *err)
{
	struct engine *c = xcalloc(1, sizeof(*c));

	c->socket = xstrdup(e->socket);
	c->api_version = e->api_version ? xstrdup(e->api_version) : NULL;
	c->flavor = e->flavor ? xstrdup(e->flavor) : NULL;
	c->version = e->version ? xstrdup(e->version) : NULL;
	c->response_max = e->response_max;
	c->trace = e->trace;
	c->trace_ctx = e->trace_ctx;
	c->curl = curl_easy_init();
	if (!c->curl) {
		engine_free(c);
		te_err_set(err, TE_E_FAIL, "cannot initialise libcurl");
		return NULL;
	}
	return c;
}

void engine_set_wait_hooks(struct engine *e, void (*leave)(void *ctx), void (*enter)(void *ctx), void *ctx)
{
	e->wait_leave = leave;
	e->wait_enter = enter;
	e->wait_ctx = ctx;
}

void engine_free(struct engine *e)
{
	if (!e)
		return;
	judge_drop(e);
	if (e->curl)
		curl_easy_cleanup(e->curl);
	free(e->socket);
	free(e->api_version);
	free(e->flavor);
	free(e->version);
	free(e);
}

const char *engine_socket(const struct engine *e)
{
	return e->socket;
}

const char *engine_api_version(const struct engine *e)
{
	return e->api_version;
}

const char *engine_flavor(const struct engine *e)
{
	return e->flavor;
}

const char *engine_version(struct engine *e)
{
	struct te_err ignored = {0};

	if (!e->version && read_version(e, false, &ignored) < 0)
		e->version = xstrdup("unknown");
	return e->version;
}

void engine_set_trace(struct engine *e, engine_trace_fn fn, void *ctx)
{
	e->trace = fn;
	e->trace_ctx = ctx;
}

void engine_trace(const struct engine *e, const char *method, const char *path, long status,
		  const char *error, long ms)
{
	if (e->trace)
		e->trace(e->trace_ctx, method, path, status, error, ms);
}

static void judge_drop(struct engine *e)
{
	if (e->judge_release && e->judge_ctx)
		e->judge_release(e->judge_ctx);
	e->judge_release = NULL;
}

void engine_set_judge(struct engine *e, engine_judge_fn fn, void *ctx)
{
	if (ctx != e->judge_ctx)
		judge_drop(e);
	e->judge = fn;
	e->judge_ctx = ctx;
}

void engine_share_judge(struct engine *dst, const struct engine *src)
{
	engine_set_judge(dst, src->judge, src->judge_ctx);
}

void *engine_judge_ctx(const struct engine *e, engine_judge_fn fn)
{
	return e->judge == fn ? e->judge_ctx : NULL;
}

void engine_own_judge_ctx(struct engine *e, void (*release)(void *ctx))
{
	e->judge_release = release;
}

/* "/v1.41/containers/create?name=x" -> "/containers/create", "name=x". */
static void split_path(const char *full, char **path, char **query)
{
	const char *p = full;
	const char *q;

	if (p[0] == '/' && p[1] == 'v' && p[2] >= '0' && p[2] <= '9') {
		const char *slash = strchr(p + 1, '/');

		p = slash ? slash : p + strlen(p);
	}
	q = strchr(p, '?');
	*path = q ? xstrndup(p, (size_t)(q - p)) : xstrdup(p);
	*query = xstrdup(q ? q + 1 : "");
}

/* An object anywhere in J with two members of the same name. */
static bool duplicate_key(const cJSON *j)
{
	for (const cJSON *it = j ? j->child : NULL; it; it = it->next) {
		if (cJSON_IsObject(j) && it->string)
			for (const cJSON *o = it->next; o; o = o->next)
				if (o->string && strcmp(o->string, it->string) == 0)
					return true;
		if (duplicate_key(it))
			return true;
	}
	return false;
}

int engine_judge_request(struct engine *e, const char *method, const char *full_path, const char *body_text,
			 struct te_err *err)
{
	te_autofree char *path = NULL;
	te_autofree char *query = NULL;
	te_autojson cJSON *body = NULL;

	if (strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0)
		return 0;
	split_path(full_path, &path, &query);
	if (!e->judge)
		return te_err_set(err, TE_E_POLICY, "refused: '%s %s' with no policy gate installed", method,
				  path);
	if (body_text && *body_text) {
		body = cJSON_Parse(body_text);
		if (!body)
			return te_err_set(err, TE_E_POLICY, "refused: '%s %s': the body is not JSON", method,
					  path);
		/* The engine's decoder takes the last of two equal keys, the
		 * judge's lookups the first: a body with both is not judged. */
		if (duplicate_key(body))
			return te_err_set(err, TE_E_POLICY, "refused: '%s %s': the body has a key twice",
					  method, path);
	}
	return e->judge(e->judge_ctx, method, path, query, body, err);
}

void engine_set_response_cap(struct engine *e, size_t bytes)
{
	e->response_max = bytes ? bytes : ENGINE_RESPONSE_MAX;
}

int engine_call_raw(struct engine *e, const char *method, const char *path, const struct cJSON *body,
		    struct te_buf *out, struct te_err *err)
{
	te_autofree char *full = vpath(e, path);
	te_autofree char *text = body ? cJSON_PrintUnformatted(body) : NULL;
	struct xfer x = {.body = out};
	struct request rq = {method, full, text, ENGINE_CALL_TIMEOUT_S, 0, NULL};

	return engine_send(e, &rq, &x, NULL, err);
}

size_t engine_response_max(const struct engine *e)
{
	return e->response_max;
}
