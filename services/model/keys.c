/* The key table as data (keys.h), what runs over it (init, release, merge,
 * load dispatch, `config` output), and the simple kinds: strings, string
 * lists, booleans, numbers, key/value lists. */
#define TE_WITH_CJSON
#include "services/model/keys.h"
#include "services/model/compose.h"
#include "services/model/kinds.h"
#include "services/model/plan.h"
#include "common/buf.h"
#include "common/cleanup.h"
#include "common/err.h"
#include "common/mem.h"

#include <stdlib.h>
#include <string.h>

/* ---- the table as data ---- */

#define DESC_PLAIN(key, id, member, kind, merge)                                                             \
	{#key,                                                                                               \
	 SVC_K_##id,                                                                                         \
	 SVC_KIND_##kind,                                                                                    \
	 SVC_MERGE_##merge,                                                                                  \
	 offsetof(struct svc_service, member),                                                               \
	 sizeof(((struct svc_service *)0)->member),                                                          \
	 SVC_NO_COUNT},
#define DESC_COUNTED(key, id, member, kind, merge)                                                           \
	{#key,                                                                                               \
	 SVC_K_##id,                                                                                         \
	 SVC_KIND_##kind,                                                                                    \
	 SVC_MERGE_##merge,                                                                                  \
	 offsetof(struct svc_service, member),                                                               \
	 sizeof(((struct svc_service *)0)->member),                                                          \
	 offsetof(struct svc_service, n_##member)},
#define DESC_NONE(key, id, member, kind, merge)                                                              \
	{#key, SVC_K_##id, SVC_KIND_##kind, SVC_MERGE_##merge, 0, 0, SVC_NO_COUNT},

/* Which of the three shapes each kind's member has. */
#define DESC_STR DESC_PLAIN
#define DESC_CNAME DESC_PLAIN
#define DESC_IMAGE DESC_PLAIN
#define DESC_STRV DESC_PLAIN
#define DESC_ARGV DESC_PLAIN
#define DESC_HOSTS DESC_PLAIN
#define DESC_ULIMITS DESC_PLAIN
#define DESC_TRI DESC_PLAIN
#define DESC_BYTES DESC_PLAIN
#define DESC_DURATION DESC_PLAIN
#define DESC_INT DESC_PLAIN
#define DESC_DOUBLE DESC_PLAIN
#define DESC_HEALTH DESC_PLAIN
#define DESC_BUILD DESC_PLAIN
#define DESC_ENV DESC_COUNTED
#define DESC_KV DESC_COUNTED
#define DESC_PORTS DESC_COUNTED
#define DESC_MOUNTS DESC_COUNTED
#define DESC_DEPS DESC_COUNTED
#define DESC_NETS DESC_COUNTED
#define DESC_REFS DESC_COUNTED
#define DESC_ENV_FILE DESC_COUNTED
#define DESC_SCALE DESC_PLAIN
#define DESC_DEPLOY DESC_NONE
#define DESC_EXTENDS DESC_NONE
#define DESC(key, id, member, kind, merge) DESC_##kind(key, id, member, kind, merge)

const struct svc_key_desc svc_service_keys[SVC_K_COUNT] = {SVC_SERVICE_KEYS(DESC)};

const struct svc_key_desc *svc_key_find(const char *name)
{
	for (size_t i = 0; i < SVC_K_COUNT; i++)
		if (strcmp(svc_service_keys[i].name, name) == 0)
			return &svc_service_keys[i];
	return NULL;
}

const char *svc_merge_name(enum svc_merge m)
{
	static const char *const names[SVC_MERGE_COUNT] = {"none",    "replace",  "override",
							   "mapping", "sequence", "unique"};

	return m < SVC_MERGE_COUNT ? names[m] : "?";
}

/* ---- `config` output helpers ---- */

cJSON *svc_json_strv(char *const *v)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; v && v[i]; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
	return a;
}

cJSON *svc_json_kv(const struct svc_kv *v, size_t n)
{
	cJSON *o = cJSON_CreateObject();

	for (size_t i = 0; i < n; i++)
		cJSON_AddStringToObject(o, v[i].key, v[i].value ? v[i].value : "");
	return o;
}

void svc_json_add_str(cJSON *o, const char *key, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, key, v);
}

void svc_json_add_strv(cJSON *o, const char *key, char *const *v)
{
	if (v && v[0])
		cJSON_AddItemToObject(o, key, svc_json_strv(v));
}

void svc_json_add_kv(cJSON *o, const char *key, const struct svc_kv *v, size_t n)
{
	if (n)
		cJSON_AddItemToObject(o, key, svc_json_kv(v, n));
}

void svc_json_add_tri(cJSON *o, const char *key, int v)
{
	if (v != SVC_UNSET)
		cJSON_AddBoolToObject(o, key, v == 1);
}

void svc_json_add_num(cJSON *o, const char *key, double v)
{
	if (v != 0)
		cJSON_AddNumberToObject(o, key, v);
}

/* Go's time.Duration.String() for whole units, as Compose prints. */
static char *duration(long long ns)
{
	te_autobuf struct te_buf b = TE_BUF_INIT(0);
	long long h = ns / 3600000000000LL, m = ns / 60000000000LL % 60, rest = ns % 60000000000LL;

	if (ns < 1000000000LL) {
		if (ns % 1000000 == 0)
			return xasprintf("%lldms", ns / 1000000);
		if (ns % 1000 == 0)
			return xasprintf("%lldus", ns / 1000);
		return xasprintf("%lldns", ns);
	}
	if (h)
		te_buf_addf(&b, "%lldh", h);
	if (h || m)
		te_buf_addf(&b, "%lldm", m);
	if (rest % 1000000000LL == 0)
		te_buf_addf(&b, "%llds", rest / 1000000000LL);
	else
		te_buf_addf(&b, "%gs", (double)rest / 1e9);
	return te_buf_detach(&b);
}

void svc_json_add_dur(cJSON *o, const char *key, long long ns)
{
	te_autofree char *s = NULL;

	if (!ns)
		return;
	s = duration(ns);
	cJSON_AddStringToObject(o, key, s);
}

/* ---- strings: STR, CNAME, IMAGE ---- */

void svc_merge_str(char **dst, char **src)
{
	if (!*src)
		return;
	free(*dst);
	*dst = *src;
	*src = NULL;
}

static int str_load(struct svc_yaml *y, struct svc_service *s, const struct svc_key_desc *k, yaml_node_t *n,
		    const char *path)
{
	char **m = SVC_MEMBER(s, k, char *);

	free(*m);
	return svc_yaml_string(y, n, path, m);
}

static void str_release(struct svc_service *s, const struct svc_key_desc *k)
{
	free(*SVC_MEMBER(s, k, char *));
}

static bool ptr_set(const struct svc_service *s, const struct svc_key_desc *k)
{
	return *SVC_MEMBER(s, k, void *) != NULL;
}

static void str_emit(cJSON *o, const struct svc_key_desc *k, const struct svc_service *s,
		     const struct svc_plan_container *c)
{
	svc_json_add_str(o, k->name, *SVC_MEMBER(s, k, char *));
}

/* `config` shows the names taskenv creates: the scoped container name and
 * the image it runs (built ones get svc_name_image). */
static void cname_emit(cJSON *o, const struct svc_key_desc *k, const struct svc_service *s,
		       const struct svc_plan_container *c)
{
	cJSON_AddStringToObject(o, k->name, c->name);
}

static void image_emit(cJSON *o, const struct svc_key_desc *k, const struct svc_service *s,
		       const struct svc_plan_container *c)
{
	cJSON_AddStringToObject(o, k->name, c->image);
}

static const struct svc_kind_ops kind_str = {
    .load = str_load, .release = str_release, .is_set = ptr_set, .emit = str_emit};
static const struct svc_kind_ops kind_cname = {
    .load = str_load, .release = str_release, .is_set = ptr_set, .emit = cname_emit};
static const struct svc_kind_ops kind_image = {
    .load = str_load, .release = str_release, .is_set = ptr_set, .emit = image_emit};

/* ---- string lists: STRV, ARGV, HOSTS ---- */

static int strv_load(struct svc_yaml *y, struct svc_service *s, const struct svc_key_desc *k, yaml_node_t *n,
		     const char *path)
{
	return svc_yaml_strv_loose(y, n, path, SVC_MEMBER(s, k, char **));
}

static int argv_load(struct svc_yaml *y, struct svc_service *s, const struct svc_key_desc *k, yaml_node_t *n,
		     const char *path)
{
	return svc_yaml_argv(y, n, path, SVC_MEMBER(s, k, char **));
}

static int hosts_load(struct svc_yaml *y, struct svc_service *s, const struct svc_key_desc *k, yaml_node_t *n,
		      const char *path)
{
	return svc_yaml_hosts(y, n, path, SVC_MEMBER(s, k, char **));
}

static void strv_release(struct svc_service *s, const struct svc_key_desc *k)
{
	te_strv_free(*SVC_MEMBER(s, k, char **));
}

void svc_merge_strv(char ***dst, char ***src)
{
	for (size_t i = 0; *src && (*src)[i]; i++) {
		bool have = false;

		for (size_t j = 0; *dst && (*dst)[j] && !have; j++)
			have = strcmp((*dst)[j], (*src)[i]) == 0;
		if (have)
			free((*src)[i]);
		else
			*dst = te_strv_push(*dst, (*src)[i]);
	}
	free(*src);
	*src = NULL;
}

static void strv_merge(struct svc_service *d, struct svc_service *s, const struct svc_key_desc *k)
{
	svc_merge_strv(SVC_MEMBER(d, k, char **), SVC_MEMBER(s, k, char **));
}

static void strv_emit(cJSON *o, const struct svc_key_desc *k, const struct svc_service *s,
		      const struct svc_plan_container *c)
{
	svc_json_add_strv(o, k->name, *SVC_MEMBER(s, k, char **));
}

/* An empty command is printed: it overrides the image's. */
static void argv_emit(cJSON *o, const struct svc_key_desc *k, const struct svc_service *s,
		      const struct svc_plan_container *c)
{
	char **v = *SVC_MEMBER(s, k, char **);

	if (v)
		cJSON_AddItemToObject(o, k->name, svc_json_strv(v));
}

static const struct svc_kind_ops kind_strv = {.load = strv_load,
					      .release = strv_release,
					      .is_set = ptr_set,
					      .merge = strv_merge,
					      .rule = SVC_MERGE_SEQUENCE,
					      .emit = strv_emit};
static const struct svc_kind_ops kind_argv = {
    .load = argv_load, .release = strv_release, .is_set = ptr_set, .emit = argv_emit};
static const struct svc_kind_ops kind_hosts = {.load = hosts_load,
					       .release = strv_release,
					       .is_set = ptr_set,
					       .merge = strv_merge,
					       .rule = SVC_MERGE_SEQUENCE,
					       .emit = strv_emit};

/* ---- booleans and numbers: TRI, BYTES, DURATION, INT, DOUBLE ---- */

static int tri_load(struct svc_yaml *y, struct svc_service *s, const struct svc_key_desc *k, yaml_node_t *n,
		    const char *path)
{
	bool b;

	if (svc_yaml_is_null(n))
		return 0;
	if (svc_yaml_bool(y, n, path, &b) < 0)
		return -1;
	*SVC_MEMBER(s, k, int) = b;
	return 0;
}

static void tri_init(struct svc_service *s, const struct svc_key_desc *k)
{
	*SVC_MEMBER(s, k, int) = SVC_UNSET;
}

static bool tri_set(const struct svc_service *s, const struct svc_key_desc *k)
{
	return *SVC_MEMBER(s, k, int) != SVC_UNSET;
}

static void tri_emit(cJSON *o, const struct svc_key_desc *k, const struct svc_service *s,
		     const struct svc_plan_container *c)
{
	svc_json_add_tri(o, k->name, *SVC_MEMBER(s, k, int));
}

static int bytes_load(struct svc_yaml *y, struct svc_service *s, const struct svc_key_desc *k, yaml_node_t *n,
		      const char *path)
{
	return svc_yaml_bytes(y, n, path, SVC_MEMBER(s, k, long long));
}

static int duration_load(struct svc_yaml *y, struct svc_service *s, const struct svc_key_desc *k,
			 yaml_node_t *n, const char *path)
{
	return svc_yaml_duration(y, n, path, SVC_MEMBER(s, k, long long));
}

static int int_load(struct svc_yaml *y, struct svc_service *s, const struct svc_key_desc *k, yaml_node_t *n,
		    const char *path)
{
	return svc_yaml_int(y, n, path, SVC_MEMBER(s, k, long long));
}

static int double_load(struct svc_yaml *y, struct svc_service *s, const struct svc_key_desc *k,
		       yaml_node_t *n, const char *path)
{
	return svc_yaml_double(y, n, path, SVC_MEMBER(s, k, double));
}

static bool ll_set(const struct svc_service *s, const struct svc_key_desc *k)
{
	return *SVC_MEMBER(s, k, long long) != 0;
}

static bool double_set(const struct svc_service *s, const struct svc_key_desc *k)
{
	return *SVC_MEMBER(s, k, double) > 0;
}

static void ll_emit(cJSON *o, const struct svc_key_desc *k, const struct svc_service *s,
		    const struct svc_plan_container *c)
{
	svc_json_add_num(o, k->name, (double)*SVC_MEMBER(s, k, long long));
}

static void duration_emit(cJSON *o, const struct svc_key_desc *k, const struct svc_service *s,
			  const struct svc_plan_container *c)
{
	svc_json_add_dur(o, k->name, *SVC_MEMBER(s, k, long long));
}

static void double_emit(cJSON *o, const struct svc_key_desc *k, const struct svc_service *s,
			const struct svc_plan_container *c)
{
	svc_json_add_num(o, k->name, *SVC_MEMBER(s, k, double));
}

static const struct svc_kind_ops kind_tri = {
    .load = tri_load, .init = tri_init, .is_set = tri_set, .emit = tri_emit};
static const struct svc_kind_ops kind_bytes = {.load = bytes_load, .is_set = ll_set, .emit = ll_emit};
static const struct svc_kind_ops kind_duration = {
    .load = duration_load, .is_set = ll_set, .emit = duration_emit};
static const struct svc_kind_ops kind_int = {.load = int_load, .is_set = ll_set, .emit = ll_emit};
static const struct svc_kind_ops kind_double = {
    .load = double_load, .is_set = double_set, .emit = double_emit};

/* ---- key/value lists: ENV, KV ---- */

static int env_load(struct svc_yaml *y, struct svc_service *s, const struct svc_key_desc *k, yaml_node_t *n,
		    const char *path)
{
	return svc_yaml_kv(y, SVC_KV_ENV, n, path, SVC_MEMBER(s, k, struct svc_kv *), SVC_COUNT(s, k));
}

static int kv_load(struct svc_yaml *y, struct svc_service *s, const struct svc_key_desc *k, yaml_node_t *n,
		   const char *path)
{
	return svc_yaml_kv(y, SVC_KV_LABEL, n, path, SVC_MEMBER(s, k, struct svc_kv *), SVC_COUNT(s, k));
}

static void kv_release(struct svc_service *s, const struct svc_key_desc *k)
{
	svc_kv_free(*SVC_MEMBER(s, k, struct svc_kv *), *SVC_COUNT(s, k));
}

static bool count_set(const struct svc_service *s, const struct svc_key_desc *k)
{
	return *SVC_COUNT(s, k) > 0;
}

void svc_kv_drop(struct svc_kv *kv, size_t *n, const char *key)
{
	for (size_t i = 0; i < *n; i++) {
		if (strcmp(kv[i].key, key) != 0)
			continue;
		free(kv[i].key);
		free(kv[i].value);
		memmove(&kv[i], &kv[i + 1], (*n - i - 1) * sizeof(*kv));
		(*n)--;
		return;
	}
}

static void kv_drop(struct svc_service *s, const struct svc_key_desc *k, const char *name)
{
	svc_kv_drop(*SVC_MEMBER(s, k, struct svc_kv *), SVC_COUNT(s, k), name);
}

void svc_merge_kv(struct svc_kv **dst, size_t *nd, struct svc_kv **src, size_t *ns)
{
	struct svc_kv_set set;

	svc_kv_set_init(&set, dst, nd);
	for (size_t i = 0; i < *ns; i++)
		svc_kv_set_put(&set, (*src)[i].key, (*src)[i].value, (*src)[i].loc);
	svc_kv_set_release(&set);
	free(*src);
	*src = NULL;
	*ns = 0;
}

static void kv_merge(struct svc_service *d, struct svc_service *s, const struct svc_key_desc *k)
{
	svc_merge_kv(SVC_MEMBER(d, k, struct svc_kv *), SVC_COUNT(d, k), SVC_MEMBER(s, k, struct svc_kv *),
		     SVC_COUNT(s, k));
}

static void kv_emit(cJSON *o, const struct svc_key_desc *k, const struct svc_service *s,
		    const struct svc_plan_container *c)
{
	svc_json_add_kv(o, k->name, *SVC_MEMBER(s, k, struct svc_kv *), *SVC_COUNT(s, k));
}

static const struct svc_kind_ops kind_env = {.load = env_load,
					     .release = kv_release,
					     .is_set = count_set,
					     .merge = kv_merge,
					     .rule = SVC_MERGE_MAPPING,
					     .drop = kv_drop,
					     .emit = kv_emit};
static const struct svc_kind_ops kind_kv = {.load = kv_load,
					    .release = kv_release,
					    .is_set = count_set,
					    .merge = kv_merge,
					    .rule = SVC_MERGE_MAPPING,
					    .drop = kv_drop,
					    .emit = kv_emit};

/* ---- over the table ---- */

static const struct svc_kind_ops *const kinds[SVC_KIND_COUNT] = {
    [SVC_KIND_STR] = &kind_str,
    [SVC_KIND_CNAME] = &kind_cname,
    [SVC_KIND_IMAGE] = &kind_image,
    [SVC_KIND_STRV] = &kind_strv,
    [SVC_KIND_ARGV] = &kind_argv,
    [SVC_KIND_HOSTS] = &kind_hosts,
    [SVC_KIND_ULIMITS] = &svc_kind_ulimits,
    [SVC_KIND_TRI] = &kind_tri,
    [SVC_KIND_BYTES] = &kind_bytes,
    [SVC_KIND_DURATION] = &kind_duration,
    [SVC_KIND_INT] = &kind_int,
    [SVC_KIND_DOUBLE] = &kind_double,
    [SVC_KIND_ENV] = &kind_env,
    [SVC_KIND_KV] = &kind_kv,
    [SVC_KIND_PORTS] = &svc_kind_ports,
    [SVC_KIND_MOUNTS] = &svc_kind_mounts,
    [SVC_KIND_DEPS] = &svc_kind_deps,
    [SVC_KIND_NETS] = &svc_kind_nets,
    [SVC_KIND_REFS] = &svc_kind_refs,
    [SVC_KIND_HEALTH] = &svc_kind_health,
    [SVC_KIND_BUILD] = &svc_kind_build,
    [SVC_KIND_DEPLOY] = &svc_kind_deploy,
    [SVC_KIND_ENV_FILE] = &svc_kind_env_file,
    [SVC_KIND_SCALE] = &svc_kind_scale,
    [SVC_KIND_EXTENDS] = &svc_kind_extends,
};

static const struct svc_kind_ops *ops_of(const struct svc_key_desc *k)
{
	if (k->kind >= SVC_KIND_COUNT || !kinds[k->kind])
		TE_BUG("service key of a kind without operations");
	return kinds[k->kind];
}

bool svc_kind_merges(enum svc_kind kind, enum svc_merge m)
{
	const struct svc_kind_ops *ops = kind < SVC_KIND_COUNT ? kinds[kind] : NULL;

	if (!ops)
		return false;
	if (m == SVC_MERGE_NONE)
		return !ops->is_set && !ops->merge;
	if (m == SVC_MERGE_REPLACE || m == SVC_MERGE_OVERRIDE)
		return ops->is_set != NULL;
	return ops->merge && ops->rule == m;
}

int svc_key_load(struct svc_yaml *y, struct svc_service *s, const struct svc_key_desc *k, yaml_node_t *n,
		 const char *path)
{
	return ops_of(k)->load(y, s, k, n, path);
}

bool svc_key_drops(const struct svc_key_desc *k)
{
	return ops_of(k)->drop != NULL;
}

static void member_init(struct svc_service *s, const struct svc_key_desc *k)
{
	const struct svc_kind_ops *ops = ops_of(k);

	if (!k->size)
		return;
	memset(SVC_MEMBER(s, k, char), 0, k->size);
	if (k->n_off != SVC_NO_COUNT)
		*SVC_COUNT(s, k) = 0;
	if (ops->init)
		ops->init(s, k);
}

void svc_service_keys_init(struct svc_service *s)
{
	for (size_t i = 0; i < SVC_K_COUNT; i++)
		member_init(s, &svc_service_keys[i]);
}

void svc_service_keys_release(struct svc_service *s)
{
	for (size_t i = 0; i < SVC_K_COUNT; i++) {
		const struct svc_key_desc *k = &svc_service_keys[i];

		if (k->size && ops_of(k)->release)
			ops_of(k)->release(s, k);
		member_init(s, k);
	}
}

/* REPLACE / OVERRIDE: SRC's member, whole, in place of DST's. */
static void take(struct svc_service *d, struct svc_service *s, const struct svc_key_desc *k)
{
	if (ops_of(k)->release)
		ops_of(k)->release(d, k);
	memcpy(SVC_MEMBER(d, k, char), SVC_MEMBER(s, k, char), k->size);
	if (k->n_off != SVC_NO_COUNT)
		*SVC_COUNT(d, k) = *SVC_COUNT(s, k);
	member_init(s, k);
}

/* The merge tags of S (keys.h): entry tombstones, then whole keys emptied. */
static void apply_resets(struct svc_service *d, const struct svc_service *s)
{
	for (size_t i = 0; i < s->n_resets; i++) {
		const struct svc_key_desc *k = &svc_service_keys[s->resets[i].key];

		if (ops_of(k)->drop)
			ops_of(k)->drop(d, k, s->resets[i].entry);
	}
	for (size_t i = 0; i < SVC_K_COUNT; i++) {
		const struct svc_key_desc *k = &svc_service_keys[i];

		if (!s->key_reset[i])
			continue;
		if (k->size && ops_of(k)->release)
			ops_of(k)->release(d, k);
		member_init(d, k);
		d->key_loc[i] = (struct svc_loc){0};
	}
}

void svc_service_merge(struct svc_service *d, struct svc_service *s)
{
	apply_resets(d, s);
	for (size_t i = 0; i < SVC_K_COUNT; i++) {
		const struct svc_key_desc *k = &svc_service_keys[i];
		const struct svc_kind_ops *ops = ops_of(k);

		bool took = true;

		switch (k->merge) {
		case SVC_MERGE_NONE: break;
		case SVC_MERGE_REPLACE:
		case SVC_MERGE_OVERRIDE:
			/* A null written later keeps the earlier value, and its location. */
			took = ops->is_set(s, k);
			if (took)
				take(d, s, k);
			break;
		default: ops->merge(d, s, k); break;
		}
		if (took && s->key_loc[k->id].line)
			d->key_loc[k->id] = s->key_loc[k->id];
	}
	svc_merge_kv(&d->inject, &d->n_inject, &s->inject, &s->n_inject);
	svc_merge_kv(&d->env_paths, &d->n_env_paths, &s->env_paths, &s->n_env_paths);
}

cJSON *svc_service_json(const struct svc_plan_container *c)
{
	cJSON *o = cJSON_CreateObject();

	for (size_t i = 0; i < SVC_K_COUNT; i++) {
		const struct svc_key_desc *k = &svc_service_keys[i];

		if (ops_of(k)->emit)
			ops_of(k)->emit(o, k, c->svc, c);
	}
	return o;
}
