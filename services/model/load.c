#define TE_WITH_YAML
#include "services/model/load.h"

#include "common/buf.h"
#include "common/cleanup.h"
#include "common/err.h"
#include "common/mem.h"
#include "services/model/compose.h"
#include "services/model/interp.h"
#include "services/model/merge.h"
#include "services/model/load_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <stddef.h>
#include <sys/stat.h>
#include <unistd.h>

/* Merge keys nest only as deep as a file's anchors do; the cap keeps a
 * hostile chain of them from exhausting the stack. */
#define MERGE_MAX_DEPTH 64

/* One key/value of a mapping after merge keys are applied. Nodes and NAME
 * are borrowed from the document. */
struct pair {
	yaml_node_t *key;
	yaml_node_t *val;
	const char *name;
};

struct pairs {
	struct pair *v;
	size_t n;
	yaml_node_t **seen; /* mappings already merged in: aliases may repeat or cycle */
	size_t n_seen;
};

static void pairs_release(struct pairs *ps)
{
	free(ps->v);
	free(ps->seen);
}
#define autopairs __attribute__((cleanup(pairs_release)))

struct loader {
	yaml_document_t *doc;
	const char *file; /* borrowed from p->files */
	struct svc_env *env;
	struct svc_project *p;
	bool first; /* the first -f file: it must define services */
	struct te_err *err;
};

enum kv_kind { KV_ENV, KV_LABEL };

/* ---- errors and nodes ---- */

static struct svc_loc loc_of(const struct loader *l, const yaml_node_t *n)
{
	struct svc_loc loc = {l->file, (int)n->start_mark.line + 1, (int)n->start_mark.column + 1};

	return loc;
}

static int node_err(struct loader *l, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int node_err(struct loader *l, const yaml_node_t *n, const char *fmt, ...)
{
	char msg[sizeof(l->err->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return te_err_set(l->err, TE_E_COMPOSE, "%s:%zu:%zu: %s", l->file, n->start_mark.line + 1,
			  n->start_mark.column + 1, msg);
}

static int node_err_prefix(struct loader *l, const yaml_node_t *n)
{
	return te_err_prefix(l->err, "%s:%zu:%zu: ", l->file, n->start_mark.line + 1,
			     n->start_mark.column + 1);
}

static yaml_node_t *node_at(struct loader *l, int index)
{
	yaml_node_t *n = yaml_document_get_node(l->doc, index);

	if (!n)
		TE_BUG("libyaml document refers to a missing node");
	return n;
}

static const char *text(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

/* YAML's null: "~", "null" or nothing, unquoted, or an explicit !!null. */
static bool is_null(const yaml_node_t *n)
{
	static const char *const nulls[] = {"", "~", "null", "Null", "NULL"};

	if (n->type != YAML_SCALAR_NODE)
		return false;
	if (n->tag && strcmp((const char *)n->tag, YAML_NULL_TAG) == 0)
		return true;
	if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	for (size_t i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++)
		if (strcmp(text(n), nulls[i]) == 0)
			return true;
	return false;
}

static bool has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* ---- mappings and merge keys ---- */

static bool is_merge_key(const yaml_node_t *k)
{
	return k->type == YAML_SCALAR_NODE && k->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       strcmp(text(k), "<<") == 0;
}

static struct pair *pairs_find(const struct pairs *ps, const char *name)
{
	for (size_t i = 0; ps && i < ps->n; i++)
		if (strcmp(ps->v[i].name, name) == 0)
			return &ps->v[i];
	return NULL;
}

static bool pairs_seen(struct pairs *ps, yaml_node_t *map)
{
	for (size_t i = 0; i < ps->n_seen; i++)
		if (ps->seen[i] == map)
			return true;
	ps->seen = xrealloc(ps->seen, (ps->n_seen + 1) * sizeof(*ps->seen));
	ps->seen[ps->n_seen++] = map;
	return false;
}

static int collect(struct loader *l, yaml_node_t *map, struct pairs *ps, int depth);

/* The value of "<<": one mapping or a list of mappings; earlier ones win. */
static int merge(struct loader *l, yaml_node_t *v, struct pairs *ps, int depth)
{
	/* A chain of mappings each merging the next recurses once per link. */
	if (depth >= MERGE_MAX_DEPTH)
		return node_err(l, v, "merge keys nested more than %d deep", MERGE_MAX_DEPTH);
	if (v->type == YAML_MAPPING_NODE)
		return collect(l, v, ps, depth + 1);
	if (v->type != YAML_SEQUENCE_NODE)
		return node_err(l, v, "merge key '<<' needs a mapping or a list of mappings");
	for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		yaml_node_t *m = node_at(l, *it);

		if (m->type != YAML_MAPPING_NODE)
			return node_err(l, m, "merge key '<<' needs a mapping or a list of mappings");
		if (collect(l, m, ps, depth + 1) < 0)
			return -1;
	}
	return 0;
}

/* Own keys first, then merged ones that are not already there: a key
 * written in the mapping overrides one merged into it (YAML merge spec).
 * Duplicate keys written in the mapping itself (DEPTH 0) are an error, as
 * in Compose; inside merged mappings the first one wins. */
static int collect(struct loader *l, yaml_node_t *map, struct pairs *ps, int depth)
{
	yaml_node_pair_t *start = map->data.mapping.pairs.start;
	yaml_node_pair_t *top = map->data.mapping.pairs.top;

	if (pairs_seen(ps, map))
		return 0;
	for (yaml_node_pair_t *pr = start; pr < top; pr++) {
		yaml_node_t *k = node_at(l, pr->key);
		struct pair *old;

		if (is_merge_key(k))
			continue;
		if (k->type != YAML_SCALAR_NODE)
			return node_err(l, k, "mapping keys must be strings");
		old = pairs_find(ps, text(k));
		if (old && depth == 0)
			return node_err(l, k, "mapping key '%s' already defined at line %zu", text(k),
					old->key->start_mark.line + 1);
		if (old)
			continue;
		ps->v = xrealloc(ps->v, (ps->n + 1) * sizeof(*ps->v));
		ps->v[ps->n++] = (struct pair){k, node_at(l, pr->value), text(k)};
	}
	for (yaml_node_pair_t *pr = start; pr < top; pr++)
		if (is_merge_key(node_at(l, pr->key)) && merge(l, node_at(l, pr->value), ps, depth) < 0)
			return -1;
	return 0;
}

/* The pairs of N, which must be a mapping (PATH names it in the message). */
static int mapping_pairs(struct loader *l, yaml_node_t *n, const char *path, struct pairs *ps)
{
	if (n->type != YAML_MAPPING_NODE)
		return node_err(l, n, "%s must be a mapping", path);
	return collect(l, n, ps, 0);
}

/* ---- scalars ---- */

static const char *lookup(const char *name, void *ctx)
{
	return svc_env_lookup(name, ctx);
}

static int interp(struct loader *l, const yaml_node_t *n, char **out)
{
	if (svc_interp(text(n), lookup, l->env, out, l->err) < 0)
		return node_err_prefix(l, n);
	return 0;
}

/* A scalar value, interpolated; *out stays NULL for a YAML null. */
static int get_string(struct loader *l, const yaml_node_t *n, const char *path, char **out)
{
	*out = NULL;
	if (n->type != YAML_SCALAR_NODE)
		return node_err(l, n, "%s must be a string", path);
	if (is_null(n))
		return 0;
	return interp(l, n, out);
}

static int get_bool(struct loader *l, const yaml_node_t *n, const char *path, bool *out)
{
	static const char *const yes[] = {"true", "yes", "on"};
	static const char *const no[] = {"false", "no", "off"};
	te_autofree char *s = NULL;

	if (get_string(l, n, path, &s) < 0)
		return -1;
	for (size_t i = 0; s && i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcasecmp(s, yes[i]) == 0 || strcasecmp(s, no[i]) == 0) {
			*out = strcasecmp(s, yes[i]) == 0;
			return 0;
		}
	}
	return node_err(l, n, "%s must be a boolean", path);
}

/* ---- key/value lists: environment and labels ---- */

static void kv_put(struct svc_kv **kv, size_t *n, char *key, char *value, struct svc_loc loc)
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

/* A key written without a value: environment entries come from the
 * variables taskenv runs with (process, then .env, as Compose resolves
 * them) and vanish when unset; labels get "". Returns false to drop. */
static bool kv_missing(struct loader *l, enum kv_kind kind, const char *key, char **value)
{
	const char *v = kind == KV_ENV ? svc_env_lookup(key, l->env) : "";

	*value = xstrdup(v);
	return v != NULL;
}

static int kv_add(struct loader *l, enum kv_kind kind, const char *key, char *value, const yaml_node_t *at,
		  struct svc_kv **kv, size_t *n)
{
	if (!*key) {
		free(value);
		return node_err(l, at, "empty %s name", kind == KV_ENV ? "variable" : "label");
	}
	if (!value && !kv_missing(l, kind, key, &value))
		return 0;
	kv_put(kv, n, xstrdup(key), value, loc_of(l, at));
	return 0;
}

static int kv_from_map(struct loader *l, enum kv_kind kind, yaml_node_t *n, const char *path,
		       struct svc_kv **kv, size_t *nkv)
{
	autopairs struct pairs ps = {0};

	if (mapping_pairs(l, n, path, &ps) < 0)
		return -1;
	for (size_t i = 0; i < ps.n; i++) {
		char *value = NULL;

		if (ps.v[i].val->type != YAML_SCALAR_NODE)
			return node_err(l, ps.v[i].val, "%s.%s must be a string, number, boolean or null",
					path, ps.v[i].name);
		if (get_string(l, ps.v[i].val, path, &value) < 0)
			return -1;
		if (kv_add(l, kind, ps.v[i].name, value, ps.v[i].key, kv, nkv) < 0)
			return -1;
	}
	return 0;
}

/* List form "KEY=VALUE" or "KEY"; the whole item is interpolated first. */
static int kv_from_list(struct loader *l, enum kv_kind kind, yaml_node_t *n, const char *path,
			struct svc_kv **kv, size_t *nkv)
{
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
		yaml_node_t *item = node_at(l, *it);
		te_autofree char *s = NULL;
		char *eq;

		if (item->type != YAML_SCALAR_NODE || is_null(item))
			return node_err(l, item, "%s items must be strings", path);
		if (interp(l, item, &s) < 0)
			return -1;
		eq = strchr(s, '=');
		if (eq)
			*eq = '\0';
		if (kv_add(l, kind, s, eq ? xstrdup(eq + 1) : NULL, item, kv, nkv) < 0)
			return -1;
	}
	return 0;
}

static int get_kv(struct loader *l, enum kv_kind kind, yaml_node_t *n, const char *path, struct svc_kv **kv,
		  size_t *nkv)
{
	if (is_null(n))
		return 0;
	if (n->type == YAML_MAPPING_NODE)
		return kv_from_map(l, kind, n, path, kv, nkv);
	if (n->type == YAML_SEQUENCE_NODE)
		return kv_from_list(l, kind, n, path, kv, nkv);
	return node_err(l, n, "%s must be a mapping or a list", path);
}

/* ---- string lists ---- */

static int get_string_list(struct loader *l, yaml_node_t *n, const char *path, char ***out)
{
	char **v = xcalloc(1, sizeof(*v));

	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
		yaml_node_t *item = node_at(l, *it);
		char *s = NULL;

		if (item->type != YAML_SCALAR_NODE || is_null(item)) {
			te_strv_free(v);
			return node_err(l, item, "%s items must be strings", path);
		}
		if (interp(l, item, &s) < 0) {
			te_strv_free(v);
			return -1;
		}
		v = te_strv_push(v, s);
	}
	*out = v;
	return 0;
}

