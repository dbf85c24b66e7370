/* The service keys that bring in files or per-name settings: secrets and
 * configs (the service side), env_file, ulimits. */
#define TE_WITH_CJSON
#include "services/model/kinds.h"
#include "services/model/interp.h"
#include "services/model/plan.h"
#include "common/cleanup.h"
#include "common/mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- secrets, configs ---- */

static const struct svc_yaml_key ref_keys[] = {
    SVC_KEY_LOAD("source"), SVC_KEY_LOAD("target"), SVC_KEY_LOAD("uid"),
    SVC_KEY_LOAD("gid"),    SVC_KEY_LOAD("mode"),   {NULL, 0, NULL},
};

/* mode: an integer, octal when written with a leading 0 or 0o (as Compose reads it). */
static int get_mode(struct svc_yaml *y, yaml_node_t *n, const char *path, int *out)
{
	te_autofree char *s = NULL;
	const char *p;
	char *end;
	long v;

	if (svc_yaml_string(y, n, path, &s) < 0)
		return -1;
	if (!s)
		return 0;
	p = s;
	if (svc_has_prefix(p, "0o") || svc_has_prefix(p, "0O"))
		p += 2;
	errno = 0;
	v = strtol(p, &end, p != s || (s[0] == '0' && s[1]) ? 8 : 10);
	if (errno || end == p || *end || v < 0 || v > 07777)
		return svc_yaml_err(y, n, "%s must be a file mode such as 0440", path);
	*out = (int)v;
	return 0;
}

static int ref_long(struct svc_yaml *y, struct svc_file_ref *r, yaml_node_t *n, const char *path)
{
	svc_automap struct svc_yaml_map pp = {0};
	struct svc_yaml_pair *pr;
	char **strs[] = {&r->source, &r->target, &r->uid, &r->gid};

	if (svc_yaml_map(y, n, path, &pp) < 0 || svc_yaml_check(y, &pp, path, ref_keys, true) < 0)
		return -1;
	for (size_t i = 0; i < 4; i++) {
		pr = svc_yaml_find(&pp, ref_keys[i].name);
		if (pr && svc_yaml_string(y, pr->val, path, strs[i]) < 0)
			return -1;
	}
	pr = svc_yaml_find(&pp, "mode");
	if (pr && get_mode(y, pr->val, path, &r->mode) < 0)
		return -1;
	if (!r->source)
		return svc_yaml_err(y, n, "%s: source is required", path);
	return 0;
}

static int refs_load(struct svc_yaml *y, struct svc_service *s, const struct svc_key_desc *k, yaml_node_t *n,
		     const char *path)
{
	struct svc_file_ref **out = SVC_MEMBER(s, k, struct svc_file_ref *);
	size_t *nout = SVC_COUNT(s, k);

	if (svc_yaml_is_null(n))
		return 0;
	if (n->type != YAML_SEQUENCE_NODE)
		return svc_yaml_err(y, n, "%s must be a list", path);
	for (size_t i = 0; i < svc_yaml_len(n); i++) {
		yaml_node_t *item = svc_yaml_item(y, n, i);
		struct svc_file_ref *r;

		*out = xrealloc(*out, (*nout + 1) * sizeof(**out));
		r = &(*out)[(*nout)++];
		memset(r, 0, sizeof(*r));
		r->mode = -1;
		r->loc = svc_yaml_loc(y, item);
		if (item->type == YAML_MAPPING_NODE) {
			if (ref_long(y, r, item, path) < 0)
				return -1;
		} else if (svc_yaml_string(y, item, path, &r->source) < 0) {
			return -1;
		} else if (!r->source) {
			return svc_yaml_err(y, item, "%s: empty entry", path);
		}
		if (r->target && strstr(r->target, ".."))
			return svc_yaml_err(y, item, "%s: target '%s' must not contain '..'", path,
					    r->target);
	}
	return 0;
}

static void ref_release(struct svc_file_ref *r)
{
	free(r->source);
	free(r->target);
	free(r->uid);
	free(r->gid);
}

static void refs_release(struct svc_service *s, const struct svc_key_desc *k)
{
	struct svc_file_ref *r = *SVC_MEMBER(s, k, struct svc_file_ref *);

	for (size_t i = 0; i < *SVC_COUNT(s, k); i++)
		ref_release(&r[i]);
	free(r);
}

