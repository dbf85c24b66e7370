/* The compound service keys about how containers relate and run:
 * depends_on, networks, healthcheck, deploy, scale. */
#define TE_WITH_CJSON
#include "services/model/kinds.h"
#include "services/model/plan.h"
#include "common/cleanup.h"
#include "common/mem.h"

#include <stdlib.h>
#include <string.h>

/* ---- depends_on ---- */

static const struct svc_yaml_key dep_keys[] = {
    SVC_KEY_LOAD("condition"),
    SVC_KEY_LOAD("required"),
    SVC_KEY_LOAD("restart"),
    {NULL, 0, NULL},
};

static int dep_long(struct svc_yaml *y, struct svc_dep *d, yaml_node_t *v, const char *path)
{
	svc_automap struct svc_yaml_map pp = {0};
	struct svc_yaml_pair *pr;

	if (svc_yaml_is_null(v))
		return 0;
	if (svc_yaml_map(y, v, path, &pp) < 0 || svc_yaml_check(y, &pp, path, dep_keys, true) < 0)
		return -1;
	pr = svc_yaml_find(&pp, "condition");
	if (pr) {
		free(d->condition);
		if (svc_yaml_string(y, pr->val, path, &d->condition) < 0)
			return -1;
		if (!d->condition || (strcmp(d->condition, "service_started") != 0 &&
				      strcmp(d->condition, "service_healthy") != 0 &&
				      strcmp(d->condition, "service_completed_successfully") != 0))
			return svc_yaml_err(y, pr->val,
					    "%s.condition must be service_started, service_healthy or "
					    "service_completed_successfully",
					    path);
	}
	pr = svc_yaml_find(&pp, "required");
	if (pr && svc_yaml_bool(y, pr->val, path, &d->required) < 0)
		return -1;
	pr = svc_yaml_find(&pp, "restart");
	return pr ? svc_yaml_bool(y, pr->val, path, &d->restart) : 0;
}

static int deps_load(struct svc_yaml *y, struct svc_service *s, const struct svc_key_desc *k, yaml_node_t *n,
		     const char *path)
{
	te_autofree yaml_node_t **at = NULL;
	te_autofree yaml_node_t **vals = NULL;
	te_autostrv char **names = NULL;

	if (svc_yaml_is_null(n))
		return 0;
	if (svc_yaml_names(y, n, path, &names, &at, &vals) < 0)
		return -1;
	s->deps = xcalloc(te_strv_len(names) + 1, sizeof(*s->deps));
	for (size_t i = 0; names[i]; i++) {
		te_autofree char *sub = xasprintf("%s.%s", path, names[i]);
		int tag = vals[i] ? svc_yaml_entry(y, vals[i], names[i], path) : 0;
		struct svc_dep *d;

		if (tag != 0) {
			if (tag < 0)
				return -1;
			continue;
		}
		d = &s->deps[s->n_deps++];
		*d = (struct svc_dep){xstrdup(names[i]), xstrdup("service_started"), true, false,
				      svc_yaml_loc(y, at[i])};
		if (vals[i] && dep_long(y, d, vals[i], sub) < 0)
			return -1;
	}
	return 0;
}

static void dep_release(struct svc_dep *d)
{
	free(d->service);
	free(d->condition);
}

static void deps_release(struct svc_service *s, const struct svc_key_desc *k)
{
	for (size_t i = 0; i < s->n_deps; i++)
		dep_release(&s->deps[i]);
	free(s->deps);
}

static bool deps_set(const struct svc_service *s, const struct svc_key_desc *k)
{
	return s->n_deps > 0;
}

static void deps_drop(struct svc_service *s, const struct svc_key_desc *k, const char *name)
{
	for (size_t i = 0; i < s->n_deps; i++) {
		if (strcmp(s->deps[i].service, name) != 0)
			continue;
		dep_release(&s->deps[i]);
		memmove(&s->deps[i], &s->deps[i + 1], (s->n_deps - i - 1) * sizeof(*s->deps));
		s->n_deps--;
		return;
	}
}

