/* The gate on an engine: installed once per engine, narrowed to a task by
 * the verbs that act on one. */
#include "services/lifecycle/guard.h"
#include "services/lifecycle/build.h"
#include "services/lifecycle/broker.h"
#include "services/gate/gate.h"
#include "services/model/plan.h"
#include "drivers/driver.h"
#include "engine/engine.h"
#include "state/ledger.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <stdlib.h>
#include <string.h>

struct guard {
	struct gate g; /* first: the judge's context is the gate */
	struct engine *e;
};

static void guard_free(void *ctx)
{
	struct guard *gd = ctx;

	gate_release(&gd->g);
	free(gd);
}

static int exec_container(struct engine *e, const char *id, cJSON **out, struct te_err *err)
{
	te_autofree char *q = engine_escape(e, id);
	te_autofree char *path = xasprintf("/exec/%s/json", q);
	te_autojson cJSON *j = NULL;
	const char *c;

	if (engine_call(e, "GET", path, NULL, NULL, &j, err) < 0)
		return -1;
	c = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "ContainerID"));
	if (!c)
		return te_err_set(err, TE_E_FAIL, "exec '%s' names no container", id);
	return engine_container_inspect(e, c, out, err);
}

/* A volume's inspect; on Podman with libpod's "Anonymous", which the
 * compat answer lacks (dockerd labels its anonymous volumes). */
static int volume(struct engine *e, const char *name, cJSON **out, struct te_err *err)
{
	te_autojson cJSON *lp = NULL;
	struct te_err ignored = {0};
	const cJSON *anon;

	if (engine_volume_inspect(e, name, out, err) < 0)
		return -1;
	if (strcmp(engine_flavor(e), "podman") != 0 ||
	    engine_libpod_volume_inspect(e, name, &lp, &ignored) < 0)
		return 0;
	anon = cJSON_GetObjectItemCaseSensitive(lp, "Anonymous");
	if (cJSON_IsBool(anon))
		cJSON_AddBoolToObject(*out, "Anonymous", cJSON_IsTrue(anon));
	return 0;
}

static int lookup(void *ctx, const char *kind, const char *ref, cJSON **out, struct te_err *err)
{
	struct guard *gd = ctx;

	if (strcmp(kind, "container") == 0)
		return engine_container_inspect(gd->e, ref, out, err);
	if (strcmp(kind, "network") == 0)
		return engine_network_inspect(gd->e, ref, out, err);
	if (strcmp(kind, "volume") == 0)
		return volume(gd->e, ref, out, err);
	if (strcmp(kind, "image") == 0)
		return engine_image_inspect(gd->e, ref, out, err);
	if (strcmp(kind, "exec") == 0)
		return exec_container(gd->e, ref, out, err);
	if (strcmp(kind, "containers-of-task") == 0) {
		te_autofree char *label = xasprintf("io.taskenv.task=%s", ref);

		return engine_container_list(gd->e, label, out, err);
	}
	return te_err_set(err, TE_E_FAIL, "no lookup of a %s", kind);
}

struct gate *svc_guard(struct engine *e, struct ledger *l)
{
	struct guard *gd = engine_judge_ctx(e, gate_judge);

	if (gd)
		return &gd->g;
	gd = xcalloc(1, sizeof(*gd));
	gd->e = e;
	gd->g.ledger_id = l ? xstrdup(state_ledger_id(l)) : NULL;
	gd->g.lookup = lookup;
	gd->g.lookup_ctx = gd;
	gd->g.sockets = te_strv_push(NULL, xstrdup(engine_socket(e)));
	for (size_t i = 0; i < DRV_COUNT; i++)
		if (drv_at(i)->shared && drv_at(i)->shared->image)
			gd->g.shared_images =
			    te_strv_push(gd->g.shared_images, xstrdup(drv_at(i)->shared->image));
	engine_set_judge(e, gate_judge, &gd->g);
	engine_own_judge_ctx(e, guard_free);
	return &gd->g;
}

void svc_guard_ledger(struct engine *e, struct ledger *l)
{
	struct gate *g = svc_guard(e, l);

	free(g->task);
	g->task = NULL;
	te_strv_free(g->granted);
	g->granted = NULL;
}

void svc_guard_ledger_id(struct engine *e, struct ledger *l, const char *ledger_id)
{
	struct gate *g = svc_guard(e, l);

	svc_guard_ledger(e, l);
	free(g->ledger_id);
	g->ledger_id = ledger_id ? xstrdup(ledger_id) : l ? xstrdup(state_ledger_id(l)) : NULL;
}

