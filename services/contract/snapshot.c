#include "services/contract/snapshot.h"
#include "services/lifecycle/reskind.h"
#include "engine/engine.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <string.h>

const char *svc_json_str(const cJSON *o, const char *k1, const char *k2)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k1);

	if (k2)
		v = cJSON_GetObjectItemCaseSensitive(v, k2);
	return cJSON_GetStringValue(v) ?: "";
}

/* Images and driver resources (postgres, ...) have no list here. */
static cJSON *target(struct svc_snapshot *s, const char *kind)
{
	switch (svc_res_kind_of(kind)) {
	case SVC_RES_CONTAINER: return s->containers;
	case SVC_RES_NETWORK: return s->networks;
	case SVC_RES_VOLUME: return s->volumes;
	default: return NULL;
	}
}

static int add_entry(struct engine *e, struct svc_snapshot *s, size_t i, struct te_err *err)
{
	cJSON *arr = target(s, s->res[i].kind), *entry, *img = NULL;
	cJSON *obj = NULL;

	if (!arr)
		return 0;
	entry = cJSON_CreateObject();
	cJSON_AddNumberToObject(entry, "resource", (double)i);
	cJSON_AddItemToArray(arr, entry);
	if (svc_res_inspect(e, s->res[i].kind, s->res[i].name, s->res[i].engine_id, &obj, err) < 0)
		return err->code == TE_E_NOTFOUND ? (te_err_clear(err), 0) : -1;
	cJSON_AddItemToObject(entry, "inspect", obj);
	if (arr == s->containers && engine_image_inspect(e, svc_json_str(obj, "Image", NULL), &img, err) == 0)
		cJSON_AddItemToObject(entry, "image", img);
	te_err_clear(err);
	return 0;
}

int svc_snapshot_take(struct engine *e, struct ledger *l, const char *task, struct svc_snapshot *s,
		      struct te_err *err)
{
	memset(s, 0, sizeof(*s));
	s->task = task;
	s->containers = cJSON_CreateArray();
	s->networks = cJSON_CreateArray();
	s->volumes = cJSON_CreateArray();
	if (state_task_get(l, task, &s->row, err) < 0)
		return -1;
	if (state_worktree_get(l, task, &s->wt, err) == 0)
		s->has_wt = true;
	else if (err->code != TE_E_NOTFOUND)
		return -1;
	te_err_clear(err);
	if (state_resource_list(l, task, false, &s->res, &s->n_res, err) < 0 ||
	    state_port_list(l, task, &s->ports, &s->n_ports, err) < 0)
		return -1;
	for (size_t i = 0; i < s->n_res; i++)
		if (add_entry(e, s, i, err) < 0)
			return -1;
	return 0;
}

void svc_snapshot_release(struct svc_snapshot *s)
{
	state_task_release(&s->row);
	state_resources_free(s->res, s->n_res);
	state_ports_free(s->ports, s->n_ports);
	state_worktree_release(&s->wt);
	cJSON_Delete(s->containers);
	cJSON_Delete(s->networks);
	cJSON_Delete(s->volumes);
	memset(s, 0, sizeof(*s));
}

const char *svc_snapshot_source_dir(const struct svc_snapshot *s)
{
	return s->has_wt ? s->wt.path : s->row.project_dir;
}

const cJSON *svc_inspect_ports(const cJSON *inspect)
{
	const cJSON *live = cJSON_GetObjectItem(cJSON_GetObjectItem(inspect, "NetworkSettings"), "Ports");
	const cJSON *p;

	cJSON_ArrayForEach (p, live)
		if (cJSON_GetArraySize(p) > 0)
			return live;
	return cJSON_GetObjectItem(cJSON_GetObjectItem(inspect, "HostConfig"), "PortBindings");
}

int svc_inspect_replica(const cJSON *inspect)
{
	const char *n = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(inspect, "Config"), "Labels"),
	    "com.docker.compose.container-number"));
	long v = n ? strtol(n, NULL, 10) : 1;

	return v >= 1 ? (int)v : 1;
}

int svc_snapshot_port(const struct svc_snapshot *s, const char *service, int replica, int container_port,
		      const char *proto)
{
	for (size_t i = 0; service && i < s->n_ports; i++)
		if (strcmp(s->ports[i].service, service) == 0 && s->ports[i].replica == replica &&
		    s->ports[i].container_port == container_port && strcmp(s->ports[i].proto, proto) == 0)
			return s->ports[i].host_port;
	return 0;
}
