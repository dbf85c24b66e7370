#include "services/lifecycle/apply.h"
#include "services/model/compose.h"
#include "services/model/task.h"
#include "services/model/plan.h"
#include "services/lifecycle/health.h"
#include "services/model/policy.h"
#include "services/settings.h"
#include "services/lifecycle/drvrun.h"
#include "services/lifecycle/pgtpl.h"
#include "services/lifecycle/shared.h"
#include "state/secrets.h"
#include "services/lifecycle/retain.h"
#include "services/lifecycle/build.h"
#include "services/lifecycle/files.h"
#include "engine/engine.h"
#include "engine/build.h"
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
#include <unistd.h>
#include <time.h>

struct up {
	struct engine *e;
	struct ledger *l;
	struct svc_plan *plan;
	const struct svc_up_opts *opts;
	int **host_ports; /* per planned container, per service port */
	cJSON *values;	  /* resource key -> container-side values, owned */
	/* The shared server containers (one per driver, by svc_shared_slot)
	 * the resources without server: use, and the keys of those resources
	 * (its aliases on the task's networks, NULL-terminated, owned). */
	struct svc_shared shared[SVC_SHARED_MAX];
	char **shared_aliases[SVC_SHARED_MAX];
	char (*subnets)[2][20];	  /* per planned network: subnet, gateway ("" when none) */
	bool *need_build;	  /* per planned container */
	char **old_image;	  /* per planned container: image id a rebuild replaced, or NULL */
	struct svc_tmpl_ctx tmpl; /* templates built from migrations; .used: for the pool refill */
};

static void step(const struct up *u, const char *kind, const char *name, const char *what)
{
	if (u->opts->progress)
		u->opts->progress(u->opts->progress_ctx, kind, name, what);
}

int svc_up_opts_init(struct svc_up_opts *opts, const struct svc_settings *st, struct te_err *err)
{
	const struct svc_setting *ports = svc_settings_at(st, SVC_SET_PORT_RANGE);

	memset(opts, 0, sizeof(*opts));
	opts->port_lo = (int)ports->num;
	opts->port_hi = (int)ports->num2;
	opts->wait_timeout_s = (int)svc_settings_at(st, SVC_SET_WAIT_TIMEOUT)->num;
	return state_subnet_pool_parse(svc_settings_at(st, SVC_SET_SUBNET_POOL)->text,
				       (int)svc_settings_at(st, SVC_SET_SUBNET_PREFIX)->num, &opts->pool,
				       err);
}

/* Ours means: this task, in this ledger. Labels are the cross-check; the
 * ledger row is the claim. */
static bool owned(const struct svc_plan *plan, const cJSON *obj)
{
	return svc_labels_match(obj, plan->task, plan->ledger_id);
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

/* Engines and Compose spell some architectures differently. */
static const char *arch_alias(const char *a)
{
	if (strcmp(a, "x86_64") == 0 || strcmp(a, "x86-64") == 0)
		return "amd64";
	if (strcmp(a, "aarch64") == 0)
		return "arm64";
	return a;
}

/* platform: "os/arch[/variant]" must be what the engine runs: taskenv does
 * not set up emulation. */
static int check_platform(struct up *u, const struct svc_service *s, struct te_err *err)
{
	te_autojson cJSON *ver = NULL;
	te_autofree char *want = NULL;
	const char *os, *arch;
	char *slash, *arch_w;

	if (!s->platform)
		return 0;
	if (engine_call(u->e, "GET", "/version", NULL, NULL, &ver, err) < 0)
		return te_err_prefix(err, "service '%s': platform: ", s->name);
	os = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ver, "Os"));
	arch = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ver, "Arch"));
	want = xstrdup(s->platform);
	slash = strchr(want, '/');
	arch_w = slash ? slash + 1 : NULL;
	if (slash)
		*slash = '\0';
	if (arch_w && strchr(arch_w, '/'))
		*strchr(arch_w, '/') = '\0';
	if (os && arch && strcmp(want, os) == 0 &&
	    (!arch_w || strcmp(arch_alias(arch_w), arch_alias(arch)) == 0))
		return 0;
	return te_err_set(
	    err, TE_E_USAGE,
	    "service '%s': platform '%s' cannot run on this engine, which runs %s/%s (taskenv does "
	    "not set up emulation); remove platform: or use an engine of that platform",
	    s->name, s->platform, os ? os : "?", arch ? arch : "?");
}