/* command / entrypoint: a list, or a string split as the shell would. An
 * empty list or string gives an empty (non-NULL) argv, which overrides the
 * image's default just as it does in Compose. */
static int get_argv(struct loader *l, yaml_node_t *n, const char *path, char ***out)
{
	te_autofree char *s = NULL;

	if (is_null(n))
		return 0;
	if (n->type == YAML_SEQUENCE_NODE)
		return get_string_list(l, n, path, out);
	if (get_string(l, n, path, &s) < 0)
		return -1;
	*out = svc_shell_split(s, l->err);
	if (!*out) {
		te_err_prefix(l->err, "%s: ", path);
		return node_err_prefix(l, n);
	}
	return 0;
}

/* The keys of a mapping or the items of a list: depends_on, networks. */
static int get_names(struct loader *l, yaml_node_t *n, const char *path, char ***out, yaml_node_t ***at)
{
	autopairs struct pairs ps = {0};

	*at = NULL;
	if (n->type == YAML_SEQUENCE_NODE) {
		size_t i = 0;

		if (get_string_list(l, n, path, out) < 0)
			return -1;
		*at = xcalloc(te_strv_len(*out) + 1, sizeof(**at));
		for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
		     it++)
			(*at)[i++] = node_at(l, *it);
		return 0;
	}
	if (n->type != YAML_MAPPING_NODE)
		return node_err(l, n, "%s must be a list or a mapping", path);
	if (collect(l, n, &ps, 0) < 0)
		return -1;
	*out = xcalloc(ps.n + 1, sizeof(**out));
	*at = xcalloc(ps.n + 1, sizeof(**at));
	for (size_t i = 0; i < ps.n; i++) {
		(*out)[i] = xstrdup(ps.v[i].name);
		(*at)[i] = ps.v[i].key;
	}
	return 0;
}

/* ---- ports ---- */

struct port_range {
	int lo, hi; /* 0, 0 when absent */
};

struct port_spec {
	char *host_ip; /* owned or NULL */
	struct port_range host, cont;
	char proto[8];
};

static bool parse_port(const char *s, size_t n, int *out)
{
	int v = 0;

	if (n == 0 || n > 5)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return v >= 1 && v <= 65535;
}

/* "N" or "N-M" with N <= M; empty gives the absent range. */
static bool parse_range(const char *s, size_t n, struct port_range *r)
{
	const char *dash = memchr(s, '-', n);

	r->lo = r->hi = 0;
	if (n == 0)
		return true;
	if (!dash)
		return parse_port(s, n, &r->lo) && parse_port(s, n, &r->hi);
	return parse_port(s, (size_t)(dash - s), &r->lo) &&
	       parse_port(dash + 1, n - (size_t)(dash - s) - 1, &r->hi) && r->lo <= r->hi;
}

static const char *check_ip(const char *ip)
{
	unsigned char buf[sizeof(struct in6_addr)];

	if (inet_pton(AF_INET, ip, buf) == 1 || inet_pton(AF_INET6, ip, buf) == 1)
		return NULL;
	return "host ip is not an IPv4 or IPv6 address";
}

static const char *set_proto(struct port_spec *ps, const char *proto)
{
	if (strcmp(proto, "tcp") != 0 && strcmp(proto, "udp") != 0)
		return "protocol must be tcp or udp";
	snprintf(ps->proto, sizeof(ps->proto), "%s", proto);
	return NULL;
}

/* Split "[IP:]HOST:CONTAINER" (IP may be "[v6]") at the last two colons,
 * as the Docker CLI does, so an unbracketed IPv6 host ip also works. */
static const char *split_port(const char *s, struct port_spec *ps, const char **host, size_t *host_n,
			      const char **cont)
{
	const char *last = strrchr(s, ':');
	const char *prev = NULL;

	*host = s;
	*host_n = 0;
	*cont = last ? last + 1 : s;
	if (!last)
		return NULL;
	for (const char *c = s; c < last; c++)
		if (*c == ':')
			prev = c;
	*host = prev ? prev + 1 : s;
	*host_n = (size_t)(last - *host);
	if (!prev)
		return NULL;
	if (s[0] == '[' && prev > s && prev[-1] == ']')
		ps->host_ip = xstrndup(s + 1, (size_t)(prev - s) - 2);
	else
		ps->host_ip = xstrndup(s, (size_t)(prev - s));
	if (!*ps->host_ip) {
		free(ps->host_ip);
		ps->host_ip = NULL;
		return NULL;
	}
	return check_ip(ps->host_ip);
}

/* Short syntax "[IP:][HOST[-HOST]:]CONTAINER[-CONTAINER][/PROTO]".
 * Returns NULL, or why the spec is invalid (static string). */
static const char *parse_port_spec(const char *spec, struct port_spec *ps)
{
	te_autofree char *s = xstrdup(spec);
	char *slash = strrchr(s, '/');
	const char *host, *cont, *why;
	size_t host_n;

	snprintf(ps->proto, sizeof(ps->proto), "tcp");
	if (slash) {
		*slash = '\0';
		why = set_proto(ps, slash + 1);
		if (why)
			return why;
	}
	why = split_port(s, ps, &host, &host_n, &cont);
	if (why)
		return why;
	if (!parse_range(cont, strlen(cont), &ps->cont) || ps->cont.lo == 0)
		return "container port must be a number from 1 to 65535, or a range N-M";
	if (!parse_range(host, host_n, &ps->host))
		return "host port must be a number from 1 to 65535, or a range N-M";
	return NULL;
}

static const char *check_ranges(const struct port_spec *ps)
{
	int hn = ps->host.hi - ps->host.lo, cn = ps->cont.hi - ps->cont.lo;

	if (ps->host.lo == 0 || hn == cn)
		return NULL;
	if (cn == 0)
		return "a host port range with a single container port is not supported";
	return "host and container port ranges must have the same size";
}

/* One svc_port per container port of the range. */
static void add_ports(struct loader *l, struct svc_service *s, const struct port_spec *ps,
		      const yaml_node_t *at)
{
	int count = ps->cont.hi - ps->cont.lo + 1;

	s->ports = xrealloc(s->ports, (s->n_ports + (size_t)count) * sizeof(*s->ports));
	for (int i = 0; i < count; i++) {
		struct svc_port *p = &s->ports[s->n_ports++];

		memset(p, 0, sizeof(*p));
		p->host_ip = xstrdup(ps->host_ip);
		p->host_port = ps->host.lo ? ps->host.lo + i : 0;
		p->container_port = ps->cont.lo + i;
		memcpy(p->proto, ps->proto, sizeof(p->proto));
		p->loc = loc_of(l, at);
	}
}

/* Long syntax {target, published, host_ip, protocol}; other keys (mode,
 * name, app_protocol) do not change what we publish. */
static int port_long(struct loader *l, yaml_node_t *n, const char *path, struct port_spec *ps,
		     const char **why)
{
	autopairs struct pairs pp = {0};
	static const char *const keys[] = {"target", "published", "host_ip", "protocol"};
	char *v[4] = {NULL, NULL, NULL, NULL};
	int rc = 0;

	if (collect(l, n, &pp, 0) < 0)
		return -1;
	for (size_t i = 0; i < 4 && rc == 0; i++) {
		struct pair *pr = pairs_find(&pp, keys[i]);

		if (pr)
			rc = get_string(l, pr->val, path, &v[i]);
	}
	snprintf(ps->proto, sizeof(ps->proto), "tcp");
	if (rc == 0 && !v[0])
		*why = "target is required";
	else if (rc == 0 && (!parse_range(v[0], strlen(v[0]), &ps->cont) || ps->cont.lo == 0 ||
			     ps->cont.lo != ps->cont.hi))
		*why = "target must be a number from 1 to 65535";
	else if (rc == 0 && v[1] && !parse_range(v[1], strlen(v[1]), &ps->host))
		*why = "published must be a number from 1 to 65535, or a range N-M";
	else if (rc == 0 && v[3])
		*why = set_proto(ps, v[3]);
	if (rc == 0 && !*why && v[2] && *v[2]) {
		ps->host_ip = TE_STEAL(v[2]);
		*why = check_ip(ps->host_ip);
	}
	for (size_t i = 0; i < 4; i++)
		free(v[i]);
	return rc;
}

static int one_port(struct loader *l, struct svc_service *s, yaml_node_t *item, const char *path)
{
	struct port_spec ps = {0};
	te_autofree char *spec = NULL;
	const char *why = NULL;
	int rc = 0;

	if (item->type == YAML_MAPPING_NODE) {
		rc = port_long(l, item, path, &ps, &why);
	} else if (item->type == YAML_SCALAR_NODE && !is_null(item)) {
		rc = interp(l, item, &spec);
		why = rc == 0 ? parse_port_spec(spec, &ps) : NULL;
	} else {
		rc = node_err(l, item, "%s items must be strings or mappings", path);
	}
	if (rc == 0 && !why)
		why = check_ranges(&ps);
	if (rc == 0 && why)
		rc = node_err(l, item, "%s: invalid port%s%s%s: %s", path, spec ? " '" : "", spec ? spec : "",
			      spec ? "'" : "", why);
	if (rc == 0)
		add_ports(l, s, &ps, item);
	free(ps.host_ip);
	return rc;
}

static int f_ports(struct loader *l, struct svc_service *s, yaml_node_t *n, const char *path)
{
	if (is_null(n))
		return 0;
	if (n->type != YAML_SEQUENCE_NODE)
		return node_err(l, n, "%s must be a list", path);
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++)
		if (one_port(l, s, node_at(l, *it), path) < 0)
			return -1;
	return 0;
}

/* ---- volumes (mounts) ---- */

