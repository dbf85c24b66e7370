#include "drivers/s3.h"
#include "drivers/http.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#define TE_WITH_CURL
#include "common/cleanup.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <openssl/evp.h>
#include <openssl/md5.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define S3_REGION "us-east-1"
#define S3_SIGV4 "aws:amz:" S3_REGION ":s3"
#define S3_BODY_MAX (8 << 20)
#define S3_NAME_MAX 63

struct s3 {
	struct drv_http_server srv; /* endpoint (base), keys (user, password), where */
	char *userpwd;		    /* "access:secret" for CURLOPT_USERPWD */
};

static void s3_release(struct s3 *s)
{
	drv_http_server_release(&s->srv);
	free(s->userpwd);
	s->userpwd = NULL;
}
#define autos3 __attribute__((cleanup(s3_release)))

static int s3_open(struct s3 *s, const char *server, struct te_err *err)
{
	if (drv_http_server_parse(server, "s3 server", true,
				  "s3 server: not an http(s)://ACCESS_KEY:SECRET_KEY@HOST:PORT URL", &s->srv,
				  err) < 0)
		return -1;
	s->userpwd = xasprintf("%s:%s", s->srv.user, s->srv.password);
	return 0;
}

/* "x-amz-content-sha256: <hex SHA-256 of BODY>": S3 wants the payload hash
 * as a header, and libcurl 7.88 signs the value it finds there. */