static bool refs_set(const struct svc_service *s, const struct svc_key_desc *k)
{
	return *SVC_COUNT(s, k) > 0;
}

/* UNIQUE on the target path in the container (its default included). */
static void refs_merge(struct svc_service *d, struct svc_service *s, const struct svc_key_desc *k)
{
	struct svc_file_ref **dst = SVC_MEMBER(d, k, struct svc_file_ref *);
	struct svc_file_ref **src = SVC_MEMBER(s, k, struct svc_file_ref *);
	size_t *nd = SVC_COUNT(d, k), *ns = SVC_COUNT(s, k);
	bool secret = k->id == SVC_K_SECRETS;

	for (size_t i = 0; i < *ns; i++) {
		te_autofree char *target = svc_plan_file_target(secret, &(*src)[i]);
		size_t j = 0;

		for (; j < *nd; j++) {
			te_autofree char *t = svc_plan_file_target(secret, &(*dst)[j]);

			if (strcmp(t, target) == 0)
				break;
		}
		if (j < *nd)
			ref_release(&(*dst)[j]);
		else
			*dst = xrealloc(*dst, (++*nd) * sizeof(**dst));
		(*dst)[j] = (*src)[i];
	}
	free(*src);
	*src = NULL;
	*ns = 0;
}

/* Long form, always, as Compose prints it. */
static void refs_emit(cJSON *o, const struct svc_key_desc *k, const struct svc_service *s,
		      const struct svc_plan_container *c)
{
	const struct svc_file_ref *r = *SVC_MEMBER(s, k, struct svc_file_ref *);
	size_t n = *SVC_COUNT(s, k);
	cJSON *a;

	if (!n)
		return;
	a = cJSON_AddArrayToObject(o, k->name);
	for (size_t i = 0; i < n; i++) {
		cJSON *e = cJSON_CreateObject();
		te_autofree char *target = svc_plan_file_target(k->id == SVC_K_SECRETS, &r[i]);

		cJSON_AddStringToObject(e, "source", r[i].source);
		cJSON_AddStringToObject(e, "target", target);
		svc_json_add_str(e, "uid", r[i].uid);
		svc_json_add_str(e, "gid", r[i].gid);
		if (r[i].mode >= 0)
			cJSON_AddNumberToObject(e, "mode", r[i].mode);
		cJSON_AddItemToArray(a, e);
	}
}

const struct svc_kind_ops svc_kind_refs = {
    .load = refs_load,
    .release = refs_release,
    .is_set = refs_set,
    .merge = refs_merge,
    .rule = SVC_MERGE_UNIQUE,
    .emit = refs_emit,
};

/* ---- env_file ---- */

/* The long form has no x- extensions in the Compose schema. */
static const struct svc_yaml_key env_file_keys[] = {
    SVC_KEY_LOAD("path"),
    SVC_KEY_LOAD("required"),
    SVC_KEY_LOAD("format"),
    {NULL, 0, NULL},
};

/* One env_file: its variables into env_files (finalize puts them under
 * environment, which wins). RAW: format: raw. */
static int env_file_one(struct svc_yaml *y, struct svc_service *s, const yaml_node_t *at, const char *file,
			bool required, bool raw)
{
	te_autofree char *path = file[0] == '/' ? xstrdup(file) : xasprintf("%s/%s", y->dir, file);
	struct svc_env *env;
	struct svc_kv_set set;
	struct stat st;

	s->env_paths = xrealloc(s->env_paths, (s->n_env_paths + 1) * sizeof(*s->env_paths));
	s->env_paths[s->n_env_paths++] = (struct svc_kv){xstrdup(path), NULL, svc_yaml_loc(y, at)};
	if (access(path, R_OK) != 0) {
		if (!required)
			return 0;
		return svc_yaml_err(y, at, "env file '%s' not found: %s", path, strerror(errno));
	}
	/* A FIFO or a device would block or never end. */
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return svc_yaml_err(y, at, "env file '%s' is not a regular file", path);
	env = svc_env_new();
	if (svc_env_add_file(env, path, raw, y->err) < 0) {
		svc_env_free(env);
		return svc_yaml_err_prefix(y, at);
	}
	svc_kv_set_init(&set, &s->env_files, &s->n_env_files);
	for (size_t i = 0; i < svc_env_size(env); i++) {
		const char *k, *v;

		svc_env_at(env, i, &k, &v);
		svc_kv_set_put(&set, xstrdup(k), xstrdup(v), svc_yaml_loc(y, at));
	}
	svc_kv_set_release(&set);
	svc_env_free(env);
	return 0;
}