/* Lexically normalise an absolute PATH: drop "." and empty segments,
 * let ".." eat the previous one (never above "/"). No symlinks resolved:
 * the path may not exist yet, and Compose does not resolve them either. */
static char *normalize(const char *path)
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

/* A bind source made absolute: "~" is $HOME, relative paths hang off the
 * project directory. Returns an owned path or NULL with *why set. */
static char *bind_source(const char *dir, const char *src, const char **why)
{
	te_autofree char *joined = NULL;
	const char *home = getenv("HOME");

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
	return normalize(joined);
}

static bool is_bind_source(const char *src)
{
	return src[0] == '/' || src[0] == '.' || src[0] == '~';
}

/* Mode options of the short syntax. ro/rw and nocopy change the model;
 * SELinux relabelling and consistency hints are accepted and ignored. */
static const char *parse_mode(const char *mode, bool *ro, bool *nocopy)
{
	static const char *const ignored[] = {"z", "Z", "nocopy", "cached", "delegated", "consistent"};
	te_autofree char *copy = xstrdup(mode);
	char *p = copy;

	for (;;) {
		char *comma = strchr(p, ',');
		bool known;

		if (comma)
			*comma = '\0';
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
static const char *fill_mount(struct loader *l, struct svc_mount *m, const char *source, const char *target,
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
		m->source = bind_source(l->p->dir, source, &why);
	else
		m->source = xstrdup(source);
	return why;
}

static const char *mount_short(struct loader *l, struct svc_mount *m, char *spec)
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
		return fill_mount(l, m, NULL, parts[0], NULL);
	why = fill_mount(l, m, parts[0], parts[1], NULL);
	if (!why && n == 3)
		why = parse_mode(parts[2], &m->read_only, &m->nocopy);
	return why;
}

static int get_bytes(struct loader *l, const yaml_node_t *n, const char *path, long long *out);

/* The sub-mappings of the long syntax: volume.nocopy, bind.create_host_path, tmpfs.size. */
static int mount_options(struct loader *l, struct svc_mount *m, const struct pairs *pp, const char *path)
{
	static const char *const subs[] = {"volume", "bind", "tmpfs"};
	static const char *const keys[] = {"nocopy", "create_host_path", "size"};

	for (size_t i = 0; i < 3; i++) {
		struct pair *sub = pairs_find(pp, subs[i]);
		autopairs struct pairs sp = {0};
		struct pair *k;
		bool b = true;

		if (!sub || is_null(sub->val))
			continue;
		if (mapping_pairs(l, sub->val, path, &sp) < 0)
			return -1;
		k = pairs_find(&sp, keys[i]);
		if (!k)
			continue;
		if (i == 2 && get_bytes(l, k->val, path, &m->tmpfs_size) < 0)
			return -1;
		if (i < 2 && get_bool(l, k->val, path, &b) < 0)
			return -1;
		if (i == 0)
			m->nocopy = b;
		if (i == 1)
			m->no_create_host_path = !b;
	}
	return 0;
}

static int mount_long(struct loader *l, struct svc_mount *m, yaml_node_t *n, const char *path,
		      const char **why)
{
	autopairs struct pairs pp = {0};
	static const char *const keys[] = {"type", "source", "target"};
	te_autofree char *v0 = NULL;
	te_autofree char *v1 = NULL;
	te_autofree char *v2 = NULL;
	char **v[3] = {&v0, &v1, &v2};
	struct pair *ro;

	if (collect(l, n, &pp, 0) < 0)
		return -1;
	for (size_t i = 0; i < 3; i++) {
		struct pair *pr = pairs_find(&pp, keys[i]);

		if (pr && get_string(l, pr->val, path, v[i]) < 0)
			return -1;
	}
	ro = pairs_find(&pp, "read_only");
	if (ro && get_bool(l, ro->val, path, &m->read_only) < 0)
		return -1;
	if (mount_options(l, m, &pp, path) < 0)
		return -1;
	*why = v0 ? fill_mount(l, m, v1, v2, v0) : "type is required (volume, bind or tmpfs)";
	return 0;
}

static int one_mount(struct loader *l, struct svc_service *s, yaml_node_t *item, const char *path)
{
	struct svc_mount m = {0};
	te_autofree char *spec = NULL;
	const char *why = NULL;
	int rc;

	m.loc = loc_of(l, item);
	if (item->type == YAML_MAPPING_NODE) {
		rc = mount_long(l, &m, item, path, &why);
	} else if (item->type == YAML_SCALAR_NODE && !is_null(item)) {
		rc = interp(l, item, &spec);
		if (rc == 0) {
			te_autofree char *work = xstrdup(spec);

			why = mount_short(l, &m, work);
		}
	} else {
		rc = node_err(l, item, "%s items must be strings or mappings", path);
	}
	if (rc == 0 && why)
		rc = node_err(l, item, "%s: invalid volume%s%s%s: %s", path, spec ? " '" : "",
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

static int f_volumes(struct loader *l, struct svc_service *s, yaml_node_t *n, const char *path)
{
	if (is_null(n))
		return 0;
	if (n->type != YAML_SEQUENCE_NODE)
		return node_err(l, n, "%s must be a list", path);
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++)
		if (one_mount(l, s, node_at(l, *it), path) < 0)
			return -1;
	return 0;
}

/* ---- numbers: durations, byte sizes ---- */

/* Compose durations ("1m30s", "1.5s", "500ms", "10" = seconds) in ns. */
bool svc_parse_duration(const char *s, long long *ns)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}, {"h", 3600e9}};
	double total = 0;
	char *end;

	if (!*s)
		return false;
	while (*s) {
		double v = strtod(s, &end);
		size_t best = 0, len = 0;

		if (end == s || v < 0)
			return false;
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			size_t n = strlen(units[i].unit);

			if (strncmp(end, units[i].unit, n) == 0 && n > len && !(n == 1 && end[1] == 's'))
				best = i, len = n;
		}
		if (!len && *end)
			return false;
		total += v * (len ? units[best].ns : 1e9);
		s = end + len;
	}
	if (total > 9e18)
		return false;
	*ns = (long long)total;
	return true;
}

/* "2g", "512m", "1gb", "100k", "1024" (bytes). */
bool svc_parse_bytes(const char *s, long long *out)
{
	static const char units[] = "bkmgt";
	char *end;
	double v = strtod(s, &end), mult = 1;
	const char *u;

	if (end == s || v < 0 || !*s)
		return false;
	if (*end) {
		u = strchr(units, end[0] | 0x20);
		if (!u)
			return false;
		for (const char *k = units; k < u; k++)
			mult *= 1024;
		end++;
		if ((*end | 0x20) == 'b' && u != units)
			end++;
		if (*end)
			return false;
	}
	if (v * mult > 9e18)
		return false;
	*out = (long long)(v * mult);
	return true;
}

static int get_duration(struct loader *l, const yaml_node_t *n, const char *path, long long *out)
{
	te_autofree char *s = NULL;

	if (get_string(l, n, path, &s) < 0)
		return -1;
	if (s && !svc_parse_duration(s, out))
		return node_err(l, n, "%s: invalid duration '%s' (e.g. 30s, 1m30s, 500ms)", path, s);
	return 0;
}

static int get_bytes(struct loader *l, const yaml_node_t *n, const char *path, long long *out)
{
	te_autofree char *s = NULL;

	if (get_string(l, n, path, &s) < 0)
		return -1;
	if (s && !svc_parse_bytes(s, out))
		return node_err(l, n, "%s: invalid byte size '%s' (e.g. 512m, 2g)", path, s);
	return 0;
}

static int get_int(struct loader *l, const yaml_node_t *n, const char *path, long long *out)
{
	te_autofree char *s = NULL;
	char *end;

	if (get_string(l, n, path, &s) < 0)
		return -1;
	if (!s)
		return 0;
	errno = 0;
	*out = strtoll(s, &end, 10);
	if (errno || end == s || *end)
		return node_err(l, n, "%s must be an integer", path);
	return 0;
}

static int get_double(struct loader *l, const yaml_node_t *n, const char *path, double *out)
{
	te_autofree char *s = NULL;
	char *end;

	if (get_string(l, n, path, &s) < 0)
		return -1;
	if (!s)
		return 0;
	*out = strtod(s, &end);
	if (end == s || *end || *out < 0 || *out > 1e6)
		return node_err(l, n, "%s must be a non-negative number", path);
	return 0;
}

/* ---- the other service keys ---- */

static void warn(struct loader *l, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void warn(struct loader *l, const yaml_node_t *n, const char *fmt, ...)
{
	te_autofree char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	l->p->warnings =
	    te_strv_push(l->p->warnings, xasprintf("%s:%zu:%zu: %s", l->file, n->start_mark.line + 1,
						   n->start_mark.column + 1, msg));
}

static int f_command(struct loader *l, struct svc_service *s, yaml_node_t *n, const char *path)
{
	return get_argv(l, n, path, &s->command);
}

static int f_entrypoint(struct loader *l, struct svc_service *s, yaml_node_t *n, const char *path)
{
	return get_argv(l, n, path, &s->entrypoint);
}

static int f_environment(struct loader *l, struct svc_service *s, yaml_node_t *n, const char *path)
{
	return get_kv(l, KV_ENV, n, path, &s->environment, &s->n_environment);
}

static int f_labels(struct loader *l, struct svc_service *s, yaml_node_t *n, const char *path)
{
	return get_kv(l, KV_LABEL, n, path, &s->labels, &s->n_labels);
}

static int f_sysctls(struct loader *l, struct svc_service *s, yaml_node_t *n, const char *path)
{
	return get_kv(l, KV_LABEL, n, path, &s->sysctls, &s->n_sysctls);
}

/* One env_file: its variables go under `environment:` (which wins). */
static int env_file_one(struct loader *l, struct svc_service *s, const yaml_node_t *at, const char *file,
			bool required)
{
	te_autofree char *path = file[0] == '/' ? xstrdup(file) : xasprintf("%s/%s", l->p->dir, file);
	struct svc_env *env;

	struct stat st;

	if (access(path, R_OK) != 0) {
		if (!required)
			return 0;
		return node_err(l, at, "env file '%s' not found: %s", path, strerror(errno));
	}
	/* A FIFO or a device would block or never end. */
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return node_err(l, at, "env file '%s' is not a regular file", path);
	env = svc_env_load(path, l->err);
	if (!env)
		return node_err_prefix(l, at);
	for (size_t i = 0; i < svc_env_size(env); i++) {
		const char *k, *v;
		bool have = false;

		svc_env_at(env, i, &k, &v);
		for (size_t j = 0; j < s->n_environment && !have; j++)
			have = strcmp(s->environment[j].key, k) == 0;
		if (!have)
			kv_put(&s->environment, &s->n_environment, xstrdup(k), xstrdup(v), loc_of(l, at));
	}
	svc_env_free(env);
	return 0;
}

static int env_file_item(struct loader *l, struct svc_service *s, yaml_node_t *it, const char *path)
{
	autopairs struct pairs pp = {0};
	te_autofree char *file = NULL;
	struct pair *pr;
	bool required = true;

	if (it->type != YAML_MAPPING_NODE) {
		if (get_string(l, it, path, &file) < 0)
			return -1;
		return file ? env_file_one(l, s, it, file, true) : 0;
	}
	if (collect(l, it, &pp, 0) < 0)
		return -1;
	pr = pairs_find(&pp, "path");
	if (!pr)
		return node_err(l, it, "%s: path is required", path);
	if (get_string(l, pr->val, path, &file) < 0)
		return -1;
	pr = pairs_find(&pp, "required");
	if (pr && get_bool(l, pr->val, path, &required) < 0)
		return -1;
	return file ? env_file_one(l, s, it, file, required) : 0;
}

/* Applied after the whole service is read, so `environment:` wins whatever
 * the order of the keys. */
static int apply_env_files(struct loader *l, struct svc_service *s, yaml_node_t *n, const char *path)
{
	if (is_null(n))
		return 0;
	if (n->type != YAML_SEQUENCE_NODE)
		return env_file_item(l, s, n, path);
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++)
		if (env_file_item(l, s, node_at(l, *it), path) < 0)
			return -1;
	return 0;
}

