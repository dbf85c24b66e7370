/* The top level's volumes, networks, secrets and configs of one file. */
#include "services/model/load_top.h"

#include "common/cleanup.h"
#include "common/err.h"
#include "common/mem.h"
#include "services/model/compose.h"
#include "services/model/load_service.h"
#include "services/model/yaml.h"

#include <stdlib.h>
#include <string.h>

/* ---- top-level volumes and networks ---- */

static const struct svc_yaml_key volume_keys[] = {
    SVC_KEY_LOAD("name"),   SVC_KEY_LOAD("driver"),	 SVC_KEY_LOAD("external"),
    SVC_KEY_LOAD("labels"), SVC_KEY_LOAD("driver_opts"), {NULL, 0, NULL},
};
static const struct svc_yaml_key network_keys[] = {
    SVC_KEY_LOAD("name"),
    SVC_KEY_LOAD("driver"),
    SVC_KEY_LOAD("external"),
    SVC_KEY_LOAD("labels"),
    SVC_KEY_LOAD("driver_opts"),
    SVC_KEY_LOAD("internal"),
    SVC_KEY_LOAD("attachable"),
    SVC_KEY_LOAD("enable_ipv6"),
    SVC_KEY_LOAD("ipam"),
    {"enable_ipv4", SVC_USE_REFUSE, NULL},
    {NULL, 0, NULL},
};
static const struct svc_yaml_key external_keys[] = {SVC_KEY_LOAD("name"), {NULL, 0, NULL}};
static const struct svc_yaml_key ipam_keys[] = {
    SVC_KEY_LOAD("driver"),
    SVC_KEY_LOAD("config"),
    {"options", SVC_USE_REFUSE, NULL},
    {NULL, 0, NULL},
};
static const struct svc_yaml_key pool_keys[] = {
    SVC_KEY_LOAD("subnet"),  SVC_KEY_LOAD("ip_range"),
    SVC_KEY_LOAD("gateway"), {"aux_addresses", SVC_USE_REFUSE, NULL},
    {NULL, 0, NULL},
};

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
static int get_external(struct svc_yaml *y, yaml_node_t *n, const char *path, struct res_fields *f)
{
	svc_automap struct svc_yaml_map ps = {0};
	struct svc_yaml_pair *name;

	if (n->type != YAML_MAPPING_NODE)
		return svc_yaml_bool(y, n, path, f->external);
	if (svc_yaml_map(y, n, path, &ps) < 0 || svc_yaml_check(y, &ps, path, external_keys, true) < 0)
		return -1;
	*f->external = true;
	name = svc_yaml_find(&ps, "name");
	if (name && !*f->name)
		return svc_yaml_string(y, name->val, path, f->name);
	return 0;
}

static int ipam_pool(struct svc_yaml *y, struct svc_network *nw, yaml_node_t *n, const char *path)
{
	static const char *const keys[] = {"subnet", "ip_range", "gateway"};
	svc_automap struct svc_yaml_map pp = {0};
	struct svc_ipam_pool *pool;

	if (svc_yaml_map(y, n, path, &pp) < 0 || svc_yaml_check(y, &pp, path, pool_keys, true) < 0)
		return -1;
	nw->ipam = xrealloc(nw->ipam, (nw->n_ipam + 1) * sizeof(*nw->ipam));
	pool = &nw->ipam[nw->n_ipam++];
	memset(pool, 0, sizeof(*pool));
	char **dst[] = {&pool->subnet, &pool->ip_range, &pool->gateway};
	for (size_t i = 0; i < 3; i++) {
		struct svc_yaml_pair *pr = svc_yaml_find(&pp, keys[i]);

		if (pr && svc_yaml_string(y, pr->val, path, dst[i]) < 0)
			return -1;
	}
	return 0;
}

static int get_ipam(struct svc_yaml *y, struct svc_network *nw, yaml_node_t *n, const char *path)
{
	svc_automap struct svc_yaml_map pp = {0};
	te_autofree char *cpath = xasprintf("%s.config", path);
	struct svc_yaml_pair *pr;

	if (svc_yaml_is_null(n))
		return 0;
	if (svc_yaml_map(y, n, path, &pp) < 0 || svc_yaml_check(y, &pp, path, ipam_keys, true) < 0)
		return -1;
	pr = svc_yaml_find(&pp, "driver");
	if (pr && svc_yaml_string(y, pr->val, path, &nw->ipam_driver) < 0)
		return -1;
	pr = svc_yaml_find(&pp, "config");
	if (!pr || svc_yaml_is_null(pr->val))
		return 0;
	if (pr->val->type != YAML_SEQUENCE_NODE)
		return svc_yaml_err(y, pr->val, "%s must be a list", cpath);
	for (size_t i = 0; i < svc_yaml_len(pr->val); i++)
		if (ipam_pool(y, nw, svc_yaml_item(y, pr->val, i), cpath) < 0)
			return -1;
	return 0;
}

