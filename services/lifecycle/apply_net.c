/* `up`: host ports and subnets reserved, networks and volumes found or
 * created (apply_int.h). */
#include "services/lifecycle/apply.h"
#include "services/lifecycle/reskind.h"
#include "services/lifecycle/apply_int.h"
#include "services/model/compose.h"
#include "services/model/plan.h"
#include "services/model/config_hash.h"
#include "services/lifecycle/inuse.h"
#include "services/lifecycle/teardown.h"
#include "state/subnets.h"
#include "state/ledger.h"
#include "common/fault.h"
#include "engine/engine.h"
#include "state/ledger.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The ports container IDX holds in the ledger, in the order of its
 * service's ports (0: none yet). */
static void held_ports(const struct up *u, size_t idx, const struct state_port *held, size_t n, int *out)
{
	const struct svc_plan_container *c = &u->plan->containers[idx];

	for (size_t j = 0; j < c->svc->n_ports; j++)
		for (size_t k = 0; k < n; k++)
			if (strcmp(held[k].service, c->svc->name) == 0 && held[k].replica == c->number &&
			    held[k].container_port == c->svc->ports[j].container_port &&
			    strcmp(held[k].proto, c->svc->ports[j].proto) == 0)
				out[j] = held[k].host_port;
}

/* A port the task holds for a container that is not running (stopped or
 * not created) and that another process has taken meanwhile: the
 * container could not start on it. */
static bool port_taken(struct up *u, size_t idx, const int *old)
{
	const struct svc_plan_container *c = &u->plan->containers[idx];
	te_autojson cJSON *obj = NULL;
	struct te_err ignored;
	bool any = false;

	for (size_t j = 0; j < c->svc->n_ports && !any; j++)
		any = old[j] != 0;
	if (!any)
		return false;
	if (engine_container_inspect(u->e, c->name, &obj, &ignored) == 0 &&
	    cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(obj, "State"), "Running")))
		return false; /* it holds them itself */
	for (size_t j = 0; j < c->svc->n_ports; j++)
		if (old[j] && state_port_probe_listen(SVC_HOST_IP, old[j], c->svc->ports[j].proto) < 0)
			return true;
	return false;
}

/* For a replica whose ports are given again after one moved: its other
 * ports must come back as they were, even with a TIME_WAIT on them. */
static int probe_listen(const char *host_ip, int port, const char *proto, void *ctx)
{
	(void)ctx;
	return state_port_probe_listen(host_ip, port, proto);
}

static int reserve_one(struct up *u, size_t idx, const int *old, struct te_err *err)
{
	const struct svc_plan_container *c = &u->plan->containers[idx];
	const struct svc_service *s = c->svc;

	for (size_t j = 0; j < s->n_ports; j++) {
		const struct svc_port *p = &s->ports[j];

		/* Each replica its own host port; a moved one keeps the others. */
		if (state_port_reserve_replica(u->l, u->plan->task, s->name, c->number, p->container_port,
					       p->proto, SVC_HOST_IP, old[j] ? old[j] : p->host_port,
					       u->opts->port_lo, u->opts->port_hi,
					       u->port_moved[idx] ? probe_listen : state_port_probe_bind,
					       NULL, &u->host_ports[idx][j], err) < 0)
			return te_err_prefix(err, "service '%s': ", s->name);
		if (old[j] && old[j] != u->host_ports[idx][j]) {
			te_autofree char *who =
			    c->number > 1 ? xasprintf("%s-%d", s->name, c->number) : xstrdup(s->name);
			te_autofree char *what =
			    xasprintf("changed: %s %d/%s %d -> %d", who, p->container_port, p->proto, old[j],
				      u->host_ports[idx][j]);

			up_step(u, "port", who, what);
		}
	}
	return 0;
}

/* Ports are stable for the life of the task, but for one case: a port
 * another process took while the task was stopped moves (the Engine cannot
 * change a container's bindings: the container is recreated on the new
 * one, u->port_moved). */
