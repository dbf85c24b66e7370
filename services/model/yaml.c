#include "services/model/yaml.h"

#include "common/buf.h"
#include "common/cleanup.h"
#include "common/err.h"
#include "common/mem.h"
#include "services/model/interp.h"
#include "services/model/load.h"
#include "services/model/suggest.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Merge keys nest only as deep as a file's anchors do; the cap keeps a
 * hostile chain of them from exhausting the stack. */
#define MERGE_MAX_DEPTH 64

/* ---- errors and nodes ---- */

struct svc_loc svc_yaml_loc(const struct svc_yaml *y, const yaml_node_t *n)
{
	struct svc_loc loc = {y->file, (int)n->start_mark.line + 1, (int)n->start_mark.column + 1};

	return loc;
}

int svc_yaml_err(struct svc_yaml *y, const yaml_node_t *n, const char *fmt, ...)
{
	char msg[sizeof(y->err->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return te_err_set(y->err, TE_E_COMPOSE, "%s:%zu:%zu: %s", y->file, n->start_mark.line + 1,
			  n->start_mark.column + 1, msg);
}

int svc_yaml_refuse(struct svc_yaml *y, const yaml_node_t *n, const char *fmt, ...)
{
	char msg[sizeof(y->err->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return te_err_set(y->err, TE_E_POLICY, "%s:%zu:%zu: %s", y->file, n->start_mark.line + 1,
			  n->start_mark.column + 1, msg);
}

int svc_yaml_err_prefix(struct svc_yaml *y, const yaml_node_t *n)
{
	return te_err_prefix(y->err, "%s:%zu:%zu: ", y->file, n->start_mark.line + 1,
			     n->start_mark.column + 1);
}

void svc_yaml_log_add(struct svc_yaml_log *log, char *owned)
{
	if (log->n_warnings >= SVC_YAML_MAX_WARNINGS) {
		log->n_dropped++;
		free(owned);
		return;
	}
	log->n_warnings++;
	log->warnings = te_strv_push(log->warnings, owned);
}

char **svc_yaml_log_finish(struct svc_yaml_log *log)
{
	char **w = TE_STEAL(log->warnings);

	if (log->n_dropped)
		w = te_strv_push(w, xasprintf("%zu more warnings not shown", log->n_dropped));
	te_strv_free(log->unset);
	memset(log, 0, sizeof(*log));
	return w;
}

void svc_yaml_warn(struct svc_yaml *y, const yaml_node_t *n, const char *fmt, ...)
{
	te_autofree char *msg = NULL;
	va_list ap;

	if (y->log->n_warnings >= SVC_YAML_MAX_WARNINGS) {
		y->log->n_dropped++;
		return;
	}
	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	svc_yaml_log_add(y->log, xasprintf("%s:%zu:%zu: %s", y->file, n->start_mark.line + 1,
					   n->start_mark.column + 1, msg));
}

yaml_node_t *svc_yaml_node(struct svc_yaml *y, int index)
{
	yaml_node_t *n = yaml_document_get_node(y->doc, index);

	if (!n)
		TE_BUG("libyaml document refers to a missing node");
	return n;
}

size_t svc_yaml_len(const yaml_node_t *n)
{
	if (n->type != YAML_SEQUENCE_NODE)
		return 0;
	return (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
}

yaml_node_t *svc_yaml_item(struct svc_yaml *y, const yaml_node_t *n, size_t i)
{
	return svc_yaml_node(y, n->data.sequence.items.start[i]);
}

const char *svc_yaml_text(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

bool svc_yaml_is_null(const yaml_node_t *n)
{
	static const char *const nulls[] = {"", "~", "null", "Null", "NULL"};

	if (n->type != YAML_SCALAR_NODE)
		return false;
	if (n->tag && strcmp((const char *)n->tag, YAML_NULL_TAG) == 0)
		return true;
	if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	for (size_t i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++)
		if (strcmp(svc_yaml_text(n), nulls[i]) == 0)
			return true;
	return false;
}

bool svc_has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* ---- merge tags ---- */

enum svc_tag svc_yaml_tag(const yaml_node_t *n)
{
	const char *t = (const char *)n->tag;

	if (!t)
		return SVC_TAG_NONE;
	if (strcmp(t, "!reset") == 0)
		return SVC_TAG_RESET;
	if (strcmp(t, "!override") == 0)
		return SVC_TAG_OVERRIDE;
	return SVC_TAG_NONE;
}

int svc_yaml_untagged(struct svc_yaml *y, const yaml_node_t *n, const char *path)
{
	enum svc_tag t = svc_yaml_tag(n);

	if (t == SVC_TAG_NONE || n == y->tag_ok[0] || n == y->tag_ok[1])
		return 0;
	return svc_yaml_err(y, n,
			    "%s%s%s is not supported by taskenv here: it takes !reset and !override on a "
			    "service, a service's key, and an entry of environment, labels, sysctls, "
			    "depends_on, networks, ulimits",
			    path ? path : "", path ? ": " : "", t == SVC_TAG_RESET ? "!reset" : "!override");
}

int svc_yaml_entry(struct svc_yaml *y, yaml_node_t *v, const char *name, const char *path)
{
	enum svc_tag t = svc_yaml_tag(v);
	te_autofree char *sub = NULL;

	if (t == SVC_TAG_NONE)
		return 0;
	if (!y->entry_resets) {
		sub = xasprintf("%s.%s", path, name);
		return svc_yaml_untagged(y, v, sub);
	}
	*y->entry_resets = te_strv_push(*y->entry_resets, xstrdup(name));
	y->tag_ok[1] = v;
	return t == SVC_TAG_RESET ? 1 : 0;
}

/* ---- mappings and merge keys ---- */

void svc_yaml_map_release(struct svc_yaml_map *m)
{
	free(m->v);
	free(m->seen);
	svc_index_release(&m->idx);
}

static bool is_merge_key(const yaml_node_t *k)
{
	return k->type == YAML_SCALAR_NODE && k->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       strcmp(svc_yaml_text(k), "<<") == 0;
}

struct svc_yaml_pair *svc_yaml_find(const struct svc_yaml_map *m, const char *name)
{
	size_t i = m ? svc_index_find(&m->idx, m->v, name) : SIZE_MAX;

	return i == SIZE_MAX ? NULL : &m->v[i];
}

static bool map_seen(struct svc_yaml_map *m, yaml_node_t *map)
{
	for (size_t i = 0; i < m->n_seen; i++)
		if (m->seen[i] == map)
			return true;
	m->seen = xrealloc(m->seen, (m->n_seen + 1) * sizeof(*m->seen));
	m->seen[m->n_seen++] = map;
	return false;
}

static int collect(struct svc_yaml *y, yaml_node_t *map, struct svc_yaml_map *m, int depth);

/* The value of "<<": one mapping or a list of mappings; earlier ones win. */
static int merge(struct svc_yaml *y, yaml_node_t *v, struct svc_yaml_map *m, int depth)
{
	/* A chain of mappings each merging the next recurses once per link. */
	if (depth >= MERGE_MAX_DEPTH)
		return svc_yaml_err(y, v, "merge keys nested more than %d deep", MERGE_MAX_DEPTH);
	if (v->type == YAML_MAPPING_NODE)
		return collect(y, v, m, depth + 1);
	if (v->type != YAML_SEQUENCE_NODE)
		return svc_yaml_err(y, v, "merge key '<<' needs a mapping or a list of mappings");
	for (size_t i = 0; i < svc_yaml_len(v); i++) {
		yaml_node_t *sub = svc_yaml_item(y, v, i);

		if (sub->type != YAML_MAPPING_NODE)
			return svc_yaml_err(y, sub, "merge key '<<' needs a mapping or a list of mappings");
		if (collect(y, sub, m, depth + 1) < 0)
			return -1;
	}
	return 0;
}

/* Own keys first, then merged ones that are not already there: a key
 * written in the mapping overrides one merged into it (YAML merge spec).
 * Duplicate keys written in the mapping itself (DEPTH 0) are an error, as
 * in Compose; inside merged mappings the first one wins. */
static int collect(struct svc_yaml *y, yaml_node_t *map, struct svc_yaml_map *m, int depth)
{
	yaml_node_pair_t *start = map->data.mapping.pairs.start;
	yaml_node_pair_t *top = map->data.mapping.pairs.top;

	if (map_seen(m, map))
		return 0;
	for (yaml_node_pair_t *pr = start; pr < top; pr++) {
		yaml_node_t *k = svc_yaml_node(y, pr->key);
		struct svc_yaml_pair *old;

		if (is_merge_key(k))
			continue;
		if (k->type != YAML_SCALAR_NODE)
			return svc_yaml_err(y, k, "mapping keys must be strings");
		old = svc_yaml_find(m, svc_yaml_text(k));
		if (old && depth == 0)
			return svc_yaml_err(y, k, "mapping key '%s' already defined at line %zu",
					    svc_yaml_text(k), old->key->start_mark.line + 1);
		if (old)
			continue;
		m->v = xrealloc(m->v, (m->n + 1) * sizeof(*m->v));
		m->v[m->n++] = (struct svc_yaml_pair){svc_yaml_text(k), k, svc_yaml_node(y, pr->value)};
		svc_index_added(&m->idx, m->v, m->n);
	}
	for (yaml_node_pair_t *pr = start; pr < top; pr++)
		if (is_merge_key(svc_yaml_node(y, pr->key)) &&
		    merge(y, svc_yaml_node(y, pr->value), m, depth) < 0)
			return -1;
	return 0;
}

int svc_yaml_map(struct svc_yaml *y, yaml_node_t *n, const char *path, struct svc_yaml_map *out)
{
	*out = (struct svc_yaml_map){.idx = SVC_INDEX(struct svc_yaml_pair, name)};
	if (svc_yaml_untagged(y, n, path) < 0)
		return -1;
	if (n->type != YAML_MAPPING_NODE)
		return svc_yaml_err(y, n, "%s must be a mapping", path);
	return collect(y, n, out, 0);
}

/* ---- strict keys ---- */

static const struct svc_yaml_key *key_find(const struct svc_yaml_key *keys, const char *name)
{
	for (size_t i = 0; keys[i].name; i++)
		if (strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}

static int unknown_key(struct svc_yaml *y, const char *name, const yaml_node_t *at, const char *path,
		       const struct svc_yaml_key *keys)
{
	size_t n = 0;
	te_autofree const char **names = NULL;
	const char *best;

	while (keys[n].name)
		n++;
	names = xcalloc(n + 1, sizeof(*names));
	for (size_t i = 0; i < n; i++)
		names[i] = keys[i].name;
	best = svc_suggest(name, names, n);
	return svc_yaml_err(y, at, "unknown key '%s' %s%s%s%s%s", name, path ? "in " : "at the top level",
			    path ? path : "", best ? "; did you mean '" : "", best ? best : "",
			    best ? "'?" : "");
}

int svc_yaml_check_key(struct svc_yaml *y, const char *name, const yaml_node_t *at, const char *path,
		       const struct svc_yaml_key *keys, bool x_ok)
{
	const struct svc_yaml_key *k;
	te_autofree char *full = NULL;

	if (x_ok && svc_has_prefix(name, "x-"))
		return 0;
	k = key_find(keys, name);
	if (!k)
		return unknown_key(y, name, at, path, keys);
	if (k->use != SVC_USE_WARN && k->use != SVC_USE_REFUSE)
		return 0;
	full = path ? xasprintf("%s.%s", path, name) : xstrdup(name);
	if (k->use == SVC_USE_WARN) {
		svc_yaml_warn(y, at, "%s is ignored by taskenv: %s", full, k->why);
		return 0;
	}
	return svc_yaml_err(y, at, "%s is not supported by taskenv%s%s", full, k->why ? ": " : "",
			    k->why ? k->why : "");
}

int svc_yaml_check(struct svc_yaml *y, const struct svc_yaml_map *m, const char *path,
		   const struct svc_yaml_key *keys, bool x_ok)
{
	for (size_t i = 0; i < m->n; i++)
		if (svc_yaml_check_key(y, m->v[i].name, m->v[i].key, path, keys, x_ok) < 0)
			return -1;
	return 0;
}

/* ---- scalars ---- */

struct interp_ctx {
	struct svc_yaml *y;
	const yaml_node_t *n;
};

static const char *lookup(const char *name, void *ctx)
{
	return svc_env_lookup(name, ((struct interp_ctx *)ctx)->y->env);
}

/* Compose's warning, once per variable and load, at its first use. */
static void unset(const char *name, void *ctx)
{
	struct interp_ctx *c = ctx;
	struct svc_yaml_log *log = c->y->log;

	/* Past the cap nothing more is shown, so nothing more to remember. */
	if (log->n_warnings >= SVC_YAML_MAX_WARNINGS) {
		log->n_dropped++;
		return;
	}
	for (size_t i = 0; log->unset && log->unset[i]; i++)
		if (strcmp(log->unset[i], name) == 0)
			return;
	log->unset = te_strv_push(log->unset, xstrdup(name));
	svc_yaml_warn(c->y, c->n, "the \"%s\" variable is not set, defaulting to a blank string", name);
}

int svc_yaml_interp(struct svc_yaml *y, const yaml_node_t *n, char **out)
{
	struct interp_ctx c = {y, n};

	*out = NULL;
	if (svc_yaml_untagged(y, n, NULL) < 0)
		return -1;
	if (svc_interp_warn(svc_yaml_text(n), lookup, unset, &c, out, y->err) < 0)
		return svc_yaml_err_prefix(y, n);
	return 0;
}

int svc_yaml_string(struct svc_yaml *y, const yaml_node_t *n, const char *path, char **out)
{
	*out = NULL;
	if (n->type != YAML_SCALAR_NODE)
		return svc_yaml_err(y, n, "%s must be a string", path);
	if (svc_yaml_is_null(n))
		return 0;
	return svc_yaml_interp(y, n, out);
}

int svc_yaml_bool(struct svc_yaml *y, const yaml_node_t *n, const char *path, bool *out)
{
	static const char *const yes[] = {"true", "yes", "on"};
	static const char *const no[] = {"false", "no", "off"};
	te_autofree char *s = NULL;

	if (svc_yaml_string(y, n, path, &s) < 0)
		return -1;
	for (size_t i = 0; s && i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcasecmp(s, yes[i]) == 0 || strcasecmp(s, no[i]) == 0) {
			*out = strcasecmp(s, yes[i]) == 0;
			return 0;
		}
	}
	return svc_yaml_err(y, n, "%s must be a boolean", path);
}

int svc_yaml_int(struct svc_yaml *y, const yaml_node_t *n, const char *path, long long *out)
{
	te_autofree char *s = NULL;
	char *end;

	if (svc_yaml_string(y, n, path, &s) < 0)
		return -1;
	if (!s)
		return 0;
	errno = 0;
	*out = strtoll(s, &end, 10);
	if (errno || end == s || *end)
		return svc_yaml_err(y, n, "%s must be an integer", path);
	return 0;
}

int svc_yaml_double(struct svc_yaml *y, const yaml_node_t *n, const char *path, double *out)
{
	te_autofree char *s = NULL;
	char *end;

	if (svc_yaml_string(y, n, path, &s) < 0)
		return -1;
	if (!s)
		return 0;
	*out = strtod(s, &end);
	if (end == s || *end || *out < 0 || *out > 1e6)
		return svc_yaml_err(y, n, "%s must be a non-negative number", path);
	return 0;
}

/* A scalar PARSE turns into *OUT; WHAT and EXAMPLE for the message. */
static int parsed(struct svc_yaml *y, const yaml_node_t *n, const char *path,
		  bool (*parse)(const char *, long long *), const char *what, const char *example,
		  long long *out)
{
	te_autofree char *s = NULL;

	if (svc_yaml_string(y, n, path, &s) < 0)
		return -1;
	if (s && !parse(s, out))
		return svc_yaml_err(y, n, "%s: invalid %s '%s' (e.g. %s)", path, what, s, example);
	return 0;
}

int svc_yaml_bytes(struct svc_yaml *y, const yaml_node_t *n, const char *path, long long *out)
{
	return parsed(y, n, path, svc_parse_bytes, "byte size", "512m, 2g", out);
}

int svc_yaml_duration(struct svc_yaml *y, const yaml_node_t *n, const char *path, long long *out)
{
	return parsed(y, n, path, svc_parse_duration, "duration", "30s, 1m30s, 500ms", out);
}

/* ---- key/value lists: environment and labels ---- */

void svc_kv_put(struct svc_kv **kv, size_t *n, char *key, char *value, struct svc_loc loc)
{
	for (size_t i = 0; i < *n; i++) {
		if (strcmp((*kv)[i].key, key) == 0) {
			free(key);
			free((*kv)[i].value);
			(*kv)[i].value = value;
			(*kv)[i].loc = loc;
			return;
		}
	}
	*kv = xrealloc(*kv, (*n + 1) * sizeof(**kv));
	(*kv)[(*n)++] = (struct svc_kv){key, value, loc};
}

void svc_kv_set_init(struct svc_kv_set *set, struct svc_kv **kv, size_t *n)
{
	*set = (struct svc_kv_set){kv, n, SVC_INDEX(struct svc_kv, key)};
	svc_index_build(&set->idx, *kv, *n);
}

bool svc_kv_set_has(const struct svc_kv_set *set, const char *key)
{
	return svc_index_find(&set->idx, *set->kv, key) != SIZE_MAX;
}

void svc_kv_set_put(struct svc_kv_set *set, char *key, char *value, struct svc_loc loc)
{
	size_t i = svc_index_find(&set->idx, *set->kv, key);
	struct svc_kv *e;

	if (i != SIZE_MAX) {
		e = &(*set->kv)[i];
		free(key);
		free(e->value);
		e->value = value;
		e->loc = loc;
		return;
	}
	*set->kv = xrealloc(*set->kv, (*set->n + 1) * sizeof(**set->kv));
	(*set->kv)[(*set->n)++] = (struct svc_kv){key, value, loc};
	svc_index_added(&set->idx, *set->kv, *set->n);
}

void svc_kv_set_release(struct svc_kv_set *set)
{
	svc_index_release(&set->idx);
}

static int kv_add(struct svc_yaml *y, enum svc_kv_kind kind, const char *key, char *value,
		  const yaml_node_t *at, struct svc_kv_set *set)
{
	if (!*key) {
		free(value);
		return svc_yaml_err(y, at, "empty %s name", kind == SVC_KV_ENV ? "variable" : "label");
	}
	if (!value) {
		const char *v = kind == SVC_KV_ENV ? svc_env_lookup(key, y->env) : "";

		if (!v)
			return 0;
		value = xstrdup(v);
	}
	svc_kv_set_put(set, xstrdup(key), value, svc_yaml_loc(y, at));
	return 0;
}

static int kv_from_map(struct svc_yaml *y, enum svc_kv_kind kind, yaml_node_t *n, const char *path,
		       struct svc_kv_set *set)
{
	svc_automap struct svc_yaml_map m = {0};

	if (svc_yaml_map(y, n, path, &m) < 0)
		return -1;
	for (size_t i = 0; i < m.n; i++) {
		char *value = NULL;
		int tag = svc_yaml_entry(y, m.v[i].val, m.v[i].name, path);

		if (tag != 0) {
			if (tag < 0)
				return -1;
			continue;
		}
		if (m.v[i].val->type != YAML_SCALAR_NODE)
			return svc_yaml_err(y, m.v[i].val, "%s.%s must be a string, number, boolean or null",
					    path, m.v[i].name);
		if (svc_yaml_string(y, m.v[i].val, path, &value) < 0)
			return -1;
		if (kv_add(y, kind, m.v[i].name, value, m.v[i].key, set) < 0)
			return -1;
	}
	return 0;
}

/* List form "KEY=VALUE" or "KEY"; the whole item is interpolated first. */
static int kv_from_list(struct svc_yaml *y, enum svc_kv_kind kind, yaml_node_t *n, const char *path,
			struct svc_kv_set *set)
{
	for (size_t i = 0; i < svc_yaml_len(n); i++) {
		yaml_node_t *item = svc_yaml_item(y, n, i);
		te_autofree char *s = NULL;
		char *eq;

		if (item->type != YAML_SCALAR_NODE || svc_yaml_is_null(item))
			return svc_yaml_err(y, item, "%s items must be strings", path);
		if (svc_yaml_interp(y, item, &s) < 0)
			return -1;
		eq = strchr(s, '=');
		if (eq)
			*eq = '\0';
		if (kv_add(y, kind, s, eq ? xstrdup(eq + 1) : NULL, item, set) < 0)
			return -1;
	}
	return 0;
}

int svc_yaml_kv(struct svc_yaml *y, enum svc_kv_kind kind, yaml_node_t *n, const char *path,
		struct svc_kv **kv, size_t *nkv)
{
	struct svc_kv_set set;
	int rc;

	if (svc_yaml_is_null(n))
		return 0;
	if (n->type != YAML_MAPPING_NODE && n->type != YAML_SEQUENCE_NODE)
		return svc_yaml_err(y, n, "%s must be a mapping or a list", path);
	svc_kv_set_init(&set, kv, nkv);
	rc = n->type == YAML_MAPPING_NODE ? kv_from_map(y, kind, n, path, &set)
					  : kv_from_list(y, kind, n, path, &set);
	svc_kv_set_release(&set);
	return rc;
}

/* ---- string lists ---- */

int svc_yaml_strings(struct svc_yaml *y, yaml_node_t *n, const char *path, char ***out)
{
	te_autostrv char **v = xcalloc(1, sizeof(*v));

	if (svc_yaml_untagged(y, n, path) < 0)
		return -1;
	for (size_t i = 0; i < svc_yaml_len(n); i++) {
		yaml_node_t *item = svc_yaml_item(y, n, i);
		char *s = NULL;

		if (item->type != YAML_SCALAR_NODE || svc_yaml_is_null(item))
			return svc_yaml_err(y, item, "%s items must be strings", path);
		if (svc_yaml_interp(y, item, &s) < 0)
			return -1;
		v = te_strv_push(v, s);
	}
	*out = TE_STEAL(v);
	return 0;
}

int svc_yaml_list(struct svc_yaml *y, yaml_node_t *n, const char *path, char ***out)
{
	if (n->type != YAML_SEQUENCE_NODE)
		return svc_yaml_err(y, n, "%s must be a list", path);
	return svc_yaml_strings(y, n, path, out);
}

int svc_yaml_strv_loose(struct svc_yaml *y, yaml_node_t *n, const char *path, char ***out)
{
	char **v = NULL;
	char *one = NULL;

	if (svc_yaml_is_null(n))
		return 0;
	if (n->type == YAML_SEQUENCE_NODE) {
		if (svc_yaml_strings(y, n, path, &v) < 0)
			return -1;
	} else {
		if (svc_yaml_string(y, n, path, &one) < 0)
			return -1;
		v = te_strv_push(NULL, one);
	}
	for (size_t i = 0; v[i]; i++)
		*out = te_strv_push(*out, TE_STEAL(v[i]));
	free(v);
	return 0;
}

int svc_yaml_argv(struct svc_yaml *y, yaml_node_t *n, const char *path, char ***out)
{
	te_autofree char *s = NULL;

	if (svc_yaml_is_null(n))
		return 0;
	if (n->type == YAML_SEQUENCE_NODE)
		return svc_yaml_strings(y, n, path, out);
	if (svc_yaml_string(y, n, path, &s) < 0)
		return -1;
	*out = svc_shell_split(s, y->err);
	if (!*out) {
		te_err_prefix(y->err, "%s: ", path);
		return svc_yaml_err_prefix(y, n);
	}
	return 0;
}

int svc_yaml_names(struct svc_yaml *y, yaml_node_t *n, const char *path, char ***out, yaml_node_t ***at,
		   yaml_node_t ***vals)
{
	svc_automap struct svc_yaml_map m = {0};
	size_t count;

	*at = *vals = NULL;
	if (n->type == YAML_SEQUENCE_NODE) {
		if (svc_yaml_strings(y, n, path, out) < 0)
			return -1;
		count = te_strv_len(*out);
		*at = xcalloc(count + 1, sizeof(**at));
		*vals = xcalloc(count + 1, sizeof(**vals));
		for (size_t i = 0; i < count; i++)
			(*at)[i] = svc_yaml_item(y, n, i);
		return 0;
	}
	if (n->type != YAML_MAPPING_NODE)
		return svc_yaml_err(y, n, "%s must be a list or a mapping", path);
	if (svc_yaml_map(y, n, path, &m) < 0)
		return -1;
	*out = xcalloc(m.n + 1, sizeof(**out));
	*at = xcalloc(m.n + 1, sizeof(**at));
	*vals = xcalloc(m.n + 1, sizeof(**vals));
	for (size_t i = 0; i < m.n; i++) {
		(*out)[i] = xstrdup(m.v[i].name);
		(*at)[i] = m.v[i].key;
		(*vals)[i] = m.v[i].val;
	}
	return 0;
}

int svc_yaml_hosts(struct svc_yaml *y, yaml_node_t *n, const char *path, char ***out)
{
	struct svc_kv *kv = NULL;
	size_t nkv = 0;

	if (n->type != YAML_MAPPING_NODE) {
		if (svc_yaml_strv_loose(y, n, path, out) < 0)
			return -1;
		for (size_t i = 0; *out && (*out)[i]; i++) {
			char *eq = strchr((*out)[i], '=');

			if (eq)
				*eq = ':';
		}
		return 0;
	}
	if (svc_yaml_kv(y, SVC_KV_LABEL, n, path, &kv, &nkv) < 0) {
		svc_kv_free(kv, nkv);
		return -1;
	}
	for (size_t i = 0; i < nkv; i++)
		*out = te_strv_push(*out, xasprintf("%s:%s", kv[i].key, kv[i].value));
	svc_kv_free(kv, nkv);
	return 0;
}

/* ---- paths ---- */

char *svc_path_normalize(const char *path)
{
	te_autofree char *copy = xstrdup(path);
	te_autofree char **seg = xcalloc(strlen(path) / 2 + 2, sizeof(*seg));
	te_autobuf struct te_buf out = TE_BUF_INIT(0);
	size_t nseg = 0;
	char *p = copy;

	for (;;) {
		char *slash = strchr(p, '/');

		if (slash)
			*slash = '\0';
		if (strcmp(p, "..") == 0 && nseg > 0)
			nseg--;
		else if (*p && strcmp(p, ".") != 0 && strcmp(p, "..") != 0)
			seg[nseg++] = p;
		if (!slash)
			break;
		p = slash + 1;
	}
	for (size_t i = 0; i < nseg; i++)
		te_buf_addf(&out, "/%s", seg[i]);
	return out.len ? te_buf_detach(&out) : xstrdup("/");
}

char *svc_path_bind_source(const char *dir, const char *src, const char **why)
{
	te_autofree char *joined = NULL;
	const char *home = getenv("HOME"); /* "~" in a bind source, as Compose expands it */

	if (src[0] == '~' && src[1] != '\0' && src[1] != '/') {
		*why = "'~user' paths are not supported; write the path out";
		return NULL;
	}
	if (src[0] == '~' && (!home || !*home)) {
		*why = "cannot expand '~': HOME is not set";
		return NULL;
	}
	if (src[0] == '~')
		joined = xasprintf("%s/%s", home, src + 1);
	else if (src[0] == '/')
		joined = xstrdup(src);
	else
		joined = xasprintf("%s/%s", dir, src);
	return svc_path_normalize(joined);
}