static char *payload_header(const char *body)
{
	unsigned char d[32];
	char hex[65];

	EVP_Digest(body ? body : "", body ? strlen(body) : 0, d, NULL, EVP_sha256(), NULL);
	for (size_t i = 0; i < sizeof(d); i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
	return xasprintf("x-amz-content-sha256: %s", hex);
}

/* One signed request; BODY may be NULL. Returns the status in *ST. */
static int s3_call(struct s3 *s, const char *method, const char *path, const char *body,
		   struct curl_slist *headers, long *st, struct te_buf *out, struct te_err *err)
{
	te_autofree char *url = xasprintf("%s%s", s->srv.base, path);
	te_autofree char *sha = payload_header(body);
	te_autoslist struct curl_slist *h = curl_slist_append(NULL, sha);
	struct drv_http_req req = {
	    method,	url, body,	  body ? strlen(body) : 0, body ? "application/xml" : NULL, S3_SIGV4,
	    s->userpwd, h,   s->srv.where};

	for (struct curl_slist *x = headers; x; x = x->next)
		h = curl_slist_append(h, x->data);
	if (drv_http(&req, st, out, err) < 0)
		return -1;
	if (*st == 403)
		return te_err_set(err, TE_E_FAIL, "%s: %s %s: credentials rejected (HTTP 403): %.200s",
				  s->srv.where, method, path, out->data ? out->data : "");
	return 0;
}

static uint32_t fnv1a(const char *p)
{
	uint32_t h = 2166136261u;

	for (; *p; p++) {
		h ^= (unsigned char)*p;
		h *= 16777619u;
	}
	return h;
}

static char *bucket_name(const struct drv_spec *spec, const char *bucket)
{
	te_autofree char *seed = xasprintf("%s/%s/%s/%s", spec->ledger_id, spec->task, spec->key, bucket);
	te_autofree char *base = xasprintf("te-%s-%s", spec->task, bucket);
	size_t n = strlen(base);

	for (char *c = base; *c; c++)
		if (*c == '_')
			*c = '-';
	if (n > S3_NAME_MAX - 9)
		n = S3_NAME_MAX - 9;
	while (n > 0 && base[n - 1] == '-')
		n--;
	return xasprintf("%.*s-%08x", (int)n, base, fnv1a(seed));
}

/* ---- provision ---- */

static char *detail_json(struct s3 *s, const struct drv_spec *spec)
{
	te_autojson cJSON *o = cJSON_CreateObject();
	cJSON *b = cJSON_AddObjectToObject(o, "buckets");

	cJSON_AddStringToObject(o, "endpoint", s->srv.base);
	cJSON_AddStringToObject(o, "region", S3_REGION);
	cJSON_AddStringToObject(o, "access_key", s->srv.user);
	for (size_t i = 0; spec->buckets && spec->buckets[i]; i++) {
		te_autofree char *name = bucket_name(spec, spec->buckets[i]);

		cJSON_AddStringToObject(b, spec->buckets[i], name);
	}
	return cJSON_PrintUnformatted(o);
}

static int bucket_create(void *ctx, const char *name, struct te_err *err)
{
	struct s3 *s = ctx;
	te_autofree char *path = xasprintf("/%s", name);
	te_autobuf struct te_buf b = TE_BUF_INIT(S3_BODY_MAX);
	long st = 0;

	if (s3_call(s, "PUT", path, NULL, NULL, &st, &b, err) < 0)
		return -1;
	/* The name embeds a hash of ledger id, task and key: a 409 is our own
	 * bucket from an earlier `up` (emulators answer BucketAlreadyExists
	 * even to the one identity they have). */
	if (st == 200)
		return 0;
	if (st == 409 && b.data &&
	    (strstr(b.data, "BucketAlreadyOwnedByYou") || strstr(b.data, "BucketAlreadyExists")))
		return 1;
	return te_err_set(err, TE_E_FAIL, "%s: create bucket '%s': HTTP %ld %.200s", s->srv.where, name, st,
			  b.data ? b.data : "");
}

static int s3_provision(const struct drv_spec *spec, const struct drv_recorder *rec, struct te_err *err)
{
	autos3 struct s3 s = {0};
	te_autofree char *detail = NULL;
	te_autofree char *pname = drv_secret_password(spec->key);
	te_autobuf struct te_buf b = TE_BUF_INIT(S3_BODY_MAX);
	long st = 0;

	if (s3_open(&s, spec->server, err) < 0 || s3_call(&s, "GET", "/", NULL, NULL, &st, &b, err) < 0)
		return -1;
	if (st != 200)
		return te_err_set(err, TE_E_FAIL, "%s: GET / (ListBuckets): HTTP %ld %.200s", s.srv.where, st,
				  b.data ? b.data : "");
	if (rec->secret_put(rec->ctx, pname, s.srv.password, err) < 0)
		return -1;
	detail = detail_json(&s, spec);
	for (size_t i = 0; spec->buckets && spec->buckets[i]; i++) {
		te_autofree char *name = bucket_name(spec, spec->buckets[i]);

		if (drv_record(rec, "s3-bucket", name, detail, bucket_create, &s, err) < 0)
			return -1;
	}
	return 0;
}

/* ---- ready ---- */

/* ListBuckets (GET /, signed) answers 200: the server is up and takes the keys. */
static int s3_ready(const char *server, int timeout_s, struct te_err *err)
{
	autos3 struct s3 s = {0};

	if (s3_open(&s, server, err) < 0)
		return -1;
	for (int i = 0; i < timeout_s * 5; i++) {
		te_autobuf struct te_buf b = TE_BUF_INIT(S3_BODY_MAX);
		long st = 0;

		if (s3_call(&s, "GET", "/", NULL, NULL, &st, &b, err) == 0 && st == 200)
			return 0;
		usleep(200 * 1000);
	}
	return te_err_set(err, TE_E_FAIL, "%s: not ready after %d s", s.srv.where, timeout_s);
}

/* ---- describe ---- */

/* The endpoint as containers reach it: EP's scheme ("scheme://host:port",
 * the base drv_http_server_parse made) with HOST and PORT (NULL: EP's),
 * and no path, like the host side: clients join "$ENDPOINT/bucket/key".
 * Owned. */
static char *container_endpoint(const char *ep, const char *host, const char *port)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *eport = NULL, *out;
	bool v6 = strchr(host, ':') != NULL;

	curl_url_set(u, CURLUPART_URL, ep, 0);
	curl_url_get(u, CURLUPART_SCHEME, &scheme, 0);
	curl_url_get(u, CURLUPART_PORT, &eport, CURLU_DEFAULT_PORT);
	if (!port)
		port = eport ? eport : "80";
	out = xasprintf("%s://%s%s%s:%s", scheme ? scheme : "http", v6 ? "[" : "", host, v6 ? "]" : "", port);
	curl_free(scheme);
	curl_free(eport);
	curl_url_cleanup(u);
	return out;
}

static cJSON *s3_describe(const char *detail, const char *password, const char *host, const char *port,
			  struct te_err *err)
{
	te_autojson cJSON *d = cJSON_Parse(detail ? detail : "");
	te_autojson cJSON *o = cJSON_CreateObject();
	const char *ep = cJSON_GetStringValue(cJSON_GetObjectItem(d, "endpoint"));
	const cJSON *b;

	if (!ep || !cJSON_IsObject(cJSON_GetObjectItem(d, "buckets"))) {
		te_err_set(err, TE_E_STATE, "s3 resource: ledger detail is not what taskenv wrote");
		return NULL;
	}
	if (host) {
		te_autofree char *url = container_endpoint(ep, host, port);

		cJSON_AddStringToObject(o, "endpoint", url);
	} else {
		cJSON_AddStringToObject(o, "endpoint", ep);
	}
	cJSON_AddStringToObject(o, "region",
				cJSON_GetStringValue(cJSON_GetObjectItem(d, "region")) ?: S3_REGION);
	cJSON_AddStringToObject(o, "access_key",
				cJSON_GetStringValue(cJSON_GetObjectItem(d, "access_key")) ?: "");
	cJSON_AddStringToObject(o, "secret_key", password ? password : "");
	cJSON_AddStringToObject(o, "credentials", "shared");
	cJSON_ArrayForEach (b, cJSON_GetObjectItem(d, "buckets")) {
		te_autofree char *k = xasprintf("bucket_%s", b->string);

		cJSON_AddStringToObject(o, k, cJSON_GetStringValue(b));
	}
	return TE_STEAL(o);
}

