#include "services/model/plan.h"
#include "services/model/compose.h"
#include "services/model/task.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool strv_has(char *const *v, const char *s)
{
	for (size_t i = 0; v && v[i]; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

/* A service with no `networks:` is on "default", as in Compose. */
static bool service_uses_network(const struct svc_service *s, const char *key)
{
	if (s->network_mode)
		return false;
	if (!s->networks)
		return strcmp(key, "default") == 0;
	return strv_has(s->networks, key);
}

static void add_network(struct svc_plan *plan, const char *key, const struct svc_network *decl)
{
	struct svc_plan_network *n;

	plan->networks = xrealloc(plan->networks, (plan->n_networks + 1) * sizeof(*plan->networks));
	n = &plan->networks[plan->n_networks++];
	n->key = xstrdup(key);
	n->decl = decl;
	n->external = decl && decl->external;
	/* An external network is used by its own name; every other name is
	 * scoped to the task so no two tasks ever share one by accident. */
	if (n->external)
		n->name = xstrdup(decl->name ? decl->name : key);
	else
		n->name = svc_name_network(plan->task, key);
}

static void plan_networks(struct svc_plan *plan)
{
	const struct svc_project *p = plan->project;
	bool need_default = false;

	for (size_t i = 0; i < p->n_services; i++)
		need_default |= service_uses_network(&p->services[i], "default");
	/* "default" may also be declared explicitly to set its options. */
	if (need_default && !svc_project_network(p, "default"))
		add_network(plan, "default", NULL);
	for (size_t i = 0; i < p->n_networks; i++) {
		bool used = false;

		for (size_t j = 0; j < p->n_services; j++)
			used |= service_uses_network(&p->services[j], p->networks[i].key);
		if (used)
			add_network(plan, p->networks[i].key, &p->networks[i]);
	}
}

static bool volume_used(const struct svc_project *p, const char *key)
{
	for (size_t i = 0; i < p->n_services; i++)
		for (size_t j = 0; j < p->services[i].n_mounts; j++) {
			const struct svc_mount *m = &p->services[i].mounts[j];

			if (m->type == SVC_MOUNT_VOLUME && m->source && strcmp(m->source, key) == 0)
				return true;
		}
	return false;
}

static void plan_volumes(struct svc_plan *plan)
{
	const struct svc_project *p = plan->project;

	for (size_t i = 0; i < p->n_volumes; i++) {
		const struct svc_volume *d = &p->volumes[i];
		struct svc_plan_volume *v;

		if (!volume_used(p, d->key))
			continue;
		plan->volumes = xrealloc(plan->volumes, (plan->n_volumes + 1) * sizeof(*plan->volumes));
		v = &plan->volumes[plan->n_volumes++];
		v->key = xstrdup(d->key);
		v->decl = d;
		v->external = d->external;
		if (d->external)
			v->name = xstrdup(d->name ? d->name : d->key);
		else
			v->name = svc_name_volume(plan->task, d->key);
	}
}

struct topo {
	struct svc_plan *plan;
	int *mark;     /* 0 new, 1 on the current path, 2 done */
	size_t *stack; /* the current path, for the cycle message */
	size_t depth;
	size_t *order; /* service indexes, dependencies first */
	size_t n_order;
};

static int cycle_error(struct topo *t, size_t i, struct te_err *err)
{
	const struct svc_project *p = t->plan->project;
	const struct svc_service *s = &p->services[i];
	char path[512] = "";
	size_t from = 0, len;

	while (from < t->depth && t->stack[from] != i)
		from++;
	for (size_t k = from; k < t->depth; k++) {
		len = strlen(path);
		snprintf(path + len, sizeof(path) - len, "%s -> ", p->services[t->stack[k]].name);
	}
	len = strlen(path);
	snprintf(path + len, sizeof(path) - len, "%s", s->name);
	return te_err_set(err, TE_E_COMPOSE, "%s:%d:%d: dependency cycle: %s", s->loc.file, s->loc.line,
			  s->loc.col, path);
}

static int visit(struct topo *t, size_t i, struct te_err *err)
{
	const struct svc_project *p = t->plan->project;
	const struct svc_service *s = &p->services[i];

	if (t->mark[i] == 2)
		return 0;
	if (t->mark[i] == 1)
		return cycle_error(t, i, err);
	t->mark[i] = 1;
	t->stack[t->depth++] = i;
	for (size_t d = 0; s->depends_on && s->depends_on[d]; d++)
		for (size_t j = 0; j < p->n_services; j++)
			if (strcmp(p->services[j].name, s->depends_on[d]) == 0 && visit(t, j, err) < 0)
				return -1;
	t->depth--;
	t->mark[i] = 2;
	t->order[t->n_order++] = i;
	return 0;
}

static int plan_order(struct svc_plan *plan, size_t *order, struct te_err *err)
{
	size_t n = plan->project->n_services;
	te_autofree int *mark = xcalloc(n, sizeof(int));
	te_autofree size_t *stack = xcalloc(n, sizeof(size_t));
	struct topo t = {plan, mark, stack, 0, order, 0};

	for (size_t i = 0; i < n; i++)
		if (visit(&t, i, err) < 0)
			return -1;
	return 0;
}

/* In the order the service lists them: the first is the primary network
 * (given at create), the others are connected afterwards. */
static char **container_networks(const struct svc_plan *plan, const struct svc_service *s)
{
	char **v = NULL;
	const struct svc_plan_network *n;

	if (s->network_mode)
		return NULL;
	if (!s->networks) {
		n = svc_plan_network_by_key(plan, "default");
		return n ? te_strv_push(NULL, xstrdup(n->name)) : NULL;
	}
	for (size_t i = 0; s->networks[i]; i++) {
		n = svc_plan_network_by_key(plan, s->networks[i]);
		if (n)
			v = te_strv_push(v, xstrdup(n->name));
	}
	return v;
}

static void plan_containers(struct svc_plan *plan, const size_t *order)
{
	const struct svc_project *p = plan->project;

	plan->containers = xcalloc(p->n_services ? p->n_services : 1, sizeof(*plan->containers));
	for (size_t k = 0; k < p->n_services; k++) {
		const struct svc_service *s = &p->services[order[k]];
		struct svc_plan_container *c = &plan->containers[plan->n_containers++];

		c->svc = s;
		c->name = svc_name_container(plan->task, s->name, 1);
		c->build = s->build.set;
		c->image = s->image && *s->image ? xstrdup(s->image) : svc_name_image(plan->task, s->name);
		c->networks = container_networks(plan, s);
		c->aliases = te_strv_push(NULL, xstrdup(s->name));
		/* container_name is never a global name here: it becomes an alias
		 * so in-stack DNS still resolves it. */
		if (s->container_name && strcmp(s->container_name, s->name) != 0)
			c->aliases = te_strv_push(c->aliases, xstrdup(s->container_name));
		/* Per-network aliases go on every network of the service: the
		 * Engine API of 1.41 takes one alias list per endpoint and the
		 * names are the task's own anyway. */
		for (size_t a = 0; a < s->n_net_attach; a++)
			for (size_t j = 0; s->net_attach[a].aliases && s->net_attach[a].aliases[j]; j++)
				if (!strv_has(c->aliases, s->net_attach[a].aliases[j]))
					c->aliases =
					    te_strv_push(c->aliases, xstrdup(s->net_attach[a].aliases[j]));
	}
}

struct svc_plan *svc_plan_build(const struct svc_project *project, const char *task, const char *ledger_id,
				struct te_err *err)
{
	struct svc_plan *plan = xcalloc(1, sizeof(*plan));
	te_autofree size_t *order = xcalloc(project->n_services + 1, sizeof(size_t));

	plan->task = xstrdup(task);
	plan->ledger_id = xstrdup(ledger_id ? ledger_id : "");
	plan->project = project;
	if (plan_order(plan, order, err) < 0) {
		svc_plan_free(plan);
		return NULL;
	}
	plan_networks(plan);
	plan_volumes(plan);
	plan_containers(plan, order);
	return plan;
}

void svc_plan_free(struct svc_plan *plan)
{
	if (!plan)
		return;
	for (size_t i = 0; i < plan->n_networks; i++) {
		free(plan->networks[i].key);
		free(plan->networks[i].name);
	}
	for (size_t i = 0; i < plan->n_volumes; i++) {
		free(plan->volumes[i].key);
		free(plan->volumes[i].name);
	}
	for (size_t i = 0; i < plan->n_containers; i++) {
		free(plan->containers[i].name);
		free(plan->containers[i].image);
		te_strv_free(plan->containers[i].networks);
		te_strv_free(plan->containers[i].aliases);
	}
	free(plan->networks);
	free(plan->volumes);
	free(plan->containers);
	free(plan->task);
	free(plan->ledger_id);
	free(plan->files_dir);
	free(plan);
}

const struct svc_plan_network *svc_plan_network_by_key(const struct svc_plan *plan, const char *key)
{
	for (size_t i = 0; i < plan->n_networks; i++)
		if (strcmp(plan->networks[i].key, key) == 0)
			return &plan->networks[i];
	return NULL;
}

const struct svc_plan_volume *svc_plan_volume_by_key(const struct svc_plan *plan, const char *key)
{
	for (size_t i = 0; i < plan->n_volumes; i++)
		if (strcmp(plan->volumes[i].key, key) == 0)
			return &plan->volumes[i];
	return NULL;
}

/* ---- Engine API bodies ---- */

static char *join_files(char *const *files)
{
	size_t len = 1;
	char *s;

	for (size_t i = 0; files && files[i]; i++)
		len += strlen(files[i]) + 1;
	s = xcalloc(1, len);
	for (size_t i = 0; files && files[i]; i++) {
		size_t cur = strlen(s);

		snprintf(s + cur, len - cur, "%s%s", i ? "," : "", files[i]);
	}
	return s;
}

cJSON *svc_plan_labels(const struct svc_plan *plan, const char *kind, const char *service)
{
	cJSON *l = cJSON_CreateObject();
	te_autofree char *files = join_files(plan->project->files);

	cJSON_AddStringToObject(l, "com.docker.compose.project", plan->task);
	if (strcmp(kind, "container") == 0) {
		cJSON_AddStringToObject(l, "com.docker.compose.service", service);
		cJSON_AddStringToObject(l, "com.docker.compose.container-number", "1");
		cJSON_AddStringToObject(l, "com.docker.compose.oneoff", "False");
		cJSON_AddStringToObject(l, "com.docker.compose.project.working_dir", plan->project->dir);
		cJSON_AddStringToObject(l, "com.docker.compose.project.config_files", files);
	} else if (strcmp(kind, "network") == 0) {
		cJSON_AddStringToObject(l, "com.docker.compose.network", service);
	} else if (strcmp(kind, "volume") == 0) {
		cJSON_AddStringToObject(l, "com.docker.compose.volume", service);
	} else if (strcmp(kind, "image") == 0) {
		cJSON_AddStringToObject(l, "com.docker.compose.service", service);
	}
	cJSON_AddStringToObject(l, "io.taskenv.task", plan->task);
	cJSON_AddStringToObject(l, "io.taskenv.ledger", plan->ledger_id);
	cJSON_AddStringToObject(l, "io.taskenv.version", TASKENV_VERSION);
	return l;
}

bool svc_labels_match(const cJSON *obj, const char *task, const char *ledger_id)
{
	const cJSON *labels = cJSON_GetObjectItemCaseSensitive(obj, "Labels");
	const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(obj, "Config");
	const char *t, *l;

	if (cfg && !cJSON_IsObject(labels))
		labels = cJSON_GetObjectItemCaseSensitive(cfg, "Labels");
	t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(labels, "io.taskenv.task"));
	l = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(labels, "io.taskenv.ledger"));
	return t && l && strcmp(t, task) == 0 && strcmp(l, ledger_id) == 0;
}

