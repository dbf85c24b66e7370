#include "drivers/rabbitmq.h"
#include "drivers/http.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#define TE_WITH_CURL
#include "common/cleanup.h"

#include <openssl/evp.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RMQ_NAME_MAX 63
#define RMQ_BODY_MAX (4 << 20)

/* The management API of one server. */
struct rmq {
	struct drv_http_server srv; /* base URL without credentials, where */
	char *userpwd;		    /* "admin:password" (secret) */
};

static void rmq_release(struct rmq *r)
{
	drv_http_server_release(&r->srv);
	free(r->userpwd);
	r->userpwd = NULL;
}
#define autormq __attribute__((cleanup(rmq_release)))

/* Without credentials in the URL, RabbitMQ's default guest:guest. */
static int rmq_open(struct rmq *r, const char *server, struct te_err *err)
{
	if (drv_http_server_parse(server, "rabbitmq server", false,
				  "rabbitmq server: not an http(s)://ADMIN:PASSWORD@HOST:PORT URL", &r->srv,
				  err) < 0)
		return -1;
	r->userpwd = xasprintf("%s:%s", r->srv.user ? r->srv.user : "guest",
			       r->srv.password ? r->srv.password : "guest");
	return 0;
}

/* One API call. *OUT (may be NULL) gets the parsed JSON body. */
static int api(struct rmq *r, const char *method, const char *path, const cJSON *body, long *status,
	       cJSON **out, struct te_err *err)
{
	te_autofree char *url = xasprintf("%s%s", r->srv.base, path);
	te_autofree char *text = body ? cJSON_PrintUnformatted(body) : NULL;
	te_autobuf struct te_buf b = TE_BUF_INIT(RMQ_BODY_MAX);
	struct drv_http_req req = {
	    method,	url,  text,	   text ? strlen(text) : 0, text ? "application/json" : NULL, NULL,
	    r->userpwd, NULL, r->srv.where};

	if (drv_http(&req, status, &b, err) < 0)
		return -1;
	if (*status == 401)
		return te_err_set(err, TE_E_FAIL, "%s: admin credentials rejected (HTTP 401)", r->srv.where);
	if (out)
		*out = cJSON_Parse(b.data ? b.data : "null");
	return 0;
}

/* A call that must answer 2xx. */
static int api_ok(struct rmq *r, const char *method, const char *path, const cJSON *body, struct te_err *err)
{
	long st = 0;

	if (api(r, method, path, body, &st, NULL, err) < 0)
		return -1;
	if (st < 200 || st > 299)
		return te_err_set(err, TE_E_FAIL, "%s: %s %s: HTTP %ld", r->srv.where, method, path, st);
	return 0;
}

static char *mark(const char *ledger_id, const char *task)
{
	return xasprintf("taskenv ledger=%s task=%s", ledger_id, task);
}

/* rabbit_password_hashing_sha256: base64(salt[4] || SHA-256(salt || password)). */
static bool hash_matches(const char *b64, const char *password)
{
	unsigned char raw[64], want[SHA256_DIGEST_LENGTH];
	size_t len = strlen(b64);
	int n;
	te_autofree unsigned char *in = NULL;

	if (len == 0 || len > 88)
		return false;
	n = EVP_DecodeBlock(raw, (const unsigned char *)b64, (int)len);
	/* EVP_DecodeBlock counts the '=' padding as zero bytes. */
	for (size_t i = len; i > 0 && b64[i - 1] == '='; i--)
		n--;
	if (n != 4 + SHA256_DIGEST_LENGTH)
		return false;
	in = xmalloc(4 + strlen(password));
	memcpy(in, raw, 4);
	memcpy(in + 4, password, strlen(password));
	SHA256(in, 4 + strlen(password), want);
	return memcmp(want, raw + 4, SHA256_DIGEST_LENGTH) == 0;
}

/* ---- provision ---- */

struct prov {
	struct rmq r;
	const struct drv_spec *s;
	const struct drv_recorder *rec;
	char *name; /* vhost and user */
	char *ename;
	char *password;
	char *detail;
};

/* The AMQP port from the spec, else from the server's listeners (its own
 * view: inside a container that is the unpublished port). */
