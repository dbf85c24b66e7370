/* x-taskenv: task-scoped server resources (top level) and what a service
 * gets injected from them (per service). Compose ignores x- keys, so the
 * file stays valid for docker compose. Shapes (docs/drivers.md "Task-scoped
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
 * The top-level x-taskenv's own keys are checked by the loader (load.c);
 * keys inside a resource or a service's x-taskenv must be known. */
#include "services/model/resources.h"
#include "services/model/compose.h"
#include "services/model/yaml.h"
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

static int res_string(struct svc_yaml *y, struct svc_yaml_pair *pr, const char *path, char **out)
{
	te_autofree char *p = xasprintf("%s.%s", path, pr->name);

	free(*out);
	*out = NULL;
	return svc_yaml_string(y, pr->val, p, out);
}

static const struct svc_yaml_key resource_keys[] = {
    SVC_KEY_LOAD("driver"),    SVC_KEY_LOAD("server"),	       SVC_KEY_LOAD("isolation"),
    SVC_KEY_LOAD("template"),  SVC_KEY_LOAD("container_host"), SVC_KEY_LOAD("image"),
    SVC_KEY_LOAD("amqp_port"), SVC_KEY_LOAD("buckets"),	       {NULL, 0, NULL},
};
static const struct svc_yaml_key service_keys[] = {
    SVC_KEY_LOAD("env"), SVC_KEY_LOAD("engine"), {NULL, 0, NULL}};
static const struct svc_yaml_key template_keys[] = {
    SVC_KEY_LOAD("migrate"), SVC_KEY_LOAD("inputs"), {NULL, 0, NULL}};
static const struct svc_yaml_key migrate_keys[] = {
    SVC_KEY_LOAD("service"), SVC_KEY_LOAD("command"), {NULL, 0, NULL}};

/* template: {migrate: {service: S, command: [..]}, inputs: [paths]} */
static int res_build(struct svc_yaml *y, struct svc_resource *r, struct svc_yaml_pair *pr, const char *path)
{
	te_autofree char *p = xasprintf("%s.template", path);
	te_autofree char *mp = xasprintf("%s.migrate", p);
	te_autofree char *ip = xasprintf("%s.inputs", p);
	te_autofree char *sp = xasprintf("%s.service", mp);
	te_autofree char *cp = xasprintf("%s.command", mp);
	svc_automap struct svc_yaml_map v = {0};
	svc_automap struct svc_yaml_map m = {0};
	struct svc_yaml_pair *mig, *in, *svc, *cmd;
	struct svc_tmpl_build *b = xcalloc(1, sizeof(*b));

	r->build = b;
	b->loc = svc_yaml_loc(y, pr->key);
	if (svc_yaml_map(y, pr->val, p, &v) < 0 || svc_yaml_check(y, &v, p, template_keys, false) < 0)
		return -1;
	mig = svc_yaml_find(&v, "migrate");
	in = svc_yaml_find(&v, "inputs");
	if (in && svc_yaml_list(y, in->val, ip, &b->inputs) < 0)
		return -1;
	if (!mig)
		return svc_yaml_err(y, pr->key, "%s: needs migrate: {service: SERVICE, command: [...]}", p);
	if (svc_yaml_map(y, mig->val, mp, &m) < 0 || svc_yaml_check(y, &m, mp, migrate_keys, false) < 0)
		return -1;
	svc = svc_yaml_find(&m, "service");
	cmd = svc_yaml_find(&m, "command");
	if ((svc && svc_yaml_string(y, svc->val, sp, &b->service) < 0) ||
	    (cmd && svc_yaml_argv(y, cmd->val, cp, &b->command) < 0))
		return -1;
	if (!b->service || !*b->service)
		return svc_yaml_err(y, mig->key, "%s: needs service: SERVICE", mp);
	for (size_t i = 0; b->inputs && b->inputs[i]; i++)
		if (!*b->inputs[i] || b->inputs[i][0] == '/')
			return svc_yaml_err(y, in->val,
					    "%s: '%s' must be a path relative to the project directory", ip,
					    b->inputs[i]);
	return 0;
}