/* The file's own labels first, ours last so nobody can forge ownership. */
static cJSON *merged_labels(const struct svc_plan *plan, const char *kind, const char *key,
			    const struct svc_kv *kv, size_t n)
{
	cJSON *l = cJSON_CreateObject();
	te_autojson cJSON *ours = svc_plan_labels(plan, kind, key);
	cJSON *it;

	for (size_t i = 0; i < n; i++)
		if (kv[i].value && !cJSON_GetObjectItemCaseSensitive(ours, kv[i].key))
			cJSON_AddStringToObject(l, kv[i].key, kv[i].value);
	cJSON_ArrayForEach (it, ours)
		cJSON_AddStringToObject(l, it->string, it->valuestring);
	return l;
}

static cJSON *kv_json(const struct svc_kv *kv, size_t n)
{
	cJSON *o = cJSON_CreateObject();

	for (size_t i = 0; i < n; i++)
		cJSON_AddStringToObject(o, kv[i].key, kv[i].value ? kv[i].value : "");
	return o;
}

static void add_ipam(cJSON *b, const struct svc_network *d)
{
	cJSON *ipam, *cfg;

	if (!d->ipam_driver && !d->n_ipam)
		return;
	ipam = cJSON_AddObjectToObject(b, "IPAM");
	cJSON_AddStringToObject(ipam, "Driver", d->ipam_driver ? d->ipam_driver : "default");
	cfg = cJSON_AddArrayToObject(ipam, "Config");
	for (size_t i = 0; i < d->n_ipam; i++) {
		cJSON *pool = cJSON_CreateObject();

		if (d->ipam[i].subnet)
			cJSON_AddStringToObject(pool, "Subnet", d->ipam[i].subnet);
		if (d->ipam[i].ip_range)
			cJSON_AddStringToObject(pool, "IPRange", d->ipam[i].ip_range);
		if (d->ipam[i].gateway)
			cJSON_AddStringToObject(pool, "Gateway", d->ipam[i].gateway);
		cJSON_AddItemToArray(cfg, pool);
	}
}

