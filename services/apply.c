#include "services/apply.h"
#include "services/compose.h"
#include "services/plan.h"
#include "services/retain.h"
#include "engine/engine.h"
#include "engine/connect.h"
#include "state/ledger.h"
#include "state/owner.h"
#include "common/err.h"
#include "common/fault.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PORT_LO_DEFAULT 20000
#define PORT_HI_DEFAULT 29999

struct up {
	struct engine *e;
	struct ledger *l;
	struct svc_plan *plan;
	const struct svc_up_opts *opts;
	int **host_ports;	/* per planned container, per service port */
	char (*subnets)[2][20]; /* per planned network: subnet, gateway ("" when none) */
};

static void step(const struct up *u, const char *kind, const char *name, const char *what)
{
	if (u->opts->progress)
		u->opts->progress(u->opts->progress_ctx, kind, name, what);
}

static int parse_port(const char *s, const char **end, int *out)
{
	char *e;
	long v;

	errno = 0;
	v = strtol(s, &e, 10);
	if (errno || e == s || v < 1 || v > 65535)
		return -1;
	*out = (int)v;
	*end = e;
	return 0;
}

static int subnet_pool_init(struct svc_up_opts *opts, struct te_err *err)
{
	const char *pool = getenv("TASKENV_SUBNET_POOL");
	const char *pre = getenv("TASKENV_SUBNET_PREFIX");
	char *end = NULL;
	long sub = 0;

	if (pre && *pre) {
		errno = 0;
		sub = strtol(pre, &end, 10);
		if (errno || *end || sub < 1 || sub > 32)
			return te_err_set(err, TE_E_USAGE,
					  "invalid TASKENV_SUBNET_PREFIX '%s': expected a prefix length 8-30",
					  pre);
	}
	return state_subnet_pool_parse(pool, (int)sub, &opts->pool, err);
}

int svc_up_opts_init(struct svc_up_opts *opts, struct te_err *err)
{
	const char *r = getenv("TASKENV_PORT_RANGE");
	const char *p;

	memset(opts, 0, sizeof(*opts));
	opts->port_lo = PORT_LO_DEFAULT;
	opts->port_hi = PORT_HI_DEFAULT;
	if (subnet_pool_init(opts, err) < 0)
		return -1;
	if (!r || !*r)
		return 0;
	if (parse_port(r, &p, &opts->port_lo) < 0 || *p != '-' || parse_port(p + 1, &p, &opts->port_hi) < 0 ||
	    *p || opts->port_lo > opts->port_hi)
		return te_err_set(
		    err, TE_E_USAGE,
		    "invalid TASKENV_PORT_RANGE '%s': expected LO-HI with 1 <= LO <= HI <= 65535", r);
	return 0;
}

/* Ours means: this task, in this ledger. Labels are the cross-check; the
 * ledger row is the claim. */
static bool owned(const struct svc_plan *plan, const cJSON *obj)
{
	const cJSON *labels = cJSON_GetObjectItemCaseSensitive(obj, "Labels");
	const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(obj, "Config");
	const cJSON *t, *l;

	if (!labels && cfg)
		labels = cJSON_GetObjectItemCaseSensitive(cfg, "Labels");
	t = cJSON_GetObjectItemCaseSensitive(labels, "io.taskenv.task");
	l = cJSON_GetObjectItemCaseSensitive(labels, "io.taskenv.ledger");
	return cJSON_IsString(t) && cJSON_IsString(l) && strcmp(t->valuestring, plan->task) == 0 &&
	       strcmp(l->valuestring, plan->ledger_id) == 0;
}

/* The name is taken by an object we do not own, so the row cannot claim
 * anything: whatever we may once have created under that name is gone. */
static int not_ours(struct up *u, long long row, const char *kind, const char *name, struct te_err *err)
{
	const char *task = u->plan->task;

	state_resource_set_state(u->l, row, STATE_REMOVED, err);
	return te_err_set(err, TE_E_CONFLICT,
			  "%s '%s' already exists and does not belong to task '%s' of this ledger; "
			  "taskenv leaves it alone: remove it yourself or pick another task name",
			  kind, name, task);
}

