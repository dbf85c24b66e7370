/* include (include.h), as the Compose Specification's include document
 * and compose-go read it. On a name defined both by the including file and
 * an included project, the specification says Compose warns and does not
 * merge, compose-go up to v2.9 refused it unless both definitions are
 * equal, and compose-go since v2.10 merges the including file's over the
 * included one. taskenv refuses it (a warning would leave the task
 * different from one of the two files), unless it is the same definition
 * reached twice (a file included by two includes); a later -f file may
 * still override an included service. */
#include "services/model/include.h"

#include "common/buf.h"
#include "common/cleanup.h"
#include "common/err.h"
#include "common/mem.h"
#include "services/model/compose.h"
#include "services/model/interp.h"
#include "services/model/kinds.h"
#include "services/model/load_ctx.h"
#include "services/model/yaml.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const struct svc_yaml_key include_keys[] = {
    SVC_KEY_LOAD("path"),
    SVC_KEY_LOAD("project_directory"),
    SVC_KEY_LOAD("env_file"),
    {NULL, 0, NULL},
};

/* One entry, its paths resolved (real paths, inside the project). */
struct entry {
	char **paths;
	char *dir;
	char **env_files; /* NULL: the .env of DIR, when there is one */
};

static void entry_release(struct entry *e)
{
	te_strv_free(e->paths);
	free(e->dir);
	te_strv_free(e->env_files);
}

/* Each name of NAMES (relative to Y's directory) resolved into *OUT. */
static int resolve_all(struct svc_yaml *y, const yaml_node_t *at, char *const *names, const char *what,
		       char ***out)
{
	for (size_t i = 0; names && names[i]; i++) {
		char *real;

		if (strcmp(names[i], "/dev/null") == 0)
			continue; /* compose-go: an env_file of /dev/null stands for none */
		real = svc_load_inside(y, at, y->dir, names[i], what);
		if (!real)
			return -1;
		*out = te_strv_push(*out, real);
	}
	return 0;
}

static int read_entry(struct svc_yaml *y, yaml_node_t *item, const char *path, struct entry *e)
{
	svc_automap struct svc_yaml_map m = {0};
	te_autostrv char **paths = NULL;
	te_autostrv char **envs = NULL;
	te_autofree char *dir = NULL;
	struct svc_yaml_pair *pr;
	bool env_given = false;

	if (item->type == YAML_SCALAR_NODE) {
		if (svc_yaml_strv_loose(y, item, path, &paths) < 0)
			return -1;
	} else {
		if (svc_yaml_map(y, item, path, &m) < 0 ||
		    svc_yaml_check(y, &m, path, include_keys, true) < 0)
			return -1;
		pr = svc_yaml_find(&m, "path");
		if (pr && svc_yaml_strv_loose(y, pr->val, path, &paths) < 0)
			return -1;
		pr = svc_yaml_find(&m, "project_directory");
		if (pr && svc_yaml_string(y, pr->val, path, &dir) < 0)
			return -1;
		pr = svc_yaml_find(&m, "env_file");
		env_given = pr != NULL;
		if (pr && svc_yaml_strv_loose(y, pr->val, path, &envs) < 0)
			return -1;
	}
	if (!paths || !paths[0] || !*paths[0])
		return svc_yaml_err(y, item, "%s: path is required", path);
	if (resolve_all(y, item, paths, path, &e->paths) < 0)
		return -1;
	if (dir) {
		e->dir = svc_load_inside(y, item, y->dir, dir, path);
		if (!e->dir)
			return -1;
	} else {
		char *slash = strrchr(e->paths[0], '/');

		e->dir = slash == e->paths[0] ? xstrdup("/")
					      : xstrndup(e->paths[0], (size_t)(slash - e->paths[0]));
	}
	if (env_given && resolve_all(y, item, envs, path, &e->env_files) < 0)
		return -1;
	if (env_given && !e->env_files)
		e->env_files = xcalloc(1, sizeof(char *)); /* only /dev/null: no variables */
	return 0;
}

