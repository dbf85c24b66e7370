/* The Engine API's object calls: images, containers, networks, volumes
 * (engine.h), on the request core of engine.c (engine_int.h). */
#define TE_WITH_CJSON
#include "engine/engine.h"
#include "engine/engine_int.h"

#include "common/buf.h"
#include "common/cleanup.h"
#include "common/err.h"
#include "common/mem.h"

#include <stdio.h>
#include <string.h>

/* Pull progress arrives one JSON object per line; a line this long is not
 * progress and is refused rather than buffered. */
#define PULL_LINE_MAX (1024u * 1024u)

/* ---- images ---- */

int engine_image_inspect(struct engine *e, const char *name, struct cJSON **out, struct te_err *err)
{
	te_autofree char *n = engine_seg(name);
	te_autofree char *path = xasprintf("/images/%s/json", n);

	return engine_get_typed(e, path, cJSON_Object, out, err);
}

int engine_info(struct engine *e, struct cJSON **out, struct te_err *err)
{
	return engine_get_typed(e, "/info", cJSON_Object, out, err);
}

/* Split IMAGE as the docker CLI does for /images/create: a digest wins
 * over a tag, a colon before the last "/" is a registry port, and no tag
 * means "latest". */
static void split_ref(const char *image, char **name, char **tag)
{
	const char *at = strchr(image, '@');
	const char *slash;
	const char *colon;
	size_t len = at ? (size_t)(at - image) : strlen(image);

	slash = memrchr(image, '/', len);
	colon = memrchr(image, ':', len);
	if (colon && slash && colon < slash)
		colon = NULL;
	*name = xstrndup(image, colon ? (size_t)(colon - image) : len);
	if (at)
		*tag = xstrdup(at + 1);
	else
		*tag = xstrdup(colon ? colon + 1 : "latest");
}

struct pull_scan {
	struct te_buf line; /* an incomplete line carried to the next write */
	char msg[512];	    /* the first error the stream reported */
	bool failed;
};

static void pull_check(struct pull_scan *ps, const cJSON *obj)
{
	const cJSON *detail = cJSON_GetObjectItemCaseSensitive(obj, "errorDetail");
	const char *m = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(detail, "message"));

	if (ps->failed)
		return;
	if (!m)
		m = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(obj, "error"));
	if (!m && !detail && !cJSON_GetObjectItemCaseSensitive(obj, "error"))
		return;
	snprintf(ps->msg, sizeof(ps->msg), "%s", m ? m : "the engine reported an error");
	ps->failed = true;
}

/* Check every JSON value in P[0..N); progress lines that do not parse are
 * skipped, they carry nothing we act on. */
static void pull_scan_text(struct pull_scan *ps, const char *p, size_t n)
{
	const char *end = p + n;

	while (p < end) {
		const char *next = NULL;
		cJSON *obj;

		p += strspn(p, " \t\r\n");
		if (p >= end)
			break;
		obj = cJSON_ParseWithLengthOpts(p, (size_t)(end - p), &next, false);
		if (!obj) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));

			p = nl ? nl + 1 : end;
			continue;
		}
		pull_check(ps, obj);
		cJSON_Delete(obj);
		p = next;
	}
}

static int pull_stream(void *ctx, const char *p, size_t n)
{
	struct pull_scan *ps = ctx;
	const char *nl;
	size_t done;

	if (te_buf_add(&ps->line, p, n) < 0)
		return -1;
	nl = memrchr(ps->line.data, '\n', ps->line.len);
	if (!nl)
		return 0;
	done = (size_t)(nl - ps->line.data) + 1;
	pull_scan_text(ps, ps->line.data, done);
	memmove(ps->line.data, ps->line.data + done, ps->line.len - done + 1);
	ps->line.len -= done;
	return 0;
}

int engine_image_pull(struct engine *e, const char *image, struct te_err *err)
{
	te_autofree char *name = NULL;
	te_autofree char *tag = NULL;
	te_autofree char *qn = NULL;
	te_autofree char *qt = NULL;
	te_autofree char *path = NULL;
	te_autobuf struct te_buf resp = TE_BUF_INIT(engine_response_max(e));
	struct pull_scan ps = {.line = TE_BUF_INIT(PULL_LINE_MAX)};
	struct xfer x = {
	    .body = &resp, .stream = pull_stream, .stream_ctx = &ps, .stream_max = PULL_LINE_MAX};
	struct request rq = {"POST", NULL, NULL, 0, 0, NULL};
	int rc;

	split_ref(image, &name, &tag);
	qn = engine_escape(e, name);
	qt = engine_escape(e, tag);
	path = xasprintf("/v%s/images/create?fromImage=%s&tag=%s", engine_api_version(e), qn, qt);
	rq.path = path;
	rc = engine_send(e, &rq, &x, NULL, err);
	if (rc == 0 && ps.line.len)
		pull_scan_text(&ps, ps.line.data, ps.line.len);
	te_buf_release(&ps.line);
	if (rc < 0)
		return te_err_prefix(err, "pull '%s': ", image);
	if (ps.failed) {
		te_err_set(err, TE_E_ENGINE, "pull '%s': %s", image, ps.msg);
		if (err)
			err->http_status = 200; /* the failure came in a 200 stream */
		return -1;
	}
	return 0;
}