static int amqp_port(struct prov *p, int *port, struct te_err *err)
{
	te_autojson cJSON *o = NULL;
	const cJSON *l;
	long st = 0;

	if (p->s->amqp_port) {
		*port = (int)strtol(p->s->amqp_port, NULL, 10);
		return 0;
	}
	if (api(&p->r, "GET", "/api/overview", NULL, &st, &o, err) < 0)
		return -1;
	if (st != 200)
		return te_err_set(err, TE_E_FAIL,
				  "%s: GET /api/overview: HTTP %ld (is it the management API?)",
				  p->r.srv.where, st);
	cJSON_ArrayForEach (l, cJSON_GetObjectItemCaseSensitive(o, "listeners")) {
		if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(l, "protocol")) ?: "", "amqp") != 0)
			continue;
		*port = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(l, "port"));
		return 0;
	}
	return te_err_set(err, TE_E_FAIL, "%s: no AMQP listener in /api/overview", p->r.srv.where);
}

static int user_create(void *ctx, const char *name, struct te_err *err)
{
	struct prov *p = ctx;
	te_autofree char *path = xasprintf("/api/users/%s", p->ename);
	te_autojson cJSON *old = NULL;
	te_autojson cJSON *body = cJSON_CreateObject();
	const char *hash;
	long st = 0;

	if (api(&p->r, "GET", path, NULL, &st, &old, err) < 0)
		return -1;
	hash = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(old, "password_hash"));
	if (st == 200 && !(hash && hash_matches(hash, p->password)))
		return te_err_set(err, TE_E_CONFLICT,
				  "%s: user '%s' exists and is not task '%s''s; left alone", p->r.srv.where,
				  p->name, p->s->task);
	cJSON_AddStringToObject(body, "password", p->password);
	cJSON_AddStringToObject(body, "tags", "");
	if (api_ok(&p->r, "PUT", path, body, err) < 0)
		return -1;
	return st == 200 ? 1 : 0;
}

static int vhost_create(void *ctx, const char *name, struct te_err *err)
{
	struct prov *p = ctx;
	te_autofree char *path = xasprintf("/api/vhosts/%s", p->ename);
	te_autofree char *limit = xasprintf("/api/vhost-limits/%s/max-connections", p->ename);
	te_autofree char *perm = xasprintf("/api/permissions/%s/%s", p->ename, p->ename);
	te_autofree char *m = mark(p->s->ledger_id, p->s->task);
	te_autojson cJSON *old = NULL;
	te_autojson cJSON *body = cJSON_CreateObject();
	te_autojson cJSON *lim = cJSON_CreateObject();
	te_autojson cJSON *pb = cJSON_CreateObject();
	long st = 0;

	if (api(&p->r, "GET", path, NULL, &st, &old, err) < 0)
		return -1;
	if (st == 200 &&
	    strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(old, "description")) ?: "", m) != 0)
		return te_err_set(err, TE_E_CONFLICT,
				  "%s: vhost '%s' exists and is not task '%s''s; left alone", p->r.srv.where,
				  p->name, p->s->task);
	cJSON_AddStringToObject(body, "description", m);
	cJSON_AddNumberToObject(lim, "value", 64);
	cJSON_AddStringToObject(pb, "configure", ".*");
	cJSON_AddStringToObject(pb, "write", ".*");
	cJSON_AddStringToObject(pb, "read", ".*");
	if (api_ok(&p->r, "PUT", path, body, err) < 0 || api_ok(&p->r, "PUT", limit, lim, err) < 0 ||
	    api_ok(&p->r, "PUT", perm, pb, err) < 0)
		return -1;
	return st == 200 ? 1 : 0;
}

/* One object of P under its name, by the drivers' ledger protocol. */
static int step(struct prov *p, const char *kind, drv_create_fn create, struct te_err *err)
{
	return drv_record(p->rec, kind, p->name, p->detail, create, p, err);
}

static char *detail_json(struct prov *p, int port)
{
	te_autojson cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "host", p->r.srv.host);
	cJSON_AddNumberToObject(o, "port", port);
	cJSON_AddStringToObject(o, "vhost", p->name);
	cJSON_AddStringToObject(o, "user", p->name);
	return cJSON_PrintUnformatted(o);
}

static int rmq_provision(const struct drv_spec *s, const struct drv_recorder *rec, struct te_err *err)
{
	struct prov p = {.s = s, .rec = rec};
	int port = 0, rc = -1;

	p.name = drv_object_name("te_", s->task, s->key, RMQ_NAME_MAX);
	p.ename = drv_http_escape(p.name);
	if (rmq_open(&p.r, s->server, err) < 0 || amqp_port(&p, &port, err) < 0 ||
	    drv_task_password(p.rec, s->key, &p.password, err) < 0)
		goto out;
	p.detail = detail_json(&p, port);
	if (step(&p, "rabbitmq-user", user_create, err) < 0 ||
	    step(&p, "rabbitmq-vhost", vhost_create, err) < 0)
		goto out;
	rc = 0;
out:
	rmq_release(&p.r);
	free(p.name), free(p.ename), free(p.password), free(p.detail);
	return rc;
}