/* "include cycle: A -> B -> A" when REAL is being loaded already. */
static int check_cycle(struct svc_yaml *y, const yaml_node_t *at, const char *path, const char *real)
{
	const struct svc_load_ctx *c = y->ctx;
	te_autobuf struct te_buf b = TE_BUF_INIT(0);
	size_t from = 0;

	while (from < c->n_loading && strcmp(c->loading[from], real) != 0)
		from++;
	if (from == c->n_loading) {
		if (c->n_loading > SVC_INCLUDE_MAX)
			return svc_yaml_err(y, at, "%s: includes nested more than %d deep", path,
					    SVC_INCLUDE_MAX);
		return 0;
	}
	for (size_t i = from; i < c->n_loading; i++)
		te_buf_addf(&b, "%s -> ", c->loading[i]);
	return svc_yaml_err(y, at, "%s: include cycle: %s%s", path, b.data, real);
}

/* The included project's variables: its env_file (or its directory's
 * .env), under the including project's, which win (compose-go). */
static struct svc_env *entry_env(struct svc_yaml *y, const struct entry *e)
{
	struct svc_env *env = svc_env_new();
	te_autofree char *dotenv = xasprintf("%s/.env", e->dir);
	struct stat st;
	int rc = 0;

	for (size_t i = 0; rc == 0 && e->env_files && e->env_files[i]; i++)
		rc = svc_env_add_file(env, e->env_files[i], false, y->err);
	if (rc == 0 && !e->env_files && stat(dotenv, &st) == 0 && S_ISREG(st.st_mode)) {
		te_autofree char *real = realpath(dotenv, NULL);
		const char *b = y->ctx ? y->ctx->boundary : "/";
		size_t n = strlen(b);

		if (real && (strcmp(b, "/") == 0 ||
			     (strncmp(real, b, n) == 0 && (real[n] == '/' || real[n] == '\0'))))
			rc = svc_env_add_file(env, real, false, y->err);
		else
			rc = te_err_set(y->err, TE_E_COMPOSE,
					"%s: '%s' is outside the project directory '%s': taskenv reads the "
					"project's variables only from inside it",
					dotenv, real ? real : "?", b);
	}
	if (rc < 0) {
		svc_env_free(env);
		return NULL;
	}
	svc_env_overlay(env, y->env);
	return env;
}

/* Where a conflicting definition was, for the message. */
static int conflict(struct svc_yaml *y, const yaml_node_t *at, const char *path, const char *kind,
		    const char *name, struct svc_loc mine, struct svc_loc theirs)
{
	return svc_yaml_err(y, at,
			    "%s: %s '%s' of %s:%d is also defined at %s:%d; taskenv does not merge an "
			    "included resource with another one (rename one, or override it in a later -f "
			    "file)",
			    path, kind, name, theirs.file, theirs.line, mine.file, mine.line);
}

static bool same_loc(struct svc_loc a, struct svc_loc b)
{
	return a.file == b.file && a.line == b.line && a.col == b.col;
}

/* Move each of the N items of SRC (SIZE bytes each, name and loc found by
 * the callbacks) into *DST / *ND, refusing a name DST has with another
 * definition; one with the same definition stays in SRC (and goes with it). */
struct items {
	void **dst;
	size_t *nd;
	void *src;
	size_t ns, size;
	const char *kind;
	const char *(*name)(const void *);
	struct svc_loc (*loc)(const void *);
};

static int import(struct svc_yaml *y, const yaml_node_t *at, const char *path, const struct items *it)
{
	for (size_t i = 0; i < it->ns; i++) {
		void *s = (char *)it->src + i * it->size;
		size_t j = 0;

		while (j < *it->nd && strcmp(it->name((char *)*it->dst + j * it->size), it->name(s)) != 0)
			j++;
		if (j < *it->nd) {
			void *d = (char *)*it->dst + j * it->size;

			if (!same_loc(it->loc(d), it->loc(s)))
				return conflict(y, at, path, it->kind, it->name(s), it->loc(d), it->loc(s));
			continue;
		}
		*it->dst = xrealloc(*it->dst, (*it->nd + 1) * it->size);
		memcpy((char *)*it->dst + (*it->nd)++ * it->size, s, it->size);
		memset(s, 0, it->size);
	}
	return 0;
}