/* A fixed `name:` never becomes a global name: the object is task-scoped
 * and the name the file asked for is kept only as a label. */
static void add_original_name(cJSON *b, const char *name)
{
	cJSON *labels = cJSON_GetObjectItemCaseSensitive(b, "Labels");

	cJSON_DeleteItemFromObjectCaseSensitive(labels, SVC_LABEL_ORIGINAL_NAME);
	if (name)
		cJSON_AddStringToObject(labels, SVC_LABEL_ORIGINAL_NAME, name);
}

cJSON *svc_plan_network_body(const struct svc_plan *plan, const struct svc_plan_network *n)
{
	cJSON *b = cJSON_CreateObject();
	const struct svc_network *d = n->decl;

	cJSON_AddStringToObject(b, "Name", n->name);
	cJSON_AddStringToObject(b, "Driver", d && d->driver ? d->driver : "bridge");
	cJSON_AddBoolToObject(b, "CheckDuplicate", 1);
	cJSON_AddBoolToObject(b, "Internal", d && d->internal);
	if (d) {
		cJSON_AddBoolToObject(b, "Attachable", d->attachable);
		cJSON_AddBoolToObject(b, "EnableIPv6", d->enable_ipv6);
		cJSON_AddItemToObject(b, "Options", kv_json(d->driver_opts, d->n_driver_opts));
		add_ipam(b, d);
	}
	cJSON_AddItemToObject(
	    b, "Labels", merged_labels(plan, "network", n->key, d ? d->labels : NULL, d ? d->n_labels : 0));
	add_original_name(b, d ? d->name : NULL);
	return b;
}