/* MAPPING by service name: a later entry replaces the earlier one. */
static void deps_merge(struct svc_service *d, struct svc_service *s, const struct svc_key_desc *k)
{
	for (size_t i = 0; i < s->n_deps; i++) {
		size_t j = 0;

		while (j < d->n_deps && strcmp(d->deps[j].service, s->deps[i].service) != 0)
			j++;
		if (j < d->n_deps) {
			dep_release(&d->deps[j]);
			d->deps[j] = s->deps[i];
			continue;
		}
		d->deps = xrealloc(d->deps, (d->n_deps + 1) * sizeof(*d->deps));
		d->deps[d->n_deps++] = s->deps[i];
	}
	free(s->deps);
	s->deps = NULL;
	s->n_deps = 0;
}

static void deps_emit(cJSON *o, const struct svc_key_desc *k, const struct svc_service *s,
		      const struct svc_plan_container *c)
{
	cJSON *j;

	if (!s->n_deps)
		return;
	j = cJSON_AddObjectToObject(o, k->name);
	for (size_t i = 0; i < s->n_deps; i++) {
		cJSON *d = cJSON_AddObjectToObject(j, s->deps[i].service);

		cJSON_AddStringToObject(d, "condition", s->deps[i].condition);
		cJSON_AddBoolToObject(d, "required", s->deps[i].required);
		cJSON_AddBoolToObject(d, "restart", s->deps[i].restart);
	}
}

const struct svc_kind_ops svc_kind_deps = {
    .load = deps_load,
    .release = deps_release,
    .is_set = deps_set,
    .merge = deps_merge,
    .rule = SVC_MERGE_MAPPING,
    .drop = deps_drop,
    .emit = deps_emit,
};

/* ---- networks (a service's attachments) ---- */

static const struct svc_yaml_key net_keys[] = {
    SVC_KEY_LOAD("aliases"),
    SVC_KEY_LOAD("ipv4_address"),
    {"ipv6_address", SVC_USE_REFUSE, NULL},
    {"link_local_ips", SVC_USE_REFUSE, NULL},
    {"mac_address", SVC_USE_REFUSE, NULL},
    {"driver_opts", SVC_USE_REFUSE, NULL},
    {"priority", SVC_USE_REFUSE, NULL},
    {"gw_priority", SVC_USE_REFUSE, NULL},
    {"interface_name", SVC_USE_REFUSE, NULL},
    {NULL, 0, NULL},
};

static int net_attach_long(struct svc_yaml *y, struct svc_net_attach *a, yaml_node_t *v, const char *path)
{
	svc_automap struct svc_yaml_map pp = {0};
	struct svc_yaml_pair *pr;

	if (svc_yaml_is_null(v))
		return 0;
	if (svc_yaml_map(y, v, path, &pp) < 0 || svc_yaml_check(y, &pp, path, net_keys, true) < 0)
		return -1;
	pr = svc_yaml_find(&pp, "aliases");
	if (pr && !svc_yaml_is_null(pr->val) && svc_yaml_list(y, pr->val, path, &a->aliases) < 0)
		return -1;
	pr = svc_yaml_find(&pp, "ipv4_address");
	return pr ? svc_yaml_string(y, pr->val, path, &a->ipv4_address) : 0;
}

static int nets_load(struct svc_yaml *y, struct svc_service *s, const struct svc_key_desc *k, yaml_node_t *n,
		     const char *path)
{
	te_autofree yaml_node_t **at = NULL;
	te_autofree yaml_node_t **vals = NULL;
	te_autostrv char **names = NULL;

	if (svc_yaml_is_null(n))
		return 0;
	if (svc_yaml_names(y, n, path, &names, &at, &vals) < 0)
		return -1;
	s->net_attach = xcalloc(te_strv_len(names) + 1, sizeof(*s->net_attach));
	for (size_t i = 0; names[i]; i++) {
		te_autofree char *sub = xasprintf("%s.%s", path, names[i]);
		int tag = vals[i] ? svc_yaml_entry(y, vals[i], names[i], path) : 0;
		struct svc_net_attach *a;

		if (tag != 0) {
			if (tag < 0)
				return -1;
			continue;
		}
		a = &s->net_attach[s->n_net_attach++];
		a->key = xstrdup(names[i]);
		a->loc = svc_yaml_loc(y, at[i]);
		if (vals[i] && net_attach_long(y, a, vals[i], sub) < 0)
			return -1;
	}
	return 0;
}

