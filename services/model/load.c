/* Loading Compose files: which files and variables (COMPOSE_FILE, the
 * .env, --env-file, the default override file), each file parsed within
 * the caps (parse.c) and read into its own model (the top level here and
 * in load_top.c, services by load_service.c, their keys by the key table,
 * includes by include.c), then merged into the project (merge.c). */
#define TE_WITH_YAML
#include "services/model/load.h"

#include "common/cleanup.h"
#include "common/err.h"
#include "common/mem.h"
#include "services/model/compose.h"
#include "services/model/include.h"
#include "services/model/interp.h"
#include "services/model/load_ctx.h"
#include "services/model/load_service.h"
#include "services/model/load_top.h"
#include "services/model/merge.h"
#include "services/model/resources.h"
#include "services/model/yaml.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One file being read into its own model P. */
struct loader {
	struct svc_yaml y;
	struct svc_project *p;
	bool first; /* the first -f file: it must define services */
};

/* ---- the top level ---- */

/* models: changes what runs (the models the services are given); taskenv
 * does not run model runners. */
static const struct svc_yaml_key top_keys[] = {
    SVC_KEY_LOAD("services"),
    SVC_KEY_LOAD("volumes"),
    SVC_KEY_LOAD("networks"),
    SVC_KEY_LOAD("secrets"),
    SVC_KEY_LOAD("configs"),
    SVC_KEY_LOAD("name"),
    SVC_KEY_LOAD("version"),
    SVC_KEY_LOAD("include"),
    {"models", SVC_USE_REFUSE, "taskenv runs no model runners"},
    {NULL, 0, NULL},
};

const struct svc_yaml_key *svc_top_key_table(void)
{
	return top_keys;
}

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
 * file must define services (or include them); later ones may override
 * anything. Includes come last: their resources are added to this file's,
 * a name defined twice refused (include.c). */
static int load_root(struct loader *l, yaml_node_t *root)
{
	svc_automap struct svc_yaml_map top = {0};
	struct svc_yaml *y = &l->y;
	struct svc_yaml_pair *services, *volumes, *networks, *xt, *secrets, *configs, *version, *inc;

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
	inc = svc_yaml_find(&top, "include");
	if (load_name_version(l, &top) < 0)
		return -1;
	if (xt && load_x_taskenv(l, xt->val) < 0)
		return -1;
	if (secrets && svc_load_decls(y, secrets->val, "secrets", &l->p->secrets, &l->p->n_secrets) < 0)
		return -1;
	if (configs && svc_load_decls(y, configs->val, "configs", &l->p->configs, &l->p->n_configs) < 0)
		return -1;
	if (volumes && svc_load_volumes(y, l->p, volumes->val) < 0)
		return -1;
	if (networks && svc_load_networks(y, l->p, networks->val) < 0)
		return -1;
	if (!services && !inc)
		return l->first ? svc_yaml_err(y, root, "no services defined") : 0;
	if (services && svc_load_services(y, l->p, services->key, services->val) < 0)
		return -1;
	if (inc && svc_include_load(y, l->p, inc->val) < 0)
		return -1;
	if (l->first && l->p->n_services == 0)
		return svc_yaml_err(y, services ? services->key : inc->key, "no services defined");
	return 0;
}

/* ---- files ---- */

