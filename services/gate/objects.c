/* The other bodies the gate judges: POST /networks/create, /volumes/create,
 * /build (its query), /containers/{id}/exec, /networks/{id}/connect; the
 * reserved labels; which networks and volumes a container may use; the
 * host paths taskenv reads for the file. */
#include "services/gate/gate_int.h"
#include "services/model/plan.h"
#include "services/model/config_hash.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- labels ---- */

void gate_labels(struct gate *g, const struct gate_at *at, const cJSON *labels, bool shared)
{
	const cJSON *it;

	cJSON_ArrayForEach (it, labels) {
		const char *k = it->string;
		const char *v = cJSON_GetStringValue(it);
		const char *want = NULL;

		if (strncmp(k, "io.taskenv.", 11) != 0)
			continue;
		/* Facts about the object, not claims of ownership (nothing keys
		 * trust on them): a file that writes its own config hash only
		 * makes its own up recreate; io.taskenv.server names the driver of
		 * a task's own server container (lifecycle/shared.c). */
		if (strcmp(k, "io.taskenv.version") == 0 || strcmp(k, SVC_LABEL_ORIGINAL_NAME) == 0 ||
		    strcmp(k, SVC_LABEL_CONFIG_HASH) == 0 || strcmp(k, SVC_LABEL_CONFIG_PARTS) == 0 ||
		    strcmp(k, "io.taskenv.server") == 0)
			continue;
		if (strcmp(k, "io.taskenv.ledger") == 0)
			want = g->ledger_id;
		else if (strcmp(k, "io.taskenv.task") == 0 && !shared)
			want = g->task;
		else if (strcmp(k, "io.taskenv.shared") == 0 && shared)
			continue;
		else {
			gate_add(g, at, "labels", NULL,
				 xasprintf("label '%s': the io.taskenv. prefix is taskenv's", k));
			continue;
		}
		if (want && (!v || strcmp(v, want) != 0))
			gate_add(
			    g, at, "labels", NULL,
			    xasprintf("label '%s=%s' names another owner than this task", k, v ? v : ""));
	}
}

char *gate_image_label_claim(const cJSON *image, const cJSON *labels)
{
	const cJSON *it;

	cJSON_ArrayForEach (
	    it, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(image, "Config"), "Labels"))
		if (it->string && strncmp(it->string, "io.taskenv.", 11) == 0 &&
		    !cJSON_GetObjectItemCaseSensitive(labels, it->string))
			return xstrdup(it->string);
	return NULL;
}

void gate_image_labels(struct gate *g, const struct gate_at *at, const cJSON *body)
{
	const char *image = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(body, "Image"));
	te_autojson cJSON *img = NULL;
	te_autofree char *claim = NULL;
	enum gate_owner o;

	if (!image || gate_lookup_owner(g, "image", image, &o, &img, NULL) < 0)
		return; /* no engine (check), or not there yet: up asks again */
	claim = gate_image_label_claim(img, cJSON_GetObjectItemCaseSensitive(body, "Labels"));
	if (claim)
		gate_add(g, at, "image", NULL,
			 xasprintf("image '%s' carries the label '%s': the io.taskenv. prefix is taskenv's, "
				   "and a container would inherit it",
				   image, claim));
}

/* ---- networks and volumes a container uses ---- */

static bool default_network(const char *name)
{
	static const char *const names[] = {"bridge", "default", "podman", "host", "none", "nat"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(names[i], name) == 0)
			return true;
	return false;
}

/* In the plan: 1 this task's, 2 declared external, 0 not in it. */
static int planned(const struct gate *g, bool network, const char *name)
{
	size_t n = !g->plan ? 0 : network ? g->plan->n_networks : g->plan->n_volumes;

	for (size_t i = 0; i < n; i++) {
		const char *nm = network ? g->plan->networks[i].name : g->plan->volumes[i].name;
		bool ext = network ? g->plan->networks[i].external : g->plan->volumes[i].external;

		if (strcmp(nm, name) == 0)
			return ext ? 2 : 1;
	}
	return 0;
}

/* Volume NAME, which carries no labels, is mounted by a container of this
 * task: an anonymous volume a recreate hands from the old container to the
 * new one (docs/up.md). Reusing what the task already has opens nothing. */