cJSON *svc_plan_volume_body(const struct svc_plan *plan, const struct svc_plan_volume *v)
{
	cJSON *b = cJSON_CreateObject();
	const struct svc_volume *d = v->decl;

	cJSON_AddStringToObject(b, "Name", v->name);
	cJSON_AddStringToObject(b, "Driver", d && d->driver ? d->driver : "local");
	if (d)
		cJSON_AddItemToObject(b, "DriverOpts", kv_json(d->driver_opts, d->n_driver_opts));
	cJSON_AddItemToObject(
	    b, "Labels", merged_labels(plan, "volume", v->key, d ? d->labels : NULL, d ? d->n_labels : 0));
	add_original_name(b, d ? d->name : NULL);
	return b;
}

static cJSON *strv_json(char *const *v)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; v && v[i]; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
	return a;
}

static cJSON *env_json(const struct svc_service *s)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < s->n_environment; i++) {
		te_autofree char *kv = NULL;

		if (!s->environment[i].value)
			continue;
		kv = xasprintf("%s=%s", s->environment[i].key, s->environment[i].value);
		cJSON_AddItemToArray(a, cJSON_CreateString(kv));
	}
	return a;
}

static void add_ports(cJSON *cfg, cJSON *hc, const struct svc_service *s, const int *host_ports)
{
	cJSON *exposed = cJSON_AddObjectToObject(cfg, "ExposedPorts");
	cJSON *bindings = cJSON_AddObjectToObject(hc, "PortBindings");

	for (size_t i = 0; i < s->n_ports; i++) {
		char key[32], port[16];
		cJSON *list, *b;

		snprintf(key, sizeof(key), "%d/%s", s->ports[i].container_port, s->ports[i].proto);
		snprintf(port, sizeof(port), "%d", host_ports[i]);
		if (!cJSON_GetObjectItemCaseSensitive(exposed, key))
			cJSON_AddObjectToObject(exposed, key);
		list = cJSON_GetObjectItemCaseSensitive(bindings, key);
		if (!list)
			list = cJSON_AddArrayToObject(bindings, key);
		b = cJSON_CreateObject();
		/* A host ip other than loopback reaches the plan only when the
		 * policy's public-port exception allowed it. */
		cJSON_AddStringToObject(b, "HostIp",
					s->ports[i].host_ip && strncmp(s->ports[i].host_ip, "127.", 4) != 0 &&
						strcmp(s->ports[i].host_ip, "::1") != 0
					    ? s->ports[i].host_ip
					    : SVC_HOST_IP);
		cJSON_AddStringToObject(b, "HostPort", port);
		cJSON_AddItemToArray(list, b);
	}
}

