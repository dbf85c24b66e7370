/* The broker's HTTP server (broker.h): libmicrohttpd on the task's UNIX
 * socket, one thread per connection (a followed log or a hijacked exec
 * holds its connection for as long as it runs), each request judged by
 * broker_rules.c, then checked for ownership, then forwarded through the
 * engine client (engine/forward.h). Why libmicrohttpd: docs/broker.md. */
#include "services/lifecycle/broker.h"
#include "services/lifecycle/broker_int.h"
#include "services/lifecycle/broker_rules.h"
#include "services/lifecycle/guard.h"
#include "services/lifecycle/reskind.h"
#include "services/model/plan.h"
#include "engine/engine.h"
#include "engine/forward.h"
#include "state/ledger.h"
#include "state/owner.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <microhttpd.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define HEADERS_MAX (32u * 1024u) /* MHD's per-connection memory: headers beyond it get 431 */
#define IDLE_TIMEOUT_S 15u	  /* a client that sends nothing for this long is dropped */
#define CONNECTIONS_MAX 256u

struct engine *brk_take_engine(struct brk *b, bool changes, struct te_err *err)
{
	struct engine *e = NULL;
	int rc = 0;

	pthread_mutex_lock(&b->mu);
	if (b->npool)
		e = b->pool[--b->npool];
	pthread_mutex_unlock(&b->mu);
	if (!e)
		e = engine_clone(b->proto, err);
	if (!e)
		return NULL;
	/* A gate of the handle's own (its findings are per judgment, and a
	 * handle is one thread's), re-narrowed for each change: the granted
	 * set of the task's latest up, never more. */
	pthread_mutex_lock(&b->mu);
	svc_guard(e, b->l);
	if (changes)
		rc = svc_guard_task(e, b->l, b->task, err);
	pthread_mutex_unlock(&b->mu);
	if (rc < 0) {
		engine_free(e);
		return NULL;
	}
	return e;
}

void brk_give_engine(struct brk *b, struct engine *e)
{
	pthread_mutex_lock(&b->mu);
	if (e && b->npool < BRK_POOL_MAX) {
		b->pool[b->npool++] = e;
		e = NULL;
	}
	pthread_mutex_unlock(&b->mu);
	engine_free(e);
}

/* ---- ownership ---- */

/* Is container ID (full) in TASK's ledger? */
static bool in_ledger(struct brk *b, const char *id)
{
	struct state_resource *rows = NULL;
	struct te_err err = {0};
	size_t n = 0;
	bool yes = false;

	pthread_mutex_lock(&b->mu);
	if (state_resource_list(b->l, b->task, false, &rows, &n, &err) == 0)
		for (size_t i = 0; i < n && !yes; i++)
			yes = strcmp(rows[i].kind, svc_res_kind_name(SVC_RES_CONTAINER)) == 0 &&
			      rows[i].engine_id && strcmp(rows[i].engine_id, id) == 0;
	pthread_mutex_unlock(&b->mu);
	state_resources_free(rows, n);
	return yes;
}

bool brk_owned(struct brk *b, const cJSON *obj, const char *id)
{
	return id && svc_labels_match(obj, b->task, b->ledger_id) && in_ledger(b, id);
}

/* REF (a name, ID or ID prefix: the engine resolves it, the client is not
 * trusted to) is one of the task's containers: its full ID into ID. 0, or
 * an answer queued (*answered) when not. */
static int own_container(struct brk *b, struct engine *e, struct MHD_Connection *c, const char *ref,
			 char id[80], enum MHD_Result *answered)
{
	te_autojson cJSON *obj = NULL;
	struct te_err err = {0};
	const char *full;

	if (engine_container_inspect(e, ref, &obj, &err) < 0 && err.code != TE_E_NOTFOUND) {
		*answered = brk_engine_failed(c, &err);
		return -1;
	}
	full = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(obj, "Id"));
	/* The same answer whether it does not exist or is another task's:
	 * the broker does not say what exists outside the task. */
	if (!brk_owned(b, obj, full) || strlen(full) >= 80) {
		*answered = brk_refuse(c, 403,
				       "taskenv broker: container '%s' is not one of task '%s''s containers "
				       "(rule: ownership: the ledger and the container's labels)",
				       ref, b->task);
		return -1;
	}
	snprintf(id, 80, "%s", full);
	return 0;
}

/* The exec's container must be the task's. */
static int own_exec(struct brk *b, struct engine *e, struct MHD_Connection *c, const char *exec_id,
		    enum MHD_Result *answered)
{
	te_autojson cJSON *x = NULL;
	te_autofree char *path = xasprintf("/exec/%s/json", exec_id);
	struct te_err err = {0};
	const char *cid;
	char id[80];