static int f_env_file(struct loader *l, struct svc_service *s, yaml_node_t *n, const char *path)
{
	return 0; /* read by load_service once the other keys are in */
}

static int dep_long(struct loader *l, struct svc_dep *d, yaml_node_t *v, const char *path)
{
	autopairs struct pairs pp = {0};
	struct pair *pr;

	if (is_null(v))
		return 0;
	if (mapping_pairs(l, v, path, &pp) < 0)
		return -1;
	pr = pairs_find(&pp, "condition");
	if (pr) {
		free(d->condition);
		if (get_string(l, pr->val, path, &d->condition) < 0)
			return -1;
		if (!d->condition || (strcmp(d->condition, "service_started") != 0 &&
				      strcmp(d->condition, "service_healthy") != 0 &&
				      strcmp(d->condition, "service_completed_successfully") != 0))
			return node_err(l, pr->val,
					"%s.condition must be service_started, service_healthy or "
					"service_completed_successfully",
					path);
	}
	pr = pairs_find(&pp, "required");
	if (pr && get_bool(l, pr->val, path, &d->required) < 0)
		return -1;
	pr = pairs_find(&pp, "restart");
	return pr ? get_bool(l, pr->val, path, &d->restart) : 0;
}

static int f_depends_on(struct loader *l, struct svc_service *s, yaml_node_t *n, const char *path)
{
	te_autofree yaml_node_t **at = NULL;
	te_autostrv char **names = NULL;
	autopairs struct pairs ps = {0};

	if (is_null(n))
		return 0;
	if (get_names(l, n, path, &names, &at) < 0)
		return -1;
	if (n->type == YAML_MAPPING_NODE && collect(l, n, &ps, 0) < 0)
		return -1;
	s->deps = xcalloc(te_strv_len(names) + 1, sizeof(*s->deps));
	for (size_t i = 0; names[i]; i++) {
		struct svc_dep *d = &s->deps[s->n_deps++];

		*d = (struct svc_dep){xstrdup(names[i]), xstrdup("service_started"), true, false,
				      loc_of(l, at[i])};
		if (n->type == YAML_MAPPING_NODE && dep_long(l, d, ps.v[i].val, path) < 0)
			return -1;
	}
	return 0;
}

static int net_attach_long(struct loader *l, struct svc_net_attach *a, yaml_node_t *v, const char *path)
{
	autopairs struct pairs pp = {0};
	struct pair *pr;

	if (is_null(v))
		return 0;
	if (mapping_pairs(l, v, path, &pp) < 0)
		return -1;
	pr = pairs_find(&pp, "aliases");
	if (pr && !is_null(pr->val)) {
		if (pr->val->type != YAML_SEQUENCE_NODE)
			return node_err(l, pr->val, "%s.aliases must be a list", path);
		if (get_string_list(l, pr->val, path, &a->aliases) < 0)
			return -1;
	}
	pr = pairs_find(&pp, "ipv4_address");
	return pr ? get_string(l, pr->val, path, &a->ipv4_address) : 0;
}

static int f_networks(struct loader *l, struct svc_service *s, yaml_node_t *n, const char *path)
{
	te_autofree yaml_node_t **at = NULL;
	te_autostrv char **names = NULL;
	autopairs struct pairs ps = {0};

	if (is_null(n))
		return 0;
	if (get_names(l, n, path, &names, &at) < 0)
		return -1;
	if (n->type == YAML_MAPPING_NODE && collect(l, n, &ps, 0) < 0)
		return -1;
	s->net_attach = xcalloc(te_strv_len(names) + 1, sizeof(*s->net_attach));
	for (size_t i = 0; names[i]; i++) {
		struct svc_net_attach *a = &s->net_attach[s->n_net_attach++];

		a->key = xstrdup(names[i]);
		a->loc = loc_of(l, at[i]);
		if (n->type == YAML_MAPPING_NODE && net_attach_long(l, a, ps.v[i].val, path) < 0)
			return -1;
	}
	return 0;
}

static int health_test(struct loader *l, struct svc_health *h, yaml_node_t *n, const char *path)
{
	te_autofree char *s = NULL;

	if (n->type == YAML_SEQUENCE_NODE) {
		if (get_string_list(l, n, path, &h->test) < 0)
			return -1;
		if (!h->test[0] || (strcmp(h->test[0], "CMD") != 0 && strcmp(h->test[0], "CMD-SHELL") != 0 &&
				    strcmp(h->test[0], "NONE") != 0))
			return node_err(l, n, "%s.test: a list must start with CMD, CMD-SHELL or NONE", path);
		h->disable |= strcmp(h->test[0], "NONE") == 0;
		return 0;
	}
	if (get_string(l, n, path, &s) < 0)
		return -1;
	if (s)
		h->test = te_strv_push(te_strv_push(NULL, xstrdup("CMD-SHELL")), TE_STEAL(s));
	return 0;
}

static int f_healthcheck(struct loader *l, struct svc_service *s, yaml_node_t *n, const char *path)
{
	static const char *const durs[] = {"interval", "timeout", "start_period", "start_interval"};
	struct svc_health *h = &s->health;
	long long *dst[] = {&h->interval_ns, &h->timeout_ns, &h->start_period_ns, &h->start_interval_ns};
	autopairs struct pairs pp = {0};
	struct pair *pr;
	long long retries = 0;

	if (mapping_pairs(l, n, path, &pp) < 0)
		return -1;
	h->set = true;
	h->loc = loc_of(l, n);
	pr = pairs_find(&pp, "test");
	if (pr && health_test(l, h, pr->val, path) < 0)
		return -1;
	for (size_t i = 0; i < 4; i++) {
		pr = pairs_find(&pp, durs[i]);
		if (pr && get_duration(l, pr->val, path, dst[i]) < 0)
			return -1;
	}
	pr = pairs_find(&pp, "retries");
	if (pr && get_int(l, pr->val, path, &retries) < 0)
		return -1;
	if (retries < 0 || retries > 100000)
		return node_err(l, pr->val, "%s.retries must be from 0 to 100000", path);
	h->retries = (int)retries;
	pr = pairs_find(&pp, "disable");
	return pr ? get_bool(l, pr->val, path, &h->disable) : 0;
}

/* deploy.resources.{limits,reservations}; other deploy keys are for Swarm. */
static int f_deploy(struct loader *l, struct svc_service *s, yaml_node_t *n, const char *path)
{
	autopairs struct pairs dp = {0};
	autopairs struct pairs rp = {0};
	autopairs struct pairs lp = {0};
	autopairs struct pairs sp = {0};
	struct pair *pr;

	if (mapping_pairs(l, n, path, &dp) < 0)
		return -1;
	for (size_t i = 0; i < dp.n; i++)
		if (strcmp(dp.v[i].name, "resources") != 0 && !has_prefix(dp.v[i].name, "x-"))
			warn(l, dp.v[i].key, "%s.%s is not supported by taskenv, ignored", path,
			     dp.v[i].name);
	pr = pairs_find(&dp, "resources");
	if (!pr || is_null(pr->val))
		return 0;
	if (mapping_pairs(l, pr->val, path, &rp) < 0)
		return -1;
	pr = pairs_find(&rp, "limits");
	if (pr && !is_null(pr->val)) {
		if (mapping_pairs(l, pr->val, path, &lp) < 0)
			return -1;
		struct pair *cpus = pairs_find(&lp, "cpus"), *mem = pairs_find(&lp, "memory");
		struct pair *pids = pairs_find(&lp, "pids");

		if (cpus && get_double(l, cpus->val, path, &s->cpus) < 0)
			return -1;
		if (mem && get_bytes(l, mem->val, path, &s->mem_limit) < 0)
			return -1;
		if (pids && get_int(l, pids->val, path, &s->pids_limit) < 0)
			return -1;
	}
	pr = pairs_find(&rp, "reservations");
	if (!pr || is_null(pr->val))
		return 0;
	if (mapping_pairs(l, pr->val, path, &sp) < 0)
		return -1;
	pr = pairs_find(&sp, "memory");
	return pr ? get_bytes(l, pr->val, path, &s->mem_reservation) : 0;
}

/* A string or a list of strings (dns, tmpfs, ...); lists append. */
static int get_strv_loose(struct loader *l, yaml_node_t *n, const char *path, char ***out)
{
	char **v = NULL;
	char *one = NULL;

	if (is_null(n))
		return 0;
	if (n->type == YAML_SEQUENCE_NODE) {
		if (get_string_list(l, n, path, &v) < 0)
			return -1;
	} else {
		if (get_string(l, n, path, &one) < 0)
			return -1;
		v = te_strv_push(NULL, one);
	}
	for (size_t i = 0; v[i]; i++)
		*out = te_strv_push(*out, TE_STEAL(v[i]));
	free(v);
	return 0;
}

/* extra_hosts: a list of "HOST:IP" / "HOST=IP", or a mapping HOST: IP. */
static int get_hosts(struct loader *l, yaml_node_t *n, const char *path, char ***out)
{
	struct svc_kv *kv = NULL;
	size_t nkv = 0;

	if (n->type != YAML_MAPPING_NODE) {
		if (get_strv_loose(l, n, path, out) < 0)
			return -1;
		for (size_t i = 0; *out && (*out)[i]; i++) {
			char *eq = strchr((*out)[i], '=');

			if (eq)
				*eq = ':';
		}
		return 0;
	}
	if (get_kv(l, KV_LABEL, n, path, &kv, &nkv) < 0)
		return -1;
	for (size_t i = 0; i < nkv; i++) {
		*out = te_strv_push(*out, xasprintf("%s:%s", kv[i].key, kv[i].value));
		free(kv[i].key);
		free(kv[i].value);
	}
	free(kv);
	return 0;
}