static void add_bind_mount(cJSON *hc, const struct svc_mount *m)
{
	cJSON *mounts = cJSON_GetObjectItemCaseSensitive(hc, "Mounts");
	cJSON *o = cJSON_CreateObject();

	if (!mounts)
		mounts = cJSON_AddArrayToObject(hc, "Mounts");
	cJSON_AddStringToObject(o, "Type", "bind");
	cJSON_AddStringToObject(o, "Source", m->source);
	cJSON_AddStringToObject(o, "Target", m->target);
	cJSON_AddBoolToObject(o, "ReadOnly", m->read_only);
	cJSON_AddItemToArray(mounts, o);
}

static void add_tmpfs(cJSON *hc, const struct svc_service *s)
{
	cJSON *t = cJSON_CreateObject();

	for (size_t i = 0; s->tmpfs && s->tmpfs[i]; i++) {
		te_autofree char *target = xstrdup(s->tmpfs[i]);
		char *colon = strchr(target, ':');

		if (colon)
			*colon = '\0';
		cJSON_DeleteItemFromObjectCaseSensitive(t, target);
		cJSON_AddStringToObject(t, target, colon ? colon + 1 : "");
	}
	for (size_t i = 0; i < s->n_mounts; i++) {
		te_autofree char *opts = NULL;

		if (s->mounts[i].type != SVC_MOUNT_TMPFS)
			continue;
		opts =
		    s->mounts[i].tmpfs_size ? xasprintf("size=%lld", s->mounts[i].tmpfs_size) : xstrdup("");
		cJSON_DeleteItemFromObjectCaseSensitive(t, s->mounts[i].target);
		cJSON_AddStringToObject(t, s->mounts[i].target, opts);
	}
	if (t->child)
		cJSON_AddItemToObject(hc, "Tmpfs", t);
	else
		cJSON_Delete(t);
}

static void add_mounts(cJSON *cfg, cJSON *hc, const struct svc_plan *plan, const struct svc_service *s)
{
	cJSON *binds = cJSON_AddArrayToObject(hc, "Binds");
	cJSON *anon = cJSON_AddObjectToObject(cfg, "Volumes");

	for (size_t i = 0; i < s->n_mounts; i++) {
		const struct svc_mount *m = &s->mounts[i];
		const char *src = m->source;
		te_autofree char *b = NULL;

		if (m->type == SVC_MOUNT_TMPFS)
			continue;
		if (!src) {
			cJSON_AddObjectToObject(anon, m->target);
			continue;
		}
		if (m->type == SVC_MOUNT_BIND && m->no_create_host_path) {
			add_bind_mount(hc, m);
			continue;
		}
		if (m->type == SVC_MOUNT_VOLUME) {
			const struct svc_plan_volume *v = svc_plan_volume_by_key(plan, src);

			if (!v)
				TE_BUG("volume mount of an unplanned volume");
			src = v->name;
		}
		b = xasprintf("%s:%s%s%s", src, m->target, m->read_only ? ":ro" : "",
			      m->nocopy ? (m->read_only ? ",nocopy" : ":nocopy") : "");
		cJSON_AddItemToArray(binds, cJSON_CreateString(b));
	}
	add_tmpfs(hc, s);
}