static bool mounted_by_task(struct gate *g, const char *name)
{
	te_autojson cJSON *list = NULL;
	struct te_err err = {0};
	const cJSON *c, *m;

	if (!g->task || !g->lookup ||
	    g->lookup(g->lookup_ctx, "containers-of-task", g->task, &list, &err) < 0)
		return false;
	cJSON_ArrayForEach (c, list) {
		if (gate_owner_of(g, c) != GATE_OWN_TASK)
			continue;
		cJSON_ArrayForEach (m, cJSON_GetObjectItemCaseSensitive(c, "Mounts")) {
			const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "Type"));
			const char *n = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "Name"));

			if (type && strcmp(type, "volume") == 0 && n && strcmp(n, name) == 0)
				return true;
		}
	}
	return false;
}

static void object_use(struct gate *g, const struct gate_at *at, const char *key, const char *name,
		       bool network)
{
	const char *kind = network ? "network" : "volume";
	const char *allow = network ? "external-network" : "external-volume";
	int p = planned(g, network, name);
	enum gate_owner o;
	bool missing = false;

	if (network && default_network(name)) {
		gate_add(
		    g, at, key, NULL,
		    xasprintf("'%s' is the engine's shared default network: a task uses its own networks",
			      name));
		return;
	}
	if (p == 1)
		return;
	if (gate_lookup_owner(g, kind, name, &o, NULL, &missing) == 0) {
		if (o == GATE_OWN_TASK || o == GATE_OWN_SHARED)
			return;
		if (o == GATE_OWN_OTHER) {
			gate_add(g, at, key, NULL, xasprintf("%s '%s' belongs to another task", kind, name));
			return;
		}
		if (!network && p == 0 && mounted_by_task(g, name))
			return;
	}
	gate_add(g, at, key, allow, xasprintf("%s '%s' is not this task's (external)", kind, name));
}

void gate_network_use(struct gate *g, const struct gate_at *at, const char *key, const char *name)
{
	object_use(g, at, key, name, true);
}

void gate_volume_use(struct gate *g, const struct gate_at *at, const char *key, const char *name)
{
	object_use(g, at, key, name, false);
}

/* ---- where a network's or volume's body came from ---- */

static struct gate_at object_at(const struct gate *g, const char *name, bool network)
{
	struct gate_at at = {NULL, name ? name : (network ? "network" : "volume"), {0}};
	size_t n = !g->plan ? 0 : network ? g->plan->n_networks : g->plan->n_volumes;

	for (size_t i = 0; name && i < n; i++) {
		const struct svc_plan_network *pn = network ? &g->plan->networks[i] : NULL;
		const struct svc_plan_volume *pv = network ? NULL : &g->plan->volumes[i];

		if (strcmp(network ? pn->name : pv->name, name) != 0)
			continue;
		at.subject = network ? pn->key : pv->key;
		if (network && pn->decl)
			at.loc = pn->decl->loc;
		if (!network && pv->decl)
			at.loc = pv->decl->loc;
	}
	return at;
}

/* Task objects are named "<task>_<key>"; the shared network its own. */
static void scoped_name(struct gate *g, const struct gate_at *at, const char *name, bool shared)
{
	te_autofree char *prefix = NULL;

	if (!name) {
		gate_add(g, at, "name", NULL, xstrdup("no Name"));
		return;
	}
	if (shared)
		prefix = xasprintf("0--taskenv-shared-");
	else if (g->task)
		prefix = xasprintf("%s_", g->task);
	if (prefix && strncmp(name, prefix, strlen(prefix)) != 0)
		gate_add(g, at, "name", NULL, xasprintf("'%s' is not a name of this task", name));
}

static bool shared_labels(const struct gate *g, const cJSON *labels)
{
	const char *led = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(labels, "io.taskenv.ledger"));

	return cJSON_GetObjectItemCaseSensitive(labels, "io.taskenv.shared") &&
	       !cJSON_GetObjectItemCaseSensitive(labels, "io.taskenv.task") && led && g->ledger_id &&
	       strcmp(led, g->ledger_id) == 0;
}

/* ---- POST /networks/create ---- */

static void r_net_driver(struct gate *g, const struct gate_at *at, const struct gate_field *f, const cJSON *v)
{
	const char *d = cJSON_GetStringValue(v);

	(void)f;
	if (!d || strcmp(d, "bridge") != 0)
		gate_add(g, at, "driver", "network-driver",
			 xasprintf("network driver '%s' (bridge only)", d ? d : "?"));
}