static int network_field(struct svc_yaml *y, const struct svc_yaml_pair *pr, const char *path,
			 struct svc_network *nw)
{
	if (strcmp(pr->name, "internal") == 0)
		return svc_yaml_bool(y, pr->val, path, &nw->internal);
	if (strcmp(pr->name, "attachable") == 0)
		return svc_yaml_bool(y, pr->val, path, &nw->attachable);
	if (strcmp(pr->name, "enable_ipv6") == 0)
		return svc_yaml_bool(y, pr->val, path, &nw->enable_ipv6);
	if (strcmp(pr->name, "ipam") == 0)
		return get_ipam(y, nw, pr->val, path);
	return 0; /* x- */
}

static int resource_field(struct svc_yaml *y, const struct svc_yaml_pair *pr, const char *parent,
			  struct res_fields *f)
{
	te_autofree char *path = xasprintf("%s.%s", parent, pr->name);

	if (strcmp(pr->name, "name") == 0) {
		free(*f->name);
		return svc_yaml_string(y, pr->val, path, f->name);
	}
	if (strcmp(pr->name, "driver") == 0)
		return svc_yaml_string(y, pr->val, path, f->driver);
	if (strcmp(pr->name, "external") == 0)
		return get_external(y, pr->val, path, f);
	if (strcmp(pr->name, "labels") == 0)
		return svc_yaml_kv(y, SVC_KV_LABEL, pr->val, path, f->labels, f->n_labels);
	if (strcmp(pr->name, "driver_opts") == 0)
		return svc_yaml_kv(y, SVC_KV_LABEL, pr->val, path, f->driver_opts, f->n_driver_opts);
	return f->net ? network_field(y, pr, path, f->net) : 0;
}

/* One entry of top-level volumes or networks (KIND names which). */
static int load_resource(struct svc_yaml *y, const struct svc_yaml_pair *rp, const char *kind,
			 struct res_fields *f)
{
	svc_automap struct svc_yaml_map ps = {0};
	te_autofree char *path = xasprintf("%s.%s", kind, rp->name);

	if (!svc_valid_name(rp->name))
		return svc_yaml_err(y, rp->key, "invalid %.*s name '%s': must match [a-zA-Z0-9._-]+",
				    (int)strlen(kind) - 1, kind, rp->name);
	if (svc_yaml_is_null(rp->val))
		return 0;
	if (svc_yaml_map(y, rp->val, path, &ps) < 0 ||
	    svc_yaml_check(y, &ps, path, f->net ? network_keys : volume_keys, true) < 0)
		return -1;
	for (size_t i = 0; i < ps.n; i++)
		if (resource_field(y, &ps.v[i], path, f) < 0)
			return -1;
	return 0;
}

int svc_load_volumes(struct svc_yaml *y, struct svc_project *p, yaml_node_t *n)
{
	svc_automap struct svc_yaml_map ps = {0};

	if (svc_yaml_is_null(n))
		return 0;
	if (svc_yaml_map(y, n, "volumes", &ps) < 0)
		return -1;
	p->volumes = xcalloc(ps.n, sizeof(*p->volumes));
	for (size_t i = 0; i < ps.n; i++) {
		struct svc_volume *v = &p->volumes[p->n_volumes++];
		struct res_fields f = {&v->name,     &v->driver,      &v->external,	 &v->labels,
				       &v->n_labels, &v->driver_opts, &v->n_driver_opts, NULL};

		v->key = xstrdup(ps.v[i].name);
		v->loc = svc_yaml_loc(y, ps.v[i].key);
		if (load_resource(y, &ps.v[i], "volumes", &f) < 0)
			return -1;
	}
	return 0;
}

int svc_load_networks(struct svc_yaml *y, struct svc_project *p, yaml_node_t *n)
{
	svc_automap struct svc_yaml_map ps = {0};

	if (svc_yaml_is_null(n))
		return 0;
	if (svc_yaml_map(y, n, "networks", &ps) < 0)
		return -1;
	p->networks = xcalloc(ps.n, sizeof(*p->networks));
	for (size_t i = 0; i < ps.n; i++) {
		struct svc_network *v = &p->networks[p->n_networks++];
		struct res_fields f = {&v->name,     &v->driver,      &v->external,	 &v->labels,
				       &v->n_labels, &v->driver_opts, &v->n_driver_opts, v};

		v->key = xstrdup(ps.v[i].name);
		v->loc = svc_yaml_loc(y, ps.v[i].key);
		if (load_resource(y, &ps.v[i], "networks", &f) < 0)
			return -1;
	}
	return 0;
}