int up_reserve_ports(struct up *u, struct te_err *err)
{
	struct state_port *held = NULL;
	size_t n = 0;
	int rc = 0;

	if (state_port_list(u->l, u->plan->task, &held, &n, err) < 0)
		return -1;
	u->host_ports = xcalloc(u->plan->n_containers + 1, sizeof(int *));
	for (size_t i = 0; rc == 0 && i < u->plan->n_containers; i++) {
		const struct svc_plan_container *c = &u->plan->containers[i];
		te_autofree int *old = xcalloc(c->svc->n_ports + 1, sizeof(int));

		u->host_ports[i] = xcalloc(c->svc->n_ports + 1, sizeof(int));
		held_ports(u, i, held, n, old);
		if (u->selected[i] && port_taken(u, i, old)) {
			u->port_moved[i] = true;
			rc = state_port_release_replica(u->l, u->plan->task, c->svc->name, c->number, err);
		}
		if (rc == 0)
			rc = reserve_one(u, i, old, err);
	}
	state_ports_free(held, n);
	return rc;
}

/* Podman (netavark) lists the host's interfaces to pick a subnet; when
 * another network's bridge comes or goes in between, it answers 500 "route
 * ip+net: no such network interface". Seen with 16 concurrent `up`s: that
 * race is worth a few retries, any other error is not. */
static int network_create(struct up *u, const cJSON *body, char **id, struct te_err *err)
{
	for (int attempt = 0;; attempt++) {
		if (engine_network_create(u->e, body, id, err) == 0)
			return 0;
		if (attempt == 4 || err->code != TE_E_ENGINE ||
		    !strstr(err->msg, "no such network interface"))
			return -1;
		usleep(50 * 1000 * (attempt + 1));
	}
}

/* A bridge network gets a subnet from taskenv's pool unless the file sets
 * its own ipam.config (then the file's subnet is sent as written). */
static bool wants_subnet(const struct svc_plan_network *n)
{
	const char *driver = n->decl ? n->decl->driver : NULL;

	return !n->external && !(n->decl && n->decl->n_ipam) && (!driver || strcmp(driver, "bridge") == 0);
}

/* Containers of the plan on network NAME, and the shared server
 * containers (each joins every task network). */
static size_t on_network(const struct up *u, const char *name)
{
	size_t n = 0;
	bool shared[SVC_SHARED_MAX] = {false};

	for (size_t i = 0; i < u->plan->n_containers; i++)
		for (size_t k = 0; u->plan->containers[i].networks && u->plan->containers[i].networks[k]; k++)
			n += strcmp(u->plan->containers[i].networks[k], name) == 0;
	for (size_t i = 0; i < u->plan->project->n_resources; i++) {
		int slot = svc_shared_slot(u->plan->project->resources[i].driver);

		if (!u->plan->project->resources[i].server && slot >= 0 && !shared[slot]) {
			shared[slot] = true;
			n++;
		}
	}
	return n;
}

int up_check_fit(const struct up *u, struct te_err *err)
{
	int sub = u->opts->pool.sub;
	/* A subnet's own address, its broadcast and the gateway are not for containers. */
	size_t room = ((size_t)1 << (32 - sub)) - 3;

	for (size_t i = 0; i < u->plan->n_networks; i++) {
		const struct svc_plan_network *n = &u->plan->networks[i];
		size_t want = wants_subnet(n) ? on_network(u, n->name) : 0;
		int fits = sub;

		if (want <= room)
			continue;
		while (fits > u->opts->pool.prefix && ((size_t)1 << (32 - fits)) - 3 < want)
			fits--;
		return te_err_set(
		    err, TE_E_USAGE,
		    "network '%s': %zu containers do not fit in a /%d subnet (%zu addresses for "
		    "containers): set subnet_prefix (TASKENV_SUBNET_PREFIX, or subnet_prefix: in the "
		    "config file) to %d or lower; nothing was created",
		    n->key, want, sub, room, fits);
	}
	return 0;
}

/* Every bridge network's subnet, reserved before anything is created. */
int up_reserve_subnets(struct up *u, struct te_err *err)
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

