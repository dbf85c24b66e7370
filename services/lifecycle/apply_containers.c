/* `up`: containers found, created, recreated or started, after their
 * depends_on conditions (apply_int.h). */
#include "services/lifecycle/apply.h"
#include "services/lifecycle/reskind.h"
#include "services/lifecycle/inuse.h"
#include "services/lifecycle/apply_int.h"
#include "services/model/compose.h"
#include "services/model/task.h"
#include "services/model/plan.h"
#include "services/lifecycle/health.h"
#include "services/lifecycle/drvrun.h"
#include "engine/connect.h"
#include "common/fault.h"
#include "engine/engine.h"
#include "state/ledger.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <string.h>

static int connect_more(struct up *u, const struct svc_plan_container *c, const char *id, struct te_err *err)
{
	for (size_t i = 1; c->networks && c->networks[i]; i++) {
		te_fault_point("before-connect", "container", c->name);
		if (engine_network_connect(u->e, c->networks[i], id, c->aliases, err) < 0)
			return -1;
		te_fault_point("after-connect", "container", c->name);
	}
	return 0;
}

static int start_container(struct up *u, const struct svc_plan_container *c, const char *id,
			   struct te_err *err)
{
	te_fault_point("before-start", "container", c->name);
	if (engine_container_start(u->e, id, err) < 0)
		return te_err_prefix(err, "service '%s': start container '%s': ", c->svc->name, c->name);
	te_fault_point("after-start", "container", c->name);
	up_step(u, "container", c->name, "started");
	return 0;
}

/* What the Compose file declared for the container, kept in the ledger row
 * so `verify` can tell a declared host path from one added by hand:
 * {"declared_mounts":[{"type":"bind","source":ABS,"target","read_only"} |
 *  {"type":"volume","source":ENGINE NAME or null (anonymous),"target","read_only"}],
 *  "restart_with":[SERVICE...]} (the dependencies it has with restart: true). */
static int record_detail(struct up *u, const struct svc_plan_container *c, long long row, struct te_err *err)
{
	te_autojson cJSON *d = cJSON_CreateObject();
	te_autofree char *text = NULL;
	cJSON *a = cJSON_AddArrayToObject(d, "declared_mounts");

	for (size_t i = 0; i < c->svc->n_mounts; i++) {
		const struct svc_mount *m = &c->svc->mounts[i];
		const struct svc_plan_volume *v = m->type == SVC_MOUNT_VOLUME && m->source
						      ? svc_plan_volume_by_key(u->plan, m->source)
						      : NULL;
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "type", m->type == SVC_MOUNT_BIND ? "bind" : "volume");
		if (m->type == SVC_MOUNT_BIND || v)
			cJSON_AddStringToObject(o, "source", m->type == SVC_MOUNT_BIND ? m->source : v->name);
		else
			cJSON_AddNullToObject(o, "source");
		cJSON_AddStringToObject(o, "target", m->target);
		cJSON_AddBoolToObject(o, "read_only", m->read_only);
		cJSON_AddItemToArray(a, o);
	}
	/* depends_on ... restart: true: `taskenv restart DEP` restarts this one too. */
	a = cJSON_AddArrayToObject(d, "restart_with");
	for (size_t i = 0; i < c->svc->n_deps; i++)
		if (c->svc->deps[i].restart)
			cJSON_AddItemToArray(a, cJSON_CreateString(c->svc->deps[i].service));
	/* Its dependency level: `down` stops and removes level by level, the
	 * deepest first, with or without the file. */
	cJSON_AddNumberToObject(d, "level", c->level);
	text = cJSON_PrintUnformatted(d);
	return state_resource_set_detail(u->l, row, text, err);
}

static int create_container(struct up *u, size_t idx, long long row, struct te_err *err)
{
	const struct svc_plan_container *c = &u->plan->containers[idx];
	te_autojson cJSON *body = svc_plan_container_body(u->plan, c, u->host_ports[idx]);
	te_autofree char *id = NULL;
	cJSON *env = cJSON_GetObjectItemCaseSensitive(body, "Env");

	if (!env)
		env = cJSON_AddArrayToObject(body, "Env");
	if (svc_drivers_inject(c->svc, u->values, env, err) < 0)
		return -1;

	te_fault_point("before-create", "container", c->name);
	te_fault_soon("during-create", "container", c->name);
	if (engine_container_create(u->e, c->name, body, &id, err) < 0)
		return te_err_prefix(err, "service '%s': create container '%s': ", c->svc->name, c->name);
	te_fault_point("after-create", "container", c->name);
	if (state_resource_created(u->l, row, id, err) < 0 || record_detail(u, c, row, err) < 0)
		return -1;
	up_step(u, "container", c->name, "created");
	if (connect_more(u, c, id, err) < 0)
		return te_err_prefix(err, "service '%s': ", c->svc->name);
	return start_container(u, c, id, err);
}