/* ---- top-level secrets and configs ---- */

/* name and labels name and tag the object in Swarm; outside it Compose does
 * nothing with them either. driver and template_driver (Swarm's secret
 * stores and templating) would change the file's content: refused. */
static const struct svc_yaml_key secret_keys[] = {
    SVC_KEY_LOAD("file"),
    SVC_KEY_LOAD("environment"),
    SVC_KEY_LOAD("external"),
    SVC_KEY_NOOP("name"),
    SVC_KEY_NOOP("labels"),
    {"driver", SVC_USE_REFUSE, NULL},
    {"driver_opts", SVC_USE_REFUSE, NULL},
    {"template_driver", SVC_USE_REFUSE, NULL},
    {NULL, 0, NULL},
};
static const struct svc_yaml_key config_keys[] = {
    SVC_KEY_LOAD("file"),
    SVC_KEY_LOAD("environment"),
    SVC_KEY_LOAD("content"),
    SVC_KEY_LOAD("external"),
    SVC_KEY_NOOP("name"),
    SVC_KEY_NOOP("labels"),
    {"template_driver", SVC_USE_REFUSE, NULL},
    {NULL, 0, NULL},
};

/* One top-level secrets:/configs: entry: file, environment, or (configs) content. */
static int decl_source(struct svc_yaml *y, struct svc_file_decl *d, const struct svc_yaml_map *pp,
		       const char *path, bool config)
{
	struct svc_yaml_pair *f = svc_yaml_find(pp, "file"), *e = svc_yaml_find(pp, "environment");
	struct svc_yaml_pair *c = config ? svc_yaml_find(pp, "content") : NULL;
	te_autofree char *file = NULL;
	const char *why = NULL;

	if ((f != NULL) + (e != NULL) + (c != NULL) != 1)
		return svc_yaml_err(y,
				    f	? f->key
				    : e ? e->key
				    : c ? c->key
					: pp->v[0].key,
				    "%s: exactly one of file, environment%s is required", path,
				    config ? ", content" : "");
	if (e) {
		d->kind = SVC_FILE_ENV;
		return svc_yaml_string(y, e->val, path, &d->env);
	}
	if (c) {
		d->kind = SVC_FILE_CONTENT;
		return svc_yaml_string(y, c->val, path, &d->content);
	}
	d->kind = SVC_FILE_FILE;
	if (svc_yaml_string(y, f->val, path, &file) < 0)
		return -1;
	if (!file || !*file)
		return svc_yaml_err(y, f->val, "%s.file must not be empty", path);
	d->file = svc_path_bind_source(y->dir, file, &why);
	if (!d->file)
		return svc_yaml_err(y, f->val, "%s.file: %s", path, why);
	return 0;
}

static int load_decl(struct svc_yaml *y, struct svc_file_decl *d, const struct svc_yaml_pair *rp,
		     const char *kind)
{
	svc_automap struct svc_yaml_map pp = {0};
	te_autofree char *path = xasprintf("%s.%s", kind, rp->name);
	bool config = strcmp(kind, "configs") == 0;
	struct svc_yaml_pair *ext;

	d->key = xstrdup(rp->name);
	d->loc = svc_yaml_loc(y, rp->key);
	if (!svc_valid_name(rp->name))
		return svc_yaml_err(y, rp->key, "invalid %s name '%s'", kind, rp->name);
	if (svc_yaml_map(y, rp->val, path, &pp) < 0 ||
	    svc_yaml_check(y, &pp, path, config ? config_keys : secret_keys, true) < 0)
		return -1;
	if (pp.n == 0)
		return svc_yaml_err(y, rp->key, "%s: file or environment is required", path);
	ext = svc_yaml_find(&pp, "external");
	if (ext && svc_yaml_bool(y, ext->val, path, &d->external) < 0)
		return -1;
	if (d->external)
		return svc_yaml_err(
		    y, ext->key, "%s: external %s exist only in Swarm; taskenv cannot use them", path, kind);
	return decl_source(y, d, &pp, path, config);
}

int svc_load_decls(struct svc_yaml *y, yaml_node_t *n, const char *kind, struct svc_file_decl **out,
		   size_t *nout)
{
	svc_automap struct svc_yaml_map ps = {0};

	if (svc_yaml_is_null(n))
		return 0;
	if (svc_yaml_map(y, n, kind, &ps) < 0)
		return -1;
	*out = xcalloc(ps.n + 1, sizeof(**out));
	for (size_t i = 0; i < ps.n; i++) {
		if (svc_has_prefix(ps.v[i].name, "x-"))
			continue;
		if (load_decl(y, &(*out)[(*nout)++], &ps.v[i], kind) < 0)
			return -1;
	}
	return 0;
}