/* ---- teardown ---- */

static void xml_freep(xmlDoc **d)
{
	if (*d)
		xmlFreeDoc(*d);
}
#define autoxml __attribute__((cleanup(xml_freep)))

/* Text of every element named NAME under N (depth-first), appended to V. */
static void collect(xmlNode *n, const char *name, const char *parent, char ***v)
{
	for (; n; n = n->next) {
		if (n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0 && n->parent &&
		    (!parent || strcmp((const char *)n->parent->name, parent) == 0)) {
			xmlChar *t = xmlNodeGetContent(n);

			*v = te_strv_push(*v, xstrdup((const char *)t));
			xmlFree(t);
		}
		collect(n->children, name, parent, v);
	}
}

static char **xml_texts(const struct te_buf *b, const char *name, const char *parent)
{
	autoxml xmlDoc *doc = NULL;
	char **v = xcalloc(1, sizeof(*v));

	if (!b->data)
		return v;
	doc = xmlReadMemory(b->data, (int)b->len, "s3.xml", NULL, XML_PARSE_NONET | XML_PARSE_NOERROR);
	if (doc)
		collect(xmlDocGetRootElement(doc), name, parent, &v);
	return v;
}

static char *md5_b64(const char *s)
{
	unsigned char d[MD5_DIGEST_LENGTH];
	unsigned char out[32];

	EVP_Digest(s, strlen(s), d, NULL, EVP_md5(), NULL);
	EVP_EncodeBlock(out, d, MD5_DIGEST_LENGTH);
	return xstrdup((const char *)out);
}

static int delete_keys(struct s3 *s, const char *bucket, char **keys, struct te_err *err)
{
	te_autobuf struct te_buf body = TE_BUF_INIT(S3_BODY_MAX);
	te_autobuf struct te_buf out = TE_BUF_INIT(S3_BODY_MAX);
	te_autoslist struct curl_slist *h = NULL;
	te_autofree char *path = xasprintf("/%s?delete", bucket);
	te_autofree char *md5 = NULL;
	te_autofree char *hdr = NULL;
	long st = 0;

	te_buf_adds(&body, "<Delete><Quiet>true</Quiet>");
	for (size_t i = 0; keys[i]; i++) {
		xmlChar *e = xmlEncodeSpecialChars(NULL, (const xmlChar *)keys[i]);

		te_buf_addf(&body, "<Object><Key>%s</Key></Object>", (const char *)e);
		xmlFree(e);
	}
	te_buf_adds(&body, "</Delete>");
	md5 = md5_b64(body.data);
	hdr = xasprintf("Content-MD5: %s", md5);
	h = curl_slist_append(h, hdr);
	if (s3_call(s, "POST", path, body.data, h, &st, &out, err) < 0)
		return -1;
	if (st != 200)
		return te_err_set(err, TE_E_FAIL, "%s: DeleteObjects on '%s': HTTP %ld", s->srv.where, bucket,
				  st);
	return 0;
}

static int abort_uploads(struct s3 *s, const char *bucket, struct te_err *err)
{
	te_autofree char *path = xasprintf("/%s?uploads", bucket);
	te_autobuf struct te_buf b = TE_BUF_INIT(S3_BODY_MAX);
	te_autostrv char **keys = NULL;
	te_autostrv char **ids = NULL;
	long st = 0;

	if (s3_call(s, "GET", path, NULL, NULL, &st, &b, err) < 0)
		return -1;
	if (st != 200)
		return 0; /* no multipart listing on this server */
	keys = xml_texts(&b, "Key", "Upload");
	ids = xml_texts(&b, "UploadId", "Upload");
	for (size_t i = 0; keys[i] && ids[i]; i++) {
		te_autofree char *ek = drv_http_escape(keys[i]);
		te_autofree char *ei = drv_http_escape(ids[i]);
		te_autofree char *del = xasprintf("/%s/%s?uploadId=%s", bucket, ek, ei);
		te_autobuf struct te_buf o = TE_BUF_INIT(S3_BODY_MAX);

		if (s3_call(s, "DELETE", del, NULL, NULL, &st, &o, err) < 0)
			return -1;
	}
	return 0;
}