static int res_field(struct svc_yaml *y, struct svc_resource *r, struct svc_yaml_pair *pr, const char *path)
{
	te_autofree char *p = xasprintf("%s.%s", path, pr->name);

	if (strcmp(pr->name, "driver") == 0)
		return res_string(y, pr, path, &r->driver);
	if (strcmp(pr->name, "server") == 0) {
		r->server_loc = svc_yaml_loc(y, pr->key);
		return res_string(y, pr, path, &r->server);
	}
	if (strcmp(pr->name, "isolation") == 0)
		return res_string(y, pr, path, &r->isolation);
	if (strcmp(pr->name, "template") == 0 && pr->val->type == YAML_MAPPING_NODE)
		return res_build(y, r, pr, path);
	if (strcmp(pr->name, "template") == 0) {
		r->tmpl_loc = svc_yaml_loc(y, pr->key);
		return res_string(y, pr, path, &r->tmpl);
	}
	if (strcmp(pr->name, "container_host") == 0)
		return res_string(y, pr, path, &r->container_host);
	/* The server container's image is the trusted side's to pick: a file
	 * that chose it would run its own code as every task's server. */
	if (strcmp(pr->name, "image") == 0)
		return svc_yaml_refuse(
		    y, pr->key,
		    "%s.image: the server container's image comes from taskenv or the "
		    "trusted config (shared_images.%s in the user config file), never from "
		    "the Compose file",
		    path, r->driver ? r->driver : "<driver>");
	if (strcmp(pr->name, "amqp_port") == 0)
		return res_string(y, pr, path, &r->amqp_port);
	return svc_yaml_list(y, pr->val, p, &r->buckets); /* buckets: the last resource_keys */
}

static bool valid_port(const char *s)
{
	size_t n = strlen(s);
	long v = n >= 1 && n <= 5 && strspn(s, "0123456789") == n ? strtol(s, NULL, 10) : 0;

	return v >= 1 && v <= 65535;
}

/* The drivers that read KEY, for a message ("rabbitmq"). Owned. */
static char *drivers_with_key(const char *key)
{
	te_autobuf struct te_buf b = TE_BUF_INIT(256);

	for (size_t i = 0; i < DRV_COUNT; i++)
		if (has_string((char *const *)drv_at(i)->keys, key))
			te_buf_addf(&b, "%s%s", b.len ? ", " : "", drv_at(i)->name);
	return te_buf_detach(&b);
}

/* A driver-specific key is set only for a driver that reads it
 * (drv_ops.keys): one that would be ignored is refused. */
static int res_check_keys(struct svc_yaml *y, const struct svc_resource *r, yaml_node_t *at, const char *path)
{
	const struct drv_ops *ops = drv_find(r->driver);
	static const char *const names[] = {"isolation", "template", "amqp_port", "buckets"};
	const bool set[] = {r->isolation, r->tmpl || r->build, r->amqp_port, r->buckets};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		te_autofree char *who = NULL;

		if (!set[i] || has_string((char *const *)ops->keys, names[i]))
			continue;
		who = drivers_with_key(names[i]);
		return svc_yaml_err(y, at, "%s: %s is not a key of the %s driver (it is for: %s)", path,
				    names[i], r->driver, who);
	}
	return 0;
}

/* amqp_port: the host-side AMQP port of a server: URL whose AMQP listener
 * is remapped (a RabbitMQ in a container); the shared server fills it in. */
static int res_check_amqp_port(struct svc_yaml *y, const struct svc_resource *r, yaml_node_t *at,
			       const char *path)
{
	if (!r->amqp_port)
		return 0;
	if (!r->server)
		return svc_yaml_err(y, at, "%s: amqp_port goes with server: (the shared server sets its own)",
				    path);
	if (!valid_port(r->amqp_port))
		return svc_yaml_err(y, at, "%s: amqp_port must be a port number (1-65535), not '%s'", path,
				    r->amqp_port);
	return 0;
}