	if (engine_call(e, "GET", path, NULL, NULL, &x, &err) < 0 && err.code != TE_E_NOTFOUND) {
		*answered = brk_engine_failed(c, &err);
		return -1;
	}
	cid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(x, "ContainerID"));
	if (!cid || !svc_brk_ref_ok(cid)) {
		*answered = brk_refuse(c, 403,
				       "taskenv broker: exec '%s' is not in one of task '%s''s containers "
				       "(rule: ownership)",
				       exec_id, b->task);
		return -1;
	}
	return own_container(b, e, c, cid, id, answered);
}

/* ---- the endpoints ---- */

struct query {
	struct te_buf b;
	bool bad;
};

static enum MHD_Result add_arg(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	struct query *q = cls;

	if (!svc_brk_query_ok(key) || !svc_brk_query_ok(value)) {
		q->bad = true;
		return MHD_NO;
	}
	if (te_buf_addf(&q->b, "%s%s%s%s", q->b.len ? "&" : "?", key, value ? "=" : "", value ? value : "") <
	    0)
		q->bad = true;
	return q->bad ? MHD_NO : MHD_YES;
}

static enum MHD_Result ping(struct MHD_Connection *c, struct brk *b, bool head)
{
	struct MHD_Response *r =
	    MHD_create_response_from_buffer(head ? 0 : 2, (void *)"OK", MHD_RESPMEM_PERSISTENT);
	enum MHD_Result rc;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	MHD_add_response_header(r, "API-Version", engine_api_version(b->proto));
	MHD_add_response_header(r, "OSType", "linux");
	MHD_add_response_header(r, "Docker-Experimental", "false");
	MHD_add_response_header(r, "Cache-Control", "no-cache, no-store, must-revalidate");
	rc = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return rc;
}

/* /info tells of every container and the host's setup: only what a task
 * may know of the engine it runs on. */
static enum MHD_Result info(struct MHD_Connection *c, struct brk *b, struct engine *e)
{
	static const char *const keep[] = {"OSType",
					   "Architecture",
					   "KernelVersion",
					   "OperatingSystem",
					   "ServerVersion",
					   "Driver",
					   "CgroupDriver",
					   "CgroupVersion",
					   "NCPU",
					   "MemTotal",
					   "DefaultRuntime",
					   "SecurityOptions",
					   "ExperimentalBuild",
					   "IndexServerAddress",
					   "OSVersion"};
	te_autojson cJSON *all = NULL;
	te_autojson cJSON *out = cJSON_CreateObject();
	struct te_err err = {0};

	if (engine_call(e, "GET", "/info", NULL, NULL, &all, &err) < 0)
		return brk_engine_failed(c, &err);
	for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++) {
		cJSON *v = cJSON_GetObjectItemCaseSensitive(all, keep[i]);

		if (v)
			cJSON_AddItemToObject(out, keep[i], cJSON_Duplicate(v, true));
	}
	cJSON_AddStringToObject(out, "Name", b->task);
	return brk_queue_json(c, 200, out);
}

/* The engine's list, then only the task's entries: Podman ignores or ORs
 * some label filters, so the broker filters itself. */
static enum MHD_Result list(struct MHD_Connection *c, struct brk *b, struct engine *e, const char *query)
{
	te_autobuf struct te_buf raw = TE_BUF_INIT(BRK_ANSWER_MAX);
	te_autofree char *path = xasprintf("/containers/json%s", query);
	te_autojson cJSON *arr = NULL;
	te_autojson cJSON *out = cJSON_CreateArray();
	struct te_err err = {0};
	cJSON *it;

	if (engine_call_raw(e, "GET", path, NULL, &raw, &err) < 0)
		return brk_engine_failed(c, &err);
	arr = cJSON_ParseWithLength(raw.data ? raw.data : "[]", raw.len);
	cJSON_ArrayForEach (it, arr) {
		const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "Id"));

		if (brk_owned(b, it, id))
			cJSON_AddItemToArray(out, cJSON_Duplicate(it, true));
	}
	return brk_queue_json(c, 200, out);
}

/* The Content-Type passed on: a tar for PUT archive (judged for its
 * container only), else none (application/json: the body the gate judged
 * is the body the engine decodes). */
static const char *forwarded_ctype(struct MHD_Connection *c, const char *method)
{
	if (strcmp(method, "PUT") != 0)
		return NULL;
	return MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
}

/* A JSON body is parsed and printed again: what the engine receives is
 * what the gate parsed (no trailing bytes, no second value). */