static void net_attach_release(struct svc_net_attach *a)
{
	free(a->key);
	te_strv_free(a->aliases);
	free(a->ipv4_address);
}

static void nets_release(struct svc_service *s, const struct svc_key_desc *k)
{
	for (size_t i = 0; i < s->n_net_attach; i++)
		net_attach_release(&s->net_attach[i]);
	free(s->net_attach);
}

static void nets_drop(struct svc_service *s, const struct svc_key_desc *k, const char *name)
{
	for (size_t i = 0; i < s->n_net_attach; i++) {
		if (strcmp(s->net_attach[i].key, name) != 0)
			continue;
		net_attach_release(&s->net_attach[i]);
		memmove(&s->net_attach[i], &s->net_attach[i + 1],
			(s->n_net_attach - i - 1) * sizeof(*s->net_attach));
		s->n_net_attach--;
		return;
	}
}

static bool nets_set(const struct svc_service *s, const struct svc_key_desc *k)
{
	return s->n_net_attach > 0;
}

/* MAPPING by network key; inside, aliases are a sequence, ipv4_address a scalar. */
static void nets_merge(struct svc_service *d, struct svc_service *s, const struct svc_key_desc *k)
{
	for (size_t i = 0; i < s->n_net_attach; i++) {
		struct svc_net_attach *a = &s->net_attach[i];
		size_t j = 0;

		while (j < d->n_net_attach && strcmp(d->net_attach[j].key, a->key) != 0)
			j++;
		if (j < d->n_net_attach) {
			free(a->key);
			svc_merge_strv(&d->net_attach[j].aliases, &a->aliases);
			svc_merge_str(&d->net_attach[j].ipv4_address, &a->ipv4_address);
			continue;
		}
		d->net_attach = xrealloc(d->net_attach, (d->n_net_attach + 1) * sizeof(*d->net_attach));
		d->net_attach[d->n_net_attach++] = *a;
	}
	free(s->net_attach);
	s->net_attach = NULL;
	s->n_net_attach = 0;
}

/* The service's networks with the aliases the plan gives it. */
static void nets_emit(cJSON *o, const struct svc_key_desc *k, const struct svc_service *s,
		      const struct svc_plan_container *c)
{
	cJSON *j;

	if (s->network_mode)
		return;
	j = cJSON_AddObjectToObject(o, k->name);
	for (size_t i = 0; i < (s->n_net_attach ? s->n_net_attach : 1); i++) {
		cJSON *n = cJSON_AddObjectToObject(j, s->n_net_attach ? s->net_attach[i].key : "default");

		cJSON_AddItemToObject(n, "aliases", svc_json_strv(c->aliases));
		if (s->n_net_attach)
			svc_json_add_str(n, "ipv4_address", s->net_attach[i].ipv4_address);
	}
}

const struct svc_kind_ops svc_kind_nets = {
    .load = nets_load,
    .release = nets_release,
    .is_set = nets_set,
    .merge = nets_merge,
    .rule = SVC_MERGE_MAPPING,
    .drop = nets_drop,
    .emit = nets_emit,
};

/* ---- healthcheck ---- */

static const struct svc_yaml_key health_keys[] = {
    SVC_KEY_LOAD("test"),	    SVC_KEY_LOAD("interval"),
    SVC_KEY_LOAD("timeout"),	    SVC_KEY_LOAD("start_period"),
    SVC_KEY_LOAD("start_interval"), SVC_KEY_LOAD("retries"),
    SVC_KEY_LOAD("disable"),	    {NULL, 0, NULL},
};

