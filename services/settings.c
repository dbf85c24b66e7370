#define TE_WITH_YAML
#include "services/settings.h"

#include "common/cleanup.h"
#include "common/err.h"
#include "common/mem.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const struct {
	const char *key, *env, *def, *help;
} table[SVC_SETTINGS_N] = {
    {"port_range", "TASKENV_PORT_RANGE", "20000-29999",
     "host ports taskenv may publish on 127.0.0.1 (LO-HI)"},
    {"subnet_pool", "TASKENV_SUBNET_POOL", "", "pool task networks take their subnets from (CIDR)"},
    {"engine", "TASKENV_ENGINE", "", "default engine socket (unix://PATH) when DOCKER_HOST is unset"},
    {"worktree_prefix", "TASKENV_WORKTREE_PREFIX", "", "where task worktrees are made (path prefix)"},
    {"limits.cpus", "TASKENV_LIMIT_CPUS", "", "default CPU limit per container"},
    {"limits.memory", "TASKENV_LIMIT_MEMORY", "", "default memory limit per container"},
    {"limits.pids", "TASKENV_LIMIT_PIDS", "", "default process limit per container"},
    {"pool_size", "TASKENV_POOL_SIZE", "2",
     "spare databases kept per Postgres template built from migrations (0: no pool)"},
    {"template_gc_age", "TASKENV_TEMPLATE_GC_AGE", "7d",
     "gc removes a built template no task has used for this long (30s, 5m, 2h, 1d)"},
};

static struct svc_setting *find(struct svc_settings *s, const char *key)
{
	for (size_t i = 0; i < SVC_SETTINGS_N; i++)
		if (strcmp(s->items[i].key, key) == 0)
			return &s->items[i];
	return NULL;
}

static char *config_path(void)
{
	const char *p = getenv("TASKENV_CONFIG");
	const char *x = getenv("XDG_CONFIG_HOME");
	const char *h = getenv("HOME");

	if (p && *p)
		return xstrdup(p);
	if (x && *x == '/')
		return xasprintf("%s/taskenv/config.yaml", x);
	return xasprintf("%s/.config/taskenv/config.yaml", h && *h ? h : "");
}

static int node_error(const struct svc_settings *s, const yaml_node_t *n, const char *what,
		      struct te_err *err)
{
	return te_err_set(err, TE_E_USAGE, "%s:%zu:%zu: %s", s->file, n->start_mark.line + 1,
			  n->start_mark.column + 1, what);
}

static int set_from_file(struct svc_settings *s, const char *key, const yaml_node_t *v, struct te_err *err)
{
	struct svc_setting *it = find(s, key);
	char msg[160];

	if (!it) {
		snprintf(msg, sizeof(msg), "unknown setting '%s' (see `taskenv settings`)", key);
		return node_error(s, v, msg, err);
	}
	if (v->type != YAML_SCALAR_NODE) {
		snprintf(msg, sizeof(msg), "setting '%s' must be a single value", key);
		return node_error(s, v, msg, err);
	}
	free(it->value);
	it->value = xstrndup((const char *)v->data.scalar.value, v->data.scalar.length);
	it->source = "config file";
	return 0;
}

/* A mapping of settings; PREFIX is "" at the top, "limits." inside limits. */
static int read_mapping(struct svc_settings *s, yaml_document_t *doc, yaml_node_t *m, const char *prefix,
			struct te_err *err)
{
	if (m->type != YAML_MAPPING_NODE)
		return node_error(s, m, "expected a mapping of settings", err);
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);
		yaml_node_t *v = yaml_document_get_node(doc, p->value);
		te_autofree char *key = NULL;

		if (!k || k->type != YAML_SCALAR_NODE || !v)
			return node_error(s, m, "expected scalar keys", err);
		key = xasprintf("%s%s", prefix, (const char *)k->data.scalar.value);
		if (!*prefix && strcmp(key, "limits") == 0) {
			if (read_mapping(s, doc, v, "limits.", err) < 0)
				return -1;
			continue;
		}
		if (set_from_file(s, key, v, err) < 0)
			return -1;
	}
	return 0;
}

static int read_file(struct svc_settings *s, FILE *f, struct te_err *err)
{
	yaml_parser_t ps;
	yaml_document_t doc;
	yaml_node_t *root;
	int rc = 0;

	if (!yaml_parser_initialize(&ps))
		return te_err_set(err, TE_E_FAIL, "cannot initialise libyaml");
	yaml_parser_set_input_file(&ps, f);
	if (!yaml_parser_load(&ps, &doc)) {
		rc = te_err_set(err, TE_E_USAGE, "%s:%zu:%zu: %s", s->file, ps.problem_mark.line + 1,
				ps.problem_mark.column + 1, ps.problem ? ps.problem : "invalid YAML");
		yaml_parser_delete(&ps);
		return rc;
	}
	root = yaml_document_get_root_node(&doc);
	if (root)
		rc = read_mapping(s, &doc, root, "", err);
	yaml_document_delete(&doc);
	yaml_parser_delete(&ps);
	return rc;
}

int svc_settings_load(struct svc_settings *s, struct te_err *err)
{
	FILE *f;
	int rc = 0;

	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < SVC_SETTINGS_N; i++) {
		s->items[i] = (struct svc_setting){table[i].key, table[i].env, table[i].help,
						   xstrdup(table[i].def), "default"};
	}
	s->file = config_path();
	f = fopen(s->file, "r");
	if (!f && errno != ENOENT)
		return te_err_set(err, TE_E_IO, "cannot read config file '%s': %s", s->file, strerror(errno));
	if (f) {
		s->file_exists = true;
		rc = read_file(s, f, err);
		fclose(f);
	}
	for (size_t i = 0; rc == 0 && i < SVC_SETTINGS_N; i++) {
		const char *v = getenv(s->items[i].env);

		if (!v || !*v)
			continue;
		free(s->items[i].value);
		s->items[i].value = xstrdup(v);
		s->items[i].source = "environment";
	}
	return rc;
}

void svc_settings_release(struct svc_settings *s)
{
	for (size_t i = 0; i < SVC_SETTINGS_N; i++)
		free(s->items[i].value);
	free(s->file);
	memset(s, 0, sizeof(*s));
}

const char *svc_settings_get(const struct svc_settings *s, const char *key)
{
	struct svc_setting *it = find((struct svc_settings *)s, key);

	return it ? it->value : NULL;
}

const char *svc_settings_source(const struct svc_settings *s, const char *key)
{
	struct svc_setting *it = find((struct svc_settings *)s, key);

	return it ? it->source : NULL;
}