static int canonical_body(struct rq *q, const char *method, struct te_err *err)
{
	te_autojson cJSON *j = NULL;
	te_autofree char *text = NULL;
	const char *end = NULL;

	if (strcmp(method, "PUT") == 0 || q->body.len == 0)
		return 0;
	j = cJSON_ParseWithLengthOpts(q->body.data, q->body.len, &end, false);
	if (!j)
		return te_err_set(err, TE_E_USAGE, "the request body is not JSON");
	for (; end && (size_t)(end - q->body.data) < q->body.len; end++)
		if (!strchr(" \t\r\n", *end))
			return te_err_set(err, TE_E_USAGE, "bytes after the request's JSON body");
	text = cJSON_PrintUnformatted(j);
	te_buf_reset(&q->body);
	return te_buf_add(&q->body, text, strlen(text)) < 0
		   ? te_err_set(err, TE_E_USAGE, "the request body is over the cap")
		   : 0;
}

static enum MHD_Result on_container(struct MHD_Connection *c, struct brk *b, struct engine **e,
				    const char *method, const struct svc_brk_route *r, const char *query,
				    struct rq *q)
{
	const char *ctype = forwarded_ctype(c, method);
	const char *upgrade = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_UPGRADE);
	te_autofree char *path = NULL;
	enum MHD_Result answered = MHD_NO;
	char id[80];
	struct engine *mine;

	if (r->action == SVC_BRK_CONTAINER) {
		if (own_container(b, *e, c, r->ref, id, &answered) < 0)
			return answered;
		path = xasprintf("/containers/%s/%s%s", id, r->op, query);
	} else {
		if (own_exec(b, *e, c, r->ref, &answered) < 0)
			return answered;
		path = xasprintf("/exec/%s/%s%s", r->ref, r->op, query);
	}
	if (r->hijack && upgrade)
		return brk_hijack(c, *e, path, q);
	if (!r->stream)
		return brk_forward_buffered(c, *e, method, path, q->body.data, q->body.len, ctype);
	mine = *e;
	*e = NULL; /* the stream's thread gives it back */
	return brk_forward_stream(c, b, mine, method, path, q, ctype);
}

/* The name=... of a create, as received (broker_create.c refuses one
 * that is not a plain container name). */
static enum MHD_Result find_name(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	const char **name = cls;

	(void)kind;
	if (strcmp(key, "name") == 0)
		*name = value;
	return MHD_YES;
}

static enum MHD_Result handle(struct MHD_Connection *c, struct brk *b, const char *url, const char *method,
			      struct rq *q)
{
	struct query qs = {.b = TE_BUF_INIT(8192)};
	struct svc_brk_route r;
	struct te_err err = {0};
	struct engine *e;
	enum MHD_Result rc;

	svc_brk_route(method, url, &r);
	if (r.action == SVC_BRK_DENY)
		return brk_refuse(c, (unsigned)r.status, "taskenv broker: %s", r.rule);
	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, add_arg, &qs);
	if (qs.bad) {
		te_buf_release(&qs.b);
		return brk_refuse(c, 400,
				  "taskenv broker: the query string has bytes the broker does not pass on");
	}
	if (r.action == SVC_BRK_PING) {
		te_buf_release(&qs.b);
		return ping(c, b, strcmp(method, "HEAD") == 0);
	}
	if (canonical_body(q, method, &err) < 0) {
		te_buf_release(&qs.b);
		return brk_refuse(c, 400, "taskenv broker: %s", err.msg);
	}
	e = brk_take_engine(b, strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0, &err);
	if (!e) {
		te_buf_release(&qs.b);
		return brk_engine_failed(c, &err);
	}
	switch (r.action) {
	case SVC_BRK_CREATE: {
		const char *name = NULL;

		MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, find_name, &name);
		rc = brk_create(c, b, e, name, q);
		break;
	}
	case SVC_BRK_INFO: rc = info(c, b, e); break;
	case SVC_BRK_LIST: rc = list(c, b, e, qs.b.data ? qs.b.data : ""); break;
	case SVC_BRK_FORWARD: {
		te_autofree char *path = xasprintf("%s%s", r.path, qs.b.data ? qs.b.data : "");

		rc = brk_forward_buffered(c, e, method, path, q->body.data, q->body.len, NULL);
		break;
	}
	default: rc = on_container(c, b, &e, method, &r, qs.b.data ? qs.b.data : "", q); break;
	}
	if (e)
		brk_give_engine(b, e);
	te_buf_release(&qs.b);
	return rc;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
				  const char *version, const char *upload, size_t *upload_size,
				  void **con_cls)
{
	struct brk *b = cls;
	struct rq *q = *con_cls;

	if (!q) {
		q = xcalloc(1, sizeof(*q));
		q->b = b;
		te_buf_init(&q->body, strcmp(method, "PUT") == 0 ? BRK_ARCHIVE_MAX : BRK_BODY_MAX);
		*con_cls = q;
		return MHD_YES;
	}
	if (*upload_size) {
		if (!q->too_big && te_buf_add(&q->body, upload, *upload_size) < 0)
			q->too_big = true;
		*upload_size = 0;
		return MHD_YES;
	}
	if (q->too_big)
		return brk_refuse(c, 413, "taskenv broker: the request body is over %zu bytes", q->body.max);
	return handle(c, b, url, method, q);
}