/* Bridge options that change nothing outside the network. */
static void r_net_options(struct gate *g, const struct gate_at *at, const struct gate_field *f,
			  const cJSON *v)
{
	static const char *const ok[] = {"com.docker.network.driver.mtu",
					 "com.docker.network.bridge.enable_icc",
					 "com.docker.network.bridge.enable_ip_masquerade", "mtu"};
	const cJSON *it;

	(void)f;
	cJSON_ArrayForEach (it, v) {
		bool fine = strcmp(it->string, "com.docker.network.bridge.name") == 0 && g->bridge &&
			    cJSON_IsString(it) && strcmp(it->valuestring, g->bridge) == 0;

		for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
			fine = fine || strcmp(it->string, ok[i]) == 0;
		if (!fine)
			gate_add(g, at, "driver_opts", "network-driver",
				 xasprintf("network driver option '%s'", it->string));
	}
}

static void r_ipam(struct gate *g, const struct gate_at *at, const struct gate_field *f, const cJSON *v)
{
	const char *d = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(v, "Driver"));

	(void)f;
	if (d && strcmp(d, "default") != 0)
		gate_add(g, at, "ipam", "network-driver", xasprintf("IPAM driver '%s'", d));
}

static void r_obj_labels(struct gate *g, const struct gate_at *at, const struct gate_field *f, const cJSON *v)
{
	(void)f;
	gate_labels(g, at, v, shared_labels(g, v));
}

static const struct gate_field network_fields[] = {
    {"Name", NULL, -1, NULL},
    {"Driver", "driver", -1, r_net_driver},
    {"CheckDuplicate", NULL, -1, NULL},
    {"Internal", "internal", -1, NULL},
    {"Attachable", "attachable", -1, NULL},
    {"EnableIPv6", "enable_ipv6", -1, NULL},
    {"Options", "driver_opts", -1, r_net_options},
    {"IPAM", "ipam", -1, r_ipam},
    {"Labels", "labels", -1, r_obj_labels},
};

/* The bridge taskenv names after the network's subnet (apply_net.c):
 * "te-" and the subnet's address in hex, ours alone on this host. */
static void bridge_of(char out[16], const cJSON *body)
{
	const cJSON *cfg =
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(body, "IPAM"), "Config");
	const char *subnet =
	    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cfg, 0), "Subnet"));
	char ip[20];
	struct in_addr a;

	out[0] = '\0';
	if (!subnet)
		return;
	snprintf(ip, sizeof(ip), "%.*s", (int)strcspn(subnet, "/"), subnet);
	if (inet_pton(AF_INET, ip, &a) == 1)
		snprintf(out, 16, "te-%08x", (unsigned)ntohl(a.s_addr));
}

void gate_network_create(struct gate *g, const cJSON *body)
{
	const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(body, "Name"));
	struct gate_at at = object_at(g, name, true);
	char br[16];

	bridge_of(br, body);
	g->bridge = br[0] ? br : NULL;

	scoped_name(g, &at, name, shared_labels(g, cJSON_GetObjectItemCaseSensitive(body, "Labels")));
	gate_fields(g, &at, network_fields, sizeof(network_fields) / sizeof(network_fields[0]), "network",
		    body);
	g->bridge = NULL;
}

/* ---- POST /volumes/create ---- */

static void r_vol_driver(struct gate *g, const struct gate_at *at, const struct gate_field *f, const cJSON *v)
{
	const char *d = cJSON_GetStringValue(v);

	(void)f;
	if (!d || strcmp(d, "local") != 0)
		gate_add(g, at, "driver", "volume-driver",
			 xasprintf("volume driver '%s' (local only)", d ? d : "?"));
}

/* On the local driver, type/o/device make the volume a mount of the
 * host's choosing: a bind of DEVICE (judged as a bind source), or a
 * file system (nfs, cifs, a block device) that needs volume-driver. */
static void r_vol_opts(struct gate *g, const struct gate_at *at, const struct gate_field *f, const cJSON *v)
{
	const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(v, "type"));
	const char *o = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(v, "o"));
	const char *device = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(v, "device"));
	const cJSON *it;

	(void)f;
	cJSON_ArrayForEach (it, v)
		if (strcmp(it->string, "type") != 0 && strcmp(it->string, "o") != 0 &&
		    strcmp(it->string, "device") != 0)
			gate_add(g, at, "driver_opts", "volume-driver",
				 xasprintf("volume driver option '%s'", it->string));
	if (!type && !o && !device)
		return;
	if (o && strstr(o, "bind")) {
		if (!device || device[0] != '/')
			gate_add(g, at, "driver_opts", NULL,
				 xasprintf("a bind volume's device '%s' must be an absolute path",
					   device ? device : ""));
		else
			gate_host_path(g, at, "driver_opts", device, o && strstr(o, "ro") != NULL);
		return;
	}
	if (type && strcmp(type, "tmpfs") == 0 && (!device || strcmp(device, "tmpfs") == 0))
		return;
	gate_add(g, at, "driver_opts", "volume-driver",
		 xasprintf("a local volume of type '%s' on '%s' mounts what the host has", type ? type : "",
			   device ? device : ""));
}

