/* x-taskenv: task-scoped server resources (top level) and what a service
 * gets injected from them (per service). Compose ignores x- keys, so the
 * file stays valid for docker compose. Shapes (README "Task-scoped
 * services"):
 *
 *   x-taskenv:
 *     resources:
 *       db: {driver: postgres, server: ${PG_ADMIN_URL}, isolation: schema}
 *       jobs: {driver: rabbitmq}          # no server: the ledger's shared container
 *   services:
 *     app:
 *       x-taskenv: {env: {DATABASE_URL: db.url}}
 *
 * Other keys directly under the top-level x-taskenv are left to other
 * features; keys inside a resource or a service's x-taskenv must be known. */
#include "services/model/load_int.h"
#include "drivers/driver.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/mem.h"

#include <stdlib.h>
#include <string.h>

static bool has_string(char *const *v, const char *x)
{
	for (size_t i = 0; v && v[i]; i++)
		if (strcmp(v[i], x) == 0)
			return true;
	return false;
}

static bool valid_resource_key(const char *k)
{
	size_t n = strlen(k);

	if (n < 1 || n > 30 || !(k[0] >= 'a' && k[0] <= 'z'))
		return false;
	return strspn(k, "abcdefghijklmnopqrstuvwxyz0123456789_") == n;
}

static int res_string(struct loader *l, struct svc_ld_pair *pr, const char *path, char **out)
{
	te_autofree char *p = xasprintf("%s.%s", path, pr->name);

	free(*out);
	*out = NULL;
	return svc_ld_string(l, pr->val, p, out);
}

/* template: {migrate: {service: S, command: [..]}, inputs: [paths]} */
static int res_build(struct loader *l, struct svc_resource *r, struct svc_ld_pair *pr, const char *path)
{
	te_autofree char *p = xasprintf("%s.template", path);
	te_autofree char *mp = xasprintf("%s.template.migrate", path);
	te_autofree struct svc_ld_pair *v = NULL;
	te_autofree struct svc_ld_pair *m = NULL;
	struct svc_tmpl_build *b = xcalloc(1, sizeof(*b));
	size_t n, nm = 0;

	r->build = b;
	b->loc = svc_ld_loc(l, pr->key);
	if (svc_ld_map(l, pr->val, p, &v, &n) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		te_autofree char *ip = xasprintf("%s.%s", p, v[i].name);

		if (strcmp(v[i].name, "inputs") == 0) {
			if (svc_ld_strings(l, v[i].val, ip, &b->inputs) < 0)
				return -1;
		} else if (strcmp(v[i].name, "migrate") == 0) {
			if (svc_ld_map(l, v[i].val, mp, &m, &nm) < 0)
				return -1;
		} else {
			return svc_ld_err(l, v[i].key, "%s: unknown key '%s' (known: migrate, inputs)", p,
					  v[i].name);
		}
	}
	for (size_t i = 0; i < nm; i++) {
		te_autofree char *ip = xasprintf("%s.%s", mp, m[i].name);

		if (strcmp(m[i].name, "service") == 0 && svc_ld_string(l, m[i].val, ip, &b->service) < 0)
			return -1;
		if (strcmp(m[i].name, "command") == 0 && svc_ld_strings(l, m[i].val, ip, &b->command) < 0)
			return -1;
		if (strcmp(m[i].name, "service") != 0 && strcmp(m[i].name, "command") != 0)
			return svc_ld_err(l, m[i].key, "%s: unknown key '%s' (known: service, command)", mp,
					  m[i].name);
	}
	if (!b->service || !*b->service)
		return svc_ld_err(l, pr->key, "%s: needs migrate: {service: SERVICE, command: [...]}", p);
	for (size_t i = 0; b->inputs && b->inputs[i]; i++)
		if (!*b->inputs[i] || b->inputs[i][0] == '/')
			return svc_ld_err(l, pr->val,
					  "%s.inputs: '%s' must be a path relative to the project directory",
					  p, b->inputs[i]);
	return 0;
}

