/* Loading Compose files: each file parsed with libyaml and read into its
 * own model (the top level here, services by load_service.c, their keys by
 * the key table), then merged into the project (merge.c). */
#define TE_WITH_YAML
#include "services/model/load.h"

#include "common/cleanup.h"
#include "common/err.h"
#include "common/mem.h"
#include "services/model/compose.h"
#include "services/model/interp.h"
#include "services/model/load_service.h"
#include "services/model/merge.h"
#include "services/model/resources.h"
#include "services/model/yaml.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* One file being read into its own model P. */
struct loader {
	struct svc_yaml y;
	struct svc_project *p;
	bool first; /* the first -f file: it must define services */
};

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

static int load_volumes(struct loader *l, yaml_node_t *n)
{
	svc_automap struct svc_yaml_map ps = {0};
	struct svc_project *p = l->p;

	if (svc_yaml_is_null(n))
		return 0;
	if (svc_yaml_map(&l->y, n, "volumes", &ps) < 0)
		return -1;
	p->volumes = xcalloc(ps.n, sizeof(*p->volumes));
	for (size_t i = 0; i < ps.n; i++) {
		struct svc_volume *v = &p->volumes[p->n_volumes++];
		struct res_fields f = {&v->name,     &v->driver,      &v->external,	 &v->labels,
				       &v->n_labels, &v->driver_opts, &v->n_driver_opts, NULL};

		v->key = xstrdup(ps.v[i].name);
		v->loc = svc_yaml_loc(&l->y, ps.v[i].key);
		if (load_resource(&l->y, &ps.v[i], "volumes", &f) < 0)
			return -1;
	}
	return 0;
}