static const struct svc_file_decl *find_decl(const struct svc_project *p, bool secret, const char *key)
{
	const struct svc_file_decl *d = secret ? p->secrets : p->configs;
	size_t n = secret ? p->n_secrets : p->n_configs;

	for (size_t i = 0; i < n; i++)
		if (strcmp(d[i].key, key) == 0)
			return &d[i];
	return NULL;
}

char *svc_plan_file_source(const struct svc_plan *plan, bool secret, const char *key)
{
	const struct svc_file_decl *d = find_decl(plan->project, secret, key);

	if (!d)
		return NULL;
	if (d->kind == SVC_FILE_FILE)
		return xstrdup(d->file);
	return xasprintf("%s/%s-%s", plan->files_dir ? plan->files_dir : "", secret ? "secrets" : "configs",
			 key);
}

char *svc_plan_file_target(bool secret, const struct svc_file_ref *r)
{
	const char *t = r->target ? r->target : r->source;

	if (t[0] == '/')
		return xstrdup(t);
	return secret ? xasprintf("/run/secrets/%s", t) : xasprintf("/%s", t);
}

/* Secrets and configs are read-only binds of one file each, as Compose
 * mounts them outside Swarm. */
static void add_file_mounts(cJSON *hc, const struct svc_plan *plan, const struct svc_service *s)
{
	cJSON *binds = cJSON_GetObjectItemCaseSensitive(hc, "Binds");

	for (int sec = 1; sec >= 0; sec--) {
		const struct svc_file_ref *r = sec ? s->secrets : s->configs;
		size_t n = sec ? s->n_secrets : s->n_configs;

		for (size_t i = 0; i < n; i++) {
			te_autofree char *src = svc_plan_file_source(plan, sec, r[i].source);
			te_autofree char *dst = svc_plan_file_target(sec, &r[i]);
			te_autofree char *b = NULL;

			if (!src)
				TE_BUG("secret or config without a declaration");
			b = xasprintf("%s:%s:ro", src, dst);
			cJSON_AddItemToArray(binds, cJSON_CreateString(b));
		}
	}
}

static void add_ulimits(cJSON *hc, const struct svc_service *s)
{
	cJSON *a;

	if (s->runtime)
		cJSON_AddStringToObject(hc, "Runtime", s->runtime);
	if (!s->ulimits)
		return;
	a = cJSON_AddArrayToObject(hc, "Ulimits");
	for (size_t i = 0; s->ulimits[i]; i++) {
		const char *eq = strchr(s->ulimits[i], '=');
		cJSON *o = cJSON_CreateObject();
		long long soft = 0, hard = 0;
		te_autofree char *name = NULL;

		if (!eq || sscanf(eq + 1, "%lld:%lld", &soft, &hard) != 2)
			TE_BUG("malformed ulimit in the model");
		name = xstrndup(s->ulimits[i], (size_t)(eq - s->ulimits[i]));
		cJSON_AddStringToObject(o, "Name", name);
		cJSON_AddNumberToObject(o, "Soft", (double)soft);
		cJSON_AddNumberToObject(o, "Hard", (double)hard);
		cJSON_AddItemToArray(a, o);
	}
}

static void add_strv(cJSON *o, const char *key, char *const *v)
{
	if (v && v[0])
		cJSON_AddItemToObject(o, key, strv_json(v));
}

/* restart: no | always | unless-stopped | on-failure[:N]. */
static void add_restart(cJSON *hc, const char *restart)
{
	cJSON *rp;
	const char *colon;

	if (!restart)
		return;
	rp = cJSON_AddObjectToObject(hc, "RestartPolicy");
	colon = strchr(restart, ':');
	if (colon) {
		te_autofree char *name = xstrndup(restart, (size_t)(colon - restart));

		cJSON_AddStringToObject(rp, "Name", name);
		cJSON_AddNumberToObject(rp, "MaximumRetryCount", strtol(colon + 1, NULL, 10));
		return;
	}
	cJSON_AddStringToObject(rp, "Name", strcmp(restart, "no") == 0 ? "" : restart);
}