static int f_extra_hosts(struct loader *l, struct svc_service *s, yaml_node_t *n, const char *path)
{
	return get_hosts(l, n, path, &s->extra_hosts);
}

/* ---- build ---- */

static int build_context(struct loader *l, struct svc_build *b, yaml_node_t *n, const char *path)
{
	te_autofree char *ctx = NULL;

	if (get_string(l, n, path, &ctx) < 0)
		return -1;
	if (!ctx || !*ctx)
		ctx = xstrdup(".");
	if (strstr(ctx, "://") || has_prefix(ctx, "git@") || has_prefix(ctx, "github.com/"))
		return node_err(l, n,
				"%s: remote build contexts ('%s') are not supported: clone it and "
				"give a directory",
				path, ctx);
	free(b->context);
	if (ctx[0] == '/') {
		b->context = normalize(ctx);
	} else {
		te_autofree char *joined = xasprintf("%s/%s", l->p->dir, ctx);

		b->context = normalize(joined);
	}
	return 0;
}

/* Keys of build: taskenv passes to POST /build; others are warned about. */
static int build_field(struct loader *l, struct svc_build *b, const struct pair *pr, const char *path)
{
	const char *k = pr->name;

	if (strcmp(k, "context") == 0)
		return build_context(l, b, pr->val, path);
	if (strcmp(k, "dockerfile") == 0)
		return free(b->dockerfile), get_string(l, pr->val, path, &b->dockerfile);
	if (strcmp(k, "dockerfile_inline") == 0)
		return free(b->dockerfile_inline), get_string(l, pr->val, path, &b->dockerfile_inline);
	if (strcmp(k, "args") == 0)
		return get_kv(l, KV_ENV, pr->val, path, &b->args, &b->n_args);
	if (strcmp(k, "target") == 0)
		return free(b->target), get_string(l, pr->val, path, &b->target);
	if (strcmp(k, "labels") == 0)
		return get_kv(l, KV_LABEL, pr->val, path, &b->labels, &b->n_labels);
	if (strcmp(k, "network") == 0)
		return free(b->network), get_string(l, pr->val, path, &b->network);
	if (strcmp(k, "shm_size") == 0)
		return get_bytes(l, pr->val, path, &b->shm_size);
	if (strcmp(k, "extra_hosts") == 0)
		return get_hosts(l, pr->val, path, &b->extra_hosts);
	if (strcmp(k, "cache_from") == 0)
		return get_strv_loose(l, pr->val, path, &b->cache_from);
	if (strcmp(k, "pull") == 0) {
		bool v;

		if (get_bool(l, pr->val, path, &v) < 0)
			return -1;
		b->pull = v;
		return 0;
	}
	if (!has_prefix(k, "x-"))
		warn(l, pr->key, "%s is not supported by taskenv, ignored", path);
	return 0;
}

static int f_build(struct loader *l, struct svc_service *s, yaml_node_t *n, const char *path)
{
	autopairs struct pairs pp = {0};
	struct svc_build *b = &s->build;

	s->has_build = b->set = true;
	b->pull = SVC_UNSET;
	b->loc = loc_of(l, n);
	if (n->type != YAML_MAPPING_NODE)
		return build_context(l, b, n, path);
	if (collect(l, n, &pp, 0) < 0)
		return -1;
	if (!pairs_find(&pp, "context"))
		b->context = xstrdup(l->p->dir);
	for (size_t i = 0; i < pp.n; i++) {
		te_autofree char *sub = xasprintf("%s.%s", path, pp.v[i].name);

		if (build_field(l, b, &pp.v[i], sub) < 0)
			return -1;
	}
	if (b->dockerfile && b->dockerfile_inline)
		return node_err(l, n, "%s: dockerfile and dockerfile_inline are mutually exclusive", path);
	return 0;
}

/* ---- secrets and configs (service side) ---- */

static bool pairs_find_known(const char *k)
{
	return strcmp(k, "source") == 0 || strcmp(k, "target") == 0 || strcmp(k, "uid") == 0 ||
	       strcmp(k, "gid") == 0 || strcmp(k, "mode") == 0 || has_prefix(k, "x-");
}

/* mode: an integer, octal when written with a leading 0 or 0o (as Compose reads it). */
static int get_mode(struct loader *l, yaml_node_t *n, const char *path, int *out)
{
	te_autofree char *s = NULL;
	const char *p;
	char *end;
	long v;

	if (get_string(l, n, path, &s) < 0)
		return -1;
	if (!s)
		return 0;
	p = s;
	if (has_prefix(p, "0o") || has_prefix(p, "0O"))
		p += 2;
	errno = 0;
	v = strtol(p, &end, p != s || (s[0] == '0' && s[1]) ? 8 : 10);
	if (errno || end == p || *end || v < 0 || v > 07777)
		return node_err(l, n, "%s must be a file mode such as 0440", path);
	*out = (int)v;
	return 0;
}

static int file_ref_long(struct loader *l, struct svc_file_ref *r, yaml_node_t *n, const char *path)
{
	autopairs struct pairs pp = {0};
	struct pair *pr;
	char **strs[] = {&r->source, &r->target, &r->uid, &r->gid};
	static const char *const keys[] = {"source", "target", "uid", "gid"};

	if (collect(l, n, &pp, 0) < 0)
		return -1;
	for (size_t i = 0; i < 4; i++) {
		pr = pairs_find(&pp, keys[i]);
		if (pr && get_string(l, pr->val, path, strs[i]) < 0)
			return -1;
	}
	pr = pairs_find(&pp, "mode");
	if (pr && get_mode(l, pr->val, path, &r->mode) < 0)
		return -1;
	for (size_t i = 0; i < pp.n; i++)
		if (!pairs_find_known(pp.v[i].name))
			warn(l, pp.v[i].key, "unknown key %s.%s, ignored", path, pp.v[i].name);
	if (!r->source)
		return node_err(l, n, "%s: source is required", path);
	return 0;
}

static int get_file_refs(struct loader *l, yaml_node_t *n, const char *path, struct svc_file_ref **out,
			 size_t *nout)
{
	if (is_null(n))
		return 0;
	if (n->type != YAML_SEQUENCE_NODE)
		return node_err(l, n, "%s must be a list", path);
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
		yaml_node_t *item = node_at(l, *it);
		struct svc_file_ref *r;

		*out = xrealloc(*out, (*nout + 1) * sizeof(**out));
		r = &(*out)[(*nout)++];
		memset(r, 0, sizeof(*r));
		r->mode = -1;
		r->loc = loc_of(l, item);
		if (item->type == YAML_MAPPING_NODE) {
			if (file_ref_long(l, r, item, path) < 0)
				return -1;
		} else if (get_string(l, item, path, &r->source) < 0) {
			return -1;
		} else if (!r->source) {
			return node_err(l, item, "%s: empty entry", path);
		}
		if (r->target && strstr(r->target, ".."))
			return node_err(l, item, "%s: target '%s' must not contain '..'", path, r->target);
	}
	return 0;
}

static int f_secrets(struct loader *l, struct svc_service *s, yaml_node_t *n, const char *path)
{
	return get_file_refs(l, n, path, &s->secrets, &s->n_secrets);
}

static int f_configs(struct loader *l, struct svc_service *s, yaml_node_t *n, const char *path)
{
	return get_file_refs(l, n, path, &s->configs, &s->n_configs);
}

/* ulimits: NAME: N or NAME: {soft: N, hard: N}; kept as "NAME=SOFT:HARD". */
static int ulimit_one(struct loader *l, struct svc_service *s, const struct pair *pr, const char *path)
{
	long long soft = 0, hard = 0;
	autopairs struct pairs pp = {0};
	struct pair *ps, *ph;

	if (pr->val->type != YAML_MAPPING_NODE) {
		if (get_int(l, pr->val, path, &soft) < 0)
			return -1;
		hard = soft;
	} else {
		if (collect(l, pr->val, &pp, 0) < 0)
			return -1;
		ps = pairs_find(&pp, "soft");
		ph = pairs_find(&pp, "hard");
		if (!ps || !ph)
			return node_err(l, pr->val, "%s: soft and hard are required", path);
		if (get_int(l, ps->val, path, &soft) < 0 || get_int(l, ph->val, path, &hard) < 0)
			return -1;
	}
	s->ulimits = te_strv_push(s->ulimits, xasprintf("%s=%lld:%lld", pr->name, soft, hard));
	return 0;
}

static int f_ulimits(struct loader *l, struct svc_service *s, yaml_node_t *n, const char *path)
{
	autopairs struct pairs pp = {0};

	if (is_null(n))
		return 0;
	if (mapping_pairs(l, n, path, &pp) < 0)
		return -1;
	for (size_t i = 0; i < pp.n; i++) {
		te_autofree char *sub = xasprintf("%s.%s", path, pp.v[i].name);

		if (ulimit_one(l, s, &pp.v[i], sub) < 0)
			return -1;
	}
	return 0;
}

enum ftype { F_STR, F_STRV, F_TRI, F_BYTES, F_DURATION, F_INT, F_DOUBLE, F_FN };

struct field {
	const char *key;
	enum ftype type;
	size_t off;
	int slot; /* enum svc_key or -1 */
	int (*fn)(struct loader *l, struct svc_service *s, yaml_node_t *n, const char *path);
};

#define FLD(k, t, member, slot)                                                                              \
	{                                                                                                    \
		k, t, offsetof(struct svc_service, member), slot, NULL                                       \
	}
#define FFN(k, fn)                                                                                           \
	{                                                                                                    \
		k, F_FN, 0, -1, fn                                                                           \
	}

