/* The kind table (reskind.h). */
#include "services/lifecycle/reskind.h"
#include "services/lifecycle/broker.h"
#include "services/lifecycle/inuse.h"
#include "services/lifecycle/shared.h"
#include "engine/build.h"
#include "engine/engine.h"
#include "state/subnets.h"
#include "common/err.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <string.h>

static int network_remove(struct engine *e, const char *ref, int stop_timeout, struct te_err *err)
{
	return engine_network_remove(e, ref, err);
}

static int volume_remove(struct engine *e, const char *ref, int stop_timeout, struct te_err *err)
{
	return engine_volume_remove(e, ref, false, err);
}

static int image_remove(struct engine *e, const char *ref, int stop_timeout, struct te_err *err)
{
	return engine_image_remove(e, ref, false, err);
}

/* GET /containers/json names a container "/name". */
static const char *container_entry_name(const cJSON *entry)
{
	const char *n = cJSON_GetStringValue(cJSON_GetArrayItem(cJSON_GetObjectItem(entry, "Names"), 0));

	return n && *n == '/' ? n + 1 : n;
}

static const char *entry_name(const cJSON *entry)
{
	return cJSON_GetStringValue(cJSON_GetObjectItem(entry, "Name"));
}

/* Podman removes a network with a foreign container on it: ask first.
 * The shared server containers are on a task network while the task
 * exists: off it next, or dockerd refuses to remove it. */
static int network_before_remove(struct engine *e, struct ledger *l, const char *task, const char *ref,
				 struct te_err *err)
{
	te_autojson cJSON *net = NULL;
	const char *name;

	if (svc_res_refuse_foreign(e, l, task, SVC_RES_NETWORK, ref, err) < 0)
		return -1;
	/* A container's Networks are keyed by name (svc_shared_detach). */
	if (engine_network_inspect(e, ref, &net, err) < 0)
		return -1;
	name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(net, "Name"));
	if (svc_shared_detach(e, l, name ? name : ref, err) < 0)
		return -1;
	return svc_network_drop_stale_endpoints(e, net, err);
}

static int volume_before_remove(struct engine *e, struct ledger *l, const char *task, const char *name,
				struct te_err *err)
{
	return svc_res_refuse_foreign(e, l, task, SVC_RES_VOLUME, name, err);
}

static const struct svc_res_kind_ops kinds[] = {
    [SVC_RES_CONTAINER] = {.kind = SVC_RES_CONTAINER,
			   .name = "container",
			   .down_order = 0,
			   .container = true,
			   .inspect = engine_container_inspect,
			   .list = engine_container_list,
			   .entry_name = container_entry_name,
			   .entry_ref = "Id",
			   .remove = svc_container_remove},
    [SVC_RES_NETWORK] = {.kind = SVC_RES_NETWORK,
			 .name = "network",
			 .down_order = 3,
			 .inspect = engine_network_inspect,
			 .list = engine_network_list,
			 .entry_name = entry_name,
			 .entry_ref = "Id",
			 .remove = network_remove,
			 .before_remove = network_before_remove,
			 .after_remove = state_subnet_release_network},
    [SVC_RES_VOLUME] = {.kind = SVC_RES_VOLUME,
			.name = "volume",
			.down_order = 5,
			.by_name = true,
			.inspect = engine_volume_inspect,
			.list = engine_volume_list,
			.entry_name = entry_name,
			.entry_ref = "Name",
			.remove = volume_remove,
			.before_remove = volume_before_remove},
    [SVC_RES_IMAGE] = {.kind = SVC_RES_IMAGE,
		       .name = "image",
		       .down_order = 4,
		       .by_name = true,
		       .inspect = engine_image_inspect,
		       .remove = image_remove},
    [SVC_RES_POSTGRES_ROLE] = {.kind = SVC_RES_POSTGRES_ROLE,
			       .name = "postgres-role",
			       .driver = "postgres",
			       .cred = SVC_CRED_OWN,
			       .down_order = 1},
    [SVC_RES_POSTGRES_SCHEMA] = {.kind = SVC_RES_POSTGRES_SCHEMA,
				 .name = "postgres-schema",
				 .driver = "postgres",
				 .down_order = 1},
    [SVC_RES_POSTGRES_DATABASE] = {.kind = SVC_RES_POSTGRES_DATABASE,
				   .name = "postgres-database",
				   .driver = "postgres",
				   .down_order = 1},
    [SVC_RES_POSTGRES_TEMPLATE] = {.kind = SVC_RES_POSTGRES_TEMPLATE,
				   .name = "postgres-template",
				   .driver = "postgres",
				   .down_order = 1},
    [SVC_RES_POSTGRES_POOL] = {.kind = SVC_RES_POSTGRES_POOL,
			       .name = "postgres-pool",
			       .driver = "postgres",
			       .down_order = 1},
    [SVC_RES_RABBITMQ_USER] = {.kind = SVC_RES_RABBITMQ_USER,
			       .name = "rabbitmq-user",
			       .driver = "rabbitmq",
			       .cred = SVC_CRED_OWN,
			       .down_order = 1},
    [SVC_RES_RABBITMQ_VHOST] = {.kind = SVC_RES_RABBITMQ_VHOST,
				.name = "rabbitmq-vhost",
				.driver = "rabbitmq",
				.down_order = 1},
    /* A task's own s3rver container (svc_shared_start_task): a container
     * the engine lists as any other, so it has no list() of its own. */
    [SVC_RES_S3_SERVER] = {.kind = SVC_RES_S3_SERVER,
			   .name = "s3-server",
			   .down_order = 2,
			   .container = true,
			   .inspect = engine_container_inspect,
			   .entry_name = container_entry_name,
			   .entry_ref = "Id",
			   .remove = svc_container_remove},
    [SVC_RES_S3_BUCKET] = {.kind = SVC_RES_S3_BUCKET,
			   .name = "s3-bucket",
			   .driver = "s3",
			   .cred = SVC_CRED_SHARED,
			   .down_order = 1},
    [SVC_RES_BROKER] = {.kind = SVC_RES_BROKER,
			.name = "broker",
			.down_order = 0,
			.proc_alive = svc_broker_proc_alive,
			.proc_stop = svc_broker_proc_stop},
};

