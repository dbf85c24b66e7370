/* ports: the short syntax "[IP:][HOST[-HOST]:]CONTAINER[-CONTAINER][/PROTO]"
 * and the long one; merged as a unique resource on {host ip, target,
 * published, protocol}. */
#define TE_WITH_CJSON
#include "services/model/kinds.h"
#include "services/model/plan.h"
#include "common/cleanup.h"
#include "common/mem.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Short syntax. Returns NULL, or why the spec is invalid (static string). */
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
static void add_ports(struct svc_yaml *y, struct svc_service *s, const struct port_spec *ps,
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
		p->loc = svc_yaml_loc(y, at);
	}
}

/* The long syntax. mode (host or ingress: both publish on the host outside
 * Swarm), name and app_protocol (descriptions) change nothing Compose does
 * outside Swarm either. */
static const struct svc_yaml_key port_keys[] = {
    SVC_KEY_LOAD("target"), SVC_KEY_LOAD("published"), SVC_KEY_LOAD("host_ip"),	     SVC_KEY_LOAD("protocol"),
    SVC_KEY_NOOP("mode"),   SVC_KEY_NOOP("name"),      SVC_KEY_NOOP("app_protocol"), {NULL, 0, NULL},
};

static int port_long(struct svc_yaml *y, yaml_node_t *n, const char *path, struct port_spec *ps,
		     const char **why)
{
	svc_automap struct svc_yaml_map pp = {0};
	char *v[4] = {NULL, NULL, NULL, NULL};
	int rc;

	if (svc_yaml_map(y, n, path, &pp) < 0 || svc_yaml_check(y, &pp, path, port_keys, true) < 0)
		return -1;
	rc = 0;
	for (size_t i = 0; i < 4 && rc == 0; i++) {
		struct svc_yaml_pair *pr = svc_yaml_find(&pp, port_keys[i].name);

		if (pr)
			rc = svc_yaml_string(y, pr->val, path, &v[i]);
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

static int one_port(struct svc_yaml *y, struct svc_service *s, yaml_node_t *item, const char *path)
{
	struct port_spec ps = {0};
	te_autofree char *spec = NULL;
	const char *why = NULL;
	int rc = 0;

	if (item->type == YAML_MAPPING_NODE) {
		rc = port_long(y, item, path, &ps, &why);
	} else if (item->type == YAML_SCALAR_NODE && !svc_yaml_is_null(item)) {
		rc = svc_yaml_interp(y, item, &spec);
		why = rc == 0 ? parse_port_spec(spec, &ps) : NULL;
	} else {
		rc = svc_yaml_err(y, item, "%s items must be strings or mappings", path);
	}
	if (rc == 0 && !why)
		why = check_ranges(&ps);
	if (rc == 0 && why)
		rc = svc_yaml_err(y, item, "%s: invalid port%s%s%s: %s", path, spec ? " '" : "",
				  spec ? spec : "", spec ? "'" : "", why);
	if (rc == 0)
		add_ports(y, s, &ps, item);
	free(ps.host_ip);
	return rc;
}

static int ports_load(struct svc_yaml *y, struct svc_service *s, const struct svc_key_desc *k, yaml_node_t *n,
		      const char *path)
{
	if (svc_yaml_is_null(n))
		return 0;
	if (n->type != YAML_SEQUENCE_NODE)
		return svc_yaml_err(y, n, "%s must be a list", path);
	for (size_t i = 0; i < svc_yaml_len(n); i++)
		if (one_port(y, s, svc_yaml_item(y, n, i), path) < 0)
			return -1;
	return 0;
}

static void ports_release(struct svc_service *s, const struct svc_key_desc *k)
{
	for (size_t i = 0; i < s->n_ports; i++)
		free(s->ports[i].host_ip);
	free(s->ports);
}

static bool ports_set(const struct svc_service *s, const struct svc_key_desc *k)
{
	return s->n_ports > 0;
}

/* The unique key of the merge document: {ip, target, published, protocol}. */
static bool same_port(const struct svc_port *a, const struct svc_port *b)
{
	return a->host_port == b->host_port && a->container_port == b->container_port &&
	       strcmp(a->proto, b->proto) == 0 &&
	       ((!a->host_ip && !b->host_ip) ||
		(a->host_ip && b->host_ip && strcmp(a->host_ip, b->host_ip) == 0));
}

static void ports_merge(struct svc_service *d, struct svc_service *s, const struct svc_key_desc *k)
{
	for (size_t i = 0; i < s->n_ports; i++) {
		size_t j = 0;

		while (j < d->n_ports && !same_port(&d->ports[j], &s->ports[i]))
			j++;
		if (j < d->n_ports) {
			free(d->ports[j].host_ip);
			d->ports[j] = s->ports[i];
			continue;
		}
		d->ports = xrealloc(d->ports, (d->n_ports + 1) * sizeof(*d->ports));
		d->ports[d->n_ports++] = s->ports[i];
	}
	free(s->ports);
	s->ports = NULL;
	s->n_ports = 0;
}

static void ports_emit(cJSON *o, const struct svc_key_desc *k, const struct svc_service *s,
		       const struct svc_plan_container *c)
{
	cJSON *a;

	if (!s->n_ports)
		return;
	a = cJSON_AddArrayToObject(o, k->name);
	for (size_t i = 0; i < s->n_ports; i++) {
		const struct svc_port *p = &s->ports[i];
		cJSON *e = cJSON_CreateObject();
		char hint[16];

		cJSON_AddStringToObject(e, "mode", "ingress");
		cJSON_AddStringToObject(e, "host_ip",
					p->host_ip && strncmp(p->host_ip, "127.", 4) != 0 ? p->host_ip
											  : SVC_HOST_IP);
		cJSON_AddNumberToObject(e, "target", p->container_port);
		/* The host port is allocated at `up`; the file's is only a hint. */
		if (p->host_port) {
			snprintf(hint, sizeof(hint), "%d", p->host_port);
			cJSON_AddStringToObject(e, "x-published-hint", hint);
		}
		cJSON_AddStringToObject(e, "protocol", p->proto);
		cJSON_AddItemToArray(a, e);
	}
}

const struct svc_kind_ops svc_kind_ports = {
    .load = ports_load,
    .release = ports_release,
    .is_set = ports_set,
    .merge = ports_merge,
    .rule = SVC_MERGE_UNIQUE,
    .emit = ports_emit,
};