static int check_images(struct up *u, struct te_err *err)
{
	for (size_t i = 0; i < u->plan->n_containers; i++) {
		const struct svc_service *s = u->plan->containers[i].svc;
		te_autojson cJSON *img = NULL;

		te_fault_point("before-inspect", "image", s->image);
		if (engine_image_inspect(u->e, s->image, &img, err) == 0) {
			te_fault_point("after-inspect", "image", s->image);
			continue;
		}
		if (err->code != TE_E_NOTFOUND)
			return te_err_prefix(err, "service '%s': ", s->name);
		step(u, "image", s->image, "pulling");
		if (engine_image_pull(u->e, s->image, err) < 0)
			return te_err_prefix(
			    err, "service '%s': image '%s' is not present and could not be pulled: ", s->name,
			    s->image);
		step(u, "image", s->image, "pulled");
	}
	return 0;
}

static int reserve_ports(struct up *u, struct te_err *err)
{
	u->host_ports = xcalloc(u->plan->n_containers + 1, sizeof(int *));
	for (size_t i = 0; i < u->plan->n_containers; i++) {
		const struct svc_service *s = u->plan->containers[i].svc;

		u->host_ports[i] = xcalloc(s->n_ports + 1, sizeof(int));
		for (size_t j = 0; j < s->n_ports; j++) {
			const struct svc_port *p = &s->ports[j];

			if (state_port_reserve(u->l, u->plan->task, s->name, p->container_port, p->proto,
					       SVC_HOST_IP, p->host_port, u->opts->port_lo, u->opts->port_hi,
					       state_port_probe_bind, NULL, &u->host_ports[i][j], err) < 0)
				return te_err_prefix(err, "service '%s': ", s->name);
		}
	}
	return 0;
}

static bool wants_subnet(const struct svc_plan_network *n)
{
	const char *driver = n->decl ? n->decl->driver : NULL;

	return !n->external && (!driver || strcmp(driver, "bridge") == 0);
}

/* Every bridge network's subnet, reserved before anything is created. */
static int reserve_subnets(struct up *u, struct te_err *err)
{
	u->subnets = xcalloc(u->plan->n_networks + 1, sizeof(*u->subnets));
	for (size_t i = 0; i < u->plan->n_networks; i++) {
		const struct svc_plan_network *n = &u->plan->networks[i];

		if (!wants_subnet(n))
			continue;
		if (state_subnet_reserve(u->l, u->plan->task, n->name, &u->opts->pool,
					 state_subnet_probe_routes, NULL, u->subnets[i][0], u->subnets[i][1],
					 err) < 0)
			return -1;
	}
	return 0;
}

/* IPAM.Config[0].{Subnet,Gateway}: dockerd and Podman's compat API alike.
 * The bridge is named after the subnet ("te-0ae08040" for 10.224.128.64):
 * the subnet is ours alone on this host, so the name is too. Left to
 * itself, each Podman service picks podmanN from its own configuration
 * only, and two services on one host can pick the same N: the second
 * network then joins the first one's bridge and its ports lead nowhere. */
static void add_ipam(cJSON *body, const char *subnet, const char *gateway)
{
	cJSON *ipam = cJSON_AddObjectToObject(body, "IPAM");
	cJSON *cfg = cJSON_AddArrayToObject(ipam, "Config");
	cJSON *c = cJSON_CreateObject();
	cJSON *opts = cJSON_GetObjectItemCaseSensitive(body, "Options");
	struct in_addr a;
	char br[16], ip[20];

	snprintf(ip, sizeof(ip), "%.*s", (int)strcspn(subnet, "/"), subnet);
	if (!opts)
		opts = cJSON_AddObjectToObject(body, "Options");
	if (inet_pton(AF_INET, ip, &a) == 1 && !cJSON_GetObjectItem(opts, "com.docker.network.bridge.name")) {
		snprintf(br, sizeof(br), "te-%08x", (unsigned)ntohl(a.s_addr));
		cJSON_AddStringToObject(opts, "com.docker.network.bridge.name", br);
	}

	cJSON_AddStringToObject(ipam, "Driver", "default");
	cJSON_AddStringToObject(c, "Subnet", subnet);
	cJSON_AddStringToObject(c, "Gateway", gateway);
	cJSON_AddItemToArray(cfg, c);
}