/* BODY (a network or volume create body) gets its configuration hash;
 * *HASH and *PARTS owned. */
static void label_hash(cJSON *body, char **hash, char **parts)
{
	cJSON *labels = cJSON_GetObjectItemCaseSensitive(body, "Labels");

	*hash = svc_config_hash(body, NULL, NULL, parts);
	if (!labels)
		labels = cJSON_AddObjectToObject(body, "Labels");
	cJSON_AddStringToObject(labels, SVC_LABEL_CONFIG_HASH, *hash);
	cJSON_AddStringToObject(labels, SVC_LABEL_CONFIG_PARTS, *parts);
}

/* What changed in the object OBJ (inspect answer) against HASH/PARTS,
 * owned, or NULL: unchanged, or made before taskenv labelled networks and
 * volumes (kept: nothing says it differs). */
static char *object_changes(const cJSON *obj, const char *hash, const char *parts)
{
	const cJSON *labels = cJSON_GetObjectItemCaseSensitive(obj, "Labels");
	const char *old =
	    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(labels, SVC_LABEL_CONFIG_HASH));
	const char *old_parts =
	    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(labels, SVC_LABEL_CONFIG_PARTS));
	char *c;

	if (!old || strcmp(old, hash) == 0)
		return NULL;
	c = svc_config_changes(old_parts, parts);
	return c ? c : xstrdup("configuration");
}

/* The task's containers on network NAME go first (Compose does the same):
 * the loop after recreates them on the new network. */
static int drop_users(struct up *u, const char *name, struct te_err *err)
{
	struct state_resource *rows = NULL;
	size_t n = 0;
	int rc = 0;

	if (state_resource_list(u->l, u->plan->task, false, &rows, &n, err) < 0)
		return -1;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		te_autojson cJSON *c = NULL;
		struct te_err ignored;

		if (svc_res_kind_of(rows[i].kind) != SVC_RES_CONTAINER || !rows[i].engine_id ||
		    engine_container_inspect(u->e, rows[i].engine_id, &c, &ignored) < 0 ||
		    !svc_container_uses(c, SVC_RES_NETWORK, name, NULL))
			continue;
		rc = svc_down_container(u->e, u->l, u->plan->task, &rows[i], 10, u->opts->progress,
					u->opts->progress_ctx, err);
	}
	state_resources_free(rows, n);
	return rc;
}

/* A network whose configuration changed is recreated, unless something
 * outside the task uses it (svc_res_before_remove refuses then). The row
 * is closed without giving the subnet back: the new network takes it. */
static int replace_network(struct up *u, const struct svc_plan_network *n, const cJSON *obj, long long row,
			   const char *what, struct te_err *err)
{
	const char *id = cJSON_GetStringValue(cJSON_GetObjectItem(obj, "Id"));
	te_autofree char *step = xasprintf("recreating (%s changed)", what);

	if (svc_res_refuse_foreign(u->e, u->l, u->plan->task, SVC_RES_NETWORK, id, err) < 0)
		return te_err_prefix(err, "network '%s' (%s changed) cannot be recreated: ", n->name, what);
	if (drop_users(u, n->name, err) < 0 ||
	    svc_res_before_remove(u->e, u->l, u->plan->task, SVC_RES_NETWORK, id, err) < 0)
		return -1;
	if (state_resource_set_state(u->l, row, STATE_REMOVING, err) < 0)
		return -1;
	te_fault_point("before-remove", "network", n->name);
	if (engine_network_remove(u->e, id, err) < 0 && err->code != TE_E_NOTFOUND)
		return te_err_prefix(err, "recreate network '%s': ", n->name);
	up_step(u, "network", n->name, step);
	return state_resource_set_state(u->l, row, STATE_REMOVED, err);
}