/* Build when asked (up --build, pull_policy: build) or when the image is
 * missing; an image that is present is used as it is, as Compose does. */
static int check_image(struct up *u, size_t i, struct te_err *err)
{
	const struct svc_plan_container *c = &u->plan->containers[i];
	const struct svc_service *s = c->svc;
	te_autojson cJSON *img = NULL;
	bool forced =
	    c->build && (u->opts->build || (s->pull_policy && strcmp(s->pull_policy, "build") == 0));

	if (check_platform(u, s, err) < 0)
		return -1;
	/* Podman's compat API takes Config.Domainname and drops it (4.3), and
	 * refuses the kernel.domainname sysctl: say so rather than be silent. */
	if (s->domainname && strcmp(engine_flavor(u->e), "podman") == 0)
		step(u, "service", s->name,
		     "warning: domainname is not applied by Podman's Docker-compatible API");
	if (!forced) {
		te_fault_point("before-inspect", "image", c->image);
		if (engine_image_inspect(u->e, c->image, &img, err) == 0) {
			te_fault_point("after-inspect", "image", c->image);
			return 0;
		}
	}
	if (!forced && err->code != TE_E_NOTFOUND)
		return te_err_prefix(err, "service '%s': ", s->name);
	if (c->build) {
		u->need_build[i] = true;
		return 0;
	}
	step(u, "image", c->image, "pulling");
	if (engine_image_pull(u->e, c->image, err) < 0)
		return te_err_prefix(err, "service '%s': image '%s' is not present and could not be pulled: ",
				     s->name, c->image);
	step(u, "image", c->image, "pulled");
	return 0;
}

static int check_images(struct up *u, struct te_err *err)
{
	u->need_build = xcalloc(u->plan->n_containers + 1, sizeof(bool));
	for (size_t i = 0; i < u->plan->n_containers; i++)
		if (check_image(u, i, err) < 0)
			return -1;
	return 0;
}

/* The task's active image row for NAME, if any. */
static long long image_row(struct up *u, const char *name, struct te_err *err)
{
	struct state_resource *rows = NULL;
	size_t n = 0;
	long long id = 0;

	if (state_resource_list(u->l, u->plan->task, false, &rows, &n, err) < 0)
		return -1;
	for (size_t i = 0; i < n && !id; i++)
		if (strcmp(rows[i].kind, "image") == 0 && strcmp(rows[i].name, name) == 0)
			id = rows[i].id;
	state_resources_free(rows, n);
	return id;
}

/* Record, build, record the image id. An image: name another task already
 * holds is built but not claimed (the tag is shared; its owner removes it). */
/* The id C's tag points at before a rebuild, to replace what runs it. */
static void remember_old_image(struct up *u, const struct svc_plan_container *c)
{
	te_autojson cJSON *img = NULL;
	struct te_err ignored;
	const char *id;

	if (engine_image_inspect(u->e, c->image, &img, &ignored) < 0)
		return;
	id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(img, "Id"));
	u->old_image[c - u->plan->containers] = id ? xstrdup(id) : NULL;
}