static const struct gate_field volume_fields[] = {
    {"Name", NULL, -1, NULL},
    {"Driver", "driver", -1, r_vol_driver},
    {"DriverOpts", "driver_opts", -1, r_vol_opts},
    {"Labels", "labels", -1, r_obj_labels},
};

void gate_volume_create(struct gate *g, const cJSON *body)
{
	const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(body, "Name"));
	struct gate_at at = object_at(g, name, false);
	const char *driver = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(body, "Driver"));

	scoped_name(g, &at, name, false);
	gate_fields(g, &at, volume_fields, sizeof(volume_fields) / sizeof(volume_fields[0]), "volume", body);
	/* Another driver's options are its own business, opened with volume-driver. */
	(void)driver;
}

/* ---- POST /build ---- */

static char *unescaped(const char *s, size_t n)
{
	char *out = xmalloc(n + 1);
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '%' && i + 2 < n) {
			char hex[3] = {s[i + 1], s[i + 2], 0};

			out[k++] = (char)strtol(hex, NULL, 16);
			i += 2;
			continue;
		}
		out[k++] = s[i];
	}
	out[k] = '\0';
	return out;
}

static const struct svc_service *service_of_image(const struct gate *g, const char *tag)
{
	for (size_t i = 0; g->plan && tag && i < g->plan->n_containers; i++)
		if (g->plan->containers[i].build && strcmp(g->plan->containers[i].image, tag) == 0)
			return g->plan->containers[i].svc;
	return NULL;
}

/* The tag a build replaces: none, or an image this task built. */
static void build_tag(struct gate *g, const struct gate_at *at, const char *tag)
{
	enum gate_owner o;
	bool missing = false;

	if (gate_lookup_owner(g, "image", tag, &o, NULL, &missing) < 0 || o == GATE_OWN_TASK)
		return; /* no such image, or no engine to ask (check): up asks */
	gate_add(
	    g, at, "image", NULL,
	    xasprintf("the build would replace image '%s', which %s", tag,
		      o == GATE_OWN_OTHER ? "another task built" : "taskenv did not build for this task"));
}

static void build_param(struct gate *g, const struct gate_at *at, const char *k, const char *v)
{
	static const char *const any[] = {"dockerfile", "buildargs", "target", "shmsize", "extrahosts",
					  "cachefrom",	"pull",	     "rm",     "forcerm", "layers"};
	te_autojson cJSON *labels = NULL;
	te_autofree char *cred = gate_credential_in(v);

	if (cred)
		gate_add(
		    g, at, strcmp(k, "buildargs") == 0 ? "build.args" : "build", "host-credentials",
		    xasprintf("build parameter '%s' carries the host's credential variable %s", k, cred));
	for (size_t i = 0; i < sizeof(any) / sizeof(any[0]); i++)
		if (strcmp(k, any[i]) == 0)
			return;
	if (strcmp(k, "t") == 0)
		return build_tag(g, at, v);
	if (strcmp(k, "labels") == 0) {
		labels = cJSON_Parse(v);
		gate_labels(g, at, labels, false);
		return;
	}
	if (strcmp(k, "networkmode") == 0) {
		if (strcmp(v, "host") == 0)
			gate_add(g, at, "build.network", "host-network",
				 xstrdup("build.network: host shares the host's network"));
		else if (*v && strcmp(v, "default") != 0 && strcmp(v, "none") != 0)
			gate_add(g, at, "build.network", NULL,
				 xasprintf("build.network: '%s' (only the default, or none)", v));
		return;
	}
	gate_add(g, at, "build", NULL, xasprintf("build parameter '%s' is one taskenv never sends", k));
}

