#define TE_WITH_YAML
#include "services/load.h"

#include "common/buf.h"
#include "common/cleanup.h"
#include "common/err.h"
#include "common/mem.h"
#include "services/compose.h"
#include "services/interp.h"
#include "services/load_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

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
	const struct pairs *services; /* the services mapping, for depends_on */
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

/* Mode options of the short syntax. Only ro/rw change the model; SELinux
 * relabelling, nocopy and consistency hints are accepted and ignored. */
static const char *parse_mode(const char *mode, bool *ro)
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
	const char *why = NULL;

	if (type_hint && strcmp(type_hint, "bind") != 0 && strcmp(type_hint, "volume") != 0)
		return "only volume and bind mounts are supported";
	if (!target || target[0] != '/')
		return "target must be an absolute path";
	if (source && !*source)
		return "source must not be empty";
	if (bind && !source)
		return "a bind mount needs a source";
	m->type = bind ? SVC_MOUNT_BIND : SVC_MOUNT_VOLUME;
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
		why = parse_mode(parts[2], &m->read_only);
	return why;
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
	*why = v0 ? fill_mount(l, m, v1, v2, v0) : "type is required (volume or bind)";
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
	if (rc == 0 && m.type == SVC_MOUNT_VOLUME && m.source && !svc_project_volume(l->p, m.source))
		rc = node_err(l, item, "service '%s' refers to undefined volume '%s'", s->name, m.source);
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

/* ---- the other service keys ---- */

static int f_image(struct loader *l, struct svc_service *s, yaml_node_t *n, const char *path)
{
	return get_string(l, n, path, &s->image);
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

static int f_working_dir(struct loader *l, struct svc_service *s, yaml_node_t *n, const char *path)
{
	return get_string(l, n, path, &s->working_dir);
}

static int f_user(struct loader *l, struct svc_service *s, yaml_node_t *n, const char *path)
{
	return get_string(l, n, path, &s->user);
}

static int f_container_name(struct loader *l, struct svc_service *s, yaml_node_t *n, const char *path)
{
	return get_string(l, n, path, &s->container_name);
}

static bool is_service(const struct loader *l, const char *name)
{
	return !has_prefix(name, "x-") && pairs_find(l->services, name);
}

static int f_depends_on(struct loader *l, struct svc_service *s, yaml_node_t *n, const char *path)
{
	te_autofree yaml_node_t **at = NULL;

	if (is_null(n))
		return 0;
	if (get_names(l, n, path, &s->depends_on, &at) < 0)
		return -1;
	for (size_t i = 0; s->depends_on[i]; i++) {
		if (strcmp(s->depends_on[i], s->name) == 0)
			return node_err(l, at[i], "service '%s' depends on itself", s->name);
		if (!is_service(l, s->depends_on[i]))
			return node_err(l, at[i], "service '%s' depends on undefined service '%s'", s->name,
					s->depends_on[i]);
	}
	return 0;
}

static int f_networks(struct loader *l, struct svc_service *s, yaml_node_t *n, const char *path)
{
	te_autofree yaml_node_t **at = NULL;

	if (is_null(n))
		return 0;
	if (get_names(l, n, path, &s->networks, &at) < 0)
		return -1;
	for (size_t i = 0; s->networks[i]; i++)
		if (strcmp(s->networks[i], "default") != 0 && !svc_project_network(l->p, s->networks[i]))
			return node_err(l, at[i], "service '%s' refers to undefined network '%s'", s->name,
					s->networks[i]);
	if (!s->networks[0]) {
		te_strv_free(s->networks);
		s->networks = NULL;
	}
	return 0;
}

struct field {
	const char *key;
	int (*fn)(struct loader *l, struct svc_service *s, yaml_node_t *n, const char *path);
};

static const struct field service_fields[] = {
    {"image", f_image},
    {"command", f_command},
    {"entrypoint", f_entrypoint},
    {"environment", f_environment},
    {"ports", f_ports},
    {"volumes", f_volumes},
    {"depends_on", f_depends_on},
    {"working_dir", f_working_dir},
    {"user", f_user},
    {"labels", f_labels},
    {"container_name", f_container_name},
    {"networks", f_networks},
};

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
	te_autofree char *path = NULL;

	if (strcmp(pr->name, "x-taskenv") == 0) {
		path = xasprintf("services.%s.x-taskenv", s->name);
		return svc_ld_service_taskenv(l, s, pr->val, path);
	}
	if (has_prefix(pr->name, "x-"))
		return 0;
	for (size_t i = 0; i < sizeof(service_fields) / sizeof(service_fields[0]); i++) {
		if (strcmp(service_fields[i].key, pr->name) != 0)
			continue;
		path = xasprintf("services.%s.%s", s->name, pr->name);
		return service_fields[i].fn(l, s, pr->val, path);
	}
	return 0;
}

