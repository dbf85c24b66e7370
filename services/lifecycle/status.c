#include "services/lifecycle/status.h"
#include "services/lifecycle/broker.h"
#include "services/lifecycle/reskind.h"
#include "services/lifecycle/drvrun.h"
#include "engine/engine.h"
#include "state/ledger.h"
#include "state/owner.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static const char *label(const cJSON *obj, const char *key)
{
	const cJSON *labels = cJSON_GetObjectItemCaseSensitive(obj, "Labels");

	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(labels, key));
}

static char *port_text(const struct state_port *p)
{
	return xasprintf("%s:%d->%d/%s", p->host_ip, p->host_port, p->container_port, p->proto);
}

static cJSON *ledger_ports(struct ledger *l, const char *task, struct te_err *err)
{
	struct state_port *ports = NULL;
	size_t n = 0;
	cJSON *a = cJSON_CreateArray();

	if (state_port_list(l, task, &ports, &n, err) < 0) {
		cJSON_Delete(a);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		te_autofree char *s = port_text(&ports[i]);

		cJSON_AddItemToArray(a, cJSON_CreateString(s));
	}
	state_ports_free(ports, n);
	return a;
}

static void count_containers(const cJSON *list, const char *task, cJSON *obj)
{
	const cJSON *c;
	int running = 0, total = 0;
	cJSON *counts = cJSON_AddObjectToObject(obj, "containers");

	cJSON_ArrayForEach (c, list) {
		const char *t = label(c, "io.taskenv.task");

		if (!t || strcmp(t, task) != 0)
			continue;
		total++;
		if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(c, "State")) ?: "", "running") == 0)
			running++;
	}
	cJSON_AddNumberToObject(counts, "running", running);
	cJSON_AddNumberToObject(counts, "total", total);
}

/* Owner, lease and retention (state/owner.h): "owner" {"host","pid","user",
 * "live"}, "lease_expires", "retain_until" (unix s, 0: none), "retained_by",
 * "retain_reason". */
static void owner_json(const struct state_task *t, cJSON *o)
{
	cJSON *w = cJSON_AddObjectToObject(o, "owner");

	cJSON_AddStringToObject(w, "host", t->owner_host ? t->owner_host : "");
	cJSON_AddNumberToObject(w, "pid", (double)t->owner_pid);
	cJSON_AddStringToObject(w, "user", t->owner_user ? t->owner_user : "");
	cJSON_AddBoolToObject(w, "live", state_task_owner_live(t));
	cJSON_AddNumberToObject(o, "lease_expires", (double)t->lease_expires);
	cJSON_AddNumberToObject(o, "retain_until", (double)t->retain_until);
	cJSON_AddStringToObject(o, "retained_by", t->retain_owner ? t->retain_owner : "");
	cJSON_AddStringToObject(o, "retain_reason", t->retain_reason ? t->retain_reason : "");
}

static cJSON *task_base(const struct state_task *t)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "task", t->name);
	cJSON_AddStringToObject(o, "project_dir", t->project_dir ? t->project_dir : "");
	cJSON_AddStringToObject(o, "status", t->status ? t->status : "");
	cJSON_AddStringToObject(o, "engine", t->engine ? t->engine : "");
	cJSON_AddNumberToObject(o, "created", (double)t->created);
	owner_json(t, o);
	return o;
}

/* Container lists per engine socket, fetched once each. */
struct lists {
	char **sockets;
	cJSON *by_socket; /* socket -> array, or string with the error */
};

static const cJSON *list_for(struct lists *ls, struct ledger *l, svc_engine_for_fn engine_for, void *ctx,
			     const char *socket)
{
	struct te_err err = {0};
	te_autofree char *filter = xasprintf("io.taskenv.ledger=%s", state_ledger_id(l));
	struct engine *e;
	cJSON *list = NULL;

	if (cJSON_GetObjectItemCaseSensitive(ls->by_socket, socket))
		return cJSON_GetObjectItemCaseSensitive(ls->by_socket, socket);
	e = engine_for(ctx, socket, &err);
	if (!e || engine_container_list(e, filter, &list, &err) < 0)
		list = cJSON_CreateString(err.msg);
	cJSON_AddItemToObject(ls->by_socket, socket, list);
	return list;
}

int svc_status_tasks(struct ledger *l, svc_engine_for_fn engine_for, void *ctx, cJSON **out,
		     struct te_err *err)
{
	struct state_task *tasks = NULL;
	size_t n = 0;
	struct lists ls = {NULL, cJSON_CreateObject()};
	cJSON *arr = cJSON_CreateArray();

	if (state_task_list(l, &tasks, &n, err) < 0)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		cJSON *o = task_base(&tasks[i]);
		const cJSON *list = list_for(&ls, l, engine_for, ctx, tasks[i].engine ? tasks[i].engine : "");
		cJSON *ports = ledger_ports(l, tasks[i].name, err);

		cJSON_AddItemToArray(arr, o);
		if (!ports)
			goto fail;
		if (cJSON_IsString(list))
			cJSON_AddStringToObject(o, "engine_error", list->valuestring);
		count_containers(cJSON_IsArray(list) ? list : NULL, tasks[i].name, o);
		cJSON_AddItemToObject(o, "ports", ports);
	}
	state_tasks_free(tasks, n);
	cJSON_Delete(ls.by_socket);
	*out = arr;
	return 0;
fail:
	state_tasks_free(tasks, n);
	cJSON_Delete(ls.by_socket);
	cJSON_Delete(arr);
	return -1;
}