/* devices: "HOST[:CONTAINER[:PERMS]]". */
static void add_devices(cJSON *hc, char *const *devices)
{
	cJSON *a;

	if (!devices || !devices[0])
		return;
	a = cJSON_AddArrayToObject(hc, "Devices");
	for (size_t i = 0; devices[i]; i++) {
		te_autostrv char **parts = NULL;
		te_autofree char *copy = xstrdup(devices[i]);
		char *save = NULL;
		cJSON *d = cJSON_CreateObject();

		for (char *t = strtok_r(copy, ":", &save); t; t = strtok_r(NULL, ":", &save))
			parts = te_strv_push(parts, xstrdup(t));
		cJSON_AddStringToObject(d, "PathOnHost", parts ? parts[0] : devices[i]);
		cJSON_AddStringToObject(d, "PathInContainer",
					parts && parts[1] ? parts[1]
					: parts		  ? parts[0]
							  : "");
		cJSON_AddStringToObject(d, "CgroupPermissions",
					parts && parts[1] && parts[2] ? parts[2] : "rwm");
		cJSON_AddItemToArray(a, d);
	}
}

static void add_limits(cJSON *hc, const struct svc_service *s)
{
	if (s->mem_limit)
		cJSON_AddNumberToObject(hc, "Memory", (double)s->mem_limit);
	if (s->mem_reservation)
		cJSON_AddNumberToObject(hc, "MemoryReservation", (double)s->mem_reservation);
	if (s->cpus > 0)
		cJSON_AddNumberToObject(hc, "NanoCpus", (double)(long long)(s->cpus * 1e9));
	if (s->pids_limit)
		cJSON_AddNumberToObject(hc, "PidsLimit", (double)s->pids_limit);
	if (s->shm_size)
		cJSON_AddNumberToObject(hc, "ShmSize", (double)s->shm_size);
}

static void add_namespaces(cJSON *hc, const struct svc_plan *plan, const struct svc_service *s)
{
	const char *modes[] = {s->pid, s->ipc, s->userns_mode, s->uts, s->cgroup};
	const char *keys[] = {"PidMode", "IpcMode", "UsernsMode", "UTSMode", "CgroupnsMode"};

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		te_autofree char *scoped = NULL;

		if (!modes[i])
			continue;
		/* "service:NAME" points at the task's own container of NAME. */
		if (strncmp(modes[i], "service:", 8) == 0)
			scoped = xasprintf("container:%s-%s-1", plan->task, modes[i] + 8);
		cJSON_AddStringToObject(hc, keys[i], scoped ? scoped : modes[i]);
	}
}

static void add_security(cJSON *hc, const struct svc_service *s)
{
	add_strv(hc, "CapAdd", s->cap_add);
	add_strv(hc, "CapDrop", s->cap_drop);
	add_strv(hc, "SecurityOpt", s->security_opt);
	add_strv(hc, "ExtraHosts", s->extra_hosts);
	add_strv(hc, "Dns", s->dns);
	add_strv(hc, "DnsSearch", s->dns_search);
	add_strv(hc, "GroupAdd", s->group_add);
	if (s->read_only == 1)
		cJSON_AddBoolToObject(hc, "ReadonlyRootfs", 1);
	if (s->privileged == 1)
		cJSON_AddBoolToObject(hc, "Privileged", 1);
	if (s->init != SVC_UNSET)
		cJSON_AddBoolToObject(hc, "Init", s->init == 1);
	if (s->n_sysctls)
		cJSON_AddItemToObject(hc, "Sysctls", kv_json(s->sysctls, s->n_sysctls));
	add_devices(hc, s->devices);
}

static void add_health(cJSON *cfg, const struct svc_health *h)
{
	cJSON *o;

	if (!h->set)
		return;
	o = cJSON_AddObjectToObject(cfg, "Healthcheck");
	if (h->disable) {
		cJSON_AddItemToObject(o, "Test", strv_json((char *[]){"NONE", NULL}));
		return;
	}
	if (h->test)
		cJSON_AddItemToObject(o, "Test", strv_json(h->test));
	if (h->interval_ns)
		cJSON_AddNumberToObject(o, "Interval", (double)h->interval_ns);
	if (h->timeout_ns)
		cJSON_AddNumberToObject(o, "Timeout", (double)h->timeout_ns);
	if (h->start_period_ns)
		cJSON_AddNumberToObject(o, "StartPeriod", (double)h->start_period_ns);
	if (h->start_interval_ns)
		cJSON_AddNumberToObject(o, "StartInterval", (double)h->start_interval_ns);
	if (h->retries)
		cJSON_AddNumberToObject(o, "Retries", h->retries);
}