/* ---- ready ---- */

/* The management API answers GET /api/overview with 200 for the admin
 * (the default user exists once the management listener is up). */
static int rmq_ready(const char *server, int timeout_s, struct te_err *err)
{
	autormq struct rmq r = {0};

	if (rmq_open(&r, server, err) < 0)
		return -1;
	for (int i = 0; i < timeout_s * 5; i++) {
		long st = 0;

		if (api(&r, "GET", "/api/overview", NULL, &st, NULL, err) == 0 && st == 200)
			return 0;
		usleep(200 * 1000);
	}
	return te_err_set(err, TE_E_FAIL, "%s: not ready after %d s", r.srv.where, timeout_s);
}

/* ---- describe ---- */

static cJSON *rmq_describe(const char *detail, const char *password, const char *host, const char *cport,
			   struct te_err *err)
{
	te_autojson cJSON *d = cJSON_Parse(detail ? detail : "");
	te_autojson cJSON *o = cJSON_CreateObject();
	const char *h, *user, *vhost;
	te_autofree char *port = NULL;
	te_autofree char *url = NULL;

	h = cJSON_GetStringValue(cJSON_GetObjectItem(d, "host"));
	user = cJSON_GetStringValue(cJSON_GetObjectItem(d, "user"));
	vhost = cJSON_GetStringValue(cJSON_GetObjectItem(d, "vhost"));
	if (!h || !user || !vhost || !cJSON_IsNumber(cJSON_GetObjectItem(d, "port"))) {
		te_err_set(err, TE_E_STATE, "rabbitmq resource: ledger detail is not what taskenv wrote");
		return NULL;
	}
	h = host ? host : h;
	port = cport ? xstrdup(cport)
		     : xasprintf("%d", (int)cJSON_GetNumberValue(cJSON_GetObjectItem(d, "port")));
	url = xasprintf("amqp://%s:%s@%s:%s/%s", user, password ? password : "", h, port, vhost);
	cJSON_AddStringToObject(o, "url", url);
	cJSON_AddStringToObject(o, "host", h);
	cJSON_AddStringToObject(o, "port", port);
	cJSON_AddStringToObject(o, "user", user);
	cJSON_AddStringToObject(o, "password", password ? password : "");
	cJSON_AddStringToObject(o, "vhost", vhost);
	return TE_STEAL(o);
}

/* ---- teardown ---- */

static int close_connections(struct rmq *r, const char *ename, struct te_err *err)
{
	te_autofree char *path = xasprintf("/api/vhosts/%s/connections", ename);
	te_autojson cJSON *list = NULL;
	const cJSON *c;
	long st = 0;

	if (api(r, "GET", path, NULL, &st, &list, err) < 0)
		return -1;
	/* An error answer is an object: its members are not connections. */
	if (!cJSON_IsArray(list))
		return 0;
	cJSON_ArrayForEach (c, list) {
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(c, "name"));
		te_autofree char *n = name ? drv_http_escape(name) : NULL;
		te_autofree char *del = n ? xasprintf("/api/connections/%s", n) : NULL;
		long st2 = 0;

		if (del && api(r, "DELETE", del, NULL, &st2, NULL, err) < 0)
			return -1;
	}
	return 0;
}

/* GET PATH for teardown: *ST is 200 (found, *OUT its JSON) or 404 (gone).
 * Any other answer (503 from a node that is starting, 500) says nothing
 * about ownership: an error, so the row stays pending for the next down. */
static int looked_up(struct rmq *r, const char *path, long *st, cJSON **out, struct te_err *err)
{
	if (api(r, "GET", path, NULL, st, out, err) < 0)
		return -1;
	if (*st != 200 && *st != 404)
		return te_err_set(err, TE_E_FAIL, "%s: GET %s: HTTP %ld", r->srv.where, path, *st);
	return 0;
}