static int build_one(struct up *u, const struct svc_plan_container *c, struct te_err *err)
{
	long long row = image_row(u, c->image, err);
	bool fresh = row == 0;
	te_autojson cJSON *img = NULL;
	const char *id;

	if (row < 0)
		return -1;
	remember_old_image(u, c);
	if (fresh &&
	    state_resource_intend(u->l, u->plan->task, "image", c->image, c->svc->name, &row, err) < 0) {
		if (err->code != TE_E_CONFLICT)
			return -1;
		row = 0;
		fresh = false;
	}
	step(u, "image", c->image, "building");
	if (svc_build_image(u->e, u->plan, c, u->opts->progress, u->opts->progress_ctx, err) < 0) {
		struct te_err ignored;

		if (fresh)
			state_resource_set_state(u->l, row, STATE_REMOVED, &ignored);
		return -1;
	}
	if (engine_image_inspect(u->e, c->image, &img, err) < 0)
		return te_err_prefix(err, "service '%s': built image '%s': ", c->svc->name, c->image);
	id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(img, "Id"));
	step(u, "image", c->image, "built");
	if (id && u->old_image[c - u->plan->containers] &&
	    strcmp(id, u->old_image[c - u->plan->containers]) == 0) {
		free(u->old_image[c - u->plan->containers]); /* the same image: nothing replaced */
		u->old_image[c - u->plan->containers] = NULL;
	}
	return row ? state_resource_created(u->l, row, id ? id : c->image, err) : 0;
}

static int build_all(struct up *u, struct te_err *err)
{
	u->old_image = xcalloc(u->plan->n_containers + 1, sizeof(char *));
	for (size_t i = 0; i < u->plan->n_containers; i++)
		if (u->need_build[i] && build_one(u, &u->plan->containers[i], err) < 0)
			return -1;
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
	if (network_create(u, body, &id, err) < 0)
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

/* What the Compose file declared for the container, kept in the ledger row
 * so `verify` can tell a declared host path from one added by hand:
 * {"declared_mounts":[{"type":"bind","source":ABS,"target","read_only"} |
 *  {"type":"volume","source":ENGINE NAME or null (anonymous),"target","read_only"}]}. */
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
	if (engine_container_create(u->e, c->name, body, &id, err) < 0)
		return te_err_prefix(err, "service '%s': create container '%s': ", c->svc->name, c->name);
	te_fault_point("after-create", "container", c->name);
	if (state_resource_created(u->l, row, id, err) < 0 || record_detail(u, c, row, err) < 0)
		return -1;
	step(u, "container", c->name, "created");
	if (connect_more(u, c, id, err) < 0)
		return te_err_prefix(err, "service '%s': ", c->svc->name);
	return start_container(u, c, id, err);
}

/* The container runs an image a rebuild has just replaced (Compose
 * recreates it then). */
static bool image_replaced(const struct up *u, size_t idx, const cJSON *obj)
{
	const char *running = cJSON_GetStringValue(cJSON_GetObjectItem(obj, "Image"));
	const char *old = u->old_image ? u->old_image[idx] : NULL;

	return old && running && strcmp(running, old) == 0;
}

static int recreate_container(struct up *u, size_t idx, const char *id, long long row, struct te_err *err)
{
	const struct svc_plan_container *c = &u->plan->containers[idx];
	int stop_s = c->svc->stop_grace_ns ? (int)((c->svc->stop_grace_ns + 999999999) / 1000000000) : 10;

	if ((engine_container_stop(u->e, id, stop_s, err) < 0 && err->code != TE_E_NOTFOUND) ||
	    (engine_container_remove(u->e, id, true, err) < 0 && err->code != TE_E_NOTFOUND))
		return te_err_prefix(err, "service '%s': replace container '%s': ", c->svc->name, c->name);
	step(u, "container", c->name, "removed (image rebuilt)");
	return create_container(u, idx, row, err);
}

/* After a rebuild, the image it replaced is untagged: remove it when it is
 * ours and nothing uses it any more (a failure leaves it, harmlessly). */