static int health_test(struct svc_yaml *y, struct svc_health *h, yaml_node_t *n, const char *path)
{
	te_autofree char *s = NULL;

	if (n->type == YAML_SEQUENCE_NODE) {
		if (svc_yaml_strings(y, n, path, &h->test) < 0)
			return -1;
		if (!h->test[0] || (strcmp(h->test[0], "CMD") != 0 && strcmp(h->test[0], "CMD-SHELL") != 0 &&
				    strcmp(h->test[0], "NONE") != 0))
			return svc_yaml_err(y, n, "%s.test: a list must start with CMD, CMD-SHELL or NONE",
					    path);
		h->disable |= strcmp(h->test[0], "NONE") == 0;
		return 0;
	}
	if (svc_yaml_string(y, n, path, &s) < 0)
		return -1;
	if (s)
		h->test = te_strv_push(te_strv_push(NULL, xstrdup("CMD-SHELL")), TE_STEAL(s));
	return 0;
}

static int health_load(struct svc_yaml *y, struct svc_service *s, const struct svc_key_desc *k,
		       yaml_node_t *n, const char *path)
{
	static const char *const durs[] = {"interval", "timeout", "start_period", "start_interval"};
	struct svc_health *h = &s->health;
	long long *dst[] = {&h->interval_ns, &h->timeout_ns, &h->start_period_ns, &h->start_interval_ns};
	svc_automap struct svc_yaml_map pp = {0};
	struct svc_yaml_pair *pr;
	long long retries = 0;

	if (svc_yaml_map(y, n, path, &pp) < 0 || svc_yaml_check(y, &pp, path, health_keys, true) < 0)
		return -1;
	h->set = true;
	h->loc = svc_yaml_loc(y, n);
	pr = svc_yaml_find(&pp, "test");
	if (pr && health_test(y, h, pr->val, path) < 0)
		return -1;
	for (size_t i = 0; i < 4; i++) {
		pr = svc_yaml_find(&pp, durs[i]);
		if (pr && svc_yaml_duration(y, pr->val, path, dst[i]) < 0)
			return -1;
	}
	pr = svc_yaml_find(&pp, "retries");
	if (pr && svc_yaml_int(y, pr->val, path, &retries) < 0)
		return -1;
	if (retries < 0 || retries > 100000)
		return svc_yaml_err(y, pr->val, "%s.retries must be from 0 to 100000", path);
	h->retries = (int)retries;
	pr = svc_yaml_find(&pp, "disable");
	return pr ? svc_yaml_bool(y, pr->val, path, &h->disable) : 0;
}

static void health_release(struct svc_service *s, const struct svc_key_desc *k)
{
	te_strv_free(s->health.test);
}

static bool health_set(const struct svc_service *s, const struct svc_key_desc *k)
{
	return s->health.set;
}

/* MAPPING, with test replaced whole ("shell commands" in the merge document). */
static void health_merge(struct svc_service *dst, struct svc_service *src, const struct svc_key_desc *k)
{
	struct svc_health *d = &dst->health, *s = &src->health;

	if (!s->set)
		return;
	d->set = true;
	d->loc = s->loc;
	d->disable |= s->disable;
	if (s->test) {
		te_strv_free(d->test);
		d->test = TE_STEAL(s->test);
	}
	d->interval_ns = s->interval_ns ? s->interval_ns : d->interval_ns;
	d->timeout_ns = s->timeout_ns ? s->timeout_ns : d->timeout_ns;
	d->start_period_ns = s->start_period_ns ? s->start_period_ns : d->start_period_ns;
	d->start_interval_ns = s->start_interval_ns ? s->start_interval_ns : d->start_interval_ns;
	d->retries = s->retries ? s->retries : d->retries;
}

