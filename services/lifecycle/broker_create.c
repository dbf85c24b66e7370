/* POST /containers/create through the broker (docker run): the client's
 * body with the task's labels, network and a name of the task's forced,
 * the container recorded in the task's ledger before the engine sees it,
 * and the body judged by the policy gate on the handle (guard.c) like
 * every body taskenv sends: what the broker forwards is what the gate
 * judged, and a refusal is the gate's message (docs/broker.md). */
#include "services/lifecycle/broker_int.h"
#include "services/lifecycle/allowed.h"
#include "services/lifecycle/reskind.h"
#include "engine/engine.h"
#include "state/ledger.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

/* The service the broker's containers are recorded under (not a Compose
 * service name: those start with a letter or digit). */
#define BRK_SERVICE "(broker)"

/* A value the docker CLI sends for every field it knows, meaning the
 * engine's default: as if it were not sent. Maps (Labels, Volumes, Tmpfs,
 * ...) count only when empty: an entry's empty value means something. */
static bool zero(const char *name, const cJSON *v)
{
	const cJSON *it;

	if (cJSON_IsNull(v) || cJSON_IsFalse(v))
		return true;
	if (cJSON_IsNumber(v))
		return v->valuedouble == 0 || (strcmp(name, "MemorySwappiness") == 0 && v->valuedouble == -1);
	if (cJSON_IsString(v))
		return !*v->valuestring;
	if (cJSON_IsArray(v)) {
		cJSON_ArrayForEach (it, v)
			if (!cJSON_IsNumber(it) || it->valuedouble != 0)
				return false;
		return true; /* [] or ConsoleSize [0,0] */
	}
	if (strcmp(name, "LogConfig") == 0) { /* {"Type":"","Config":{}}: a struct, not a map */
		cJSON_ArrayForEach (it, v)
			if (!it->string || !zero(it->string, it))
				return false;
		return true;
	}
	return cJSON_IsObject(v) && !v->child;
}

static void drop_zeros(cJSON *obj)
{
	cJSON *it = obj ? obj->child : NULL;

	while (it) {
		cJSON *next = it->next;

		if (it->string && zero(it->string, it))
			cJSON_Delete(cJSON_DetachItemViaPointer(obj, it));
		it = next;
	}
}

static void set_str(cJSON *obj, const char *key, const char *value)
{
	cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
	cJSON_AddStringToObject(obj, key, value);
}

static cJSON *object_member(cJSON *obj, const char *key)
{
	cJSON *o = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (cJSON_IsObject(o))
		return o;
	cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
	return cJSON_AddObjectToObject(obj, key);
}

/* The task's network a container of its own joins when the client asks
 * for the engine's default: "<task>_default" when the ledger has it, else
 * the first network the ledger has. Owned, or NULL (none: the gate then
 * refuses the engine's default network in its own words). */
static char *task_network(struct brk *b)
{
	struct state_resource *rows = NULL;
	te_autofree char *want = xasprintf("%s_default", b->task);
	struct te_err ignored = {0};
	char *net = NULL;
	size_t n = 0;

	pthread_mutex_lock(&b->mu);
	if (state_resource_list(b->l, b->task, false, &rows, &n, &ignored) == 0)
		for (size_t i = 0; i < n; i++) {
			if (strcmp(rows[i].kind, svc_res_kind_name(SVC_RES_NETWORK)) != 0 ||
			    strcmp(rows[i].state, STATE_CREATED) != 0)
				continue;
			if (!net || strcmp(rows[i].name, want) == 0) {
				free(net);
				net = xstrdup(rows[i].name);
			}
		}
	pthread_mutex_unlock(&b->mu);
	state_resources_free(rows, n);
	return net;
}

/* NetworkMode "default" (what the CLI sends without --network) and its
 * endpoint become the task's network; anything else is the gate's to
 * judge as written. */
static void force_network(struct brk *b, cJSON *body, cJSON *hc)
{
	const char *mode = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(hc, "NetworkMode"));
	cJSON *eps = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(body, "NetworkingConfig"), "EndpointsConfig");
	te_autofree char *net = NULL;
	cJSON *ep, *it;

	cJSON_ArrayForEach (ep, eps)
		drop_zeros(ep);
	if (mode && strcmp(mode, "default") != 0)
		return;
	net = task_network(b);
	if (!net)
		return;
	set_str(hc, "NetworkMode", net);
	ep = cJSON_DetachItemFromObjectCaseSensitive(eps, "default");
	if (!ep)
		return;
	it = cJSON_GetObjectItemCaseSensitive(eps, net);
	if (it)
		cJSON_Delete(ep); /* both named: the task's own stays */
	else
		cJSON_AddItemToObject(eps, net, ep);
}

static void force_labels(struct brk *b, cJSON *body)
{
	cJSON *labels = object_member(body, "Labels");

	set_str(labels, "com.docker.compose.project", b->task);
	set_str(labels, "com.docker.compose.service", BRK_SERVICE);
	set_str(labels, "com.docker.compose.oneoff", "True");
	set_str(labels, "io.taskenv.task", b->task);
	set_str(labels, "io.taskenv.ledger", b->ledger_id);
	set_str(labels, "io.taskenv.version", TASKENV_VERSION);
}