/* ---- containers ---- */

/* POST PATH with BODY and hand back the answer's "Id". */
static int create_for_id(struct engine *e, const char *path, const cJSON *body, char **id_out,
			 struct te_err *err)
{
	te_autojson cJSON *j = NULL;
	const char *id;

	*id_out = NULL;
	if (engine_call_v(e, "POST", path, body, ENGINE_CALL_TIMEOUT_S, &j, err) < 0)
		return -1;
	id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "Id"));
	if (!id || !*id)
		return te_err_set(err, TE_E_FAIL, "engine answered 'POST %s' without an Id", path);
	*id_out = xstrdup(id);
	return 0;
}

int engine_container_create(struct engine *e, const char *name, const struct cJSON *config, char **id_out,
			    struct te_err *err)
{
	te_autofree char *n = name ? engine_escape(e, name) : NULL;
	te_autofree char *path =
	    n ? xasprintf("/containers/create?name=%s", n) : xstrdup("/containers/create");

	return create_for_id(e, path, config, id_out, err);
}

int engine_container_start(struct engine *e, const char *id, struct te_err *err)
{
	te_autofree char *s = engine_seg(id);
	te_autofree char *path = xasprintf("/containers/%s/start", s);

	/* 304 (already running) is below 400, so it is a success here. */
	return engine_call_v(e, "POST", path, NULL, ENGINE_CALL_TIMEOUT_S, NULL, err);
}

int engine_container_rename(struct engine *e, const char *id, const char *name, struct te_err *err)
{
	te_autofree char *s = engine_seg(id);
	te_autofree char *n = engine_seg(name);
	te_autofree char *path = xasprintf("/containers/%s/rename?name=%s", s, n);

	return engine_call_v(e, "POST", path, NULL, ENGINE_CALL_TIMEOUT_S, NULL, err);
}

int engine_container_stop(struct engine *e, const char *id, int timeout_s, struct te_err *err)
{
	te_autofree char *s = engine_seg(id);
	te_autofree char *path = timeout_s >= 0 ? xasprintf("/containers/%s/stop?t=%d", s, timeout_s)
						: xasprintf("/containers/%s/stop", s);
	/* The engine waits up to TIMEOUT_S before it kills; do not give up first. */
	long limit = ENGINE_CALL_TIMEOUT_S + (timeout_s > 0 ? timeout_s : 0);

	return engine_call_v(e, "POST", path, NULL, limit, NULL, err);
}

static int container_delete(struct engine *e, const char *id, bool force, bool volumes, struct te_err *err)
{
	te_autofree char *s = engine_seg(id);
	te_autofree char *path = xasprintf("/containers/%s?v=%d&force=%d", s, volumes ? 1 : 0, force ? 1 : 0);

	return engine_call_v(e, "DELETE", path, NULL, ENGINE_CALL_TIMEOUT_S, NULL, err);
}

int engine_container_remove(struct engine *e, const char *id, bool force, struct te_err *err)
{
	return container_delete(e, id, force, true, err);
}

int engine_container_remove_keep_volumes(struct engine *e, const char *id, bool force, struct te_err *err)
{
	return container_delete(e, id, force, false, err);
}

int engine_container_inspect(struct engine *e, const char *id, struct cJSON **out, struct te_err *err)
{
	te_autofree char *s = engine_seg(id);
	te_autofree char *path = xasprintf("/containers/%s/json", s);

	return engine_get_typed(e, path, cJSON_Object, out, err);
}

int engine_container_list(struct engine *e, const char *label, struct cJSON **out, struct te_err *err)
{
	te_autofree char *f = engine_label_filter(label, '&');
	te_autofree char *path = xasprintf("/containers/json?all=1%s", f);

	return engine_get_typed(e, path, cJSON_Array, out, err);
}

static bool frame_header(const unsigned char *p, size_t n)
{
	return n >= 8 && p[0] <= 2 && p[1] == 0 && p[2] == 0 && p[3] == 0;
}

/* Without a TTY the engine frames output as [stream, 0, 0, 0, size BE32]
 * + payload. A body that does not start with such a header is a TTY's raw
 * stream and is kept whole; a header that goes bad mid-way leaves the rest
 * as it came. */