void svc_guard_grant(struct engine *e, char *const *allow)
{
	struct gate *g = engine_judge_ctx(e, gate_judge);

	if (!g)
		return;
	te_strv_free(g->granted);
	g->granted = te_strv_dup(allow);
}

/* The JSON array the latest up recorded (state_task_set_allow). */
static char **recorded_allow(struct ledger *l, const char *task)
{
	te_autofree char *text = NULL;
	te_autojson cJSON *a = NULL;
	struct te_err ignored = {0};
	const cJSON *it;
	char **v = NULL;

	if (state_task_get_allow(l, task, &text, &ignored) < 0 || !text)
		return NULL;
	a = cJSON_Parse(text);
	cJSON_ArrayForEach (it, a)
		if (cJSON_IsString(it))
			v = te_strv_push(v, xstrdup(it->valuestring));
	return v;
}

/* The boundary of a recorded project directory: the nearest ancestor
 * holding .git, else the directory. */
static char *boundary_of(const char *dir)
{
	struct svc_project p = {0};

	p.dir = (char *)dir;
	return gate_project_boundary(&p);
}

int svc_guard_task(struct engine *e, struct ledger *l, const char *task, struct te_err *err)
{
	struct gate *g = svc_guard(e, l);
	struct state_task t = {0};
	struct te_err ignored = {0};

	(void)err;
	free(g->task);
	g->task = xstrdup(task);
	te_strv_free(g->granted);
	g->granted = l ? recorded_allow(l, task) : NULL;
	free(g->broker_dir);
	g->broker_dir = l ? svc_broker_dir_of(l, task) : NULL;
	if (l && state_task_get(l, task, &t, &ignored) == 0 && t.project_dir) {
		free(g->boundary);
		g->boundary = boundary_of(t.project_dir);
	}
	state_task_release(&t);
	return 0;
}

static void judge_body(struct gate *g, const char *path, const char *query, cJSON *body)
{
	gate_judge_add(g, "POST", path, query, body);
	cJSON_Delete(body);
}

/* The networks after the first are connected after create. */
static void judge_extra_networks(struct gate *g, const struct svc_plan_container *c)
{
	for (size_t i = 1; c->networks && c->networks[i]; i++) {
		te_autofree char *path = xasprintf("/networks/%s/connect", c->networks[i]);
		cJSON *b = cJSON_CreateObject();
		cJSON *ep = cJSON_AddObjectToObject(b, "EndpointConfig");

		cJSON_AddStringToObject(b, "Container", c->name);
		cJSON_AddItemToObject(ep, "Aliases", cJSON_CreateArray());
		judge_body(g, path, "", b);
	}
}

static void judge_container(struct gate *g, struct engine *e, const struct svc_plan *plan,
			    const struct svc_plan_container *c)
{
	size_t n = c->svc->n_ports;
	te_autofree int *ports = xcalloc(n + 1, sizeof(int));
	te_autofree char *q = xasprintf("name=%s", c->name);

	judge_body(g, "/containers/create", q, svc_plan_container_body(plan, c, ports));
	judge_extra_networks(g, c);
	if (c->build && c->number == 1) {
		te_autofree char *bq = svc_build_query(e, plan, c, "Dockerfile");

		gate_judge_add(g, "POST", "/build", bq, NULL);
	}
}

int svc_guard_plan(struct gate *g, struct engine *e, const struct svc_plan *plan)
{
	size_t before = g->n;
	const struct svc_plan *saved = g->plan;

	g->plan = plan;
	gate_judge_needed(g, plan->project);
	gate_judge_project(g, plan->project);
	for (size_t i = 0; i < plan->n_networks; i++)
		if (!plan->networks[i].external)
			judge_body(g, "/networks/create", "",
				   svc_plan_network_body(plan, &plan->networks[i]));
	for (size_t i = 0; i < plan->n_volumes; i++)
		if (!plan->volumes[i].external)
			judge_body(g, "/volumes/create", "", svc_plan_volume_body(plan, &plan->volumes[i]));
	for (size_t i = 0; i < plan->n_containers; i++)
		judge_container(g, e, plan, &plan->containers[i]);
	g->plan = saved;
	gate_findings_sort(g);
	return g->n > before ? -1 : 0;
}
