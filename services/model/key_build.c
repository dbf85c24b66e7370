/* build: a context directory (short form) or the long form taskenv passes
 * to POST /build; merged key by key as a mapping. */
#define TE_WITH_CJSON
#include "services/model/kinds.h"
#include "services/model/load_ctx.h"
#include "services/model/boundary.h"
#include "common/cleanup.h"
#include "common/mem.h"

#include <stdlib.h>
#include <string.h>

/* Keys of build:. Ignoring the WARN ones cannot change the image that runs. */
static const struct svc_yaml_key build_keys[] = {
    SVC_KEY_LOAD("context"),
    SVC_KEY_LOAD("dockerfile"),
    SVC_KEY_LOAD("dockerfile_inline"),
    SVC_KEY_LOAD("args"),
    SVC_KEY_LOAD("target"),
    SVC_KEY_LOAD("labels"),
    SVC_KEY_LOAD("network"),
    SVC_KEY_LOAD("shm_size"),
    SVC_KEY_LOAD("extra_hosts"),
    SVC_KEY_LOAD("cache_from"),
    SVC_KEY_LOAD("pull"),
    {"cache_to", SVC_USE_WARN, "it only exports the build cache; the image built is the same"},
    {"tags", SVC_USE_WARN, "extra names for the built image; taskenv names the image it builds and runs"},
    {"provenance", SVC_USE_WARN, "attestations are attached beside the image; what runs is the same"},
    {"sbom", SVC_USE_WARN, "attestations are attached beside the image; what runs is the same"},
    {"additional_contexts", SVC_USE_REFUSE, NULL},
    {"entitlements", SVC_USE_REFUSE, NULL},
    {"isolation", SVC_USE_REFUSE, NULL},
    {"no_cache", SVC_USE_REFUSE, "taskenv builds with the engine's layer cache"},
    {"platforms", SVC_USE_REFUSE, NULL},
    {"privileged", SVC_USE_REFUSE, NULL},
    {"secrets", SVC_USE_REFUSE, NULL},
    {"ssh", SVC_USE_REFUSE, NULL},
    {"ulimits", SVC_USE_REFUSE, NULL},
    {NULL, 0, NULL},
};

static int build_context(struct svc_yaml *y, struct svc_build *b, yaml_node_t *n, const char *path)
{
	te_autofree char *ctx = NULL;
	const char *why = NULL;
	char *resolved;

	if (svc_yaml_string(y, n, path, &ctx) < 0)
		return -1;
	if (!ctx || !*ctx)
		ctx = xstrdup(".");
	if (strstr(ctx, "://") || svc_has_prefix(ctx, "git@") || svc_has_prefix(ctx, "github.com/"))
		return svc_yaml_err(y, n,
				    "%s: remote build contexts ('%s') are not supported: clone it and "
				    "give a directory",
				    path, ctx);
	/* "~" as Compose expands it (a bind source's rule): $HOME, which the
	 * gate then judges like any other host path. */
	resolved = svc_path_bind_source(y->dir, ctx, &why);
	if (!resolved)
		return svc_yaml_err(y, n, "%s: '%s': %s", path, ctx, why);
	free(b->context);
	b->context = resolved;
	return 0;
}