static void add_config_misc(cJSON *b, const struct svc_service *s)
{
	cJSON *exposed = cJSON_GetObjectItemCaseSensitive(b, "ExposedPorts");

	if (s->stop_signal)
		cJSON_AddStringToObject(b, "StopSignal", s->stop_signal);
	if (s->stop_grace_ns)
		cJSON_AddNumberToObject(b, "StopTimeout",
					(double)((s->stop_grace_ns + 999999999) / 1000000000));
	if (s->hostname)
		cJSON_AddStringToObject(b, "Hostname", s->hostname);
	if (s->domainname)
		cJSON_AddStringToObject(b, "Domainname", s->domainname);
	if (s->tty == 1)
		cJSON_AddBoolToObject(b, "Tty", 1);
	if (s->stdin_open == 1)
		cJSON_AddBoolToObject(b, "OpenStdin", 1);
	for (size_t i = 0; exposed && s->expose && s->expose[i]; i++) {
		te_autofree char *k =
		    strchr(s->expose[i], '/') ? xstrdup(s->expose[i]) : xasprintf("%s/tcp", s->expose[i]);

		if (!cJSON_GetObjectItemCaseSensitive(exposed, k))
			cJSON_AddObjectToObject(exposed, k);
	}
	add_health(b, &s->health);
}

/* network_mode: host/none/bridge as written, service:NAME scoped to the task. */
static char *network_mode(const struct svc_plan *plan, const struct svc_plan_container *c)
{
	const char *m = c->svc->network_mode;

	if (m && strncmp(m, "service:", 8) == 0)
		return xasprintf("container:%s-%s-1", plan->task, m + 8);
	if (m)
		return xstrdup(m);
	return xstrdup(c->networks && c->networks[0] ? c->networks[0] : "none");
}

static cJSON *networking_config(const struct svc_plan_container *c)
{
	cJSON *nc = cJSON_CreateObject();
	cJSON *eps = cJSON_AddObjectToObject(nc, "EndpointsConfig");
	cJSON *ep;

	if (!c->networks || !c->networks[0])
		return nc;
	ep = cJSON_AddObjectToObject(eps, c->networks[0]);
	cJSON_AddItemToObject(ep, "Aliases", strv_json(c->aliases));
	return nc;
}

cJSON *svc_plan_container_body(const struct svc_plan *plan, const struct svc_plan_container *c,
			       const int *host_ports)
{
	const struct svc_service *s = c->svc;
	cJSON *b = cJSON_CreateObject();
	te_autofree char *mode = network_mode(plan, c);
	cJSON *hc;

	cJSON_AddStringToObject(b, "Image", c->image);
	if (s->command)
		cJSON_AddItemToObject(b, "Cmd", strv_json(s->command));
	if (s->entrypoint)
		cJSON_AddItemToObject(b, "Entrypoint", strv_json(s->entrypoint));
	cJSON_AddItemToObject(b, "Env", env_json(s));
	if (s->working_dir)
		cJSON_AddStringToObject(b, "WorkingDir", s->working_dir);
	if (s->user)
		cJSON_AddStringToObject(b, "User", s->user);
	cJSON_AddItemToObject(b, "Labels", merged_labels(plan, "container", s->name, s->labels, s->n_labels));
	hc = cJSON_CreateObject();
	add_ports(b, hc, s, host_ports);
	add_mounts(b, hc, plan, s);
	add_file_mounts(hc, plan, s);
	add_ulimits(hc, s);
	add_limits(hc, s);
	add_security(hc, s);
	add_namespaces(hc, plan, s);
	add_restart(hc, s->restart);
	add_config_misc(b, s);
	cJSON_AddItemToObject(hc, "NetworkMode", cJSON_CreateString(mode));
	cJSON_AddItemToObject(b, "HostConfig", hc);
	cJSON_AddItemToObject(b, "NetworkingConfig", networking_config(c));
	return b;
}