static const struct field service_fields[] = {
    FLD("image", F_STR, image, -1),
    FFN("command", f_command),
    FFN("entrypoint", f_entrypoint),
    FFN("environment", f_environment),
    FFN("env_file", f_env_file),
    FFN("ports", f_ports),
    FFN("volumes", f_volumes),
    FFN("depends_on", f_depends_on),
    FLD("working_dir", F_STR, working_dir, -1),
    FLD("user", F_STR, user, -1),
    FFN("labels", f_labels),
    FLD("container_name", F_STR, container_name, -1),
    FFN("networks", f_networks),
    FFN("healthcheck", f_healthcheck),
    FFN("deploy", f_deploy),
    FFN("sysctls", f_sysctls),
    FFN("extra_hosts", f_extra_hosts),
    FLD("tmpfs", F_STRV, tmpfs, -1),
    FLD("cap_add", F_STRV, cap_add, SVC_K_CAP_ADD),
    FLD("cap_drop", F_STRV, cap_drop, -1),
    FLD("security_opt", F_STRV, security_opt, SVC_K_SECURITY_OPT),
    FLD("profiles", F_STRV, profiles, -1),
    FLD("devices", F_STRV, devices, SVC_K_DEVICES),
    FLD("dns", F_STRV, dns, -1),
    FLD("expose", F_STRV, expose, -1),
    FLD("group_add", F_STRV, group_add, -1),
    FLD("restart", F_STR, restart, -1),
    FLD("stop_signal", F_STR, stop_signal, -1),
    FLD("pull_policy", F_STR, pull_policy, -1),
    FLD("network_mode", F_STR, network_mode, SVC_K_NETWORK_MODE),
    FLD("pid", F_STR, pid, SVC_K_PID),
    FLD("ipc", F_STR, ipc, SVC_K_IPC),
    FLD("userns_mode", F_STR, userns_mode, SVC_K_USERNS),
    FLD("uts", F_STR, uts, SVC_K_UTS),
    FLD("cgroup", F_STR, cgroup, SVC_K_CGROUP),
    FLD("hostname", F_STR, hostname, -1),
    FLD("domainname", F_STR, domainname, -1),
    FLD("platform", F_STR, platform, -1),
    FLD("read_only", F_TRI, read_only, -1),
    FLD("init", F_TRI, init, -1),
    FLD("privileged", F_TRI, privileged, SVC_K_PRIVILEGED),
    FLD("tty", F_TRI, tty, -1),
    FLD("stdin_open", F_TRI, stdin_open, -1),
    FLD("mem_limit", F_BYTES, mem_limit, -1),
    FLD("mem_reservation", F_BYTES, mem_reservation, -1),
    FLD("shm_size", F_BYTES, shm_size, -1),
    FLD("pids_limit", F_INT, pids_limit, -1),
    FLD("stop_grace_period", F_DURATION, stop_grace_ns, -1),
    FLD("cpus", F_DOUBLE, cpus, -1),
    FFN("build", f_build),
    FFN("secrets", f_secrets),
    FFN("configs", f_configs),
    FFN("ulimits", f_ulimits),
    FLD("runtime", F_STR, runtime, -1),
    FLD("mac_address", F_STR, mac_address, SVC_K_MAC_ADDRESS),
};

/* Compose keys taskenv accepts but does not act on: a warning says so. */
static const char *const ignored_keys[] = {
    "logging",	      "links",	      "external_links", "oom_score_adj",    "cpu_shares",
    "cpuset",	      "scale",	      "develop",	"attach",	    "annotations",
    "storage_opt",    "stop_timeout", "blkio_config",	"oom_kill_disable", "cpu_count",
    "cpu_percent",    "cpu_period",   "cpu_quota",	"cpu_rt_runtime",   "mem_swappiness",
    "memswap_limit",  "isolation",    "volumes_from",	"credential_spec",  "device_cgroup_rules",
    "dns_opt",	      "dns_search",   "post_start",	"pre_stop",	    "gpus",
    "use_api_socket", "label_file",   "models",		"provider",
};

static int field_scalar(struct loader *l, struct svc_service *s, const struct field *f, yaml_node_t *n,
			const char *path)
{
	char *base = (char *)s + f->off;
	bool b;

	switch (f->type) {
	case F_STR: free(*(char **)base); return get_string(l, n, path, (char **)base);
	case F_STRV: return get_strv_loose(l, n, path, (char ***)base);
	case F_TRI:
		if (is_null(n))
			return 0;
		if (get_bool(l, n, path, &b) < 0)
			return -1;
		*(int *)base = b;
		return 0;
	case F_BYTES: return get_bytes(l, n, path, (long long *)base);
	case F_DURATION: return get_duration(l, n, path, (long long *)base);
	case F_INT: return get_int(l, n, path, (long long *)base);
	case F_DOUBLE: return get_double(l, n, path, (double *)base);
	case F_FN: return f->fn(l, s, n, path);
	}
	return 0;
}

static void warn_key(struct loader *l, const struct pair *pr, const char *path)
{
	for (size_t i = 0; i < sizeof(ignored_keys) / sizeof(ignored_keys[0]); i++)
		if (strcmp(ignored_keys[i], pr->name) == 0) {
			warn(l, pr->key, "%s is not supported by taskenv, ignored", path);
			return;
		}
	warn(l, pr->key, "unknown key %s, ignored", path);
}

/* ---- services, volumes, networks ---- */

/* Compose's schema pattern for service, volume and network keys. */
static bool valid_key(const char *k)
{
	if (!*k)
		return false;
	for (; *k; k++)
		if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') || (*k >= '0' && *k <= '9') ||
		      *k == '.' || *k == '_' || *k == '-'))
			return false;
	return true;
}

static int service_field(struct loader *l, struct svc_service *s, const struct pair *pr)
{
	te_autofree char *path = xasprintf("services.%s.%s", s->name, pr->name);

	if (strcmp(pr->name, "x-taskenv") == 0)
		return svc_ld_service_taskenv(l, s, pr->val, path);
	if (has_prefix(pr->name, "x-"))
		return 0;
	for (size_t i = 0; i < sizeof(service_fields) / sizeof(service_fields[0]); i++) {
		const struct field *f = &service_fields[i];

		if (strcmp(f->key, pr->name) != 0)
			continue;
		if (f->slot >= 0)
			s->key_loc[f->slot] = loc_of(l, pr->key);
		return field_scalar(l, s, f, pr->val, path);
	}
	warn_key(l, pr, path);
	return 0;
}

static void service_init(struct loader *l, struct svc_service *s, const struct pair *sp)
{
	s->name = xstrdup(sp->name);
	s->loc = loc_of(l, sp->key);
	s->read_only = s->init = s->privileged = s->tty = s->stdin_open = SVC_UNSET;
}

static int load_service(struct loader *l, const struct pair *sp)
{
	struct svc_service *s = &l->p->services[l->p->n_services++];
	autopairs struct pairs ps = {0};
	te_autofree char *path = xasprintf("services.%s", sp->name);
	struct pair *env_file;

	service_init(l, s, sp);
	if (!valid_key(s->name))
		return node_err(l, sp->key, "invalid service name '%s': must match [a-zA-Z0-9._-]+", s->name);
	if (mapping_pairs(l, sp->val, path, &ps) < 0)
		return -1;
	for (size_t i = 0; i < ps.n; i++)
		if (service_field(l, s, &ps.v[i]) < 0)
			return -1;
	env_file = pairs_find(&ps, "env_file");
	if (env_file) {
		te_autofree char *epath = xasprintf("%s.env_file", path);

		return apply_env_files(l, s, env_file->val, epath);
	}
	return 0;
}

/* KEY is the "services" key: "no services" points there, not at a null. */
static int load_services(struct loader *l, const yaml_node_t *key, yaml_node_t *n)
{
	autopairs struct pairs ps = {0};

	if (is_null(n))
		return node_err(l, key, "no services defined");
	if (mapping_pairs(l, n, "services", &ps) < 0)
		return -1;
	l->p->services = xcalloc(ps.n + 1, sizeof(*l->p->services));
	for (size_t i = 0; i < ps.n; i++)
		if (!has_prefix(ps.v[i].name, "x-") && load_service(l, &ps.v[i]) < 0)
			return -1;
	return 0;
}

/* The fields volumes and networks share; NET is NULL for volumes. */
struct res_fields {
	char **name;
	char **driver;
	bool *external;
	struct svc_kv **labels;
	size_t *n_labels;
	struct svc_kv **driver_opts;
	size_t *n_driver_opts;
	struct svc_network *net;
};

/* external: true, or the legacy {name: X} form which also fixes the name. */
static int get_external(struct loader *l, yaml_node_t *n, const char *path, struct res_fields *f)
{
	autopairs struct pairs ps = {0};
	struct pair *name;

	if (n->type != YAML_MAPPING_NODE)
		return get_bool(l, n, path, f->external);
	if (collect(l, n, &ps, 0) < 0)
		return -1;
	*f->external = true;
	name = pairs_find(&ps, "name");
	if (name && !*f->name)
		return get_string(l, name->val, path, f->name);
	return 0;
}

static int ipam_pool(struct loader *l, struct svc_network *nw, yaml_node_t *n, const char *path)
{
	static const char *const keys[] = {"subnet", "ip_range", "gateway"};
	autopairs struct pairs pp = {0};
	struct svc_ipam_pool *pool;

	if (mapping_pairs(l, n, path, &pp) < 0)
		return -1;
	nw->ipam = xrealloc(nw->ipam, (nw->n_ipam + 1) * sizeof(*nw->ipam));
	pool = &nw->ipam[nw->n_ipam++];
	memset(pool, 0, sizeof(*pool));
	char **dst[] = {&pool->subnet, &pool->ip_range, &pool->gateway};
	for (size_t i = 0; i < 3; i++) {
		struct pair *pr = pairs_find(&pp, keys[i]);

		if (pr && get_string(l, pr->val, path, dst[i]) < 0)
			return -1;
	}
	return 0;
}

static int get_ipam(struct loader *l, struct svc_network *nw, yaml_node_t *n, const char *path)
{
	autopairs struct pairs pp = {0};
	struct pair *pr;

	if (is_null(n))
		return 0;
	if (mapping_pairs(l, n, path, &pp) < 0)
		return -1;
	pr = pairs_find(&pp, "driver");
	if (pr && get_string(l, pr->val, path, &nw->ipam_driver) < 0)
		return -1;
	pr = pairs_find(&pp, "config");
	if (!pr || is_null(pr->val))
		return 0;
	if (pr->val->type != YAML_SEQUENCE_NODE)
		return node_err(l, pr->val, "%s.config must be a list", path);
	for (yaml_node_item_t *it = pr->val->data.sequence.items.start; it < pr->val->data.sequence.items.top;
	     it++)
		if (ipam_pool(l, nw, node_at(l, *it), path) < 0)
			return -1;
	return 0;
}

static int network_field(struct loader *l, const struct pair *pr, const char *path, struct svc_network *nw)
{
	if (strcmp(pr->name, "internal") == 0)
		return get_bool(l, pr->val, path, &nw->internal);
	if (strcmp(pr->name, "attachable") == 0)
		return get_bool(l, pr->val, path, &nw->attachable);
	if (strcmp(pr->name, "enable_ipv6") == 0)
		return get_bool(l, pr->val, path, &nw->enable_ipv6);
	if (strcmp(pr->name, "ipam") == 0)
		return get_ipam(l, nw, pr->val, path);
	return 1;
}