/* "127.0.0.1:20001->3000/tcp" for each published binding. */
static cJSON *live_ports(const cJSON *inspect)
{
	const cJSON *ports = cJSON_GetObjectItem(cJSON_GetObjectItem(inspect, "NetworkSettings"), "Ports");
	const cJSON *p, *b;
	cJSON *a = cJSON_CreateArray();

	cJSON_ArrayForEach (p, ports) {
		cJSON_ArrayForEach (b, p) {
			te_autofree char *s = xasprintf(
			    "%s:%s->%s", cJSON_GetStringValue(cJSON_GetObjectItem(b, "HostIp")) ?: "",
			    cJSON_GetStringValue(cJSON_GetObjectItem(b, "HostPort")) ?: "", p->string);

			cJSON_AddItemToArray(a, cJSON_CreateString(s));
		}
	}
	return a;
}

static int live_state(struct engine *e, const struct state_resource *r, cJSON *o, struct te_err *err)
{
	te_autojson cJSON *obj = NULL;
	enum svc_res_kind k = svc_res_kind_of(r->kind);

	if (k != SVC_RES_UNKNOWN && svc_res_kind_process(k)) {
		cJSON_AddStringToObject(o, "live",
					svc_res_kind(k)->proc_alive(r->engine_id) ? "running" : "absent");
		return 0;
	}
	if (k == SVC_RES_UNKNOWN || !svc_res_kind_engine(k)) {
		/* A driver's object lives on its server; a kind this build does
		 * not know (a newer taskenv's row) is not looked for. */
		cJSON_AddStringToObject(o, "live", k == SVC_RES_UNKNOWN ? "unknown" : "server");
		return 0;
	}
	if (svc_res_inspect(e, r->kind, r->name, r->engine_id, &obj, err) < 0) {
		if (err->code != TE_E_NOTFOUND)
			return -1;
		cJSON_AddStringToObject(o, "live", "absent");
		return 0;
	}
	if (k != SVC_RES_CONTAINER) {
		cJSON_AddStringToObject(o, "live", "present");
		return 0;
	}
	cJSON_AddStringToObject(
	    o, "live",
	    cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(obj, "State"), "Status"))
		?: "unknown");
	cJSON_AddItemToObject(o, "ports", live_ports(obj));
	return 0;
}

static cJSON *resource_json(const struct state_resource *r)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "kind", r->kind);
	cJSON_AddStringToObject(o, "name", r->name);
	cJSON_AddStringToObject(o, "service", r->service ? r->service : "");
	cJSON_AddStringToObject(o, "ledger_state", r->state);
	cJSON_AddStringToObject(o, "id", r->engine_id ? r->engine_id : "");
	return o;
}

int svc_status_task(struct ledger *l, struct engine *e, const char *task, cJSON **out, struct te_err *err)
{
	struct state_task t;
	struct state_resource *rows = NULL;
	size_t n = 0;
	te_autojson cJSON *o = NULL;
	cJSON *res;

	if (state_task_get(l, task, &t, err) < 0)
		return -1;
	o = task_base(&t);
	cJSON_AddItemToObject(o, "compose_files", cJSON_Parse(t.compose_files ? t.compose_files : "[]"));
	state_task_release(&t);
	if (state_resource_list(l, task, false, &rows, &n, err) < 0)
		return -1;
	res = cJSON_AddArrayToObject(o, "resources");
	for (size_t i = 0; i < n; i++) {
		cJSON *r = resource_json(&rows[i]);

		cJSON_AddItemToArray(res, r);
		if (live_state(e, &rows[i], r, err) < 0) {
			state_resources_free(rows, n);
			return -1;
		}
	}
	state_resources_free(rows, n);
	*out = TE_STEAL(o);
	return 0;
}

/* TASKENV_PORT_<SERVICE>_<PORT>[_UDP], and _R<N> for replica N > 1 (the
 * first replica keeps the name a service of one container has). */
static char *env_key(const struct state_port *p)
{
	char rep[16] = "";
	char *k;

	if (p->replica > 1)
		snprintf(rep, sizeof(rep), "_R%d", p->replica);
	k = xasprintf("TASKENV_PORT_%s_%d%s%s", p->service, p->container_port,
		      strcmp(p->proto, "udp") == 0 ? "_UDP" : "", rep);

	for (char *c = k; *c; c++) {
		*c = (char)toupper((unsigned char)*c);
		if (!isalnum((unsigned char)*c))
			*c = '_';
	}
	return k;
}

char **svc_task_env(struct ledger *l, const char *task, struct te_err *err)
{
	struct state_task t;
	struct state_port *ports = NULL;
	size_t n = 0;
	char **v = NULL;

	if (state_task_get(l, task, &t, err) < 0)
		return NULL;
	state_task_release(&t);
	if (state_port_list(l, task, &ports, &n, err) < 0)
		return NULL;
	v = te_strv_push(v, xasprintf("TASKENV_TASK=%s", task));
	v = te_strv_push(v, xstrdup("TASKENV_HOST=127.0.0.1"));
	for (size_t i = 0; i < n; i++) {
		te_autofree char *k = env_key(&ports[i]);

		v = te_strv_push(v, xasprintf("%s=%d", k, ports[i].host_port));
	}
	state_ports_free(ports, n);
	if (svc_broker_env(l, task, &v, err) < 0 || svc_drivers_env(l, task, &v, err) < 0) {
		te_strv_free(v);
		return NULL;
	}
	return v;
}