void gate_build(struct gate *g, const char *query)
{
	te_autofree char *tag = NULL;
	const struct svc_service *svc;
	struct gate_at at;

	for (const char *p = query; p && *p;) {
		size_t n = strcspn(p, "&");

		if (strncmp(p, "t=", 2) == 0)
			tag = unescaped(p + 2, n - 2);
		p += n + (p[n] == '&');
	}
	svc = service_of_image(g, tag);
	at = (struct gate_at){svc, svc ? svc->name : "build", svc ? svc->build.loc : (struct svc_loc){0}};
	if (svc && svc->key_loc[SVC_K_BUILD].line)
		at.loc = svc->key_loc[SVC_K_BUILD];
	for (const char *p = query; p && *p;) {
		size_t n = strcspn(p, "&");
		const char *eq = memchr(p, '=', n);
		te_autofree char *k = eq ? xstrndup(p, (size_t)(eq - p)) : xstrndup(p, n);
		te_autofree char *v = eq ? unescaped(eq + 1, n - (size_t)(eq + 1 - p)) : xstrdup("");

		if (n)
			build_param(g, &at, k, v);
		p += n + (p[n] == '&');
	}
}

/* ---- POST /containers/{id}/exec ---- */

static void r_exec_privileged(struct gate *g, const struct gate_at *at, const struct gate_field *f,
			      const cJSON *v)
{
	(void)f;
	if (cJSON_IsTrue(v))
		gate_add(g, at, "exec --privileged", "privileged",
			 xstrdup("exec --privileged gives the process every capability of the host"));
}

static const struct gate_field exec_fields[] = {
    {"AttachStdin", NULL, -1, NULL},
    {"AttachStdout", NULL, -1, NULL},
    {"AttachStderr", NULL, -1, NULL},
    {"Tty", NULL, -1, NULL},
    {"Privileged", NULL, -1, r_exec_privileged},
    {"Cmd", NULL, -1, NULL},
    {"Env", NULL, -1, NULL},
    {"User", NULL, -1, NULL},
    {"WorkingDir", NULL, -1, NULL},
    {"DetachKeys", NULL, -1, NULL},
    /* How the docker CLI attaches (exec -it through the broker). */
    {"Detach", NULL, -1, NULL},
    {"ConsoleSize", NULL, -1, NULL},
};

void gate_exec_create(struct gate *g, const char *container, const cJSON *body)
{
	struct gate_at at = {NULL, container, {0}};

	gate_fields(g, &at, exec_fields, sizeof(exec_fields) / sizeof(exec_fields[0]), "exec", body);
}

/* ---- POST /networks/{id}/connect ---- */

static const struct gate_field endpoint_fields[] = {{"Aliases", NULL, -1, NULL}};

void gate_network_connect(struct gate *g, const char *network, const cJSON *body)
{
	const char *c = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(body, "Container"));
	struct gate_at at = {NULL, c ? c : "container", {0}};
	const cJSON *it;
	enum gate_owner o;

	cJSON_ArrayForEach (it, body)
		if (strcmp(it->string, "Container") != 0 && strcmp(it->string, "EndpointConfig") != 0)
			gate_add(g, &at, "networks", NULL,
				 xasprintf("connect field '%s' is one taskenv never sends", it->string));
	gate_fields(g, &at, endpoint_fields, 1, "EndpointConfig",
		    cJSON_GetObjectItemCaseSensitive(body, "EndpointConfig"));
	gate_network_use(g, &at, "networks", network);
	if (c && gate_lookup_owner(g, "container", c, &o, NULL, NULL) == 0 && o == GATE_OWN_SHARED)
		return;
	if (!c || !gate_task_container(g, c))
		gate_add(g, &at, "networks", NULL,
			 xasprintf("container '%s' is not this task's", c ? c : "?"));
}

/* ---- the host paths taskenv reads for the file ---- */

static void project_files(struct gate *g, const struct svc_service *s)
{
	struct gate_at at = {s, s->name, s->loc};

	for (size_t i = 0; i < s->n_env_paths; i++) {
		at.loc = s->env_paths[i].loc;
		gate_host_path(g, &at, "env_file", s->env_paths[i].key, true);
	}
	/* Secret and config files reach the engine as binds: judged there. */
	if (!s->build.set)
		return;
	at.loc = s->key_loc[SVC_K_BUILD].line ? s->key_loc[SVC_K_BUILD] : s->build.loc;
	if (s->build.context)
		gate_host_path(g, &at, "build.context", s->build.context, true);
	if (s->build.context && s->build.dockerfile) {
		te_autofree char *df = s->build.dockerfile[0] == '/'
					   ? xstrdup(s->build.dockerfile)
					   : xasprintf("%s/%s", s->build.context, s->build.dockerfile);

		gate_host_path(g, &at, "build.dockerfile", df, true);
	}
}

/* A secret or config taken from a host variable that looks like a
 * credential passes it into the container by name: host-credentials. */