static int build_field(struct svc_yaml *y, struct svc_build *b, const struct svc_yaml_pair *pr,
		       const char *path)
{
	const char *k = pr->name;
	bool v;

	if (strcmp(k, "context") == 0)
		return build_context(y, b, pr->val, path);
	if (strcmp(k, "dockerfile") == 0)
		return free(b->dockerfile), svc_yaml_string(y, pr->val, path, &b->dockerfile);
	if (strcmp(k, "dockerfile_inline") == 0)
		return free(b->dockerfile_inline), svc_yaml_string(y, pr->val, path, &b->dockerfile_inline);
	if (strcmp(k, "args") == 0)
		return svc_yaml_kv(y, SVC_KV_ENV, pr->val, path, &b->args, &b->n_args);
	if (strcmp(k, "target") == 0)
		return free(b->target), svc_yaml_string(y, pr->val, path, &b->target);
	if (strcmp(k, "labels") == 0)
		return svc_yaml_kv(y, SVC_KV_LABEL, pr->val, path, &b->labels, &b->n_labels);
	if (strcmp(k, "network") == 0) {
		free(b->network);
		if (svc_yaml_string(y, pr->val, path, &b->network) < 0)
			return -1;
		/* A build step on the host's network (or another task's) reaches
		 * what the task's containers cannot: the default, or none. */
		if (strcmp(b->network, "default") != 0 && strcmp(b->network, "none") != 0)
			return svc_yaml_refuse(y, pr->val,
					       "%s: '%s' refused: a build runs on the engine's default build "
					       "network or none",
					       path, b->network);
		return 0;
	}
	if (strcmp(k, "shm_size") == 0)
		return svc_yaml_bytes(y, pr->val, path, &b->shm_size);
	if (strcmp(k, "extra_hosts") == 0)
		return svc_yaml_hosts(y, pr->val, path, &b->extra_hosts);
	if (strcmp(k, "cache_from") == 0)
		return svc_yaml_strv_loose(y, pr->val, path, &b->cache_from);
	if (strcmp(k, "pull") != 0)
		return 0; /* x- and the ignored keys svc_yaml_check let through */
	if (svc_yaml_bool(y, pr->val, path, &v) < 0)
		return -1;
	b->pull = v;
	return 0;
}

/* PATH under DIR resolves (every symlink followed) inside the project, or
 * does not exist yet (up checks again when it builds). */
static int inside_one(struct svc_yaml *y, yaml_node_t *n, const char *dir, const char *p, const char *path,
		      const char *what)
{
	te_autofree char *joined = p[0] == '/' ? xstrdup(p) : xasprintf("%s/%s", dir, p);
	te_autofree char *real = realpath(joined, NULL);
	te_autofree char *root = y->ctx ? svc_project_boundary(y->ctx->boundary) : NULL;

	if (!real || !root || svc_path_within(real, root))
		return 0;
	return svc_yaml_refuse(y, n, "%s: %s '%s' resolves to '%s', outside the project '%s': refused", path,
			       what, p, real, root);
}

/* The node of KEY in PP (the finding's line), else N. */
static yaml_node_t *node_of(const struct svc_yaml_map *pp, const char *key, yaml_node_t *n)
{
	for (size_t i = 0; pp && i < pp->n; i++)
		if (strcmp(pp->v[i].name, key) == 0)
			return pp->v[i].key;
	return n;
}

/* taskenv reads the context and a Dockerfile outside it and sends them to
 * the engine: both inside the project. A finding names the key's line. */
static int build_inside(struct svc_yaml *y, const struct svc_build *b, yaml_node_t *n,
			const struct svc_yaml_map *pp, const char *path)
{
	/* No context yet: the project directory, set when the files are
	 * merged (svc_project_finalize); up checks the build then. */
	if (!b->context)
		return 0;
	if (inside_one(y, node_of(pp, "context", n), "/", b->context, path, "context") < 0)
		return -1;
	return b->dockerfile_inline
		   ? 0
		   : inside_one(y, node_of(pp, "dockerfile", n), b->context,
				b->dockerfile ? b->dockerfile : "Dockerfile", path, "dockerfile");
}

/* A context left out stays NULL until svc_project_finalize defaults it to
 * the project directory: a later file's build: without one must not
 * replace an earlier file's context with the default. */