#define NAME_LOC(type, field)                                                                                \
	static const char *type##_name(const void *v)                                                        \
	{                                                                                                    \
		return ((const struct svc_##type *)v)->field;                                                \
	}                                                                                                    \
	static struct svc_loc type##_loc(const void *v)                                                      \
	{                                                                                                    \
		return ((const struct svc_##type *)v)->loc;                                                  \
	}
NAME_LOC(service, name)
NAME_LOC(volume, key)
NAME_LOC(network, key)
NAME_LOC(file_decl, key)
NAME_LOC(resource, key)

/* INC's resources into P; what is not taken stays in INC (freed with it). */
static int import_all(struct svc_yaml *y, const yaml_node_t *at, const char *path, struct svc_project *p,
		      struct svc_project *inc)
{
	const struct items all[] = {
	    {(void **)&p->services, &p->n_services, inc->services, inc->n_services, sizeof(*p->services),
	     "service", service_name, service_loc},
	    {(void **)&p->volumes, &p->n_volumes, inc->volumes, inc->n_volumes, sizeof(*p->volumes), "volume",
	     volume_name, volume_loc},
	    {(void **)&p->networks, &p->n_networks, inc->networks, inc->n_networks, sizeof(*p->networks),
	     "network", network_name, network_loc},
	    {(void **)&p->secrets, &p->n_secrets, inc->secrets, inc->n_secrets, sizeof(*p->secrets), "secret",
	     file_decl_name, file_decl_loc},
	    {(void **)&p->configs, &p->n_configs, inc->configs, inc->n_configs, sizeof(*p->configs), "config",
	     file_decl_name, file_decl_loc},
	    {(void **)&p->resources, &p->n_resources, inc->resources, inc->n_resources, sizeof(*p->resources),
	     "x-taskenv resource", resource_name, resource_loc},
	};

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (import(y, at, path, &all[i]) < 0)
			return -1;
	svc_merge_strv(&p->allow, &inc->allow);
	return 0;
}

/* One entry: its project loaded and its resources imported into P. */
static int include_one(struct svc_yaml *y, struct svc_project *p, yaml_node_t *item, const char *path)
{
	struct entry e = {0};
	struct svc_project *inc = xcalloc(1, sizeof(*inc));
	te_autofree char **files = NULL;
	struct svc_env *env = NULL;
	int rc = read_entry(y, item, path, &e);

	for (size_t i = 0; rc == 0 && e.paths[i]; i++)
		rc = check_cycle(y, item, path, e.paths[i]);
	if (rc == 0)
		env = entry_env(y, &e);
	rc = rc == 0 && !env ? svc_yaml_err_prefix(y, item) : rc;
	if (rc == 0) {
		files = xcalloc(te_strv_len(e.paths) + 1, sizeof(*files));
		for (size_t i = 0; e.paths[i]; i++)
			files[i] = (char *)svc_load_source(y->ctx, e.paths[i]);
		rc = svc_load_files(y->ctx, inc, files, e.dir, env, y->err);
	}
	for (size_t i = 0; rc == 0 && i < inc->n_services; i++)
		if (inc->services[i].build.set && !inc->services[i].build.context)
			inc->services[i].build.context = xstrdup(e.dir);
	if (rc == 0)
		rc = import_all(y, item, path, p, inc);
	svc_project_free(inc);
	svc_env_free(env);
	entry_release(&e);
	return rc;
}

int svc_include_load(struct svc_yaml *y, struct svc_project *p, yaml_node_t *n)
{
	if (svc_yaml_is_null(n))
		return 0;
	if (n->type != YAML_SEQUENCE_NODE)
		return svc_yaml_err(y, n, "include must be a list");
	if (!y->ctx)
		TE_BUG("include read without a load context");
	for (size_t i = 0; i < svc_yaml_len(n); i++) {
		te_autofree char *path = xasprintf("include[%zu]", i);

		if (include_one(y, p, svc_yaml_item(y, n, i), path) < 0)
			return -1;
	}
	return 0;
}