static void drop_old_images(struct up *u)
{
	for (size_t i = 0; u->old_image && i < u->plan->n_containers; i++) {
		te_autojson cJSON *img = NULL;
		const cJSON *tags;
		struct te_err ignored;

		if (!u->old_image[i] || engine_image_inspect(u->e, u->old_image[i], &img, &ignored) < 0)
			continue;
		tags = cJSON_GetObjectItemCaseSensitive(img, "RepoTags");
		if (!owned(u->plan, img) || cJSON_GetArraySize(tags) > 0)
			continue;
		if (engine_image_remove(u->e, u->old_image[i], false, &ignored) == 0)
			step(u, "image", u->old_image[i], "removed (replaced by a rebuild)");
	}
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
	if (state_resource_created(u->l, row, id, err) < 0 || record_detail(u, c, row, err) < 0)
		return -1;
	if (image_replaced(u, idx, obj))
		return recreate_container(u, idx, id, row, err);
	if (cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(obj, "State"), "Running"))) {
		step(u, "container", c->name, "running");
		return 0;
	}
	return start_container(u, c, id, err);
}

/* depends_on conditions of container IDX: its dependencies are earlier in
 * the plan, so they have been started already. */
static int wait_deps(struct up *u, size_t idx, struct te_err *err)
{
	const struct svc_service *s = u->plan->containers[idx].svc;

	for (size_t d = 0; d < s->n_deps; d++) {
		const struct svc_dep *dep = &s->deps[d];
		te_autofree char *name = NULL;

		if (strcmp(dep->condition, "service_started") == 0)
			continue;
		name = svc_name_container(u->plan->task, dep->service, 1);
		step(u, "container", name, dep->condition);
		if (svc_wait_condition(u->e, name, dep->service, dep->condition, u->opts->wait_timeout_s,
				       err) < 0)
			return te_err_prefix(err, "service '%s' depends on '%s': ", s->name, dep->service);
	}
	return 0;
}

/* The shared server container of R's driver, started once per `up`. */
static struct svc_shared *shared_for(struct up *u, const struct svc_resource *r, struct te_err *err)
{
	int slot = svc_shared_slot(r->driver);
	struct svc_shared *sh = slot >= 0 ? &u->shared[slot] : NULL;
	te_autofree char *name = xasprintf("taskenv-shared-%s", r->driver);

	if (!sh)
		return te_err_set(err, TE_E_USAGE,
				  "driver '%s' has no shared server: give server:", r->driver),
		       NULL;
	if (sh->container)
		return sh;
	if (svc_shared_start(u->e, u->l, r->driver, r->image, sh, err) < 0)
		return NULL;
	step(u, "container", name, sh->was_running ? "running (shared server)" : "started (shared server)");
	return sh;
}

/* Each shared server started for this `up` answers. */
static int shared_ready(struct up *u, struct te_err *err)
{
	for (size_t k = 0; k < SVC_SHARED_MAX; k++) {
		te_autofree char *name = NULL;

		if (!u->shared[k].container)
			continue;
		name = xasprintf("taskenv-shared-%s", u->shared[k].driver);
		if (svc_shared_ready(&u->shared[k], err) < 0)
			return te_err_prefix(err, "shared %s server container: ", u->shared[k].driver);
		step(u, "container", name, "ready");
	}
	return 0;
}

/* Where each resource lives: its server: URL, or the shared container of
 * its driver (reached as "<key>:<port>" from the task's networks, and at
 * 127.0.0.1:<published port> from the host: the driver records that). */
static int drv_targets(struct up *u, struct svc_drv_target *t, struct te_err *err)
{
	const struct svc_project *p = u->plan->project;

	for (size_t i = 0; i < p->n_resources; i++) {
		const struct svc_resource *r = &p->resources[i];
		struct svc_shared *sh;
		size_t k;

		t[i] = (struct svc_drv_target){r->server, r->container_host, NULL, r->amqp_port, NULL, NULL};
		if (r->build) {
			t[i].prepare = svc_tmpl_prepare;
			t[i].prepare_ctx = &u->tmpl;
		}
		if (r->server)
			continue;
		sh = shared_for(u, r, err);
		if (!sh)
			return te_err_prefix(err, "resource '%s' (driver %s, shared server): ", r->key,
					     r->driver);
		k = (size_t)(sh - u->shared);
		u->shared_aliases[k] = te_strv_push(u->shared_aliases[k], xstrdup(r->key));
		t[i].server = sh->admin_url;
		t[i].container_host = r->key;
		t[i].container_port = sh->port;
		t[i].amqp_port = sh->amqp_port;
	}
	return shared_ready(u, err);
}