static int resource_field(struct loader *l, const struct pair *pr, const char *parent, struct res_fields *f)
{
	te_autofree char *path = xasprintf("%s.%s", parent, pr->name);
	int rc;

	if (strcmp(pr->name, "name") == 0) {
		free(*f->name);
		return get_string(l, pr->val, path, f->name);
	}
	if (strcmp(pr->name, "driver") == 0)
		return get_string(l, pr->val, path, f->driver);
	if (strcmp(pr->name, "external") == 0)
		return get_external(l, pr->val, path, f);
	if (strcmp(pr->name, "labels") == 0)
		return get_kv(l, KV_LABEL, pr->val, path, f->labels, f->n_labels);
	if (strcmp(pr->name, "driver_opts") == 0)
		return get_kv(l, KV_LABEL, pr->val, path, f->driver_opts, f->n_driver_opts);
	if (has_prefix(pr->name, "x-"))
		return 0;
	rc = f->net ? network_field(l, pr, path, f->net) : 1;
	if (rc == 1)
		warn(l, pr->key, "unknown key %s, ignored", path);
	return rc < 0 ? -1 : 0;
}

/* One entry of top-level volumes or networks (KIND names which). */
static int load_resource(struct loader *l, const struct pair *rp, const char *kind, struct res_fields *f)
{
	autopairs struct pairs ps = {0};
	te_autofree char *path = xasprintf("%s.%s", kind, rp->name);

	if (!valid_key(rp->name))
		return node_err(l, rp->key, "invalid %.*s name '%s': must match [a-zA-Z0-9._-]+",
				(int)strlen(kind) - 1, kind, rp->name);
	if (is_null(rp->val))
		return 0;
	if (mapping_pairs(l, rp->val, path, &ps) < 0)
		return -1;
	for (size_t i = 0; i < ps.n; i++)
		if (resource_field(l, &ps.v[i], path, f) < 0)
			return -1;
	return 0;
}

static int load_volumes(struct loader *l, yaml_node_t *n)
{
	autopairs struct pairs ps = {0};

	if (is_null(n))
		return 0;
	if (mapping_pairs(l, n, "volumes", &ps) < 0)
		return -1;
	l->p->volumes = xcalloc(ps.n, sizeof(*l->p->volumes));
	for (size_t i = 0; i < ps.n; i++) {
		struct svc_volume *v = &l->p->volumes[l->p->n_volumes++];
		struct res_fields f = {&v->name,     &v->driver,      &v->external,	 &v->labels,
				       &v->n_labels, &v->driver_opts, &v->n_driver_opts, NULL};

		v->key = xstrdup(ps.v[i].name);
		v->loc = loc_of(l, ps.v[i].key);
		if (load_resource(l, &ps.v[i], "volumes", &f) < 0)
			return -1;
	}
	return 0;
}

static int load_networks(struct loader *l, yaml_node_t *n)
{
	autopairs struct pairs ps = {0};

	if (is_null(n))
		return 0;
	if (mapping_pairs(l, n, "networks", &ps) < 0)
		return -1;
	l->p->networks = xcalloc(ps.n, sizeof(*l->p->networks));
	for (size_t i = 0; i < ps.n; i++) {
		struct svc_network *v = &l->p->networks[l->p->n_networks++];
		struct res_fields f = {&v->name,     &v->driver,      &v->external,	 &v->labels,
				       &v->n_labels, &v->driver_opts, &v->n_driver_opts, v};

		v->key = xstrdup(ps.v[i].name);
		v->loc = loc_of(l, ps.v[i].key);
		if (load_resource(l, &ps.v[i], "networks", &f) < 0)
			return -1;
	}
	return 0;
}

/* x-taskenv: {allow: [NAME, ...]}: policy exceptions granted by the file. */
static int load_x_taskenv(struct loader *l, yaml_node_t *n)
{
	autopairs struct pairs pp = {0};
	struct pair *allow;

	if (is_null(n))
		return 0;
	if (mapping_pairs(l, n, "x-taskenv", &pp) < 0)
		return -1;
	for (size_t i = 0; i < pp.n; i++)
		if (strcmp(pp.v[i].name, "allow") != 0 && strcmp(pp.v[i].name, "resources") != 0)
			warn(l, pp.v[i].key, "unknown key x-taskenv.%s, ignored", pp.v[i].name);
	/* resources: the drivers' declarations (services/resources.c). */
	if (pairs_find(&pp, "resources") && svc_ld_taskenv(l, n) < 0)
		return -1;
	allow = pairs_find(&pp, "allow");
	if (!allow || is_null(allow->val))
		return 0;
	return get_strv_loose(l, allow->val, "x-taskenv.allow", &l->p->allow);
}

/* One top-level secrets:/configs: entry: file, environment, or (configs) content. */
static int decl_source(struct loader *l, struct svc_file_decl *d, const struct pairs *pp, const char *path,
		       bool config)
{
	struct pair *f = pairs_find(pp, "file"), *e = pairs_find(pp, "environment");
	struct pair *c = config ? pairs_find(pp, "content") : NULL;
	te_autofree char *file = NULL;
	const char *why = NULL;

	if ((f != NULL) + (e != NULL) + (c != NULL) != 1)
		return node_err(l,
				f   ? f->key
				: e ? e->key
				: c ? c->key
				    : pp->v[0].key,
				"%s: exactly one of file, environment%s is required", path,
				config ? ", content" : "");
	if (e) {
		d->kind = SVC_FILE_ENV;
		return get_string(l, e->val, path, &d->env);
	}
	if (c) {
		d->kind = SVC_FILE_CONTENT;
		return get_string(l, c->val, path, &d->content);
	}
	d->kind = SVC_FILE_FILE;
	if (get_string(l, f->val, path, &file) < 0)
		return -1;
	if (!file || !*file)
		return node_err(l, f->val, "%s.file must not be empty", path);
	d->file = bind_source(l->p->dir, file, &why);
	if (!d->file)
		return node_err(l, f->val, "%s.file: %s", path, why);
	return 0;
}

static int load_decl(struct loader *l, struct svc_file_decl *d, const struct pair *rp, const char *kind)
{
	static const char *const known[] = {"file", "environment", "content", "external", "name"};
	autopairs struct pairs pp = {0};
	te_autofree char *path = xasprintf("%s.%s", kind, rp->name);
	bool config = strcmp(kind, "configs") == 0;
	struct pair *ext;

	d->key = xstrdup(rp->name);
	d->loc = loc_of(l, rp->key);
	if (!valid_key(rp->name))
		return node_err(l, rp->key, "invalid %s name '%s'", kind, rp->name);
	if (mapping_pairs(l, rp->val, path, &pp) < 0)
		return -1;
	if (pp.n == 0)
		return node_err(l, rp->key, "%s: file or environment is required", path);
	for (size_t i = 0; i < pp.n; i++) {
		bool ok = has_prefix(pp.v[i].name, "x-");

		for (size_t k = 0; !ok && k < sizeof(known) / sizeof(known[0]); k++)
			ok = strcmp(known[k], pp.v[i].name) == 0;
		if (!ok || strcmp(pp.v[i].name, "name") == 0)
			warn(l, pp.v[i].key, "%s %s.%s, ignored", ok ? "unsupported key" : "unknown key",
			     path, pp.v[i].name);
	}
	ext = pairs_find(&pp, "external");
	if (ext && get_bool(l, ext->val, path, &d->external) < 0)
		return -1;
	if (d->external)
		return node_err(l, ext->key, "%s: external %s exist only in Swarm; taskenv cannot use them",
				path, kind);
	return decl_source(l, d, &pp, path, config);
}

static int load_decls(struct loader *l, yaml_node_t *n, const char *kind, struct svc_file_decl **out,
		      size_t *nout)
{
	autopairs struct pairs ps = {0};

	if (is_null(n))
		return 0;
	if (mapping_pairs(l, n, kind, &ps) < 0)
		return -1;
	*out = xcalloc(ps.n + 1, sizeof(**out));
	for (size_t i = 0; i < ps.n; i++) {
		if (has_prefix(ps.v[i].name, "x-"))
			continue;
		if (load_decl(l, &(*out)[(*nout)++], &ps.v[i], kind) < 0)
			return -1;
	}
	return 0;
}

/* version: is obsolete (Compose ignores it); name: is recorded only. */
static int load_name_version(struct loader *l, const struct pairs *top)
{
	struct pair *v = pairs_find(top, "version"), *n = pairs_find(top, "name");

	if (v) {
		free(l->p->version);
		if (get_string(l, v->val, "version", &l->p->version) < 0)
			return -1;
	}
	if (n) {
		free(l->p->name);
		if (get_string(l, n->val, "name", &l->p->name) < 0)
			return -1;
	}
	return 0;
}

static void warn_top(struct loader *l, const struct pairs *top)
{
	static const char *const known[] = {"services", "volumes",   "networks", "version",
					    "name",	"x-taskenv", "secrets",	 "configs"};
	static const char *const ignored[] = {"include", "models"};

	for (size_t i = 0; i < top->n; i++) {
		bool ok = has_prefix(top->v[i].name, "x-");

		if (strcmp(top->v[i].name, "version") == 0)
			warn(l, top->v[i].key,
			     "version is obsolete and ignored (the Compose Specification has none)");

		for (size_t k = 0; !ok && k < sizeof(known) / sizeof(known[0]); k++)
			ok = strcmp(known[k], top->v[i].name) == 0;
		for (size_t k = 0; !ok && k < sizeof(ignored) / sizeof(ignored[0]); k++)
			if (strcmp(ignored[k], top->v[i].name) == 0) {
				warn(l, top->v[i].key, "%s is not supported by taskenv, ignored",
				     top->v[i].name);
				ok = true;
			}
		if (!ok)
			warn(l, top->v[i].key, "unknown key %s, ignored", top->v[i].name);
	}
}

/* Volumes and networks first: services refer to them. Only the first
 * file must define services; later ones may override anything. */