static int ensure_network(struct up *u, const struct svc_plan_network *n, struct te_err *err)
{
	te_autojson cJSON *obj = NULL;
	te_autojson cJSON *body = NULL;
	te_autofree char *id = NULL;
	long long row;

	if (n->external) {
		if (engine_network_inspect(u->e, n->name, &obj, err) < 0)
			return te_err_prefix(err, "external network '%s' (key '%s'): ", n->name, n->key);
		step(u, "network", n->name, "external, used");
		return 0;
	}
	if (state_resource_intend(u->l, u->plan->task, "network", n->name, n->key, &row, err) < 0)
		return -1;
	if (engine_network_inspect(u->e, n->name, &obj, err) == 0) {
		if (!owned(u->plan, obj))
			return not_ours(u, row, "network", n->name, err);
		step(u, "network", n->name, "exists");
		return state_resource_created(u->l, row, cJSON_GetStringValue(cJSON_GetObjectItem(obj, "Id")),
					      err);
	}
	if (err->code != TE_E_NOTFOUND)
		return -1;
	body = svc_plan_network_body(u->plan, n);
	if (u->subnets[n - u->plan->networks][0][0])
		add_ipam(body, u->subnets[n - u->plan->networks][0], u->subnets[n - u->plan->networks][1]);
	te_fault_point("before-create", "network", n->name);
	if (engine_network_create(u->e, body, &id, err) < 0)
		return te_err_prefix(err, "create network '%s': ", n->name);
	te_fault_point("after-create", "network", n->name);
	step(u, "network", n->name, "created");
	return state_resource_created(u->l, row, id, err);
}

static int ensure_volume(struct up *u, const struct svc_plan_volume *v, struct te_err *err)
{
	te_autojson cJSON *obj = NULL;
	te_autojson cJSON *body = NULL;
	long long row;

	if (v->external) {
		if (engine_volume_inspect(u->e, v->name, &obj, err) < 0)
			return te_err_prefix(err, "external volume '%s' (key '%s'): ", v->name, v->key);
		step(u, "volume", v->name, "external, used");
		return 0;
	}
	if (state_resource_intend(u->l, u->plan->task, "volume", v->name, v->key, &row, err) < 0)
		return -1;
	if (engine_volume_inspect(u->e, v->name, &obj, err) == 0) {
		if (!owned(u->plan, obj))
			return not_ours(u, row, "volume", v->name, err);
		step(u, "volume", v->name, "exists");
		return state_resource_created(u->l, row, v->name, err);
	}
	if (err->code != TE_E_NOTFOUND)
		return -1;
	body = svc_plan_volume_body(u->plan, v);
	te_fault_point("before-create", "volume", v->name);
	if (engine_volume_create(u->e, body, err) < 0)
		return te_err_prefix(err, "create volume '%s': ", v->name);
	te_fault_point("after-create", "volume", v->name);
	step(u, "volume", v->name, "created");
	return state_resource_created(u->l, row, v->name, err);
}

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
	step(u, "container", c->name, "started");
	return 0;
}

static int create_container(struct up *u, size_t idx, long long row, struct te_err *err)
{
	const struct svc_plan_container *c = &u->plan->containers[idx];
	te_autojson cJSON *body = svc_plan_container_body(u->plan, c, u->host_ports[idx]);
	te_autofree char *id = NULL;

	te_fault_point("before-create", "container", c->name);
	if (engine_container_create(u->e, c->name, body, &id, err) < 0)
		return te_err_prefix(err, "service '%s': create container '%s': ", c->svc->name, c->name);
	te_fault_point("after-create", "container", c->name);
	if (state_resource_created(u->l, row, id, err) < 0)
		return -1;
	step(u, "container", c->name, "created");
	if (connect_more(u, c, id, err) < 0)
		return te_err_prefix(err, "service '%s': ", c->svc->name);
	return start_container(u, c, id, err);
}

static int ensure_container(struct up *u, size_t idx, struct te_err *err)
{
	const struct svc_plan_container *c = &u->plan->containers[idx];
	te_autojson cJSON *obj = NULL;
	const char *id;
	long long row;

	if (state_resource_intend(u->l, u->plan->task, "container", c->name, c->svc->name, &row, err) < 0)
		return -1;
	if (engine_container_inspect(u->e, c->name, &obj, err) < 0) {
		if (err->code != TE_E_NOTFOUND)
			return te_err_prefix(err, "service '%s': ", c->svc->name);
		return create_container(u, idx, row, err);
	}
	if (!owned(u->plan, obj))
		return not_ours(u, row, "container", c->name, err);
	id = cJSON_GetStringValue(cJSON_GetObjectItem(obj, "Id"));
	if (state_resource_created(u->l, row, id, err) < 0)
		return -1;
	if (cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(obj, "State"), "Running"))) {
		step(u, "container", c->name, "running");
		return 0;
	}
	return start_container(u, c, id, err);
}