/* up --wait: every service with a healthcheck is healthy. */
static int wait_all(struct up *u, struct te_err *err)
{
	for (size_t i = 0; u->opts->wait && i < u->plan->n_containers; i++) {
		const struct svc_plan_container *c = &u->plan->containers[i];

		if (!c->svc->health.set || c->svc->health.disable || !c->svc->health.test)
			continue;
		if (svc_wait_condition(u->e, c->name, c->svc->name, "service_healthy",
				       u->opts->wait_timeout_s, err) < 0)
			return -1;
		step(u, "container", c->name, "healthy");
	}
	return 0;
}

static int attach_shared(struct up *u, struct te_err *err)
{
	for (size_t k = 0; k < SVC_SHARED_MAX; k++)
		for (size_t i = 0; u->shared[k].container && i < u->plan->n_networks; i++) {
			const struct svc_plan_network *n = &u->plan->networks[i];

			if (!n->external && svc_shared_attach(u->e, u->shared[k].container, n->name,
							      u->shared_aliases[k], err) < 0)
				return -1;
		}
	return 0;
}

static bool builds_templates(const struct svc_project *p)
{
	for (size_t i = 0; i < p->n_resources; i++)
		if (p->resources[i].build)
			return true;
	return false;
}

/* Networks (with the shared servers attached), then volumes. */
static int create_rooms(struct up *u, struct te_err *err)
{
	for (size_t i = 0; i < u->plan->n_networks; i++)
		if (ensure_network(u, &u->plan->networks[i], err) < 0)
			return -1;
	if (attach_shared(u, err) < 0)
		return -1;
	for (size_t i = 0; i < u->plan->n_volumes; i++)
		if (ensure_volume(u, &u->plan->volumes[i], err) < 0)
			return -1;
	return 0;
}

/* Driver resources first: a server that refuses leaves no engine object
 * behind, and containers need their values injected. A template built
 * from migrations changes that order: its migration runs as a one-off
 * container of a service, on the task's networks and with its volumes, as
 * `taskenv run` would, so those come first (a failing server then leaves
 * them recorded for `down`, like any failed `up`). */
static int create_all(struct up *u, struct te_err *err)
{
	te_autofree struct svc_drv_target *t = xcalloc(u->plan->project->n_resources + 1, sizeof(*t));
	bool rooms_first = builds_templates(u->plan->project);

	u->tmpl = (struct svc_tmpl_ctx){u->e, u->l, u->plan, u->opts->progress, u->opts->progress_ctx, NULL};
	if (drv_targets(u, t, err) < 0 || (rooms_first && create_rooms(u, err) < 0))
		return -1;
	if (svc_drivers_up(u->l, u->plan->project, u->plan->task, t, u->opts->progress, u->opts->progress_ctx,
			   &u->values, err) < 0)
		return -1;
	if (!rooms_first && create_rooms(u, err) < 0)
		return -1;
	for (size_t i = 0; i < u->plan->n_containers; i++)
		if (wait_deps(u, i, err) < 0 || ensure_container(u, i, err) < 0)
			return -1;
	return wait_all(u, err);
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
	state_secrets_drop(u->l, u->plan->task, &ignored);
	state_subnet_release_task(u->l, u->plan->task, &ignored);
	if (state_task_delete(u->l, u->plan->task, &ignored) == 0 && u->plan->files_dir)
		svc_files_remove(u->plan->files_dir, &ignored);
}

