/* `up`: host ports and subnets reserved, networks and volumes found or
 * created (apply_int.h). */
#include "services/lifecycle/apply.h"
#include "services/lifecycle/reskind.h"
#include "services/lifecycle/apply_int.h"
#include "services/model/compose.h"
#include "services/model/plan.h"
#include "state/subnets.h"
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

int up_reserve_ports(struct up *u, struct te_err *err)
{
	u->host_ports = xcalloc(u->plan->n_containers + 1, sizeof(int *));
	for (size_t i = 0; i < u->plan->n_containers; i++) {
		const struct svc_service *s = u->plan->containers[i].svc;

		u->host_ports[i] = xcalloc(s->n_ports + 1, sizeof(int));
		for (size_t j = 0; j < s->n_ports; j++) {
			const struct svc_port *p = &s->ports[j];

			/* Each replica its own host port. */
			if (state_port_reserve_replica(
				u->l, u->plan->task, s->name, u->plan->containers[i].number,
				p->container_port, p->proto, SVC_HOST_IP, p->host_port, u->opts->port_lo,
				u->opts->port_hi, state_port_probe_bind, NULL, &u->host_ports[i][j], err) < 0)
				return te_err_prefix(err, "service '%s': ", s->name);
		}
	}
	return 0;
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

int up_ensure_network(struct up *u, const struct svc_plan_network *n, struct te_err *err)
{
	te_autojson cJSON *obj = NULL;
	te_autojson cJSON *body = NULL;
	te_autofree char *id = NULL;
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
	if (engine_network_inspect(u->e, n->name, &obj, err) == 0) {
		if (!up_owned(u->plan, obj))
			return up_not_ours(u, row, "network", n->name, err);
		up_step(u, "network", n->name, "exists");
		return state_resource_created(u->l, row, cJSON_GetStringValue(cJSON_GetObjectItem(obj, "Id")),
					      err);
	}
	if (err->code != TE_E_NOTFOUND)
		return -1;
	body = svc_plan_network_body(u->plan, n);
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
	if (engine_volume_inspect(u->e, v->name, &obj, err) == 0) {
		if (!up_owned(u->plan, obj))
			return up_not_ours(u, row, "volume", v->name, err);
		up_step(u, "volume", v->name, "exists");
		return state_resource_created(u->l, row, v->name, err);
	}
	if (err->code != TE_E_NOTFOUND)
		return -1;
	body = svc_plan_volume_body(u->plan, v);
	te_fault_point("before-create", "volume", v->name);
	if (engine_volume_create(u->e, body, err) < 0)
		return te_err_prefix(err, "create volume '%s': ", v->name);
	te_fault_point("after-create", "volume", v->name);
	up_step(u, "volume", v->name, "created");
	return state_resource_created(u->l, row, v->name, err);
}