static void env_files(struct gate *g, const struct svc_file_decl *d, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++) {
		struct gate_at at = {NULL, d[i].key, d[i].loc};

		if (d[i].kind != SVC_FILE_ENV || !d[i].env || !getenv(d[i].env) ||
		    !gate_credential_name(d[i].env, strlen(d[i].env)))
			continue;
		gate_add(g, &at, key, "host-credentials",
			 xasprintf("%s '%s' passes the host's credential variable %s into the container", key,
				   d[i].key, d[i].env));
	}
}

/* The io.taskenv. labels taskenv writes itself replace what a file writes
 * there, so the body never shows the file's: judged as written. The rest
 * of the prefix is refused in the body (gate_labels). */
static void file_labels(struct gate *g, const char *subject, const struct svc_kv *kv, size_t n)
{
	static const char *const own[] = {
	    "io.taskenv.task",	   "io.taskenv.ledger",	   "io.taskenv.version", SVC_LABEL_ORIGINAL_NAME,
	    SVC_LABEL_CONFIG_HASH, SVC_LABEL_CONFIG_PARTS, "io.taskenv.server"};

	for (size_t i = 0; i < n; i++) {
		struct gate_at at = {NULL, subject, kv[i].loc};

		for (size_t j = 0; j < sizeof(own) / sizeof(own[0]); j++)
			if (strcmp(kv[i].key, own[j]) == 0)
				gate_add(g, &at, "labels", NULL,
					 xasprintf("label '%s': the io.taskenv. prefix is taskenv's (a file "
						   "never writes it)",
						   kv[i].key));
	}
}

int gate_judge_project(struct gate *g, const struct svc_project *p)
{
	size_t before = g->n;

	for (size_t i = 0; i < p->n_services; i++) {
		const struct svc_service *s = &p->services[i];

		project_files(g, s);
		file_labels(g, s->name, s->labels, s->n_labels);
		file_labels(g, s->name, s->build.labels, s->build.n_labels);
	}
	for (size_t i = 0; i < p->n_networks; i++)
		file_labels(g, p->networks[i].key, p->networks[i].labels, p->networks[i].n_labels);
	for (size_t i = 0; i < p->n_volumes; i++)
		file_labels(g, p->volumes[i].key, p->volumes[i].labels, p->volumes[i].n_labels);
	env_files(g, p->secrets, p->n_secrets, "secrets");
	env_files(g, p->configs, p->n_configs, "configs");
	return g->n > before ? -1 : 0;
}

/* ---- what the file asks for, and what the trusted side gives ---- */

int gate_judge_needed(struct gate *g, const struct svc_project *p)
{
	size_t before = g->n;
	struct gate_at at = {NULL, "x-taskenv", {p->files ? p->files[0] : NULL, 1, 1}};

	for (size_t i = 0; p->allow && p->allow[i]; i++) {
		if (gate_granted(g, p->allow[i]))
			continue;
		gate_add(g, &at, "allow", p->allow[i],
			 xasprintf("the file needs exception '%s', which only the trusted side grants: "
				   "--allow %s, or in the config file 'allow: [%s]' or "
				   "'projects: {%s: {allow: [%s]}}'",
				   p->allow[i], p->allow[i], p->allow[i], p->dir ? p->dir : "DIR",
				   p->allow[i]));
	}
	return g->n > before ? -1 : 0;
}

static bool public_ip(const char *ip)
{
	return ip && *ip && strncmp(ip, "127.", 4) != 0 && strcmp(ip, "::1") != 0 &&
	       strcmp(ip, "localhost") != 0;
}

char **gate_public_port_warnings(const struct gate *g, const struct svc_project *p)
{
	char **w = NULL;

	if (gate_granted(g, "public-port"))
		return NULL;
	for (size_t i = 0; i < p->n_services; i++) {
		const struct svc_service *s = &p->services[i];

		for (size_t k = 0; k < s->n_ports; k++)
			if (public_ip(s->ports[k].host_ip))
				w = te_strv_push(w,
						 xasprintf("%s:%d:%d: %s: ports: port %d/%s is published on "
							   "127.0.0.1, not on %s (--allow public-port "
							   "publishes it as written)",
							   s->ports[k].loc.file ? s->ports[k].loc.file : "?",
							   s->ports[k].loc.line, s->ports[k].loc.col, s->name,
							   s->ports[k].container_port, s->ports[k].proto,
							   s->ports[k].host_ip));
	}
	return w;
}