static void health_emit(cJSON *o, const struct svc_key_desc *k, const struct svc_service *s,
			const struct svc_plan_container *c)
{
	const struct svc_health *h = &s->health;
	cJSON *j;

	if (!h->set)
		return;
	j = cJSON_AddObjectToObject(o, k->name);
	if (h->disable)
		cJSON_AddBoolToObject(j, "disable", 1);
	svc_json_add_strv(j, "test", h->test);
	svc_json_add_dur(j, "interval", h->interval_ns);
	svc_json_add_dur(j, "timeout", h->timeout_ns);
	svc_json_add_dur(j, "start_period", h->start_period_ns);
	svc_json_add_dur(j, "start_interval", h->start_interval_ns);
	if (h->retries)
		cJSON_AddNumberToObject(j, "retries", h->retries);
}

const struct svc_kind_ops svc_kind_health = {
    .load = health_load,
    .release = health_release,
    .is_set = health_set,
    .merge = health_merge,
    .rule = SVC_MERGE_MAPPING,
    .emit = health_emit,
};

/* ---- deploy, scale ---- */

/* replicas / scale: how many containers; both written must agree, as
 * compose-go requires. 0 runs none (Compose's `scale: 0`). AT: the key
 * whose location the slot takes (NULL: the caller sets it). */
static int replicas(struct svc_yaml *y, struct svc_service *s, yaml_node_t *at, yaml_node_t *n,
		    const char *path)
{
	long long v = SVC_UNSET;

	if (svc_yaml_int(y, n, path, &v) < 0)
		return -1;
	if (v == SVC_UNSET)
		return 0;
	if (v < 0 || v > SVC_MAX_REPLICAS)
		return svc_yaml_err(y, n, "%s must be from 0 to %d", path, SVC_MAX_REPLICAS);
	if (s->replicas != SVC_UNSET && s->replicas != v)
		return svc_yaml_err(y, n,
				    "%s: %lld, but %lld is written too (scale and deploy.replicas must "
				    "agree)",
				    path, v, s->replicas);
	s->replicas = v;
	if (at)
		s->key_loc[SVC_K_SCALE] = svc_yaml_loc(y, at);
	return 0;
}

/* Swarm-only keys are NOOP: Compose, too, does nothing with them outside
 * Swarm (mode: global included, which runs one container there). */
static const struct svc_yaml_key deploy_keys[] = {
    SVC_KEY_LOAD("resources"),
    SVC_KEY_LOAD("replicas"),
    SVC_KEY_NOOP("mode"),
    SVC_KEY_NOOP("labels"),
    SVC_KEY_NOOP("placement"),
    SVC_KEY_NOOP("update_config"),
    SVC_KEY_NOOP("rollback_config"),
    SVC_KEY_NOOP("endpoint_mode"),
    {"restart_policy", SVC_USE_REFUSE, "write restart: (no, always, on-failure[:N], unless-stopped)"},
    {NULL, 0, NULL},
};
static const struct svc_yaml_key resources_keys[] = {
    SVC_KEY_LOAD("limits"),
    SVC_KEY_LOAD("reservations"),
    {NULL, 0, NULL},
};
static const struct svc_yaml_key limits_keys[] = {
    SVC_KEY_LOAD("cpus"),
    SVC_KEY_LOAD("memory"),
    SVC_KEY_LOAD("pids"),
    {NULL, 0, NULL},
};
/* A CPU reservation and generic resources are Swarm scheduling hints:
 * Compose sets neither on a container. Devices (GPUs) it does request. */
static const struct svc_yaml_key reservations_keys[] = {
    SVC_KEY_LOAD("memory"),
    SVC_KEY_NOOP("cpus"),
    SVC_KEY_NOOP("generic_resources"),
    {"devices", SVC_USE_REFUSE, "taskenv does not reserve GPUs or other devices"},
    {NULL, 0, NULL},
};

/* The mapping at key NAME of M, checked against KEYS; *OUT stays empty when
 * the key is absent or null. */