static int load_service(struct loader *l, const struct pair *sp)
{
	struct svc_service *s = &l->p->services[l->p->n_services++];
	autopairs struct pairs ps = {0};
	te_autofree char *path = xasprintf("services.%s", sp->name);

	s->name = xstrdup(sp->name);
	s->loc = loc_of(l, sp->key);
	if (!valid_key(s->name))
		return node_err(l, sp->key, "invalid service name '%s': must match [a-zA-Z0-9._-]+", s->name);
	if (mapping_pairs(l, sp->val, path, &ps) < 0)
		return -1;
	for (size_t i = 0; i < ps.n; i++)
		if (service_field(l, s, &ps.v[i]) < 0)
			return -1;
	if (!s->image || !*s->image)
		return node_err(l, sp->key, "service '%s' has no image%s", s->name,
				pairs_find(&ps, "build") ? " (build: is not supported yet)" : "");
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
	l->services = &ps;
	l->p->services = xcalloc(ps.n, sizeof(*l->p->services));
	for (size_t i = 0; i < ps.n; i++)
		if (!has_prefix(ps.v[i].name, "x-") && load_service(l, &ps.v[i]) < 0)
			return -1;
	l->services = NULL;
	if (l->p->n_services == 0)
		return node_err(l, key, "no services defined");
	return 0;
}

/* The fields volumes and networks share; INTERNAL is NULL for volumes. */
struct res_fields {
	char **name;
	char **driver;
	bool *external;
	bool *internal;
	struct svc_kv **labels;
	size_t *n_labels;
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

static int resource_field(struct loader *l, const struct pair *pr, const char *parent, struct res_fields *f)
{
	te_autofree char *path = xasprintf("%s.%s", parent, pr->name);

	if (strcmp(pr->name, "name") == 0) {
		free(*f->name);
		return get_string(l, pr->val, path, f->name);
	}
	if (strcmp(pr->name, "driver") == 0)
		return get_string(l, pr->val, path, f->driver);
	if (strcmp(pr->name, "external") == 0)
		return get_external(l, pr->val, path, f);
	if (strcmp(pr->name, "internal") == 0 && f->internal)
		return get_bool(l, pr->val, path, f->internal);
	if (strcmp(pr->name, "labels") == 0)
		return get_kv(l, KV_LABEL, pr->val, path, f->labels, f->n_labels);
	return 0;
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
		struct res_fields f = {&v->name, &v->driver, &v->external, NULL, &v->labels, &v->n_labels};

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
		struct res_fields f = {&v->name,     &v->driver, &v->external,
				       &v->internal, &v->labels, &v->n_labels};

		v->key = xstrdup(ps.v[i].name);
		v->loc = loc_of(l, ps.v[i].key);
		if (load_resource(l, &ps.v[i], "networks", &f) < 0)
			return -1;
	}
	return 0;
}

/* Volumes and networks first: services refer to them. */
static int load_root(struct loader *l, yaml_node_t *root)
{
	autopairs struct pairs top = {0};
	struct pair *services, *volumes, *networks, *taskenv;

	if (root->type != YAML_MAPPING_NODE && !is_null(root))
		return node_err(l, root, "the top level must be a mapping");
	if (is_null(root))
		return node_err(l, root, "no services defined");
	if (collect(l, root, &top, 0) < 0)
		return -1;
	services = pairs_find(&top, "services");
	volumes = pairs_find(&top, "volumes");
	networks = pairs_find(&top, "networks");
	taskenv = pairs_find(&top, "x-taskenv");
	if (taskenv && svc_ld_taskenv(l, taskenv->val) < 0)
		return -1;
	if (volumes && load_volumes(l, volumes->val) < 0)
		return -1;
	if (networks && load_networks(l, networks->val) < 0)
		return -1;
	if (!services)
		return node_err(l, root, "no services defined");
	return load_services(l, services->key, services->val);
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
	if (!root)
		return te_err_set(l->err, TE_E_COMPOSE, "%s:%zu:%zu: no services defined", l->file,
				  doc.start_mark.line + 1, doc.start_mark.column + 1);
	return load_root(l, root);
}

/* files[0] made absolute and checked; fills P's files and dir. */
static int project_paths(struct svc_project *p, char *const *files, struct te_err *err)
{
	char *abs = realpath(files[0], NULL);
	struct stat st;
	char *slash;

	if (!abs)
		return te_err_set(err, TE_E_IO, "read '%s': %s", files[0], strerror(errno));
	p->files = te_strv_push(NULL, abs);
	if (stat(abs, &st) < 0 || !S_ISREG(st.st_mode))
		return te_err_set(err, TE_E_IO, "read '%s': not a regular file", files[0]);
	slash = strrchr(abs, '/');
	p->dir = slash == abs ? xstrdup("/") : xstrndup(abs, (size_t)(slash - abs));
	return 0;
}

struct svc_project *svc_load(char *const *files, struct te_err *err)
{
	struct svc_project *p;
	struct loader l = {0};
	te_autofree char *env_path = NULL;

	if (!files || !files[0]) {
		te_err_set(err, TE_E_USAGE, "no compose file given");
		return NULL;
	}
	if (files[1]) {
		te_err_set(err, TE_E_USAGE,
			   "several compose files ('%s', '%s', ...) cannot be merged yet; pass one -f FILE",
			   files[0], files[1]);
		return NULL;
	}
	p = xcalloc(1, sizeof(*p));
	if (project_paths(p, files, err) < 0)
		goto fail;
	env_path = xasprintf("%s/.env", p->dir);
	l = (struct loader){NULL, p->files[0], NULL, p, NULL, err};
	l.env = svc_env_load(env_path, err);
	if (!l.env || load_file(&l) < 0)
		goto fail;
	svc_env_free(l.env);
	return p;
fail:
	svc_env_free(l.env);
	svc_project_free(p);
	return NULL;
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
