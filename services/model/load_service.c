#include "services/model/load_service.h"

#include "common/mem.h"
#include "services/model/compose.h"
#include "services/model/extends.h"
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

const struct svc_yaml_key *svc_service_key_table(void)
{
	return service_keys;
}

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

/* The merge tag of key K's value N (keys.h): !reset records the reset
 * and reads nothing, !override records it and reads the value. Kinds
 * without a member of their own cannot be emptied: a tag there is refused. */
static int key_tag(struct svc_yaml *y, struct svc_service *s, const struct svc_key_desc *k, yaml_node_t *n,
		   const char *path, bool *skip)
{
	enum svc_tag t = svc_yaml_tag(n);

	*skip = false;
	if (t == SVC_TAG_NONE)
		return 0;
	if (k->merge == SVC_MERGE_NONE)
		return svc_yaml_err(y, n, "%s: %s is not supported by taskenv on %s", path,
				    t == SVC_TAG_RESET ? "!reset" : "!override", k->name);
	s->key_reset[k->id] = true;
	y->tag_ok[0] = n;
	*skip = t == SVC_TAG_RESET;
	return 0;
}

/* One key of S by its row, with the tombstones of its entries. */
static int service_key(struct svc_yaml *y, const struct svc_project *p, struct svc_service *s,
		       const struct svc_yaml_pair *pr)
{
	te_autofree char *path = xasprintf("services.%s.%s", s->name, pr->name);
	te_autostrv char **resets = NULL;
	const struct svc_key_desc *k;
	bool skip;
	int rc;

	if (strcmp(pr->name, "x-taskenv") == 0)
		return svc_resources_load_service(y, p, s, pr->val, path);
	k = svc_key_find(pr->name);
	/* No row: an x- extension or a key svc_yaml_check let through with a warning. */
	if (!k)
		return 0;
	if (key_tag(y, s, k, pr->val, path, &skip) < 0)
		return -1;
	s->key_loc[k->id] = svc_yaml_loc(y, pr->key);
	if (skip) {
		y->tag_ok[0] = NULL;
		return 0;
	}
	y->entry_resets = svc_key_drops(k) ? &resets : NULL;
	rc = svc_key_load(y, s, k, pr->val, path);
	y->entry_resets = NULL;
	y->tag_ok[0] = y->tag_ok[1] = NULL;
	for (size_t i = 0; rc == 0 && resets && resets[i]; i++) {
		s->resets = xrealloc(s->resets, (s->n_resets + 1) * sizeof(*s->resets));
		s->resets[s->n_resets++] = (struct svc_reset){k->id, TE_STEAL(resets[i])};
	}
	return rc;
}

static int load_keys(struct svc_yaml *y, const struct svc_project *p, struct svc_service *s,
		     const struct svc_yaml_map *ps)
{
	for (size_t i = 0; i < ps->n; i++)
		if (service_key(y, p, s, &ps->v[i]) < 0)
			return -1;
	return 0;
}

int svc_load_service(struct svc_yaml *y, const struct svc_project *p, struct svc_service *s,
		     const struct svc_yaml_pair *sp)
{
	svc_automap struct svc_yaml_map ps = {0};
	te_autofree char *path = xasprintf("services.%s", sp->name);
	struct svc_service own = {0};
	struct svc_yaml_pair *ext;
	int rc;

	s->name = xstrdup(sp->name);
	s->loc = svc_yaml_loc(y, sp->key);
	svc_service_keys_init(s);
	if (!svc_valid_name(s->name))
		return svc_yaml_err(y, sp->key, "invalid service name '%s': must match [a-zA-Z0-9._-]+",
				    s->name);
	if (svc_yaml_map(y, sp->val, path, &ps) < 0 || svc_yaml_check(y, &ps, path, service_keys, true) < 0)
		return -1;
	ext = svc_yaml_find(&ps, "extends");
	if (!ext || svc_yaml_is_null(ext->val))
		return load_keys(y, p, s, &ps);
	/* The base as it resolves (its own extends first), then this service's
	 * keys merged over it by the same rules as a later -f file's. */
	if (svc_extends_load(y, p, s, ext, path) < 0)
		return -1;
	own.name = xstrdup(s->name);
	svc_service_keys_init(&own);
	rc = load_keys(y, p, &own, &ps);
	if (rc == 0) {
		svc_service_merge(s, &own);
		/* The tags still apply to an earlier file's service of this name. */
		memcpy(s->key_reset, own.key_reset, sizeof(s->key_reset));
		s->resets = TE_STEAL(own.resets);
		s->n_resets = own.n_resets;
		own.n_resets = 0;
	}
	svc_service_release(&own);
	return rc;
}

/* services.NAME written !reset or !override in a later file: the earlier
 * file's service is dropped, or replaced whole (merge.c). */
static int service_tag(struct svc_yaml *y, struct svc_service *s, const struct svc_yaml_pair *sp, bool *skip)
{
	enum svc_tag t = svc_yaml_tag(sp->val);

	*skip = t == SVC_TAG_RESET;
	if (t == SVC_TAG_NONE)
		return 0;
	s->replace = t == SVC_TAG_OVERRIDE ? SVC_SERVICE_REPLACE : SVC_SERVICE_DROP;
	y->tag_ok[0] = sp->val;
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
		struct svc_service *s;
		bool skip;
		int rc;

		if (svc_has_prefix(ps.v[i].name, "x-"))
			continue;
		s = &p->services[p->n_services++];
		if (service_tag(y, s, &ps.v[i], &skip) < 0)
			return -1;
		if (skip) {
			s->name = xstrdup(ps.v[i].name);
			s->loc = svc_yaml_loc(y, ps.v[i].key);
			svc_service_keys_init(s);
			y->tag_ok[0] = NULL;
			continue;
		}
		rc = svc_load_service(y, p, s, &ps.v[i]);
		y->tag_ok[0] = NULL;
		if (rc < 0)
			return -1;
	}
	return 0;
}