static int res_check(struct svc_yaml *y, struct svc_resource *r, yaml_node_t *at, const char *path)
{
	if (!r->driver)
		return svc_yaml_err(y, at, "%s: no driver (one of: %s)", path, drv_names());
	if (!drv_find(r->driver))
		return svc_yaml_err(y, at, "%s: unknown driver '%s' (this build has: %s)", path, r->driver,
				    drv_names());
	if (res_check_keys(y, r, at, path) < 0 || res_check_amqp_port(y, r, at, path) < 0)
		return -1;
	if (r->server && !*r->server)
		return svc_yaml_err(y, at, "%s: server is empty: is the variable it names set?", path);
	if (r->isolation && strcmp(r->isolation, "schema") != 0 && strcmp(r->isolation, "database") != 0)
		return svc_yaml_err(y, at, "%s: isolation must be 'schema' or 'database', not '%s'", path,
				    r->isolation);
	if (drv_find(r->driver)->buckets && (!r->buckets || !r->buckets[0]))
		return svc_yaml_err(y, at, "%s: the %s driver needs buckets: [name, ...]", path, r->driver);
	for (size_t i = 0; r->buckets && r->buckets[i]; i++)
		if (has_string(r->buckets + i + 1, r->buckets[i]))
			return svc_yaml_err(y, at, "%s: bucket '%s' is listed twice", path, r->buckets[i]);
	for (size_t i = 0; r->buckets && r->buckets[i]; i++)
		if (!valid_resource_key(r->buckets[i]))
			return svc_yaml_err(y, at,
					    "%s: invalid bucket name '%s': must match [a-z][a-z0-9_]{0,29}",
					    path, r->buckets[i]);
	if ((r->tmpl || r->build) && (!r->isolation || strcmp(r->isolation, "database") != 0))
		return svc_yaml_err(y, at, "%s: template needs isolation: database", path);
	return 0;
}

static int load_resource(struct svc_yaml *y, struct svc_project *p, struct svc_yaml_pair *rp)
{
	struct svc_resource *r = &p->resources[p->n_resources++];
	te_autofree char *path = xasprintf("x-taskenv.resources.%s", rp->name);
	svc_automap struct svc_yaml_map v = {0};

	r->key = xstrdup(rp->name);
	r->loc = svc_yaml_loc(y, rp->key);
	if (!valid_resource_key(r->key))
		return svc_yaml_err(y, rp->key, "invalid resource key '%s': must match [a-z][a-z0-9_]{0,29}",
				    r->key);
	if (svc_yaml_map(y, rp->val, path, &v) < 0 || svc_yaml_check(y, &v, path, resource_keys, false) < 0)
		return -1;
	for (size_t i = 0; i < v.n; i++)
		if (res_field(y, r, &v.v[i], path) < 0)
			return -1;
	return res_check(y, r, rp->key, path);
}

int svc_resources_load(struct svc_yaml *y, struct svc_project *p, yaml_node_t *n)
{
	svc_automap struct svc_yaml_map res = {0};

	if (svc_yaml_map(y, n, "x-taskenv.resources", &res) < 0)
		return -1;
	p->resources = xcalloc(res.n + 1, sizeof(*p->resources));
	for (size_t j = 0; j < res.n; j++)
		if (load_resource(y, p, &res.v[j]) < 0)
			return -1;
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
	return ops->buckets && strncmp(field, "bucket_", 7) == 0 && has_string(r->buckets, field + 7);
}

/* The fields of R's driver, for a message. Owned. */
static char *field_list(const struct svc_resource *r)
{
	const struct drv_ops *ops = drv_find(r->driver);
	te_autobuf struct te_buf b = TE_BUF_INIT(1024);

	for (size_t i = 0; ops->fields[i]; i++)
		te_buf_addf(&b, "%s%s", i ? ", " : "", ops->fields[i]);
	if (ops->buckets)
		te_buf_adds(&b, ", bucket_<name> for each of its buckets");
	return te_buf_detach(&b);
}