static int load_networks(struct loader *l, yaml_node_t *n)
{
	svc_automap struct svc_yaml_map ps = {0};
	struct svc_project *p = l->p;

	if (svc_yaml_is_null(n))
		return 0;
	if (svc_yaml_map(&l->y, n, "networks", &ps) < 0)
		return -1;
	p->networks = xcalloc(ps.n, sizeof(*p->networks));
	for (size_t i = 0; i < ps.n; i++) {
		struct svc_network *v = &p->networks[p->n_networks++];
		struct res_fields f = {&v->name,     &v->driver,      &v->external,	 &v->labels,
				       &v->n_labels, &v->driver_opts, &v->n_driver_opts, v};

		v->key = xstrdup(ps.v[i].name);
		v->loc = svc_yaml_loc(&l->y, ps.v[i].key);
		if (load_resource(&l->y, &ps.v[i], "networks", &f) < 0)
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
static int decl_source(struct loader *l, struct svc_file_decl *d, const struct svc_yaml_map *pp,
		       const char *path, bool config)
{
	struct svc_yaml_pair *f = svc_yaml_find(pp, "file"), *e = svc_yaml_find(pp, "environment");
	struct svc_yaml_pair *c = config ? svc_yaml_find(pp, "content") : NULL;
	te_autofree char *file = NULL;
	const char *why = NULL;

	if ((f != NULL) + (e != NULL) + (c != NULL) != 1)
		return svc_yaml_err(&l->y,
				    f	? f->key
				    : e ? e->key
				    : c ? c->key
					: pp->v[0].key,
				    "%s: exactly one of file, environment%s is required", path,
				    config ? ", content" : "");
	if (e) {
		d->kind = SVC_FILE_ENV;
		return svc_yaml_string(&l->y, e->val, path, &d->env);
	}
	if (c) {
		d->kind = SVC_FILE_CONTENT;
		return svc_yaml_string(&l->y, c->val, path, &d->content);
	}
	d->kind = SVC_FILE_FILE;
	if (svc_yaml_string(&l->y, f->val, path, &file) < 0)
		return -1;
	if (!file || !*file)
		return svc_yaml_err(&l->y, f->val, "%s.file must not be empty", path);
	d->file = svc_path_bind_source(l->y.dir, file, &why);
	if (!d->file)
		return svc_yaml_err(&l->y, f->val, "%s.file: %s", path, why);
	return 0;
}

static int load_decl(struct loader *l, struct svc_file_decl *d, const struct svc_yaml_pair *rp,
		     const char *kind)
{
	svc_automap struct svc_yaml_map pp = {0};
	te_autofree char *path = xasprintf("%s.%s", kind, rp->name);
	bool config = strcmp(kind, "configs") == 0;
	struct svc_yaml_pair *ext;

	d->key = xstrdup(rp->name);
	d->loc = svc_yaml_loc(&l->y, rp->key);
	if (!svc_valid_name(rp->name))
		return svc_yaml_err(&l->y, rp->key, "invalid %s name '%s'", kind, rp->name);
	if (svc_yaml_map(&l->y, rp->val, path, &pp) < 0 ||
	    svc_yaml_check(&l->y, &pp, path, config ? config_keys : secret_keys, true) < 0)
		return -1;
	if (pp.n == 0)
		return svc_yaml_err(&l->y, rp->key, "%s: file or environment is required", path);
	ext = svc_yaml_find(&pp, "external");
	if (ext && svc_yaml_bool(&l->y, ext->val, path, &d->external) < 0)
		return -1;
	if (d->external)
		return svc_yaml_err(&l->y, ext->key,
				    "%s: external %s exist only in Swarm; taskenv cannot use them", path,
				    kind);
	return decl_source(l, d, &pp, path, config);
}

static int load_decls(struct loader *l, yaml_node_t *n, const char *kind, struct svc_file_decl **out,
		      size_t *nout)
{
	svc_automap struct svc_yaml_map ps = {0};

	if (svc_yaml_is_null(n))
		return 0;
	if (svc_yaml_map(&l->y, n, kind, &ps) < 0)
		return -1;
	*out = xcalloc(ps.n + 1, sizeof(**out));
	for (size_t i = 0; i < ps.n; i++) {
		if (svc_has_prefix(ps.v[i].name, "x-"))
			continue;
		if (load_decl(l, &(*out)[(*nout)++], &ps.v[i], kind) < 0)
			return -1;
	}
	return 0;
}

/* ---- the top level ---- */

/* include: and models: change what runs (services and models the file
 * means to have); taskenv does not read them (yet: include is issue 19). */
static const struct svc_yaml_key top_keys[] = {
    SVC_KEY_LOAD("services"),	      SVC_KEY_LOAD("volumes"),
    SVC_KEY_LOAD("networks"),	      SVC_KEY_LOAD("secrets"),
    SVC_KEY_LOAD("configs"),	      SVC_KEY_LOAD("name"),
    SVC_KEY_LOAD("version"),	      {"include", SVC_USE_REFUSE, "name the files with -f instead"},
    {"models", SVC_USE_REFUSE, NULL}, {NULL, 0, NULL},
};
/* taskenv's own extension: no x- keys of its own inside. */
static const struct svc_yaml_key x_taskenv_keys[] = {
    SVC_KEY_LOAD("allow"),
    SVC_KEY_LOAD("resources"),
    {NULL, 0, NULL},
};

/* x-taskenv: {allow: [NAME, ...], resources: {...}}. */
static int load_x_taskenv(struct loader *l, yaml_node_t *n)
{
	svc_automap struct svc_yaml_map pp = {0};
	struct svc_yaml_pair *allow, *res;

	if (svc_yaml_is_null(n))
		return 0;
	if (svc_yaml_map(&l->y, n, "x-taskenv", &pp) < 0 ||
	    svc_yaml_check(&l->y, &pp, "x-taskenv", x_taskenv_keys, false) < 0)
		return -1;
	res = svc_yaml_find(&pp, "resources");
	if (res && svc_resources_load(&l->y, l->p, res->val) < 0)
		return -1;
	allow = svc_yaml_find(&pp, "allow");
	if (!allow || svc_yaml_is_null(allow->val))
		return 0;
	return svc_yaml_strv_loose(&l->y, allow->val, "x-taskenv.allow", &l->p->allow);
}

/* version: is obsolete (Compose ignores it, with this warning); name: is recorded only. */
static int load_name_version(struct loader *l, const struct svc_yaml_map *top)
{
	struct svc_yaml_pair *v = svc_yaml_find(top, "version"), *n = svc_yaml_find(top, "name");

	if (v) {
		free(l->p->version);
		if (svc_yaml_string(&l->y, v->val, "version", &l->p->version) < 0)
			return -1;
	}
	if (n) {
		free(l->p->name);
		if (svc_yaml_string(&l->y, n->val, "name", &l->p->name) < 0)
			return -1;
	}
	return 0;
}

/* Volumes and networks first: services refer to them. Only the first
 * file must define services; later ones may override anything. */
static int load_root(struct loader *l, yaml_node_t *root)
{
	svc_automap struct svc_yaml_map top = {0};
	struct svc_yaml *y = &l->y;
	struct svc_yaml_pair *services, *volumes, *networks, *xt, *secrets, *configs, *version;

	if (root->type != YAML_MAPPING_NODE && !svc_yaml_is_null(root))
		return svc_yaml_err(y, root, "the top level must be a mapping");
	if (svc_yaml_is_null(root))
		return l->first ? svc_yaml_err(y, root, "no services defined") : 0;
	if (svc_yaml_map(y, root, "the top level", &top) < 0)
		return -1;
	/* Warned first: it is often what an old file's other errors come with. */
	version = svc_yaml_find(&top, "version");
	if (version)
		svc_yaml_warn(y, version->key,
			      "version is obsolete and ignored (the Compose Specification has none)");
	if (svc_yaml_check(y, &top, NULL, top_keys, true) < 0)
		return -1;
	services = svc_yaml_find(&top, "services");
	volumes = svc_yaml_find(&top, "volumes");
	networks = svc_yaml_find(&top, "networks");
	secrets = svc_yaml_find(&top, "secrets");
	configs = svc_yaml_find(&top, "configs");
	xt = svc_yaml_find(&top, "x-taskenv");
	if (load_name_version(l, &top) < 0)
		return -1;
	if (xt && load_x_taskenv(l, xt->val) < 0)
		return -1;
	if (secrets && load_decls(l, secrets->val, "secrets", &l->p->secrets, &l->p->n_secrets) < 0)
		return -1;
	if (configs && load_decls(l, configs->val, "configs", &l->p->configs, &l->p->n_configs) < 0)
		return -1;
	if (volumes && load_volumes(l, volumes->val) < 0)
		return -1;
	if (networks && load_networks(l, networks->val) < 0)
		return -1;
	if (!services)
		return l->first ? svc_yaml_err(y, root, "no services defined") : 0;
	if (svc_load_services(y, l->p, services->key, services->val) < 0)
		return -1;
	if (l->first && l->p->n_services == 0)
		return svc_yaml_err(y, services->key, "no services defined");
	return 0;
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

	if (parse_file(l->y.file, &doc, l->y.err) < 0)
		return -1;
	docp = &doc;
	l->y.doc = docp;
	root = yaml_document_get_root_node(docp);
	if (!root && !l->first)
		return 0;
	if (!root)
		return te_err_set(l->y.err, TE_E_COMPOSE, "%s:%zu:%zu: no services defined", l->y.file,
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

/* Load file I of P into its own model, then merge it into P. Relative
 * paths of every -f file hang off the first file's directory, as in Compose. */
static int load_one(struct svc_project *p, size_t i, struct svc_env *env, struct svc_yaml_log *log,
		    struct te_err *err)
{
	struct svc_project *part = xcalloc(1, sizeof(*part));
	struct loader l = {{NULL, p->files[i], p->dir, env, log, err}, part, i == 0};
	int rc;

	part->dir = p->dir; /* borrowed, for the x-taskenv parser */
	rc = load_file(&l);
	part->dir = NULL;
	if (rc == 0)
		svc_project_merge(p, part);
	svc_project_free(part);
	return rc;
}

/* The files into one project, finalized; NULL on error. Warnings go to LOG,
 * finalize's too (also when it fails). */
static struct svc_project *load_files(char *const *files, char *const *profiles, struct svc_yaml_log *log,
				      struct te_err *err)
{
	struct svc_project *p = xcalloc(1, sizeof(*p));
	struct svc_env *env = NULL;
	te_autofree char *env_path = NULL;
	int rc = 0;

	for (size_t i = 0; rc == 0 && files[i]; i++)
		rc = project_path(p, files[i], err);
	if (rc == 0) {
		env_path = xasprintf("%s/.env", p->dir);
		env = svc_env_load(env_path, err);
		rc = env ? 0 : -1;
	}
	for (size_t i = 0; rc == 0 && p->files[i]; i++)
		rc = load_one(p, i, env, log, err);
	if (rc == 0)
		rc = svc_project_finalize(p, profiles, err);
	for (size_t i = 0; p->warnings && p->warnings[i]; i++)
		svc_yaml_log_add(log, TE_STEAL(p->warnings[i]));
	te_strv_free(p->warnings);
	p->warnings = NULL;
	svc_env_free(env);
	if (rc == 0)
		return p;
	svc_project_free(p);
	return NULL;
}

/* $COMPOSE_PROFILES, comma-separated; owned, NULL-terminated, or NULL.
 * Compose's own variable (as Compose reads it), not a taskenv setting. */
static char **env_profiles(void)
{
	const char *env = getenv("COMPOSE_PROFILES");
	te_autofree char *copy = NULL;
	char **profiles = NULL;
	char *save = NULL;

	if (!env || !*env)
		return NULL;
	copy = xstrdup(env);
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
		profiles = te_strv_push(profiles, xstrdup(t));
	return profiles;
}

struct svc_project *svc_load_project(const struct svc_load_opts *o, char ***warnings, struct te_err *err)
{
	struct svc_yaml_log log = {0};
	te_autostrv char **from_env = NULL;
	struct svc_project *p = NULL;

	*warnings = NULL;
	if (!o->files || !o->files[0]) {
		te_err_set(err, TE_E_USAGE, "no compose file given");
		return NULL;
	}
	if (!o->profiles)
		from_env = env_profiles();
	p = load_files(o->files, o->profiles ? o->profiles : from_env, &log, err);
	*warnings = svc_yaml_log_finish(&log);
	return p;
}

/* svc_load_project with the warnings kept in the project (dropped on failure). */
static struct svc_project *load_keeping_warnings(char *const *files, char *const *profiles,
						 struct te_err *err)
{
	struct svc_load_opts o = {files, profiles};
	char **warnings = NULL;
	struct svc_project *p = svc_load_project(&o, &warnings, err);

	if (p)
		p->warnings = TE_STEAL(warnings);
	te_strv_free(warnings);
	return p;
}

struct svc_project *svc_load_profiles(char *const *files, char *const *profiles, struct te_err *err)
{
	char *const none[] = {NULL};

	return load_keeping_warnings(files, profiles ? profiles : none, err);
}

struct svc_project *svc_load(char *const *files, struct te_err *err)
{
	return load_keeping_warnings(files, NULL, err);
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