int up_ensure_network(struct up *u, const struct svc_plan_network *n, struct te_err *err)
{
	te_autojson cJSON *obj = NULL;
	te_autojson cJSON *body = NULL;
	te_autofree char *id = NULL;
	te_autofree char *hash = NULL;
	te_autofree char *parts = NULL;
	te_autofree char *changed = NULL;
	long long row;

	if (n->external) {
		if (engine_network_inspect(u->e, n->name, &obj, err) < 0)
			return te_err_prefix(err, "external network '%s' (key '%s'): ", n->name, n->key);
		up_step(u, "network", n->name, "external, used");
		return 0;
	}
	if (state_resource_intend(u->l, u->plan->task, svc_res_kind_name(SVC_RES_NETWORK), n->name, n->key,
				  &row, err) < 0)
		return -1;
	body = svc_plan_network_body(u->plan, n);
	label_hash(body, &hash, &parts);
	if (engine_network_inspect(u->e, n->name, &obj, err) == 0) {
		if (!up_owned(u->plan, obj))
			return up_not_ours(u, row, "network", n->name, err);
		if (state_resource_created(u->l, row, cJSON_GetStringValue(cJSON_GetObjectItem(obj, "Id")),
					   err) < 0)
			return -1;
		changed = object_changes(obj, hash, parts);
		if (!changed) {
			up_step(u, "network", n->name, "exists");
			return 0;
		}
		if (replace_network(u, n, obj, row, changed, err) < 0 ||
		    state_resource_intend(u->l, u->plan->task, svc_res_kind_name(SVC_RES_NETWORK), n->name,
					  n->key, &row, err) < 0)
			return -1;
	} else if (err->code != TE_E_NOTFOUND) {
		return -1;
	}
	if (u->subnets[n - u->plan->networks][0][0])
		add_ipam(body, u->subnets[n - u->plan->networks][0], u->subnets[n - u->plan->networks][1]);
	te_fault_point("before-create", "network", n->name);
	if (network_create(u, body, &id, err) < 0)
		return te_err_prefix(err, "create network '%s': ", n->name);
	te_fault_point("after-create", "network", n->name);
	up_step(u, "network", n->name, "created");
	return state_resource_created(u->l, row, id, err);
}

int up_ensure_volume(struct up *u, const struct svc_plan_volume *v, struct te_err *err)
{
	te_autojson cJSON *obj = NULL;
	te_autojson cJSON *body = NULL;
	te_autofree char *hash = NULL;
	te_autofree char *parts = NULL;
	te_autofree char *changed = NULL;
	long long row;

	if (v->external) {
		if (engine_volume_inspect(u->e, v->name, &obj, err) < 0)
			return te_err_prefix(err, "external volume '%s' (key '%s'): ", v->name, v->key);
		up_step(u, "volume", v->name, "external, used");
		return 0;
	}
	if (state_resource_intend(u->l, u->plan->task, svc_res_kind_name(SVC_RES_VOLUME), v->name, v->key,
				  &row, err) < 0)
		return -1;
	body = svc_plan_volume_body(u->plan, v);
	label_hash(body, &hash, &parts);
	if (engine_volume_inspect(u->e, v->name, &obj, err) == 0) {
		if (!up_owned(u->plan, obj))
			return up_not_ours(u, row, "volume", v->name, err);
		if (state_resource_created(u->l, row, v->name, err) < 0)
			return -1;
		changed = object_changes(obj, hash, parts);
		/* A volume is data: never recreated behind the user's back. */
		if (changed)
			return te_err_set(
			    err, TE_E_CONFLICT,
			    "volume '%s' (key '%s'): its configuration changed (%s); recreating it "
			    "loses its data, so taskenv does not: 'taskenv down -t %s --volumes' "
			    "then 'taskenv up' does, or undo the change",
			    v->name, v->key, changed, u->plan->task);
		up_step(u, "volume", v->name, "exists");
		return 0;
	}
	if (err->code != TE_E_NOTFOUND)
		return -1;
	te_fault_point("before-create", "volume", v->name);
	if (engine_volume_create(u->e, body, err) < 0)
		return te_err_prefix(err, "create volume '%s': ", v->name);
	te_fault_point("after-create", "volume", v->name);
	up_step(u, "volume", v->name, "created");
	return state_resource_created(u->l, row, v->name, err);
}
