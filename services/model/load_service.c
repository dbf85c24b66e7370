#include "services/model/load_service.h"

#include "common/mem.h"
#include "services/model/compose.h"
#include "services/model/keys.h"
#include "services/model/kinds.h"
#include "services/model/resources.h"
#include "services/model/yaml.h"

#include <string.h>

/* Every key of a service in the Compose Specification (schema at
 * compose-spec 170098ba07d9): the table's rows, loaded, then the ones no
 * row loads.
 *
 * WARN, the only keys ignored (with a warning), because ignoring them
 * cannot change what runs:
 *   attach   decides whether `compose up` streams the service's output;
 *            taskenv up never streams any (taskenv logs reads it)
 *   logging  where the engine keeps the output; taskenv leaves the engine's
 *            default driver, so the processes and their output are the
 *            same and taskenv logs can read them
 * REFUSE, everything else: each changes what runs (limits, devices,
 * namespaces, hooks, DNS, other containers, the engine socket, more than
 * one container) and taskenv does not implement it, so a file using it is
 * refused, never run differently. extends and replicas come with issue 19. */
static const struct svc_yaml_key service_keys[] = {
#define LOADED(key, id, member, kind, merge) SVC_KEY_LOAD(#key),
    SVC_SERVICE_KEYS(LOADED)
#undef LOADED
	{"attach", SVC_USE_WARN, "taskenv up never attaches to a service's output (taskenv logs reads it)"},
    {"logging", SVC_USE_WARN,
     "the engine's default log driver keeps the output, which taskenv logs reads; what runs is the same"},
    {"annotations", SVC_USE_REFUSE, NULL},
    {"blkio_config", SVC_USE_REFUSE, NULL},
    {"cgroup_parent", SVC_USE_REFUSE, NULL},
    {"cpu_count", SVC_USE_REFUSE, "limit CPUs with cpus:"},
    {"cpu_percent", SVC_USE_REFUSE, "limit CPUs with cpus:"},
    {"cpu_period", SVC_USE_REFUSE, "limit CPUs with cpus:"},
    {"cpu_quota", SVC_USE_REFUSE, "limit CPUs with cpus:"},
    {"cpu_rt_period", SVC_USE_REFUSE, NULL},
    {"cpu_rt_runtime", SVC_USE_REFUSE, NULL},
    {"cpu_shares", SVC_USE_REFUSE, "limit CPUs with cpus:"},
    {"cpuset", SVC_USE_REFUSE, NULL},
    {"credential_spec", SVC_USE_REFUSE, NULL},
    {"develop", SVC_USE_REFUSE, "taskenv has no watch mode"},
    {"device_cgroup_rules", SVC_USE_REFUSE, NULL},
    {"dns_opt", SVC_USE_REFUSE, NULL},
    {"dns_search", SVC_USE_REFUSE, NULL},
    {"extends", SVC_USE_REFUSE, "write the service out in full"},
    {"external_links", SVC_USE_REFUSE, NULL},
    {"gpus", SVC_USE_REFUSE, "taskenv does not reserve GPUs"},
    {"isolation", SVC_USE_REFUSE, NULL},
    {"label_file", SVC_USE_REFUSE, "write the labels under labels:"},
    {"links", SVC_USE_REFUSE, "services reach each other by name; extra names go in networks.NAME.aliases"},
    {"mem_swappiness", SVC_USE_REFUSE, NULL},
    {"memswap_limit", SVC_USE_REFUSE, NULL},
    {"models", SVC_USE_REFUSE, NULL},
    {"oom_kill_disable", SVC_USE_REFUSE, NULL},
    {"oom_score_adj", SVC_USE_REFUSE, NULL},
    {"post_start", SVC_USE_REFUSE, NULL},
    {"pre_stop", SVC_USE_REFUSE, NULL},
    {"provider", SVC_USE_REFUSE, NULL},
    {"pull_refresh_after", SVC_USE_REFUSE, NULL},
    {"storage_opt", SVC_USE_REFUSE, NULL},
    {"use_api_socket", SVC_USE_REFUSE, "taskenv never hands the engine's socket to a container"},
    {"volumes_from", SVC_USE_REFUSE, "mount the same named volume in both services"},
    {NULL, 0, NULL},
};

const char *const *svc_service_key_names(void)
{
	static const char *names[sizeof(service_keys) / sizeof(service_keys[0])];

	for (size_t i = 0; service_keys[i].name; i++)
		names[i] = service_keys[i].name;
	return names;
}

bool svc_valid_name(const char *k)
{
	if (!*k)
		return false;
	for (; *k; k++)
		if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') || (*k >= '0' && *k <= '9') ||
		      *k == '.' || *k == '_' || *k == '-'))
			return false;
	return true;
}

/* One key of S by its row; LATE selects the pass (env_file reads after the
 * rest, so environment: wins whatever the keys' order). */
static int service_key(struct svc_yaml *y, const struct svc_project *p, struct svc_service *s,
		       const struct svc_yaml_pair *pr, bool late)
{
	te_autofree char *path = xasprintf("services.%s.%s", s->name, pr->name);
	const struct svc_key_desc *k;

	if (strcmp(pr->name, "x-taskenv") == 0)
		return late ? 0 : svc_resources_load_service(y, p, s, pr->val, path);
	k = svc_key_find(pr->name);
	/* No row: an x- extension or a key svc_yaml_check let through with a warning. */
	if (!k || svc_key_late(k) != late)
		return 0;
	s->key_loc[k->id] = svc_yaml_loc(y, pr->key);
	return svc_key_load(y, s, k, pr->val, path);
}

int svc_load_service(struct svc_yaml *y, const struct svc_project *p, struct svc_service *s,
		     const struct svc_yaml_pair *sp)
{
	svc_automap struct svc_yaml_map ps = {0};
	te_autofree char *path = xasprintf("services.%s", sp->name);

	s->name = xstrdup(sp->name);
	s->loc = svc_yaml_loc(y, sp->key);
	svc_service_keys_init(s);
	if (!svc_valid_name(s->name))
		return svc_yaml_err(y, sp->key, "invalid service name '%s': must match [a-zA-Z0-9._-]+",
				    s->name);
	if (svc_yaml_map(y, sp->val, path, &ps) < 0 || svc_yaml_check(y, &ps, path, service_keys, true) < 0)
		return -1;
	for (int late = 0; late < 2; late++)
		for (size_t i = 0; i < ps.n; i++)
			if (service_key(y, p, s, &ps.v[i], late) < 0)
				return -1;
	return 0;
}

int svc_load_services(struct svc_yaml *y, struct svc_project *p, const yaml_node_t *key, yaml_node_t *n)
{
	svc_automap struct svc_yaml_map ps = {0};

	if (svc_yaml_is_null(n))
		return svc_yaml_err(y, key, "no services defined");
	if (svc_yaml_map(y, n, "services", &ps) < 0)
		return -1;
	p->services = xcalloc(ps.n + 1, sizeof(*p->services));
	for (size_t i = 0; i < ps.n; i++) {
		if (svc_has_prefix(ps.v[i].name, "x-"))
			continue;
		if (svc_load_service(y, p, &p->services[p->n_services++], &ps.v[i]) < 0)
			return -1;
	}
	return 0;
}