static int res_field(struct loader *l, struct svc_resource *r, struct svc_ld_pair *pr, const char *path)
{
	te_autofree char *p = xasprintf("%s.%s", path, pr->name);

	if (strcmp(pr->name, "driver") == 0)
		return res_string(l, pr, path, &r->driver);
	if (strcmp(pr->name, "server") == 0)
		return res_string(l, pr, path, &r->server);
	if (strcmp(pr->name, "isolation") == 0)
		return res_string(l, pr, path, &r->isolation);
	if (strcmp(pr->name, "template") == 0 && pr->val->type == YAML_MAPPING_NODE)
		return res_build(l, r, pr, path);
	if (strcmp(pr->name, "template") == 0)
		return res_string(l, pr, path, &r->tmpl);
	if (strcmp(pr->name, "container_host") == 0)
		return res_string(l, pr, path, &r->container_host);
	if (strcmp(pr->name, "image") == 0)
		return res_string(l, pr, path, &r->image);
	if (strcmp(pr->name, "amqp_port") == 0)
		return res_string(l, pr, path, &r->amqp_port);
	if (strcmp(pr->name, "buckets") == 0)
		return svc_ld_strings(l, pr->val, p, &r->buckets);
	return svc_ld_err(l, pr->key,
			  "%s: unknown key '%s' (known: driver, server, isolation, template, "
			  "container_host, image, amqp_port, buckets)",
			  path, pr->name);
}

static bool valid_port(const char *s)
{
	size_t n = strlen(s);
	long v = n >= 1 && n <= 5 && strspn(s, "0123456789") == n ? strtol(s, NULL, 10) : 0;

	return v >= 1 && v <= 65535;
}

/* amqp_port: the host-side AMQP port of a server: URL whose AMQP listener
 * is remapped (a RabbitMQ in a container); the shared server fills it in. */
static int res_check_amqp_port(struct loader *l, const struct svc_resource *r, yaml_node_t *at,
			       const char *path)
{
	if (!r->amqp_port)
		return 0;
	if (strcmp(r->driver, "rabbitmq") != 0)
		return svc_ld_err(l, at, "%s: amqp_port is for the rabbitmq driver", path);
	if (!r->server)
		return svc_ld_err(l, at, "%s: amqp_port goes with server: (the shared server sets its own)",
				  path);
	if (!valid_port(r->amqp_port))
		return svc_ld_err(l, at, "%s: amqp_port must be a port number (1-65535), not '%s'", path,
				  r->amqp_port);
	return 0;
}

static int res_check(struct loader *l, struct svc_resource *r, yaml_node_t *at, const char *path)
{
	if (!r->driver)
		return svc_ld_err(l, at, "%s: no driver (one of: %s)", path, drv_names());
	if (!drv_find(r->driver))
		return svc_ld_err(l, at, "%s: unknown driver '%s' (this build has: %s)", path, r->driver,
				  drv_names());
	if (res_check_amqp_port(l, r, at, path) < 0)
		return -1;
	if (r->server && r->image)
		return svc_ld_err(l, at,
				  "%s: image is for the shared server container, used without server:", path);
	if (r->server && !*r->server)
		return svc_ld_err(l, at, "%s: server is empty: is the variable it names set?", path);
	if (r->isolation && strcmp(r->isolation, "schema") != 0 && strcmp(r->isolation, "database") != 0)
		return svc_ld_err(l, at, "%s: isolation must be 'schema' or 'database', not '%s'", path,
				  r->isolation);
	if (strcmp(r->driver, "s3") == 0 && (!r->buckets || !r->buckets[0]))
		return svc_ld_err(l, at, "%s: the s3 driver needs buckets: [name, ...]", path);
	for (size_t i = 0; r->buckets && r->buckets[i]; i++)
		if (has_string(r->buckets + i + 1, r->buckets[i]))
			return svc_ld_err(l, at, "%s: bucket '%s' is listed twice", path, r->buckets[i]);
	for (size_t i = 0; r->buckets && r->buckets[i]; i++)
		if (!valid_resource_key(r->buckets[i]))
			return svc_ld_err(l, at,
					  "%s: invalid bucket name '%s': must match [a-z][a-z0-9_]{0,29}",
					  path, r->buckets[i]);
	if ((r->tmpl || r->build) && (!r->isolation || strcmp(r->isolation, "database") != 0))
		return svc_ld_err(l, at, "%s: template needs isolation: database", path);
	if ((r->tmpl || r->build) && strcmp(r->driver, "postgres") != 0)
		return svc_ld_err(l, at, "%s: template is for the postgres driver", path);
	return 0;
}