static int env_file_item(struct svc_yaml *y, struct svc_service *s, yaml_node_t *it, const char *path)
{
	svc_automap struct svc_yaml_map pp = {0};
	te_autofree char *file = NULL;
	te_autofree char *format = NULL;
	struct svc_yaml_pair *pr;
	bool required = true;

	if (it->type != YAML_MAPPING_NODE) {
		if (svc_yaml_string(y, it, path, &file) < 0)
			return -1;
		return file ? env_file_one(y, s, it, file, true, false) : 0;
	}
	if (svc_yaml_map(y, it, path, &pp) < 0 || svc_yaml_check(y, &pp, path, env_file_keys, false) < 0)
		return -1;
	pr = svc_yaml_find(&pp, "path");
	if (!pr)
		return svc_yaml_err(y, it, "%s: path is required", path);
	if (svc_yaml_string(y, pr->val, path, &file) < 0)
		return -1;
	pr = svc_yaml_find(&pp, "required");
	if (pr && svc_yaml_bool(y, pr->val, path, &required) < 0)
		return -1;
	pr = svc_yaml_find(&pp, "format");
	if (pr && svc_yaml_string(y, pr->val, path, &format) < 0)
		return -1;
	/* docker compose knows "raw" besides the default; anything else is an error there too. */
	if (format && strcmp(format, "raw") != 0)
		return svc_yaml_err(y, pr->val, "%s.format: unsupported env_file format '%s' (raw or none)",
				    path, format);
	return file ? env_file_one(y, s, it, file, required, format != NULL) : 0;
}

static int env_file_load(struct svc_yaml *y, struct svc_service *s, const struct svc_key_desc *k,
			 yaml_node_t *n, const char *path)
{
	if (svc_yaml_is_null(n))
		return 0;
	if (n->type != YAML_SEQUENCE_NODE)
		return env_file_item(y, s, n, path);
	for (size_t i = 0; i < svc_yaml_len(n); i++)
		if (env_file_item(y, s, svc_yaml_item(y, n, i), path) < 0)
			return -1;
	return 0;
}

static void env_files_release(struct svc_service *s, const struct svc_key_desc *k)
{
	svc_kv_free(s->env_files, s->n_env_files);
}

static bool env_files_set(const struct svc_service *s, const struct svc_key_desc *k)
{
	return s->n_env_files > 0;
}

static void env_files_merge(struct svc_service *d, struct svc_service *s, const struct svc_key_desc *k)
{
	svc_merge_kv(&d->env_files, &d->n_env_files, &s->env_files, &s->n_env_files);
}

static void env_files_drop(struct svc_service *s, const struct svc_key_desc *k, const char *name)
{
	svc_kv_drop(s->env_files, &s->n_env_files, name);
}

/* The variables stay apart from environment until every file and base
 * service is merged, so environment wins wherever it was written, as in
 * Compose; `config` prints them as part of environment. */
const struct svc_kind_ops svc_kind_env_file = {
    .load = env_file_load,
    .release = env_files_release,
    .is_set = env_files_set,
    .merge = env_files_merge,
    .rule = SVC_MERGE_MAPPING,
    .drop = env_files_drop,
};

/* ---- ulimits: NAME: N or NAME: {soft: N, hard: N}, kept as "NAME=SOFT:HARD" ---- */

static const struct svc_yaml_key ulimit_keys[] = {
    SVC_KEY_LOAD("soft"),
    SVC_KEY_LOAD("hard"),
    {NULL, 0, NULL},
};

static int ulimit_one(struct svc_yaml *y, struct svc_service *s, const struct svc_yaml_pair *pr,
		      const char *path)
{
	long long soft = 0, hard = 0;
	svc_automap struct svc_yaml_map pp = {0};
	struct svc_yaml_pair *ps, *ph;

	if (pr->val->type != YAML_MAPPING_NODE) {
		if (svc_yaml_int(y, pr->val, path, &soft) < 0)
			return -1;
		hard = soft;
	} else {
		if (svc_yaml_map(y, pr->val, path, &pp) < 0 ||
		    svc_yaml_check(y, &pp, path, ulimit_keys, true) < 0)
			return -1;
		ps = svc_yaml_find(&pp, "soft");
		ph = svc_yaml_find(&pp, "hard");
		if (!ps || !ph)
			return svc_yaml_err(y, pr->val, "%s: soft and hard are required", path);
		if (svc_yaml_int(y, ps->val, path, &soft) < 0 || svc_yaml_int(y, ph->val, path, &hard) < 0)
			return -1;
	}
	s->ulimits = te_strv_push(s->ulimits, xasprintf("%s=%lld:%lld", pr->name, soft, hard));
	return 0;
}