/* The container runs an image a rebuild has just replaced (Compose
 * recreates it then). */
static bool image_replaced(const struct up *u, size_t idx, const cJSON *obj)
{
	const char *running = cJSON_GetStringValue(cJSON_GetObjectItem(obj, "Image"));
	/* Replicas follow each other in the plan; the first one's build counts. */
	size_t first = idx - (size_t)(u->plan->containers[idx].number - 1);
	const char *old = u->old_image ? u->old_image[first] : NULL;

	return old && running && strcmp(running, old) == 0;
}

static int recreate_container(struct up *u, size_t idx, const char *id, long long row, struct te_err *err)
{
	const struct svc_plan_container *c = &u->plan->containers[idx];
	int stop_s = c->svc->stop_grace_ns ? (int)((c->svc->stop_grace_ns + 999999999) / 1000000000) : 10;

	if (svc_container_remove(u->e, id, stop_s, err) < 0 && err->code != TE_E_NOTFOUND)
		return te_err_prefix(err, "service '%s': replace container '%s': ", c->svc->name, c->name);
	up_step(u, "container", c->name, "removed (image rebuilt)");
	return create_container(u, idx, row, err);
}

int up_ensure_container(struct up *u, size_t idx, struct te_err *err)
{
	const struct svc_plan_container *c = &u->plan->containers[idx];
	te_autojson cJSON *obj = NULL;
	const char *id;
	long long row;

	if (state_resource_intend(u->l, u->plan->task, svc_res_kind_name(SVC_RES_CONTAINER), c->name,
				  c->svc->name, &row, err) < 0)
		return -1;
	if (engine_container_inspect(u->e, c->name, &obj, err) < 0) {
		if (err->code != TE_E_NOTFOUND)
			return te_err_prefix(err, "service '%s': ", c->svc->name);
		return create_container(u, idx, row, err);
	}
	if (!up_owned(u->plan, obj))
		return up_not_ours(u, row, "container", c->name, err);
	id = cJSON_GetStringValue(cJSON_GetObjectItem(obj, "Id"));
	if (state_resource_created(u->l, row, id, err) < 0 || record_detail(u, c, row, err) < 0)
		return -1;
	if (image_replaced(u, idx, obj))
		return recreate_container(u, idx, id, row, err);
	if (cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(obj, "State"), "Running"))) {
		up_step(u, "container", c->name, "running");
		return 0;
	}
	return start_container(u, c, id, err);
}

/* One depends_on condition on every replica of the dependency. With
 * required: false a dependency that does not get there is said and
 * passed over, as Compose only warns then. */
static int wait_dep(struct up *u, const struct svc_service *s, const struct svc_dep *dep, struct te_err *err)
{
	for (size_t i = 0; i < u->plan->n_containers; i++) {
		const struct svc_plan_container *c = &u->plan->containers[i];
		te_autofree char *what = NULL;

		if (strcmp(c->svc->name, dep->service) != 0)
			continue;
		up_step(u, "container", c->name, dep->condition);
		if (svc_wait_condition(u->e, c->name, dep->service, dep->condition, u->opts->wait_timeout_s,
				       err) == 0)
			continue;
		if (dep->required)
			return te_err_prefix(err, "service '%s' depends on '%s': ", s->name, dep->service);
		what = xasprintf("warning: %s (required: false, so '%s' starts anyway): %s", dep->condition,
				 s->name, err->msg);
		up_step(u, "container", c->name, what);
		te_err_clear(err);
	}
	return 0;
}

/* depends_on conditions of container IDX (its first replica waits for
 * all): its dependencies are earlier in the plan, so they have been
 * started already. */
int up_wait_deps(struct up *u, size_t idx, struct te_err *err)
{
	const struct svc_service *s = u->plan->containers[idx].svc;

	for (size_t d = 0; u->plan->containers[idx].number == 1 && d < s->n_deps; d++)
		if (strcmp(s->deps[d].condition, "service_started") != 0 &&
		    wait_dep(u, s, &s->deps[d], err) < 0)
			return -1;
	return 0;
}

/* up --wait: every service with a healthcheck is healthy. */
int up_wait_all(struct up *u, struct te_err *err)
{
	for (size_t i = 0; u->opts->wait && i < u->plan->n_containers; i++) {
		const struct svc_plan_container *c = &u->plan->containers[i];

		if (!c->svc->health.set || c->svc->health.disable || !c->svc->health.test)
			continue;
		if (svc_wait_condition(u->e, c->name, c->svc->name, "service_healthy",
				       u->opts->wait_timeout_s, err) < 0)
			return -1;
		up_step(u, "container", c->name, "healthy");
	}
	return 0;
}
