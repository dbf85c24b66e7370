/* The plan: names, order, networks and volumes some service uses, and the
 * containers in depends_on order (plan_body.c builds their Engine bodies);
 * labels and the ownership check every object shares. */
#include "services/model/plan.h"
#include "services/model/compose.h"
#include "services/model/index.h"
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
	struct svc_index idx; /* services by name */
	int *mark;	      /* 0 new, 1 on the current path, 2 done */
	size_t *stack;	      /* the current path, for the cycle message */
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
	for (size_t d = 0; s->depends_on && s->depends_on[d]; d++) {
		size_t j = svc_index_find(&t->idx, p->services, s->depends_on[d]);

		if (j != SIZE_MAX && visit(t, j, err) < 0)
			return -1;
	}
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
	struct topo t = {plan, SVC_INDEX(struct svc_service, name), mark, stack, 0, order, 0};
	int rc = 0;

	svc_index_build(&t.idx, plan->project->services, n);
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = visit(&t, i, err);
	svc_index_release(&t.idx);
	return rc;
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

int svc_service_replicas(const struct svc_service *s)
{
	return s->replicas == SVC_UNSET ? 1 : (int)s->replicas;
}

static void add_alias(struct svc_plan_container *c, const char *alias)
{
	if (!strv_has(c->aliases, alias))
		c->aliases = te_strv_push(c->aliases, xstrdup(alias));
}

/* "SERVICE:ALIAS" links of other services name S: Compose makes ALIAS
 * resolve to S for the linking container; here it is an alias of S's
 * containers on the task's networks (the task's own names either way). */
static void link_aliases(const struct svc_plan *plan, const struct svc_service *s,
			 struct svc_plan_container *c)
{
	size_t n = strlen(s->name);

	for (size_t i = 0; plan->links && plan->links[i]; i++) {
		const char *l = plan->links[i];

		if (strncmp(l, s->name, n) == 0 && l[n] == ':' && l[n + 1])
			add_alias(c, l + n + 1);
	}
}

void svc_plan_container_init(const struct svc_plan *plan, const struct svc_service *s, int number,
			     struct svc_plan_container *c)
{
	memset(c, 0, sizeof(*c));
	c->svc = s;
	c->number = number;
	c->name = svc_name_container(plan->task, s->name, number);
	c->build = s->build.set;
	/* What the task builds is tagged with the task's own name, whatever
	 * image: says: a file that named another task's (or anyone's) tag
	 * would replace it (apply_images.c refuses a tag that is not ours). */
	c->image =
	    !s->build.set && s->image && *s->image ? xstrdup(s->image) : svc_name_image(plan->task, s->name);
	c->networks = container_networks(plan, s);
	c->aliases = te_strv_push(NULL, xstrdup(s->name));
	/* container_name is never a global name here: it becomes an alias
	 * so in-stack DNS still resolves it. */
	if (s->container_name)
		add_alias(c, s->container_name);
	/* Per-network aliases go on every network of the service: the
	 * Engine API of 1.41 takes one alias list per endpoint and the
	 * names are the task's own anyway. */
	for (size_t a = 0; a < s->n_net_attach; a++)
		for (size_t j = 0; s->net_attach[a].aliases && s->net_attach[a].aliases[j]; j++)
			add_alias(c, s->net_attach[a].aliases[j]);
	link_aliases(plan, s, c);
}

void svc_plan_container_release(struct svc_plan_container *c)
{
	free(c->name);
	free(c->image);
	te_strv_free(c->networks);
	te_strv_free(c->aliases);
	memset(c, 0, sizeof(*c));
}

/* One more than the deepest dependency of S (LEVELS: per service index,
 * filled in plan order, dependencies first). Compose creates and starts
 * one level at once too. */
static int plan_level(const struct svc_project *p, const struct svc_service *s, const int *levels)
{
	int level = 0;

	for (size_t d = 0; s->depends_on && s->depends_on[d]; d++) {
		const struct svc_service *dep = svc_project_service(p, s->depends_on[d]);

		if (dep && levels[dep - p->services] + 1 > level)
			level = levels[dep - p->services] + 1;
	}
	return level;
}

static void plan_containers(struct svc_plan *plan, const size_t *order)
{
	const struct svc_project *p = plan->project;
	size_t total = 0;
	te_autofree int *levels = xcalloc(p->n_services + 1, sizeof(int));

	for (size_t k = 0; k < p->n_services; k++)
		total += (size_t)svc_service_replicas(&p->services[k]);
	plan->containers = xcalloc(total ? total : 1, sizeof(*plan->containers));
	for (size_t k = 0; k < p->n_services; k++) {
		const struct svc_service *s = &p->services[order[k]];
		int level = plan_level(p, s, levels);

		for (int n = 1; n <= svc_service_replicas(s); n++) {
			svc_plan_container_init(plan, s, n, &plan->containers[plan->n_containers]);
			plan->containers[plan->n_containers++].level = level;
		}
		levels[order[k]] = level;
		if (level >= plan->n_levels)
			plan->n_levels = level + 1;
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
	for (size_t i = 0; i < project->n_services; i++)
		for (size_t j = 0; project->services[i].links && project->services[i].links[j]; j++)
			plan->links = te_strv_push(plan->links, xstrdup(project->services[i].links[j]));
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
	for (size_t i = 0; i < plan->n_containers; i++)
		svc_plan_container_release(&plan->containers[i]);
	free(plan->networks);
	free(plan->volumes);
	free(plan->containers);
	free(plan->task);
	free(plan->ledger_id);
	free(plan->files_dir);
	free(plan->broker_dir);
	te_strv_free(plan->links);
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