static int demux(const char *data, size_t n, struct te_buf *out)
{
	const unsigned char *p = (const unsigned char *)data;

	while (frame_header(p, n)) {
		size_t size = (size_t)p[4] << 24 | (size_t)p[5] << 16 | (size_t)p[6] << 8 | p[7];

		if (size > n - 8)
			size = n - 8; /* truncated last frame: keep what arrived */
		if (te_buf_add(out, p + 8, size) < 0)
			return -1;
		p += 8 + size;
		n -= 8 + size;
	}
	return n ? te_buf_add(out, p, n) : 0;
}

int engine_stream_demux(const char *data, size_t n, struct te_buf *out)
{
	return demux(data, n, out);
}

int engine_container_logs(struct engine *e, const char *id, int tail, struct te_buf *out, struct te_err *err)
{
	te_autobuf struct te_buf resp = TE_BUF_INIT(engine_response_max(e));
	te_autofree char *s = engine_seg(id);
	te_autofree char *t = tail < 0 ? xstrdup("all") : xasprintf("%d", tail);
	te_autofree char *path =
	    xasprintf("/v%s/containers/%s/logs?stdout=1&stderr=1&tail=%s", engine_api_version(e), s, t);
	struct xfer x = {.body = &resp};
	struct request rq = {"GET", path, NULL, ENGINE_CALL_TIMEOUT_S, 0, NULL};

	if (engine_send(e, &rq, &x, NULL, err) < 0)
		return -1;
	if (resp.len && demux(resp.data, resp.len, out) < 0)
		return te_err_set(err, TE_E_FAIL, "logs of container '%s' exceed %zu bytes", id, out->max);
	return 0;
}

/* ---- networks ---- */

int engine_network_create(struct engine *e, const struct cJSON *body, char **id_out, struct te_err *err)
{
	return create_for_id(e, "/networks/create", body, id_out, err);
}

int engine_network_remove(struct engine *e, const char *id, struct te_err *err)
{
	te_autofree char *s = engine_seg(id);
	te_autofree char *path = xasprintf("/networks/%s", s);

	/* dockerd answers 204; Podman 200 with a body we have no use for. */
	return engine_call_v(e, "DELETE", path, NULL, ENGINE_CALL_TIMEOUT_S, NULL, err);
}

int engine_network_inspect(struct engine *e, const char *id, struct cJSON **out, struct te_err *err)
{
	te_autofree char *s = engine_seg(id);
	te_autofree char *path = xasprintf("/networks/%s", s);

	return engine_get_typed(e, path, cJSON_Object, out, err);
}

int engine_network_list(struct engine *e, const char *label, struct cJSON **out, struct te_err *err)
{
	te_autofree char *f = engine_label_filter(label, '?');
	te_autofree char *path = xasprintf("/networks%s", f);

	return engine_get_typed(e, path, cJSON_Array, out, err);
}

/* ---- volumes ---- */

int engine_volume_create(struct engine *e, const struct cJSON *body, struct te_err *err)
{
	return engine_call_v(e, "POST", "/volumes/create", body, ENGINE_CALL_TIMEOUT_S, NULL, err);
}

int engine_volume_remove(struct engine *e, const char *name, bool force, struct te_err *err)
{
	te_autofree char *s = engine_seg(name);
	te_autofree char *path = xasprintf("/volumes/%s?force=%d", s, force ? 1 : 0);

	return engine_call_v(e, "DELETE", path, NULL, ENGINE_CALL_TIMEOUT_S, NULL, err);
}

int engine_volume_inspect(struct engine *e, const char *name, struct cJSON **out, struct te_err *err)
{
	te_autofree char *s = engine_seg(name);
	te_autofree char *path = xasprintf("/volumes/%s", s);

	return engine_get_typed(e, path, cJSON_Object, out, err);
}

int engine_libpod_volume_inspect(struct engine *e, const char *name, struct cJSON **out, struct te_err *err)
{
	te_autofree char *s = engine_seg(name);
	te_autofree char *path = xasprintf("/libpod/volumes/%s/json", s);

	return engine_get_typed(e, path, cJSON_Object, out, err);
}

int engine_volume_list(struct engine *e, const char *label, struct cJSON **out, struct te_err *err)
{
	te_autofree char *f = engine_label_filter(label, '?');
	te_autofree char *path = xasprintf("/volumes%s", f);
	te_autojson cJSON *j = NULL;
	cJSON *vols;

	if (engine_get_typed(e, path, cJSON_Object, &j, err) < 0)
		return -1;
	/* "Volumes" is null, not [], when there are none. */
	vols = cJSON_DetachItemFromObjectCaseSensitive(j, "Volumes");
	if (!cJSON_IsArray(vols)) {
		cJSON_Delete(vols);
		vols = cJSON_CreateArray();
		if (!vols)
			TE_BUG("cJSON allocation failed");
	}
	*out = vols;
	return 0;
}