_Static_assert(sizeof(kinds) / sizeof(kinds[0]) == SVC_RES_COUNT, "one row per enum svc_res_kind");

const struct svc_res_kind_ops *svc_res_kind(enum svc_res_kind k)
{
	if ((int)k < 0 || k >= SVC_RES_COUNT)
		TE_BUG("svc_res_kind: no such kind");
	return &kinds[k];
}

const struct svc_res_kind_ops *svc_res_kind_find(const char *name)
{
	for (size_t i = 0; name && i < SVC_RES_COUNT; i++)
		if (strcmp(kinds[i].name, name) == 0)
			return &kinds[i];
	return NULL;
}

enum svc_res_kind svc_res_kind_of(const char *name)
{
	const struct svc_res_kind_ops *k = svc_res_kind_find(name);

	return k ? k->kind : SVC_RES_UNKNOWN;
}

const char *svc_res_kind_name(enum svc_res_kind k)
{
	return svc_res_kind(k)->name;
}

bool svc_res_kind_container(const char *name)
{
	const struct svc_res_kind_ops *k = svc_res_kind_find(name);

	return k && k->container;
}

bool svc_res_kind_engine(enum svc_res_kind k)
{
	return svc_res_kind(k)->driver == NULL && !svc_res_kind(k)->proc_stop;
}

bool svc_res_kind_process(enum svc_res_kind k)
{
	return svc_res_kind(k)->proc_stop != NULL;
}

int svc_res_before_remove(struct engine *e, struct ledger *l, const char *task, enum svc_res_kind k,
			  const char *ref, struct te_err *err)
{
	const struct svc_res_kind_ops *ops = svc_res_kind(k);

	return ops->before_remove ? ops->before_remove(e, l, task, ref, err) : 0;
}

int svc_res_inspect(struct engine *e, const char *kind, const char *name, const char *engine_id, cJSON **out,
		    struct te_err *err)
{
	const struct svc_res_kind_ops *k = svc_res_kind_find(kind);

	*out = NULL;
	if (!k)
		return te_err_set(err, TE_E_FAIL, "unknown resource kind '%s' for '%s'", kind, name);
	if (!k->inspect)
		return te_err_set(err, TE_E_FAIL, "%s '%s' is not an engine object", kind, name);
	return k->inspect(e, k->by_name || !engine_id ? name : engine_id, out, err);
}

int svc_res_each_labelled(struct engine *e, const char *label, const char *prefix, svc_res_entry_fn fn,
			  void *ctx, struct te_err *err)
{
	int last = 0;

	for (int i = 0; i < SVC_RES_COUNT; i++)
		if (kinds[i].down_order > last)
			last = kinds[i].down_order;
	for (int order = 0; order <= last; order++)
		for (int i = 0; i < SVC_RES_COUNT; i++) {
			const struct svc_res_kind_ops *k = &kinds[i];
			te_autojson cJSON *list = NULL;
			const cJSON *obj;

			if (k->down_order != order || !k->list || !k->entry_name)
				continue;
			if (k->list(e, label, &list, err) < 0)
				return te_err_prefix(err, "%s: list %ss: ", prefix, k->name);
			cJSON_ArrayForEach (obj, list)
				if (fn(ctx, k, obj, err) < 0)
					return -1;
		}
	return 0;
}