static int ulimits_load(struct svc_yaml *y, struct svc_service *s, const struct svc_key_desc *k,
			yaml_node_t *n, const char *path)
{
	svc_automap struct svc_yaml_map pp = {0};

	if (svc_yaml_is_null(n))
		return 0;
	if (svc_yaml_map(y, n, path, &pp) < 0)
		return -1;
	for (size_t i = 0; i < pp.n; i++) {
		te_autofree char *sub = xasprintf("%s.%s", path, pp.v[i].name);
		int tag = svc_yaml_entry(y, pp.v[i].val, pp.v[i].name, path);

		if (tag < 0 || (tag == 0 && ulimit_one(y, s, &pp.v[i], sub) < 0))
			return -1;
	}
	return 0;
}

static void ulimits_release(struct svc_service *s, const struct svc_key_desc *k)
{
	te_strv_free(s->ulimits);
}

static bool ulimits_set(const struct svc_service *s, const struct svc_key_desc *k)
{
	return s->ulimits != NULL;
}

static size_t name_len(const char *u)
{
	const char *eq = strchr(u, '=');

	return eq ? (size_t)(eq - u) : strlen(u);
}

static void ulimits_drop(struct svc_service *s, const struct svc_key_desc *k, const char *name)
{
	size_t n = strlen(name), j = 0;

	while (s->ulimits && s->ulimits[j] &&
	       !(name_len(s->ulimits[j]) == n && strncmp(s->ulimits[j], name, n) == 0))
		j++;
	if (!s->ulimits || !s->ulimits[j])
		return;
	free(s->ulimits[j]);
	memmove(&s->ulimits[j], &s->ulimits[j + 1], (te_strv_len(s->ulimits + j + 1) + 1) * sizeof(char *));
}

/* MAPPING by ulimit name: a later NAME replaces the earlier one whole. */
static void ulimits_merge(struct svc_service *d, struct svc_service *s, const struct svc_key_desc *k)
{
	for (size_t i = 0; s->ulimits && s->ulimits[i]; i++) {
		size_t n = name_len(s->ulimits[i]), j = 0;

		while (d->ulimits && d->ulimits[j] &&
		       !(name_len(d->ulimits[j]) == n && strncmp(d->ulimits[j], s->ulimits[i], n) == 0))
			j++;
		if (d->ulimits && d->ulimits[j]) {
			free(d->ulimits[j]);
			d->ulimits[j] = s->ulimits[i];
		} else {
			d->ulimits = te_strv_push(d->ulimits, s->ulimits[i]);
		}
	}
	free(s->ulimits);
	s->ulimits = NULL;
}

static void ulimits_emit(cJSON *o, const struct svc_key_desc *k, const struct svc_service *s,
			 const struct svc_plan_container *c)
{
	cJSON *u;

	if (!s->ulimits)
		return;
	u = cJSON_AddObjectToObject(o, k->name);
	for (size_t i = 0; s->ulimits[i]; i++) {
		const char *eq = strchr(s->ulimits[i], '=');
		long long soft = 0, hard = 0;
		te_autofree char *name = xstrndup(s->ulimits[i], (size_t)(eq - s->ulimits[i]));
		cJSON *l = cJSON_AddObjectToObject(u, name);

		sscanf(eq + 1, "%lld:%lld", &soft, &hard);
		cJSON_AddNumberToObject(l, "soft", (double)soft);
		cJSON_AddNumberToObject(l, "hard", (double)hard);
	}
}

const struct svc_kind_ops svc_kind_ulimits = {
    .load = ulimits_load,
    .release = ulimits_release,
    .is_set = ulimits_set,
    .merge = ulimits_merge,
    .rule = SVC_MERGE_MAPPING,
    .drop = ulimits_drop,
    .emit = ulimits_emit,
};
