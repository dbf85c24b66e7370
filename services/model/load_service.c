#include "services/model/load_service.h"

#include "common/mem.h"
#include "services/model/compose.h"
#include "services/model/keys.h"
#include "services/model/kinds.h"
#include "services/model/resources.h"
#include "services/model/yaml.h"

#include <string.h>

/* Every key of a service in the Compose Specification: the table's rows,
 * loaded, then the ones it does not load (keys.h). */
static const struct svc_yaml_key service_keys[] = {
#define LOADED(key, id, member, kind, merge) SVC_KEY_LOAD(#key),
#define IGNORED(key, why) {#key, SVC_USE_WARN, why},
#define REFUSED(key, hint) {#key, SVC_USE_REFUSE, hint},
    SVC_SERVICE_KEYS(LOADED) SVC_SERVICE_KEYS_UNLOADED(IGNORED, REFUSED)
#undef LOADED
#undef IGNORED
#undef REFUSED
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
