/* volumes (a service's mounts): the short syntax "SOURCE:TARGET[:MODE]" or
 * "TARGET" (an anonymous volume) and the long one; merged as a unique
 * resource on the target path. */
#define TE_WITH_CJSON
#include "services/model/kinds.h"
#include "common/cleanup.h"
#include "common/mem.h"

#include <stdlib.h>
#include <string.h>

static bool is_bind_source(const char *src)
{
	return src[0] == '/' || src[0] == '.' || src[0] == '~';
}

/* Refused rather than ignored: relabelling changes the host's files, and
 * without it an SELinux host denies the container its bind. */
#define RELABEL_HINT "label the host directory yourself (chcon -t container_file_t DIR) and drop it"

/* Mode options of the short syntax. ro/rw and nocopy change the model;
 * consistency hints (macOS only) are accepted and ignored, as by the engine. */
static const char *parse_mode(const char *mode, bool *ro, bool *nocopy)
{
	static const char *const ignored[] = {"nocopy", "cached", "delegated", "consistent"};
	te_autofree char *copy = xstrdup(mode);
	char *p = copy;

	for (;;) {
		char *comma = strchr(p, ',');
		bool known;

		if (comma)
			*comma = '\0';
		if (strcmp(p, "z") == 0 || strcmp(p, "Z") == 0)
			return "SELinux relabelling (z, Z) is not supported by taskenv: " RELABEL_HINT;
		known = strcmp(p, "ro") == 0 || strcmp(p, "rw") == 0;
		for (size_t i = 0; !known && i < sizeof(ignored) / sizeof(ignored[0]); i++)
			known = strcmp(p, ignored[i]) == 0;
		if (!known)
			return "mode must be ro or rw";
		if (strcmp(p, "ro") == 0 || strcmp(p, "rw") == 0)
			*ro = strcmp(p, "ro") == 0;
		if (strcmp(p, "nocopy") == 0)
			*nocopy = true;
		if (!comma)
			return NULL;
		p = comma + 1;
	}
}

/* Fill M from SOURCE (NULL = anonymous) and TARGET; TYPE_HINT is the long
 * syntax's type, or NULL to infer it from SOURCE as the short syntax does. */
static const char *fill_mount(struct svc_yaml *y, struct svc_mount *m, const char *source, const char *target,
			      const char *type_hint)
{
	bool bind = type_hint ? strcmp(type_hint, "bind") == 0 : source && is_bind_source(source);
	bool tmpfs = type_hint && strcmp(type_hint, "tmpfs") == 0;
	const char *why = NULL;

	if (type_hint && !bind && !tmpfs && strcmp(type_hint, "volume") != 0)
		return "only volume, bind and tmpfs mounts are supported";
	if (!target || target[0] != '/')
		return "target must be an absolute path";
	if (source && !*source)
		return "source must not be empty";
	if (bind && !source)
		return "a bind mount needs a source";
	if (tmpfs && source)
		return "a tmpfs mount takes no source";
	m->type = bind ? SVC_MOUNT_BIND : tmpfs ? SVC_MOUNT_TMPFS : SVC_MOUNT_VOLUME;
	m->target = xstrdup(target);
	if (bind)
		m->source = svc_path_bind_source(y->dir, source, &why);
	else
		m->source = xstrdup(source);
	return why;
}

static const char *mount_short(struct svc_yaml *y, struct svc_mount *m, char *spec)
{
	char *parts[3] = {spec, NULL, NULL};
	size_t n = 1;
	const char *why;

	for (char *c = strchr(spec, ':'); c; c = strchr(c + 1, ':')) {
		if (n == 3)
			return "too many ':' (SOURCE:TARGET[:MODE])";
		*c = '\0';
		parts[n++] = c + 1;
	}
	if (n == 1)
		return fill_mount(y, m, NULL, parts[0], NULL);
	why = fill_mount(y, m, parts[0], parts[1], NULL);
	if (!why && n == 3)
		why = parse_mode(parts[2], &m->read_only, &m->nocopy);
	return why;
}

/* Keys of the long syntax and of its volume/bind/tmpfs sub-mappings.
 * consistency is a macOS hint, as "cached" is in the short syntax. */