int svc_resources_check_inject(const struct svc_project *p, const struct svc_service *s, struct te_err *err)
{
	for (size_t i = 0; i < s->n_inject; i++) {
		const struct svc_kv *kv = &s->inject[i];
		const char *dot = strchr(kv->value, '.');
		te_autofree char *key = xstrndup(kv->value, (size_t)(dot - kv->value));
		const struct svc_resource *r = svc_project_resource(p, key);
		te_autofree char *list = NULL;

		if (!r)
			return te_err_set(err, TE_E_COMPOSE,
					  "%s:%d:%d: services.%s.x-taskenv.env: no resource '%s' under "
					  "x-taskenv.resources",
					  kv->loc.file, kv->loc.line, kv->loc.col, s->name, key);
		if (known_field(r, dot + 1))
			continue;
		list = field_list(r);
		return te_err_set(
		    err, TE_E_COMPOSE,
		    "%s:%d:%d: services.%s.x-taskenv.env: resource '%s' (driver %s) has no field "
		    "'%s' (it has: %s)",
		    kv->loc.file, kv->loc.line, kv->loc.col, s->name, key, r->driver, dot + 1, list);
	}
	return 0;
}

static int load_inject(struct svc_yaml *y, const struct svc_project *p, struct svc_service *s, yaml_node_t *n,
		       const char *path)
{
	svc_automap struct svc_yaml_map v = {0};

	if (svc_yaml_map(y, n, path, &v) < 0)
		return -1;
	s->inject = xcalloc(v.n + 1, sizeof(*s->inject));
	for (size_t i = 0; i < v.n; i++) {
		char *ref = NULL;

		if (svc_yaml_string(y, v.v[i].val, path, &ref) < 0)
			return -1;
		/* The value's place: what is wrong in it is said there. The
		 * resource it names may come from another of the merged files:
		 * svc_resources_check_inject checks it once they are merged. */
		s->inject[s->n_inject++] =
		    (struct svc_kv){xstrdup(v.v[i].name), ref, svc_yaml_loc(y, v.v[i].val)};
		if (!ref)
			return svc_yaml_err(y, v.v[i].val, "%s.%s: needs <resource>.<field>", path,
					    v.v[i].name);
		if (!strchr(ref, '.'))
			return svc_yaml_err(y, v.v[i].val, "%s: '%s' is not <resource>.<field>", path, ref);
	}
	return 0;
}

/* engine: broker (the task's Engine API broker mounted, DOCKER_HOST set)
 * or none (the default, so a later file can take it back). */
static int load_engine(struct svc_yaml *y, struct svc_service *s, yaml_node_t *n, const char *path)
{
	te_autofree char *v = NULL;

	if (svc_yaml_string(y, n, path, &v) < 0)
		return -1;
	if (!v || (strcmp(v, "broker") != 0 && strcmp(v, "none") != 0))
		return svc_yaml_err(y, n, "%s: '%s' is not an engine access taskenv gives (broker, none)",
				    path, v ? v : "");
	s->engine_broker = strcmp(v, "broker") == 0;
	s->engine_loc = svc_yaml_loc(y, n);
	return 0;
}

int svc_resources_load_service(struct svc_yaml *y, const struct svc_project *p, struct svc_service *s,
			       yaml_node_t *n, const char *path)
{
	svc_automap struct svc_yaml_map v = {0};

	if (svc_yaml_map(y, n, path, &v) < 0 || svc_yaml_check(y, &v, path, service_keys, false) < 0)
		return -1;
	for (size_t i = 0; i < v.n; i++) {
		te_autofree char *sub = xasprintf("%s.%s", path, v.v[i].name);

		if (strcmp(v.v[i].name, "engine") == 0) {
			if (load_engine(y, s, v.v[i].val, sub) < 0)
				return -1;
		} else if (load_inject(y, p, s, v.v[i].val, sub) < 0) {
			return -1;
		}
	}
	return 0;
}