static int create_all(struct up *u, struct te_err *err)
{
	for (size_t i = 0; i < u->plan->n_networks; i++)
		if (ensure_network(u, &u->plan->networks[i], err) < 0)
			return -1;
	for (size_t i = 0; i < u->plan->n_volumes; i++)
		if (ensure_volume(u, &u->plan->volumes[i], err) < 0)
			return -1;
	for (size_t i = 0; i < u->plan->n_containers; i++)
		if (ensure_container(u, i, err) < 0)
			return -1;
	return 0;
}

static char *files_json(const struct svc_project *p)
{
	te_autojson cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; p->files && p->files[i]; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(p->files[i]));
	return cJSON_PrintUnformatted(a);
}

/* A task that held nothing before this `up` and failed before creating
 * anything must leave no trace: no ports held, no task row. */
static void forget_if_empty(struct up *u)
{
	struct te_err ignored;
	struct state_resource *rows = NULL;
	size_t n = 0;

	if (state_resource_list(u->l, u->plan->task, false, &rows, &n, &ignored) < 0)
		return;
	state_resources_free(rows, n);
	if (n)
		return;
	state_port_release_task(u->l, u->plan->task, &ignored);
	state_subnet_release_task(u->l, u->plan->task, &ignored);
	state_task_delete(u->l, u->plan->task, &ignored);
}

static void up_release(struct up *u)
{
	for (size_t i = 0; u->host_ports && i < u->plan->n_containers; i++)
		free(u->host_ports[i]);
	free(u->host_ports);
	free(u->subnets);
	svc_plan_free(u->plan);
}

/* up failed: keep the task for inspection when asked to, else mark it
 * partial (what was created stays recorded for down/gc). */
static void fail_after(struct up *u)
{
	struct svc_retain_opts r = {.secs = u->opts->retain_on_failure,
				    .reason = "up failed",
				    .stop_timeout = 10,
				    .progress = u->opts->progress,
				    .progress_ctx = u->opts->progress_ctx};
	struct te_err ignored;

	forget_if_empty(u);
	if (state_task_set_status(u->l, u->plan->task, "partial", &ignored) < 0)
		return; /* forgotten: nothing to retain */
	if (r.secs > 0)
		svc_retain_locked(u->e, u->l, u->plan->task, &r, &ignored);
}

static int record_owner(struct up *u, struct te_err *err)
{
	struct state_owner o;
	long long lease = u->opts->lease ? (long long)time(NULL) + u->opts->lease : 0;

	if (state_owner_of(u->opts->owner_pid, &o, err) < 0)
		return te_err_prefix(err, "task '%s': ", u->plan->task);
	return state_task_set_owner(u->l, u->plan->task, &o, lease, err);
}

static int up_run(struct up *u, const struct svc_project *project, struct te_err *err)
{
	te_autofree char *files = files_json(project);
	const char *task = u->plan->task;

	if (check_images(u, err) < 0)
		return -1;
	if (state_task_upsert(u->l, task, project->dir, files, engine_socket(u->e), "starting", err) < 0)
		return -1;
	if (record_owner(u, err) < 0) {
		forget_if_empty(u);
		return -1;
	}
	if (reserve_ports(u, err) < 0 || reserve_subnets(u, err) < 0 || create_all(u, err) < 0) {
		fail_after(u);
		return -1;
	}
	state_event_add(u->l, task, "up", "up complete", err);
	if (state_task_set_retention(u->l, task, 0, NULL, NULL, err) < 0)
		return -1;
	return state_task_set_status(u->l, task, "up", err);
}

int svc_up(struct engine *e, struct ledger *l, const struct svc_project *project, const char *task,
	   const struct svc_up_opts *opts, struct te_err *err)
{
	struct up u = {e, l, NULL, opts, NULL, NULL};
	int rc, lock = -1;

	u.plan = svc_plan_build(project, task, state_ledger_id(l), err);
	if (!u.plan)
		return -1;
	rc = state_task_lock(l, task, true, &lock, err);
	if (rc == 0)
		rc = up_run(&u, project, err);
	state_task_unlock(lock);
	up_release(&u);
	return rc;
}