static int load_root(struct loader *l, yaml_node_t *root)
{
	autopairs struct pairs top = {0};
	struct pair *services, *volumes, *networks, *xt;

	if (root->type != YAML_MAPPING_NODE && !is_null(root))
		return node_err(l, root, "the top level must be a mapping");
	if (is_null(root))
		return l->first ? node_err(l, root, "no services defined") : 0;
	if (collect(l, root, &top, 0) < 0)
		return -1;
	warn_top(l, &top);
	services = pairs_find(&top, "services");
	volumes = pairs_find(&top, "volumes");
	networks = pairs_find(&top, "networks");
	xt = pairs_find(&top, "x-taskenv");
	if (xt && load_x_taskenv(l, xt->val) < 0)
		return -1;
	if (load_name_version(l, &top) < 0)
		return -1;
	if (pairs_find(&top, "secrets") &&
	    load_decls(l, pairs_find(&top, "secrets")->val, "secrets", &l->p->secrets, &l->p->n_secrets) < 0)
		return -1;
	if (pairs_find(&top, "configs") &&
	    load_decls(l, pairs_find(&top, "configs")->val, "configs", &l->p->configs, &l->p->n_configs) < 0)
		return -1;
	if (volumes && load_volumes(l, volumes->val) < 0)
		return -1;
	if (networks && load_networks(l, networks->val) < 0)
		return -1;
	if (!services)
		return l->first ? node_err(l, root, "no services defined") : 0;
	if (load_services(l, services->key, services->val) < 0)
		return -1;
	if (l->first && l->p->n_services == 0)
		return node_err(l, services->key, "no services defined");
	return 0;
}

/* ---- for the x-taskenv parser (load_int.h) ---- */

int svc_ld_err(struct loader *l, const yaml_node_t *n, const char *fmt, ...)
{
	char msg[sizeof(l->err->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return node_err(l, n, "%s", msg);
}

struct svc_loc svc_ld_loc(const struct loader *l, const yaml_node_t *n)
{
	return loc_of(l, n);
}

struct svc_project *svc_ld_project(struct loader *l)
{
	return l->p;
}

int svc_ld_map(struct loader *l, yaml_node_t *n, const char *path, struct svc_ld_pair **out, size_t *nout)
{
	autopairs struct pairs ps = {0};

	*out = NULL;
	*nout = 0;
	if (mapping_pairs(l, n, path, &ps) < 0)
		return -1;
	*out = xcalloc(ps.n + 1, sizeof(**out));
	for (size_t i = 0; i < ps.n; i++)
		(*out)[i] = (struct svc_ld_pair){ps.v[i].name, ps.v[i].key, ps.v[i].val};
	*nout = ps.n;
	return 0;
}

int svc_ld_string(struct loader *l, yaml_node_t *n, const char *path, char **out)
{
	return get_string(l, n, path, out);
}

int svc_ld_strings(struct loader *l, yaml_node_t *n, const char *path, char ***out)
{
	if (n->type != YAML_SEQUENCE_NODE)
		return node_err(l, n, "%s must be a list", path);
	return get_string_list(l, n, path, out);
}

/* ---- files ---- */

static int yaml_error(const yaml_parser_t *ps, const char *file, struct te_err *err)
{
	const char *problem = ps->problem ? ps->problem : "invalid YAML";

	if (ps->error == YAML_READER_ERROR)
		return te_err_set(err, TE_E_COMPOSE, "%s: %s at byte %zu", file, problem, ps->problem_offset);
	if (ps->error == YAML_MEMORY_ERROR)
		return te_err_set(err, TE_E_COMPOSE, "%s: out of memory parsing YAML", file);
	return te_err_set(err, TE_E_COMPOSE, "%s:%zu:%zu: %s%s%s", file, ps->problem_mark.line + 1,
			  ps->problem_mark.column + 1, problem, ps->context ? " " : "",
			  ps->context ? ps->context : "");
}

/* One document per file: a second one would silently be ignored otherwise. */
static int parse_rest(yaml_parser_t *ps, const char *file, struct te_err *err)
{
	yaml_document_t extra;
	yaml_node_t *root;
	int rc = 0;

	if (!yaml_parser_load(ps, &extra))
		return yaml_error(ps, file, err);
	root = yaml_document_get_root_node(&extra);
	if (root)
		rc =
		    te_err_set(err, TE_E_COMPOSE, "%s:%zu:%zu: more than one YAML document in a compose file",
			       file, extra.start_mark.line + 1, extra.start_mark.column + 1);
	yaml_document_delete(&extra);
	return rc;
}

static int parse_file(const char *file, yaml_document_t *doc, struct te_err *err)
{
	FILE *f = fopen(file, "rb");
	yaml_parser_t ps;
	int rc = 0;

	if (!f)
		return te_err_set(err, TE_E_IO, "read '%s': %s", file, strerror(errno));
	if (!yaml_parser_initialize(&ps))
		TE_BUG("yaml_parser_initialize failed");
	yaml_parser_set_input_file(&ps, f);
	/* On failure yaml_parser_load has already deleted DOC. */
	if (!yaml_parser_load(&ps, doc)) {
		rc = yaml_error(&ps, file, err);
	} else if (parse_rest(&ps, file, err) < 0) {
		yaml_document_delete(doc);
		rc = -1;
	}
	yaml_parser_delete(&ps);
	fclose(f);
	return rc;
}

static int load_file(struct loader *l)
{
	yaml_document_t doc;
	te_autoyamldoc yaml_document_t *docp = NULL;
	yaml_node_t *root;

	if (parse_file(l->file, &doc, l->err) < 0)
		return -1;
	docp = &doc;
	l->doc = docp;
	root = yaml_document_get_root_node(docp);
	if (!root && !l->first)
		return 0;
	if (!root)
		return te_err_set(l->err, TE_E_COMPOSE, "%s:%zu:%zu: no services defined", l->file,
				  doc.start_mark.line + 1, doc.start_mark.column + 1);
	return load_root(l, root);
}

/* FILE made absolute and checked, appended to P's files; the first one
 * also sets the project directory. */
static int project_path(struct svc_project *p, const char *file, struct te_err *err)
{
	char *abs = realpath(file, NULL);
	struct stat st;
	char *slash;

	if (!abs)
		return te_err_set(err, TE_E_IO, "read '%s': %s", file, strerror(errno));
	p->files = te_strv_push(p->files, abs);
	if (stat(abs, &st) < 0 || !S_ISREG(st.st_mode))
		return te_err_set(err, TE_E_IO, "read '%s': not a regular file", file);
	if (p->dir)
		return 0;
	slash = strrchr(abs, '/');
	p->dir = slash == abs ? xstrdup("/") : xstrndup(abs, (size_t)(slash - abs));
	return 0;
}

/* Load file I of P into its own model, then merge it into P. */
static int load_one(struct svc_project *p, size_t i, struct svc_env *env, struct te_err *err)
{
	struct svc_project *part = xcalloc(1, sizeof(*part));
	struct loader l = {NULL, p->files[i], env, part, i == 0, err};
	int rc;

	part->dir = p->dir; /* borrowed: relative paths hang off the first file's directory */
	rc = load_file(&l);
	part->dir = NULL;
	if (rc == 0)
		svc_project_merge(p, part);
	svc_project_free(part);
	return rc;
}

struct svc_project *svc_load_profiles(char *const *files, char *const *profiles, struct te_err *err)
{
	struct svc_project *p;
	struct svc_env *env = NULL;
	te_autofree char *env_path = NULL;

	if (!files || !files[0]) {
		te_err_set(err, TE_E_USAGE, "no compose file given");
		return NULL;
	}
	p = xcalloc(1, sizeof(*p));
	for (size_t i = 0; files[i]; i++)
		if (project_path(p, files[i], err) < 0)
			goto fail;
	env_path = xasprintf("%s/.env", p->dir);
	env = svc_env_load(env_path, err);
	if (!env)
		goto fail;
	for (size_t i = 0; p->files[i]; i++)
		if (load_one(p, i, env, err) < 0)
			goto fail;
	if (svc_project_finalize(p, profiles, err) < 0)
		goto fail;
	svc_env_free(env);
	return p;
fail:
	svc_env_free(env);
	svc_project_free(p);
	return NULL;
}

struct svc_project *svc_load(char *const *files, struct te_err *err)
{
	te_autostrv char **profiles = NULL;
	const char *env = getenv("COMPOSE_PROFILES");

	if (env && *env) {
		te_autofree char *copy = xstrdup(env);
		char *save = NULL;

		for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
			profiles = te_strv_push(profiles, xstrdup(t));
	}
	return svc_load_profiles(files, profiles, err);
}

char *svc_find_compose_file(const char *dir, struct te_err *err)
{
	static const char *const names[] = {"compose.yaml", "compose.yml", "docker-compose.yaml",
					    "docker-compose.yml"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		te_autofree char *path = xasprintf("%s/%s", dir, names[i]);
		struct stat st;

		char *abs;

		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		abs = realpath(path, NULL);
		if (!abs)
			te_err_set(err, TE_E_IO, "read '%s': %s", path, strerror(errno));
		return abs;
	}
	te_err_set(err, TE_E_USAGE,
		   "no compose file in '%s' (looked for compose.yaml, compose.yml, "
		   "docker-compose.yaml, docker-compose.yml); pass -f FILE",
		   dir);
	return NULL;
}

/* ---- shell words ---- */

/* Inside double quotes a backslash escapes only these (POSIX 2.2.3). */
static bool dq_escapable(char c)
{
	return c == '$' || c == '`' || c == '"' || c == '\\' || c == '\n';
}

/* One quoted or escaped piece starting at S[*i]; appends to W. */
static const char *shell_piece(const char *s, size_t *i, struct te_buf *w)
{
	char q = s[*i];
	size_t j = *i + 1;

	if (q == '\\') {
		if (!s[j])
			return "trailing backslash";
		if (s[j] != '\n')
			te_buf_add(w, &s[j], 1);
		*i = j + 1;
		return NULL;
	}
	for (; s[j] && s[j] != q; j++) {
		if (q == '"' && s[j] == '\\' && dq_escapable(s[j + 1])) {
			j++;
			if (s[j] == '\n')
				continue;
		}
		te_buf_add(w, &s[j], 1);
	}
	if (!s[j])
		return q == '\'' ? "unterminated single quote" : "unterminated double quote";
	*i = j + 1;
	return NULL;
}

char **svc_shell_split(const char *s, struct te_err *err)
{
	te_autostrv char **argv = xcalloc(1, sizeof(*argv));
	te_autobuf struct te_buf w = TE_BUF_INIT(0);
	bool in_word = false;
	size_t i = 0;

	if (!s)
		s = "";
	while (s[i]) {
		const char *why;

		if (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') {
			if (in_word)
				argv = te_strv_push(argv, te_buf_detach(&w));
			in_word = false;
			i++;
			continue;
		}
		in_word = true;
		if (s[i] != '\'' && s[i] != '"' && s[i] != '\\') {
			te_buf_add(&w, &s[i++], 1);
			continue;
		}
		why = shell_piece(s, &i, &w);
		if (why) {
			te_err_set(err, TE_E_COMPOSE, "%s in \"%s\"", why, s);
			return NULL;
		}
	}
	if (in_word)
		argv = te_strv_push(argv, te_buf_detach(&w));
	return TE_STEAL(argv);
}