static int load_file(struct loader *l)
{
	yaml_document_t doc;
	te_autoyamldoc yaml_document_t *docp = NULL;
	yaml_node_t *root;

	if (svc_load_parse(l->y.ctx, l->y.file, &doc, l->y.err) < 0)
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

int svc_load_files(struct svc_load_ctx *c, struct svc_project *p, char *const *files, const char *dir,
		   struct svc_env *env, struct te_err *err)
{
	for (size_t i = 0; files[i]; i++) {
		struct svc_project *part = xcalloc(1, sizeof(*part));
		struct loader l = {
		    {NULL, files[i], dir, env, c->log, err, c, NULL, {NULL, NULL}}, part, i == 0};
		int rc;

		part->dir = (char *)dir; /* borrowed, for the x-taskenv parser */
		c->loading[c->n_loading++] = files[i];
		rc = load_file(&l);
		c->n_loading--;
		part->dir = NULL;
		if (rc == 0)
			svc_project_merge(p, part);
		svc_project_free(part);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* ---- which files, which variables ---- */

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

static bool regular(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The project's .env (untrusted) must lie inside DIR: a symlink to a file
 * outside would carry a host file's values into the containers. */
static int dotenv_inside(const char *dotenv, const char *dir, struct te_err *err)
{
	te_autofree char *real = realpath(dotenv, NULL);
	size_t n = strlen(dir);

	if (!real)
		return te_err_set(err, TE_E_IO, "read '%s': %s", dotenv, strerror(errno));
	if (strcmp(dir, "/") == 0 || (strncmp(real, dir, n) == 0 && (real[n] == '/' || real[n] == '\0')))
		return 0;
	return te_err_set(err, TE_E_COMPOSE,
			  "%s: '%s' is outside the project directory '%s': taskenv reads the project's "
			  "variables only from inside it (pass --env-file)",
			  dotenv, real, dir);
}

/* The project's variables: --env-file (each must be there), else DIR's
 * .env when it is a regular file (a directory of that name is skipped, as
 * compose-go skips it); COMPOSE_PROJECT_NAME fixed to the task name. */
static struct svc_env *project_env(const struct svc_load_opts *o, const char *dir, struct te_err *err)
{
	struct svc_env *env = svc_env_new();
	te_autofree char *dotenv = xasprintf("%s/.env", dir);
	int rc = 0;

	if (o->project_name)
		svc_env_fix(env, "COMPOSE_PROJECT_NAME", o->project_name);
	for (size_t i = 0; rc == 0 && o->env_files && o->env_files[i]; i++) {
		if (!regular(o->env_files[i]))
			rc = te_err_set(err, TE_E_USAGE, "env file '%s': %s", o->env_files[i],
					access(o->env_files[i], F_OK) == 0 ? "not a regular file"
									   : "no such file");
		else
			rc = svc_env_add_file(env, o->env_files[i], false, err);
	}
	if (rc == 0 && !o->env_files && regular(dotenv))
		rc = dotenv_inside(dotenv, dir, err) < 0 ? -1 : svc_env_add_file(env, dotenv, false, err);
	if (rc == 0)
		return env;
	svc_env_free(env);
	return NULL;
}

static char **split(const char *s, const char *sep)
{
	char **v = NULL;
	size_t n = strlen(sep);

	for (;;) {
		const char *at = n ? strstr(s, sep) : NULL;
		size_t len = at ? (size_t)(at - s) : strlen(s);

		if (len)
			v = te_strv_push(v, xstrndup(s, len));
		if (!at)
			return v;
		s = at + n;
	}
}

/* COMPOSE_FILE, as Compose reads it: the process environment, else the
 * project's .env (Compose's own variable, not a taskenv setting). A name
 * from the .env (the project's own, untrusted) must lie inside DIR. *OUT
 * owned, NULL when unset. */
static int compose_file(struct svc_env *env, const char *dir, char ***out, struct te_err *err)
{
	const char *from_env = getenv("COMPOSE_FILE");
	const char *v = from_env ? from_env : svc_env_lookup("COMPOSE_FILE", env);
	const char *sep = svc_env_lookup("COMPOSE_PATH_SEPARATOR", env);
	te_autostrv char **names = NULL;

	*out = NULL;
	if (!v || !*v)
		return 0;
	names = split(v, sep && *sep ? sep : ":");
	for (size_t i = 0; names && names[i]; i++) {
		te_autofree char *joined =
		    names[i][0] == '/' ? xstrdup(names[i]) : xasprintf("%s/%s", dir, names[i]);
		char *real = realpath(joined, NULL);
		size_t n = strlen(dir);

		if (!real) {
			te_err_set(err, TE_E_IO, "COMPOSE_FILE: read '%s': %s", joined, strerror(errno));
		} else if (!from_env && strcmp(dir, "/") != 0 &&
			   !(strncmp(real, dir, n) == 0 && (real[n] == '/' || real[n] == '\0'))) {
			te_err_set(
			    err, TE_E_COMPOSE,
			    "%s/.env: COMPOSE_FILE names '%s', outside the project directory '%s': taskenv "
			    "reads Compose files only from inside it (set COMPOSE_FILE in the environment "
			    "or pass -f)",
			    dir, real, dir);
		} else {
			*out = te_strv_push(*out, real);
			continue;
		}
		free(real);
		te_strv_free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

/* The files when -f gives none: COMPOSE_FILE, else DIR's default file and
 * its override file. Owned. */
static char **default_files(struct svc_env *env, const char *dir, struct te_err *err)
{
	char **files = NULL;
	char *f, *o;

	if (compose_file(env, dir, &files, err) < 0 || files)
		return files;
	f = svc_find_compose_file(dir, err);
	if (!f)
		return NULL;
	files = te_strv_push(NULL, f);
	o = svc_find_override_file(dir);
	return o ? te_strv_push(files, o) : files;
}

/* COMPOSE_PROFILES (the environment, else the .env), comma-separated;
 * owned, NULL-terminated, or NULL. */
static char **env_profiles(struct svc_env *env)
{
	const char *v = svc_env_lookup("COMPOSE_PROFILES", env);
	te_autostrv char **raw = v && *v ? split(v, ",") : NULL;
	char **profiles = NULL;

	for (size_t i = 0; raw && raw[i]; i++) {
		const char *s = raw[i];
		size_t n;

		while (*s == ' ' || *s == '\t')
			s++;
		n = strlen(s);
		while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
			n--;
		if (n)
			profiles = te_strv_push(profiles, xstrndup(s, n));
	}
	return profiles;
}

/* Where the .env is read and default files are looked for: the first -f
 * file's directory, else O->dir, else the current directory. Owned. */
static char *env_dir(const struct svc_load_opts *o, struct te_err *err)
{
	te_autofree char *first = o->files && o->files[0] ? realpath(o->files[0], NULL) : NULL;
	char *slash;

	if (o->files && o->files[0] && !first) {
		te_err_set(err, TE_E_IO, "read '%s': %s", o->files[0], strerror(errno));
		return NULL;
	}
	if (first) {
		slash = strrchr(first, '/');
		return slash == first ? xstrdup("/") : xstrndup(first, (size_t)(slash - first));
	}
	slash = o->dir ? realpath(o->dir, NULL) : getcwd(NULL, 0);
	if (!slash)
		te_err_set(err, TE_E_IO, "cannot read the directory '%s': %s", o->dir ? o->dir : ".",
			   strerror(errno));
	return slash;
}

/* Everything but the parse: files, directory, variables, profiles. */
static struct svc_project *project_setup(const struct svc_load_opts *o, struct svc_env **env,
					 char ***profiles, struct te_err *err)
{
	te_autofree char *dir = env_dir(o, err);
	te_autostrv char **found = NULL;
	struct svc_project *p;
	char *const *files = o->files;

	if (!dir)
		return NULL;
	*env = project_env(o, dir, err);
	if (!*env)
		return NULL;
	if (!files || !files[0]) {
		found = default_files(*env, dir, err);
		if (!found)
			return NULL;
		files = found;
	}
	p = xcalloc(1, sizeof(*p));
	for (size_t i = 0; files[i]; i++)
		if (project_path(p, files[i], err) < 0) {
			svc_project_free(p);
			return NULL;
		}
	*profiles = o->profiles ? te_strv_dup(o->profiles) : env_profiles(*env);
	return p;
}

struct svc_project *svc_load_project(const struct svc_load_opts *o, char ***warnings, struct te_err *err)
{
	struct svc_yaml_log log = {0};
	struct svc_load_ctx c;
	te_autostrv char **profiles = NULL;
	struct svc_env *env = NULL;
	struct svc_project *p;
	int rc;

	*warnings = NULL;
	p = project_setup(o, &env, &profiles, err);
	rc = p ? svc_load_ctx_init(&c, p->dir, &o->limits, &log, err) : -1;
	if (rc == 0) {
		rc = svc_load_files(&c, p, p->files, p->dir, env, err);
		if (rc == 0)
			rc = svc_project_finalize(p, profiles, err);
		svc_load_ctx_release(&c, p);
	}
	for (size_t i = 0; p && p->warnings && p->warnings[i]; i++)
		svc_yaml_log_add(&log, TE_STEAL(p->warnings[i]));
	if (p) {
		te_strv_free(p->warnings);
		p->warnings = NULL;
	}
	svc_env_free(env);
	*warnings = svc_yaml_log_finish(&log);
	if (rc == 0)
		return p;
	svc_project_free(p);
	return NULL;
}

/* svc_load_project with the warnings kept in the project (dropped on failure). */
static struct svc_project *load_keeping_warnings(char *const *files, char *const *profiles,
						 struct te_err *err)
{
	struct svc_load_opts o = {.files = files, .profiles = profiles};
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

static char *find_first(const char *dir, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		te_autofree char *path = xasprintf("%s/%s", dir, names[i]);

		if (regular(path))
			return realpath(path, NULL);
	}
	return NULL;
}

char *svc_find_compose_file(const char *dir, struct te_err *err)
{
	static const char *const names[] = {"compose.yaml", "compose.yml", "docker-compose.yml",
					    "docker-compose.yaml"};
	char *f = find_first(dir, names, sizeof(names) / sizeof(names[0]));

	if (!f)
		te_err_set(err, TE_E_USAGE,
			   "no compose file in '%s' (looked for compose.yaml, compose.yml, "
			   "docker-compose.yml, docker-compose.yaml); pass -f FILE",
			   dir);
	return f;
}

char *svc_find_override_file(const char *dir)
{
	static const char *const names[] = {"compose.override.yml", "compose.override.yaml",
					    "docker-compose.override.yml", "docker-compose.override.yaml"};

	return find_first(dir, names, sizeof(names) / sizeof(names[0]));
}

int svc_project_scale(struct svc_project *p, const char *name, long long n, struct te_err *err)
{
	for (size_t i = 0; i < p->n_services; i++) {
		if (strcmp(p->services[i].name, name) != 0)
			continue;
		if (n < 0 || n > SVC_MAX_REPLICAS)
			return te_err_set(err, TE_E_USAGE, "--scale %s=%lld: must be from 0 to %d", name, n,
					  SVC_MAX_REPLICAS);
		p->services[i].replicas = n;
		return 0;
	}
	return te_err_set(err, TE_E_USAGE, "--scale %s: no such service in the Compose file", name);
}