static const struct svc_yaml_key mount_keys[] = {
    SVC_KEY_LOAD("type"),
    SVC_KEY_LOAD("source"),
    SVC_KEY_LOAD("target"),
    SVC_KEY_LOAD("read_only"),
    SVC_KEY_LOAD("volume"),
    SVC_KEY_LOAD("bind"),
    SVC_KEY_LOAD("tmpfs"),
    SVC_KEY_NOOP("consistency"),
    {"image", SVC_USE_REFUSE, "image mounts are not supported"},
    {NULL, 0, NULL},
};
static const struct svc_yaml_key volume_keys[] = {
    SVC_KEY_LOAD("nocopy"),
    {"subpath", SVC_USE_REFUSE, NULL},
    {"labels", SVC_USE_WARN, "labels of an anonymous volume only tag it; they cannot change what runs"},
    {NULL, 0, NULL},
};
static const struct svc_yaml_key bind_keys[] = {
    SVC_KEY_LOAD("create_host_path"),
    {"selinux", SVC_USE_REFUSE, RELABEL_HINT},
    {"propagation", SVC_USE_REFUSE, NULL},
    {"recursive", SVC_USE_REFUSE, NULL},
    {NULL, 0, NULL},
};
static const struct svc_yaml_key tmpfs_keys[] = {
    SVC_KEY_LOAD("size"),
    {"mode", SVC_USE_REFUSE, NULL},
    {NULL, 0, NULL},
};

/* The sub-mappings of the long syntax: volume.nocopy, bind.create_host_path, tmpfs.size. */
static int mount_options(struct svc_yaml *y, struct svc_mount *m, const struct svc_yaml_map *pp,
			 const char *path)
{
	static const char *const subs[] = {"volume", "bind", "tmpfs"};
	static const char *const keys[] = {"nocopy", "create_host_path", "size"};
	static const struct svc_yaml_key *const known[] = {volume_keys, bind_keys, tmpfs_keys};

	for (size_t i = 0; i < 3; i++) {
		struct svc_yaml_pair *sub = svc_yaml_find(pp, subs[i]);
		svc_automap struct svc_yaml_map sp = {0};
		te_autofree char *subpath = xasprintf("%s.%s", path, subs[i]);
		struct svc_yaml_pair *k;
		bool b = true;

		if (!sub || svc_yaml_is_null(sub->val))
			continue;
		if (svc_yaml_map(y, sub->val, path, &sp) < 0 ||
		    svc_yaml_check(y, &sp, subpath, known[i], true) < 0)
			return -1;
		k = svc_yaml_find(&sp, keys[i]);
		if (!k)
			continue;
		if (i == 2 && svc_yaml_bytes(y, k->val, path, &m->tmpfs_size) < 0)
			return -1;
		if (i < 2 && svc_yaml_bool(y, k->val, path, &b) < 0)
			return -1;
		if (i == 0)
			m->nocopy = b;
		if (i == 1)
			m->no_create_host_path = !b;
	}
	return 0;
}

static int mount_long(struct svc_yaml *y, struct svc_mount *m, yaml_node_t *n, const char *path,
		      const char **why)
{
	svc_automap struct svc_yaml_map pp = {0};
	te_autofree char *v0 = NULL;
	te_autofree char *v1 = NULL;
	te_autofree char *v2 = NULL;
	char **v[3] = {&v0, &v1, &v2};
	struct svc_yaml_pair *ro;

	if (svc_yaml_map(y, n, path, &pp) < 0 || svc_yaml_check(y, &pp, path, mount_keys, true) < 0)
		return -1;
	for (size_t i = 0; i < 3; i++) {
		struct svc_yaml_pair *pr = svc_yaml_find(&pp, mount_keys[i].name);

		if (pr && svc_yaml_string(y, pr->val, path, v[i]) < 0)
			return -1;
	}
	ro = svc_yaml_find(&pp, "read_only");
	if (ro && svc_yaml_bool(y, ro->val, path, &m->read_only) < 0)
		return -1;
	if (mount_options(y, m, &pp, path) < 0)
		return -1;
	*why = v0 ? fill_mount(y, m, v1, v2, v0) : "type is required (volume, bind or tmpfs)";
	return 0;
}