static int drop_vhost(struct rmq *r, const struct drv_ref *ref, const char *user, bool check_only,
		      enum drv_removed *out, struct te_err *err)
{
	te_autofree char *ev = drv_http_escape(ref->name);
	te_autofree char *eu = drv_http_escape(user);
	te_autofree char *path = xasprintf("/api/vhosts/%s", ev);
	te_autofree char *perm = xasprintf("/api/permissions/%s/%s", ev, eu);
	te_autofree char *m = mark(ref->ledger_id, ref->task);
	te_autojson cJSON *old = NULL;
	long st = 0;

	if (looked_up(r, path, &st, &old, err) < 0)
		return -1;
	if (st == 404 ||
	    strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(old, "description")) ?: "", m) !=
		0) {
		*out = st == 404 ? DRV_GONE : DRV_NOT_OURS;
		return 0;
	}
	*out = DRV_REMOVED;
	if (check_only)
		return 0;
	if (api(r, "DELETE", perm, NULL, &st, NULL, err) < 0 || close_connections(r, ev, err) < 0)
		return -1;
	return api_ok(r, "DELETE", path, NULL, err);
}

static int drop_user(struct rmq *r, const struct drv_ref *ref, const char *password, bool check_only,
		     enum drv_removed *out, struct te_err *err)
{
	te_autofree char *eu = drv_http_escape(ref->name);
	te_autofree char *path = xasprintf("/api/users/%s", eu);
	te_autojson cJSON *old = NULL;
	const char *hash;
	long st = 0;

	if (looked_up(r, path, &st, &old, err) < 0)
		return -1;
	hash = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(old, "password_hash"));
	if (st == 404 || !password || !hash || !hash_matches(hash, password)) {
		*out = st == 404 ? DRV_GONE : DRV_NOT_OURS;
		return 0;
	}
	*out = DRV_REMOVED;
	return check_only ? 0 : api_ok(r, "DELETE", path, NULL, err);
}

/* Teardown, or with CHECK_ONLY the same lookups and no change (verify). */
static int on_server(const struct drv_ref *ref, bool check_only, enum drv_removed *out, struct te_err *err)
{
	te_autojson cJSON *d = cJSON_Parse(ref->detail ? ref->detail : "");
	autormq struct rmq r = {0};
	const char *user = cJSON_GetStringValue(cJSON_GetObjectItem(d, "user"));

	if (!ref->server)
		return te_err_set(err, TE_E_FAIL,
				  "%s '%s': the admin URL is no longer in the task's secrets file", ref->kind,
				  ref->name);
	if (!user)
		return te_err_set(err, TE_E_STATE, "%s '%s': ledger detail is not what taskenv wrote",
				  ref->kind, ref->name);
	if (rmq_open(&r, ref->server, err) < 0)
		return -1;
	if (strcmp(ref->kind, "rabbitmq-vhost") == 0)
		return drop_vhost(&r, ref, user, check_only, out, err);
	if (strcmp(ref->kind, "rabbitmq-user") == 0)
		return drop_user(&r, ref, ref->password, check_only, out, err);
	return te_err_set(err, TE_E_STATE, "unknown rabbitmq resource kind '%s'", ref->kind);
}

static int rmq_teardown(const struct drv_ref *ref, enum drv_removed *out, struct te_err *err)
{
	return on_server(ref, false, out, err);
}

static int rmq_check(const struct drv_ref *ref, enum drv_removed *out, struct te_err *err)
{
	return on_server(ref, true, out, err);
}

static const char *const rmq_fields[] = {"url", "host", "port", "user", "password", "vhost", NULL};

static const char *const rmq_kinds[] = {"rabbitmq-user", "rabbitmq-vhost", NULL};
static const char *const rmq_keys[] = {"amqp_port", NULL};

static const struct drv_shared rmq_shared = {
    .image = "taskenv-example/rabbitmq:3",
    .ports = {"5672", "15672", NULL},
    .admin_port = "15672",
    .secret = "rabbitmq-admin",
    .user_env = "RABBITMQ_DEFAULT_USER",
    .password_env = "RABBITMQ_DEFAULT_PASS",
    .scheme = "http",
    .user = "taskenv_admin",
    .path = "",
    .amqp = true,
};

const struct drv_ops drv_rabbitmq = {
    .name = "rabbitmq",
    .kinds = rmq_kinds,
    .primary_kind = "rabbitmq-user",
    .keys = rmq_keys,
    .fields = rmq_fields,
    .shared = &rmq_shared,
    .provision = rmq_provision,
    .describe = rmq_describe,
    .ready = rmq_ready,
    .teardown = rmq_teardown,
    .check = rmq_check,
};