static int sub_map(struct svc_yaml *y, const struct svc_yaml_map *m, const char *name, const char *path,
		   const struct svc_yaml_key *keys, struct svc_yaml_map *out)
{
	struct svc_yaml_pair *pr = svc_yaml_find(m, name);
	te_autofree char *sub = xasprintf("%s.%s", path, name);

	memset(out, 0, sizeof(*out));
	if (!pr || svc_yaml_is_null(pr->val))
		return 0;
	if (svc_yaml_map(y, pr->val, sub, out) < 0)
		return -1;
	return svc_yaml_check(y, out, sub, keys, true);
}

/* A limit NAME of M into *OUT (a member of S whose slot is ID). */
#define LIMIT(get, m, name, out, id)                                                                         \
	do {                                                                                                 \
		struct svc_yaml_pair *pr_ = svc_yaml_find(m, name);                                          \
		if (pr_ && get(y, pr_->val, path, out) < 0)                                                  \
			return -1;                                                                           \
		if (pr_)                                                                                     \
			s->key_loc[id] = svc_yaml_loc(y, pr_->key);                                          \
	} while (0)

static int deploy_load(struct svc_yaml *y, struct svc_service *s, const struct svc_key_desc *k,
		       yaml_node_t *n, const char *path)
{
	svc_automap struct svc_yaml_map dp = {0};
	svc_automap struct svc_yaml_map rp = {0};
	svc_automap struct svc_yaml_map lp = {0};
	svc_automap struct svc_yaml_map sp = {0};
	te_autofree char *rpath = xasprintf("%s.resources", path);
	te_autofree char *replicas_path = xasprintf("%s.replicas", path);
	struct svc_yaml_pair *pr;

	if (svc_yaml_map(y, n, path, &dp) < 0 || svc_yaml_check(y, &dp, path, deploy_keys, true) < 0)
		return -1;
	pr = svc_yaml_find(&dp, "replicas");
	if (pr && replicas(y, s, pr->key, pr->val, replicas_path) < 0)
		return -1;
	if (sub_map(y, &dp, "resources", path, resources_keys, &rp) < 0 ||
	    sub_map(y, &rp, "limits", rpath, limits_keys, &lp) < 0 ||
	    sub_map(y, &rp, "reservations", rpath, reservations_keys, &sp) < 0)
		return -1;
	LIMIT(svc_yaml_double, &lp, "cpus", &s->cpus, SVC_K_CPUS);
	LIMIT(svc_yaml_bytes, &lp, "memory", &s->mem_limit, SVC_K_MEM_LIMIT);
	LIMIT(svc_yaml_int, &lp, "pids", &s->pids_limit, SVC_K_PIDS_LIMIT);
	LIMIT(svc_yaml_bytes, &sp, "memory", &s->mem_reservation, SVC_K_MEM_RESERVATION);
	return 0;
}

const struct svc_kind_ops svc_kind_deploy = {.load = deploy_load};

static int scale_load(struct svc_yaml *y, struct svc_service *s, const struct svc_key_desc *k, yaml_node_t *n,
		      const char *path)
{
	return replicas(y, s, NULL, n, path);
}

static void scale_init(struct svc_service *s, const struct svc_key_desc *k)
{
	s->replicas = SVC_UNSET;
}

static bool scale_set(const struct svc_service *s, const struct svc_key_desc *k)
{
	return s->replicas != SVC_UNSET;
}

static void scale_emit(cJSON *o, const struct svc_key_desc *k, const struct svc_service *s,
		       const struct svc_plan_container *c)
{
	if (s->replicas != SVC_UNSET)
		cJSON_AddNumberToObject(o, k->name, (double)s->replicas);
}

const struct svc_kind_ops svc_kind_scale = {
    .load = scale_load, .init = scale_init, .is_set = scale_set, .emit = scale_emit};

/* Read before the service's other keys, by load_service.c (extends.c). */
static int extends_load(struct svc_yaml *y, struct svc_service *s, const struct svc_key_desc *k,
			yaml_node_t *n, const char *path)
{
	return 0;
}

const struct svc_kind_ops svc_kind_extends = {.load = extends_load};