/* A container name: [a-zA-Z0-9][a-zA-Z0-9_.-]* as the engines take it. */
static bool plain_name(const char *s)
{
	if (!s || !isalnum((unsigned char)s[0]) || strlen(s) > 200)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.-", *s))
			return false;
	return true;
}

/* The client's name with the task's prefix ("<task>-"), so a container
 * made through the broker never takes a name another task's `up` will
 * want; no name: "<task>-run-XXXXXX". */
static char *forced_name(struct brk *b, const char *asked, struct te_err *err)
{
	size_t n = strlen(b->task);
	unsigned char raw[3];

	if (asked && *asked) {
		if (!plain_name(asked)) {
			te_err_set(err, TE_E_USAGE, "'%s' is not a container name", asked);
			return NULL;
		}
		if (strncmp(asked, b->task, n) == 0 && asked[n] == '-')
			return xstrdup(asked);
		return xasprintf("%s-%s", b->task, asked);
	}
	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) {
		te_err_set(err, TE_E_IO, "getrandom: %s", strerror(errno));
		return NULL;
	}
	return xasprintf("%s-run-%02x%02x%02x", b->task, raw[0], raw[1], raw[2]);
}

/* NAME is already a container row of the task's (B's mutex held). */
static int taken(struct brk *b, const char *name, struct te_err *err)
{
	struct state_resource *rows = NULL;
	size_t n = 0;
	int rc = 0;

	if (state_resource_list(b->l, b->task, false, &rows, &n, err) < 0)
		return -1;
	for (size_t i = 0; i < n && rc == 0; i++)
		if (strcmp(rows[i].kind, svc_res_kind_name(SVC_RES_CONTAINER)) == 0 &&
		    strcmp(rows[i].name, name) == 0 && strcmp(rows[i].state, STATE_REMOVED) != 0)
			rc = te_err_set(err, TE_E_CONFLICT,
					"the name '%s' is already one of task '%s''s containers", name,
					b->task);
	state_resources_free(rows, n);
	return rc;
}

/* The ledger row, intended, before the engine hears of the name. */
static int intend(struct brk *b, const char *name, const cJSON *body, long long *row, struct te_err *err)
{
	te_autojson cJSON *detail = cJSON_CreateObject();
	te_autofree char *text = NULL;
	int rc;

	cJSON_AddBoolToObject(detail, "oneoff", true);
	cJSON_AddBoolToObject(detail, "broker", true);
	cJSON_AddItemToObject(detail, "allowed", svc_allowed_of(body));
	text = cJSON_PrintUnformatted(detail);
	pthread_mutex_lock(&b->mu);
	/* intend would hand back the row of a live container of that name,
	 * which a refused create must not close. */
	rc = taken(b, name, err);
	if (rc == 0)
		rc = state_resource_intend(b->l, b->task, svc_res_kind_name(SVC_RES_CONTAINER), name,
					   BRK_SERVICE, row, err);
	if (rc == 0)
		rc = state_resource_set_detail(b->l, *row, text, err);
	pthread_mutex_unlock(&b->mu);
	return rc;
}

/* After the engine answered: the id recorded, or (nothing was created)
 * the row closed. */
static void settle(struct brk *b, long long row, const struct brk_answer *a, bool sent)
{
	te_autojson cJSON *j = NULL;
	struct te_err ignored = {0};
	const char *id = NULL;

	if (sent && a->status >= 200 && a->status < 300) {
		j = cJSON_ParseWithLength(a->body.data ? a->body.data : "", a->body.len);
		id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "Id"));
	}
	pthread_mutex_lock(&b->mu);
	if (id)
		state_resource_created(b->l, row, id, &ignored);
	else
		state_resource_set_state(b->l, row, STATE_REMOVED, &ignored);
	pthread_mutex_unlock(&b->mu);
}

enum MHD_Result brk_create(struct MHD_Connection *c, struct brk *b, struct engine *e, const char *name,
			   struct rq *q)
{
	te_autojson cJSON *body = NULL;
	te_autofree char *forced = NULL;
	te_autofree char *text = NULL;
	te_autofree char *path = NULL;
	te_autofree char *qname = NULL;
	struct brk_answer a;
	struct te_err err = {0};
	long long row = 0;
	cJSON *hc;
	int rc;

	body = q->body.len ? cJSON_ParseWithLength(q->body.data, q->body.len) : NULL;
	if (!cJSON_IsObject(body))
		return brk_refuse(c, 400, "taskenv broker: a container create needs a JSON object body");
	forced = forced_name(b, name, &err);
	if (!forced)
		return brk_refuse(c, 400, "taskenv broker: %s", err.msg);
	drop_zeros(body);
	hc = object_member(body, "HostConfig");
	drop_zeros(hc);
	force_labels(b, body);
	force_network(b, body, hc);
	text = cJSON_PrintUnformatted(body);
	qname = engine_escape(e, forced);
	path = xasprintf("/containers/create?name=%s", qname);
	if (intend(b, forced, body, &row, &err) < 0)
		return brk_refuse(c, err.code == TE_E_CONFLICT ? 409 : 500, "taskenv broker: %s", err.msg);
	rc = brk_call(e, "POST", path, text, strlen(text), NULL, &a, &err);
	settle(b, row, &a, rc == 0);
	if (rc < 0) {
		te_buf_release(&a.body);
		return brk_engine_failed(c, &err);
	}
	return brk_queue_answer(c, &a);
}