static int build_load(struct svc_yaml *y, struct svc_service *s, const struct svc_key_desc *k, yaml_node_t *n,
		      const char *path)
{
	svc_automap struct svc_yaml_map pp = {0};
	struct svc_build *b = &s->build;

	b->set = true;
	b->pull = SVC_UNSET;
	b->loc = svc_yaml_loc(y, n);
	if (n->type != YAML_MAPPING_NODE)
		return build_context(y, b, n, path) < 0 ? -1 : build_inside(y, b, n, NULL, path);
	if (svc_yaml_map(y, n, path, &pp) < 0 || svc_yaml_check(y, &pp, path, build_keys, true) < 0)
		return -1;
	for (size_t i = 0; i < pp.n; i++) {
		te_autofree char *sub = xasprintf("%s.%s", path, pp.v[i].name);

		if (build_field(y, b, &pp.v[i], sub) < 0)
			return -1;
	}
	if (b->dockerfile && b->dockerfile_inline)
		return svc_yaml_err(y, n, "%s: dockerfile and dockerfile_inline are mutually exclusive",
				    path);
	return build_inside(y, b, n, &pp, path);
}

static void build_release(struct svc_service *s, const struct svc_key_desc *k)
{
	struct svc_build *b = &s->build;

	free(b->context);
	free(b->dockerfile);
	free(b->dockerfile_inline);
	svc_kv_free(b->args, b->n_args);
	free(b->target);
	svc_kv_free(b->labels, b->n_labels);
	free(b->network);
	te_strv_free(b->extra_hosts);
	te_strv_free(b->cache_from);
}

static bool build_set(const struct svc_service *s, const struct svc_key_desc *k)
{
	return s->build.set;
}

/* MAPPING: each key of build: by its own rule (strings replaced, args and
 * labels by key, lists appended without duplicates). A later dockerfile
 * replaces an earlier dockerfile_inline and the other way round, as the
 * two are one choice. */
static void build_merge(struct svc_service *d, struct svc_service *s, const struct svc_key_desc *k)
{
	struct svc_build *db = &d->build, *sb = &s->build;

	if (!sb->set)
		return;
	if (sb->dockerfile) {
		free(db->dockerfile_inline);
		db->dockerfile_inline = NULL;
	}
	if (sb->dockerfile_inline) {
		free(db->dockerfile);
		db->dockerfile = NULL;
	}
	svc_merge_str(&db->context, &sb->context);
	svc_merge_str(&db->dockerfile, &sb->dockerfile);
	svc_merge_str(&db->dockerfile_inline, &sb->dockerfile_inline);
	svc_merge_str(&db->target, &sb->target);
	svc_merge_str(&db->network, &sb->network);
	svc_merge_kv(&db->args, &db->n_args, &sb->args, &sb->n_args);
	svc_merge_kv(&db->labels, &db->n_labels, &sb->labels, &sb->n_labels);
	svc_merge_strv(&db->extra_hosts, &sb->extra_hosts);
	svc_merge_strv(&db->cache_from, &sb->cache_from);
	if (sb->shm_size)
		db->shm_size = sb->shm_size;
	if (sb->pull != SVC_UNSET || !db->set)
		db->pull = sb->pull;
	db->set = true;
	db->loc = sb->loc;
}

static void build_emit(cJSON *o, const struct svc_key_desc *k, const struct svc_service *s,
		       const struct svc_plan_container *c)
{
	const struct svc_build *b = &s->build;
	cJSON *j;

	if (!b->set)
		return;
	j = cJSON_AddObjectToObject(o, k->name);
	svc_json_add_str(j, "context", b->context);
	svc_json_add_str(j, "dockerfile", b->dockerfile);
	svc_json_add_str(j, "dockerfile_inline", b->dockerfile_inline);
	svc_json_add_kv(j, "args", b->args, b->n_args);
	svc_json_add_str(j, "target", b->target);
	svc_json_add_kv(j, "labels", b->labels, b->n_labels);
	svc_json_add_str(j, "network", b->network);
	svc_json_add_num(j, "shm_size", (double)b->shm_size);
	svc_json_add_strv(j, "extra_hosts", b->extra_hosts);
	svc_json_add_strv(j, "cache_from", b->cache_from);
	svc_json_add_tri(j, "pull", b->pull);
}

const struct svc_kind_ops svc_kind_build = {
    .load = build_load,
    .release = build_release,
    .is_set = build_set,
    .merge = build_merge,
    .rule = SVC_MERGE_MAPPING,
    .emit = build_emit,
};