static void up_release(struct up *u)
{
	for (size_t i = 0; u->host_ports && i < u->plan->n_containers; i++)
		free(u->host_ports[i]);
	free(u->host_ports);
	free(u->subnets);
	cJSON_Delete(u->values);
	for (size_t k = 0; k < SVC_SHARED_MAX; k++) {
		svc_shared_release(&u->shared[k]);
		te_strv_free(u->shared_aliases[k]);
	}
	free(u->need_build);
	for (size_t i = 0; u->old_image && i < u->plan->n_containers; i++)
		free(u->old_image[i]);
	free(u->old_image);
	te_strv_free(u->tmpl.used);
	svc_plan_free(u->plan);
}

/* The exceptions this task runs with, for `taskenv contract`. */
static int record_allow(struct up *u, const struct svc_project *p, struct te_err *err)
{
	te_autojson cJSON *a = cJSON_CreateArray();
	te_autofree char *text = NULL;

	for (size_t i = 0; p->allow && p->allow[i]; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(p->allow[i]));
	for (size_t i = 0; u->opts->allow && u->opts->allow[i]; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(u->opts->allow[i]));
	text = cJSON_PrintUnformatted(a);
	return state_task_set_allow(u->l, u->plan->task, text, err);
}

/* The same check as `taskenv check`: nothing is created when it refuses. */
static int policy_gate(const struct svc_project *project, const struct svc_up_opts *opts, struct te_err *err)
{
	struct svc_finding *f = NULL;
	size_t n = 0;
	te_autofree char *first = NULL;

	if (svc_policy_validate(project, opts->allow, err) < 0)
		return -1;
	svc_policy_check(project, opts->allow, &f, &n);
	if (n == 0)
		return 0;
	first = svc_finding_format(&f[0]);
	svc_findings_free(f, n);
	if (n == 1)
		return te_err_set(err, TE_E_POLICY, "refused: %s", first);
	return te_err_set(err, TE_E_POLICY, "refused (%zu findings, see 'taskenv check'): %s", n, first);
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
	if (record_allow(u, project, err) < 0 || record_owner(u, err) < 0) {
		forget_if_empty(u);
		return -1;
	}
	if (build_all(u, err) < 0 || svc_files_write(u->plan, err) < 0 || reserve_ports(u, err) < 0 ||
	    reserve_subnets(u, err) < 0 || create_all(u, err) < 0) {
		fail_after(u);
		return -1;
	}
	drop_old_images(u);
	state_event_add(u->l, task, "up", "up complete", err);
	if (state_task_set_retention(u->l, task, 0, NULL, NULL, err) < 0)
		return -1;
	return state_task_set_status(u->l, task, "up", err);
}

static void spawn_refill(struct up *u)
{
	struct te_err e2 = {0};
	char what[sizeof(e2.msg) + 32];

	if (svc_pool_spawn(u->l, u->tmpl.used, &e2) == 0)
		return;
	snprintf(what, sizeof(what), "not started: %s", e2.msg);
	step(u, "postgres-pool", "refill", what);
}

int svc_up(struct engine *e, struct ledger *l, const struct svc_project *project, const char *task,
	   const struct svc_up_opts *opts, struct te_err *err)
{
	struct up u = {.e = e, .l = l, .opts = opts};
	int rc, lock = -1;

	if (policy_gate(project, opts, err) < 0)
		return -1;
	u.plan = svc_plan_build(project, task, state_ledger_id(l), err);
	if (!u.plan)
		return -1;
	u.plan->files_dir = svc_files_dir(l, task);
	rc = state_task_lock(l, task, true, &lock, err);
	if (rc == 0)
		rc = up_run(&u, project, err);
	state_task_unlock(lock);
	/* The pool is refilled after the task is up, by a process of its own:
	 * `up` does not wait for it (and the task's lock is free by now). */
	if (rc == 0 && u.tmpl.used)
		spawn_refill(&u);
	up_release(&u);
	return rc;
}