/* ListObjectsV2 page by page, each page deleted with DeleteObjects. */
static int empty_bucket(struct s3 *s, const char *bucket, struct te_err *err)
{
	te_autofree char *token = NULL;

	for (;;) {
		te_autofree char *et = token ? drv_http_escape(token) : NULL;
		te_autofree char *path =
		    xasprintf("/%s?list-type=2%s%s", bucket, et ? "&continuation-token=" : "", et ? et : "");
		te_autobuf struct te_buf b = TE_BUF_INIT(S3_BODY_MAX);
		te_autostrv char **keys = NULL;
		te_autostrv char **next = NULL;
		long st = 0;

		if (s3_call(s, "GET", path, NULL, NULL, &st, &b, err) < 0)
			return -1;
		if (st != 200)
			return te_err_set(err, TE_E_FAIL, "%s: ListObjectsV2 on '%s': HTTP %ld", s->srv.where,
					  bucket, st);
		keys = xml_texts(&b, "Key", "Contents");
		if (keys[0] && delete_keys(s, bucket, keys, err) < 0)
			return -1;
		next = xml_texts(&b, "NextContinuationToken", NULL);
		free(token);
		token = next[0] ? xstrdup(next[0]) : NULL;
		if (!token)
			return 0;
	}
}

/* Teardown, or with CHECK_ONLY only the HEAD (verify). */
static int on_server(const struct drv_ref *ref, bool check_only, enum drv_removed *out, struct te_err *err)
{
	autos3 struct s3 s = {0};
	te_autofree char *path = xasprintf("/%s", ref->name);
	te_autobuf struct te_buf b = TE_BUF_INIT(S3_BODY_MAX);
	long st = 0;

	if (!ref->server)
		return te_err_set(err, TE_E_FAIL,
				  "%s '%s': the admin URL is no longer in the task's secrets file", ref->kind,
				  ref->name);
	if (s3_open(&s, ref->server, err) < 0 || s3_call(&s, "HEAD", path, NULL, NULL, &st, &b, err) < 0)
		return -1;
	if (st == 404) {
		*out = DRV_GONE;
		return 0;
	}
	if (check_only && st != 200)
		return te_err_set(err, TE_E_FAIL, "%s: HEAD bucket '%s': HTTP %ld", s.srv.where, ref->name,
				  st);
	*out = DRV_REMOVED;
	if (check_only)
		return 0;
	if (abort_uploads(&s, ref->name, err) < 0 || empty_bucket(&s, ref->name, err) < 0)
		return -1;
	te_buf_reset(&b);
	if (s3_call(&s, "DELETE", path, NULL, NULL, &st, &b, err) < 0)
		return -1;
	if (st != 204 && st != 200 && st != 404)
		return te_err_set(err, TE_E_FAIL, "%s: delete bucket '%s': HTTP %ld %.200s", s.srv.where,
				  ref->name, st, b.data ? b.data : "");
	return 0;
}

static int s3_teardown(const struct drv_ref *ref, enum drv_removed *out, struct te_err *err)
{
	return on_server(ref, false, out, err);
}

static int s3_check(const struct drv_ref *ref, enum drv_removed *out, struct te_err *err)
{
	return on_server(ref, true, out, err);
}

static const char *const s3_fields[] = {"endpoint",   "region",	     "access_key",
					"secret_key", "credentials", NULL};

static const char *const s3_kinds[] = {"s3-bucket", NULL};
static const char *const s3_keys[] = {"buckets", NULL};

/* s3rver serves whoever reaches it (anonymous requests, and only the access
 * key id of a SigV4 one is checked): one instance shared by tasks is no
 * boundary at all. So each task gets its own instance, on its own networks
 * only, whose image (scripts/images.sh) takes a random access key id and
 * secret from S3RVER_ACCESS_KEY / S3RVER_SECRET_KEY, revokes S3RVER/S3RVER
 * and refuses unsigned requests (services/lifecycle/shared.c). */
static const struct drv_shared s3_shared = {
    .image = "taskenv-example/s3rver:3.1",
    .ports = {"4568", NULL},
    .admin_port = "4568",
    .secret = "s3-server-secret",
    .user_env = "S3RVER_ACCESS_KEY",
    .password_env = "S3RVER_SECRET_KEY",
    .scheme = "http",
    .user = "S3RVER",
    .user_secret = "s3-server-key",
    .path = "",
    .per_task = true,
};

const struct drv_ops drv_s3 = {
    .name = "s3",
    .kinds = s3_kinds,
    .primary_kind = "s3-bucket",
    .keys = s3_keys,
    .fields = s3_fields,
    .buckets = true,
    .shared = &s3_shared,
    .provision = s3_provision,
    .describe = s3_describe,
    .ready = s3_ready,
    .teardown = s3_teardown,
    .check = s3_check,
};