static int one_mount(struct svc_yaml *y, struct svc_service *s, yaml_node_t *item, const char *path)
{
	struct svc_mount m = {0};
	te_autofree char *spec = NULL;
	const char *why = NULL;
	int rc;

	m.loc = svc_yaml_loc(y, item);
	if (item->type == YAML_MAPPING_NODE) {
		rc = mount_long(y, &m, item, path, &why);
	} else if (item->type == YAML_SCALAR_NODE && !svc_yaml_is_null(item)) {
		rc = svc_yaml_interp(y, item, &spec);
		if (rc == 0) {
			te_autofree char *work = xstrdup(spec);

			why = mount_short(y, &m, work);
		}
	} else {
		rc = svc_yaml_err(y, item, "%s items must be strings or mappings", path);
	}
	if (rc == 0 && why)
		rc = svc_yaml_err(y, item, "%s: invalid volume%s%s%s: %s", path, spec ? " '" : "",
				  spec ? spec : "", spec ? "'" : "", why);
	if (rc < 0) {
		free(m.source);
		free(m.target);
		return -1;
	}
	s->mounts = xrealloc(s->mounts, (s->n_mounts + 1) * sizeof(*s->mounts));
	s->mounts[s->n_mounts++] = m;
	return 0;
}

static int mounts_load(struct svc_yaml *y, struct svc_service *s, const struct svc_key_desc *k,
		       yaml_node_t *n, const char *path)
{
	if (svc_yaml_is_null(n))
		return 0;
	if (n->type != YAML_SEQUENCE_NODE)
		return svc_yaml_err(y, n, "%s must be a list", path);
	for (size_t i = 0; i < svc_yaml_len(n); i++)
		if (one_mount(y, s, svc_yaml_item(y, n, i), path) < 0)
			return -1;
	return 0;
}

static void mounts_release(struct svc_service *s, const struct svc_key_desc *k)
{
	for (size_t i = 0; i < s->n_mounts; i++) {
		free(s->mounts[i].source);
		free(s->mounts[i].target);
	}
	free(s->mounts);
}

static bool mounts_set(const struct svc_service *s, const struct svc_key_desc *k)
{
	return s->n_mounts > 0;
}

/* UNIQUE on the target: a later mount of the same path replaces the earlier. */
static void mounts_merge(struct svc_service *d, struct svc_service *s, const struct svc_key_desc *k)
{
	for (size_t i = 0; i < s->n_mounts; i++) {
		size_t j = 0;

		while (j < d->n_mounts && strcmp(d->mounts[j].target, s->mounts[i].target) != 0)
			j++;
		if (j < d->n_mounts) {
			free(d->mounts[j].source);
			free(d->mounts[j].target);
			d->mounts[j] = s->mounts[i];
			continue;
		}
		d->mounts = xrealloc(d->mounts, (d->n_mounts + 1) * sizeof(*d->mounts));
		d->mounts[d->n_mounts++] = s->mounts[i];
	}
	free(s->mounts);
	s->mounts = NULL;
	s->n_mounts = 0;
}

static void mounts_emit(cJSON *o, const struct svc_key_desc *k, const struct svc_service *s,
			const struct svc_plan_container *c)
{
	static const char *const types[] = {"volume", "bind", "tmpfs"};
	cJSON *a;

	if (!s->n_mounts)
		return;
	a = cJSON_AddArrayToObject(o, k->name);
	for (size_t i = 0; i < s->n_mounts; i++) {
		const struct svc_mount *m = &s->mounts[i];
		cJSON *e = cJSON_CreateObject();

		cJSON_AddStringToObject(e, "type", types[m->type]);
		svc_json_add_str(e, "source", m->source);
		cJSON_AddStringToObject(e, "target", m->target);
		if (m->read_only)
			cJSON_AddBoolToObject(e, "read_only", 1);
		if (m->type == SVC_MOUNT_BIND)
			cJSON_AddBoolToObject(cJSON_AddObjectToObject(e, "bind"), "create_host_path",
					      !m->no_create_host_path);
		if (m->type == SVC_MOUNT_VOLUME && m->nocopy)
			cJSON_AddBoolToObject(cJSON_AddObjectToObject(e, "volume"), "nocopy", 1);
		if (m->type == SVC_MOUNT_TMPFS && m->tmpfs_size)
			cJSON_AddNumberToObject(cJSON_AddObjectToObject(e, "tmpfs"), "size",
						(double)m->tmpfs_size);
		cJSON_AddItemToArray(a, e);
	}
}

const struct svc_kind_ops svc_kind_mounts = {
    .load = mounts_load,
    .release = mounts_release,
    .is_set = mounts_set,
    .merge = mounts_merge,
    .rule = SVC_MERGE_UNIQUE,
    .emit = mounts_emit,
};