static void on_done(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode t)
{
	struct rq *q = *con_cls;

	if (!q)
		return;
	te_buf_release(&q->body);
	free(q);
	*con_cls = NULL;
}

/* The path is judged as it came (broker_rules.c decodes it): MHD must not
 * decode it first, nor the query, which is passed on as received. */
static size_t keep_escaped(void *cls, struct MHD_Connection *c, char *s)
{
	return strlen(s);
}

/* ---- the process ---- */

static int find_row(struct ledger *l, const char *task, long long *id, char **socket, struct te_err *err)
{
	struct state_resource *rows = NULL;
	size_t n = 0;

	*id = 0;
	if (state_resource_list(l, task, false, &rows, &n, err) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (strcmp(rows[i].kind, svc_res_kind_name(SVC_RES_BROKER)) == 0 &&
		    strcmp(rows[i].state, STATE_INTENDED) == 0) {
			*id = rows[i].id;
			free(*socket);
			*socket = xstrdup(rows[i].name);
		}
	state_resources_free(rows, n);
	if (!*id)
		return te_err_set(err, TE_E_NOTFOUND, "task '%s' has no broker to start", task);
	return 0;
}

static int record(struct ledger *l, long long id, const char *socket, struct te_err *err)
{
	te_autojson cJSON *d = cJSON_CreateObject();
	te_autofree char *text = NULL;
	te_autofree char *ref = NULL;
	long long start = state_proc_start(0);

	if (start < 0)
		start = state_proc_start((long long)getpid());
	ref = xasprintf("%lld:%lld", (long long)getpid(), start);
	cJSON_AddNumberToObject(d, "pid", (double)getpid());
	cJSON_AddNumberToObject(d, "start", (double)start);
	cJSON_AddStringToObject(d, "socket", socket);
	text = cJSON_PrintUnformatted(d);
	if (state_resource_set_detail(l, id, text, err) < 0)
		return -1;
	return state_resource_created(l, id, ref, err);
}

static void record_failure(struct ledger *l, long long id, const struct te_err *why)
{
	te_autojson cJSON *d = cJSON_CreateObject();
	te_autofree char *text = NULL;

	cJSON_AddStringToObject(d, "error", why->msg);
	text = cJSON_PrintUnformatted(d);
	state_resource_set_detail(l, id, text, NULL);
	state_resource_set_state(l, id, STATE_REMOVED, NULL);
}

static struct MHD_Daemon *start_daemon(struct brk *b, int fd)
{
	return MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
				    MHD_USE_POLL | MHD_ALLOW_UPGRADE,
				0, NULL, NULL, on_request, b, MHD_OPTION_LISTEN_SOCKET, fd,
				MHD_OPTION_CONNECTION_LIMIT, CONNECTIONS_MAX, MHD_OPTION_CONNECTION_TIMEOUT,
				IDLE_TIMEOUT_S, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HEADERS_MAX,
				MHD_OPTION_NOTIFY_COMPLETED, on_done, b, MHD_OPTION_UNESCAPE_CALLBACK,
				keep_escaped, b, MHD_OPTION_END);
}

int svc_broker_serve(struct ledger *l, struct engine *e, const char *task, volatile sig_atomic_t *stop,
		     struct te_err *err)
{
	struct brk b = {.proto = e, .l = l, .task = task, .ledger_id = state_ledger_id(l)};
	te_autofree char *socket = NULL;
	struct MHD_Daemon *d;
	sigset_t set;
	long long id;
	int fd;

	if (find_row(l, task, &id, &socket, err) < 0)
		return -1;
	fd = svc_broker_listen(socket, err);
	if (fd < 0) {
		record_failure(l, id, err);
		return -1;
	}
	/* Signals go to this thread's sigtimedwait, not to MHD's threads
	 * (they inherit the mask); a client gone mid-stream is EPIPE, not a
	 * death by SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_mutex_init(&b.mu, NULL);
	d = start_daemon(&b, fd);
	if (!d) {
		te_err_set(err, TE_E_FAIL, "broker: libmicrohttpd did not start on '%s'", socket);
		record_failure(l, id, err);
		close(fd);
		svc_broker_unlink(socket);
		return -1;
	}
	if (record(l, id, socket, err) < 0) {
		MHD_stop_daemon(d);
		close(fd);
		svc_broker_unlink(socket);
		return -1;
	}
	while (!*stop) {
		struct timespec ts = {1, 0};

		if (sigtimedwait(&set, NULL, &ts) > 0)
			break;
	}
	MHD_stop_daemon(d);
	close(fd);
	svc_broker_unlink(socket);
	for (size_t i = 0; i < b.npool; i++)
		engine_free(b.pool[i]);
	pthread_mutex_destroy(&b.mu);
	return 0;
}