static int load_resource(struct loader *l, struct svc_ld_pair *rp)
{
	struct svc_project *p = svc_ld_project(l);
	struct svc_resource *r = &p->resources[p->n_resources++];
	te_autofree char *path = xasprintf("x-taskenv.resources.%s", rp->name);
	te_autofree struct svc_ld_pair *v = NULL;
	size_t n;

	r->key = xstrdup(rp->name);
	r->loc = svc_ld_loc(l, rp->key);
	if (!valid_resource_key(r->key))
		return svc_ld_err(l, rp->key, "invalid resource key '%s': must match [a-z][a-z0-9_]{0,29}",
				  r->key);
	if (svc_ld_map(l, rp->val, path, &v, &n) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (res_field(l, r, &v[i], path) < 0)
			return -1;
	return res_check(l, r, rp->key, path);
}

int svc_ld_taskenv(struct loader *l, yaml_node_t *n)
{
	struct svc_project *p = svc_ld_project(l);
	te_autofree struct svc_ld_pair *top = NULL;
	te_autofree struct svc_ld_pair *res = NULL;
	size_t ntop, nres;

	if (svc_ld_map(l, n, "x-taskenv", &top, &ntop) < 0)
		return -1;
	for (size_t i = 0; i < ntop; i++) {
		if (strcmp(top[i].name, "resources") != 0)
			continue;
		if (svc_ld_map(l, top[i].val, "x-taskenv.resources", &res, &nres) < 0)
			return -1;
		p->resources = xcalloc(nres + 1, sizeof(*p->resources));
		for (size_t j = 0; j < nres; j++)
			if (load_resource(l, &res[j]) < 0)
				return -1;
	}
	return 0;
}

/* FIELD is one the resource's driver describes (checked here, not at `up`,
 * so `check` and `config` catch it and a failing `up` creates nothing). */
static bool known_field(const struct svc_resource *r, const char *field)
{
	const struct drv_ops *ops = drv_find(r->driver);

	if (!ops) /* not reached: res_check refuses an unknown driver */
		return true;
	if (has_string((char *const *)ops->fields, field))
		return true;
	return strcmp(r->driver, "s3") == 0 && strncmp(field, "bucket_", 7) == 0 &&
	       has_string(r->buckets, field + 7);
}

/* The fields of R's driver, for a message. Owned. */
static char *field_list(const struct svc_resource *r)
{
	const char *const *f = drv_find(r->driver)->fields;
	te_autobuf struct te_buf b = TE_BUF_INIT(1024);

	for (size_t i = 0; f[i]; i++)
		te_buf_addf(&b, "%s%s", i ? ", " : "", f[i]);
	if (strcmp(r->driver, "s3") == 0)
		te_buf_adds(&b, ", bucket_<name> for each of its buckets");
	return te_buf_detach(&b);
}

/* "<resource key>.<field>" naming a declared resource and a field of its driver. */
static int check_ref(struct loader *l, yaml_node_t *at, const char *path, const char *ref)
{
	const char *dot = strchr(ref, '.');
	te_autofree char *key = dot ? xstrndup(ref, (size_t)(dot - ref)) : NULL;
	const struct svc_resource *r = key ? svc_project_resource(svc_ld_project(l), key) : NULL;
	te_autofree char *list = NULL;

	if (!dot)
		return svc_ld_err(l, at, "%s: '%s' is not <resource>.<field>", path, ref);
	if (!r)
		return svc_ld_err(l, at, "%s: no resource '%s' under x-taskenv.resources", path, key);
	if (known_field(r, dot + 1))
		return 0;
	list = field_list(r);
	return svc_ld_err(l, at, "%s: resource '%s' (driver %s) has no field '%s' (it has: %s)", path, key,
			  r->driver, dot + 1, list);
}

static int load_inject(struct loader *l, struct svc_service *s, yaml_node_t *n, const char *path)
{
	te_autofree struct svc_ld_pair *v = NULL;
	size_t nv;

	if (svc_ld_map(l, n, path, &v, &nv) < 0)
		return -1;
	s->inject = xcalloc(nv + 1, sizeof(*s->inject));
	for (size_t i = 0; i < nv; i++) {
		char *ref = NULL;

		if (svc_ld_string(l, v[i].val, path, &ref) < 0)
			return -1;
		s->inject[s->n_inject++] = (struct svc_kv){xstrdup(v[i].name), ref, svc_ld_loc(l, v[i].key)};
		if (!ref || check_ref(l, v[i].val, path, ref) < 0)
			return ref ? -1
				   : svc_ld_err(l, v[i].val, "%s.%s: needs <resource>.<field>", path,
						v[i].name);
	}
	return 0;
}

int svc_ld_service_taskenv(struct loader *l, struct svc_service *s, yaml_node_t *n, const char *path)
{
	te_autofree struct svc_ld_pair *v = NULL;
	size_t nv;

	if (svc_ld_map(l, n, path, &v, &nv) < 0)
		return -1;
	for (size_t i = 0; i < nv; i++) {
		te_autofree char *p = xasprintf("%s.%s", path, v[i].name);

		if (strcmp(v[i].name, "env") != 0)
			return svc_ld_err(l, v[i].key, "%s: unknown key '%s' (known: env)", path, v[i].name);
		if (load_inject(l, s, v[i].val, p) < 0)
			return -1;
	}
	return 0;
}
