/* Every setting of taskenv: the table, the config file reader, the
 * environment, and the parsers (services/settings.h). */
#define TE_WITH_YAML
#include "services/settings.h"
#include "services/model/load.h"
#include "state/subnets.h"

#include "common/buf.h"
#include "common/cleanup.h"
#include "common/duration.h"
#include "common/err.h"
#include "common/mem.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- parsers: TEXT -> OUT's parsed fields, or -1 with WHY ---- */

static int whole(const char *s, long long lo, long long hi, long long *out)
{
	char *end;

	errno = 0;
	*out = strtoll(s, &end, 10);
	return errno || end == s || *end || *out < lo || *out > hi ? -1 : 0;
}

static int why_is(char *why, size_t n, const char *text)
{
	snprintf(why, n, "%s", text);
	return -1;
}

static int parse_text(const char *text, struct svc_setting *out, char *why, size_t n)
{
	return 0;
}

static int parse_port_range(const char *text, struct svc_setting *out, char *why, size_t n)
{
	const char *dash = strchr(text, '-');
	te_autofree char *lo = dash ? xstrndup(text, (size_t)(dash - text)) : NULL;

	if (!dash || whole(lo, 1, 65535, &out->num) < 0 || whole(dash + 1, 1, 65535, &out->num2) < 0 ||
	    out->num > out->num2)
		return why_is(why, n, "expected LO-HI with 1 <= LO <= HI <= 65535");
	return 0;
}

/* The pool's own checks need the prefix too: svc_settings_load runs
 * state_subnet_pool_parse on the pair once both are known. */
static int parse_cidr(const char *text, struct svc_setting *out, char *why, size_t n)
{
	const char *slash = strchr(text, '/');
	te_autofree char *addr = slash ? xstrndup(text, (size_t)(slash - text)) : NULL;
	struct in_addr in;
	long long bits;

	if (!*text)
		return 0;
	if (!slash || inet_pton(AF_INET, addr, &in) != 1 || whole(slash + 1, 8, 30, &bits) < 0)
		return why_is(why, n, "expected an IPv4 CIDR a.b.c.d/N with 8 <= N <= 30");
	return 0;
}

static int parse_prefix(const char *text, struct svc_setting *out, char *why, size_t n)
{
	if (whole(text, 8, 30, &out->num) < 0)
		return why_is(why, n, "expected a prefix length from 8 to 30");
	return 0;
}

static int parse_socket(const char *text, struct svc_setting *out, char *why, size_t n)
{
	if (*text && strncmp(text, "unix:///", 8) != 0)
		return why_is(why, n,
			      "expected unix:///absolute/path (the control plane stays on this host)");
	return 0;
}

/* git checks the whole branch name; this catches what would read as an
 * option or a path outside refs/heads before git is asked. */
static int parse_branch_prefix(const char *text, struct svc_setting *out, char *why, size_t n)
{
	if (!*text || *text == '-' || *text == '/' || strstr(text, "..") || strpbrk(text, " \t\n~^:?*[\\"))
		return why_is(why, n, "expected a git branch name prefix such as 'task' or 'agents/task'");
	return 0;
}

static int parse_cpus(const char *text, struct svc_setting *out, char *why, size_t n)
{
	char *end;

	errno = 0;
	out->real = strtod(text, &end);
	if (errno || end == text || *end || out->real < 0 || out->real > 4096)
		return why_is(why, n, "expected a number of CPUs from 0 (none) to 4096");
	return 0;
}

static int parse_bytes(const char *text, struct svc_setting *out, char *why, size_t n)
{
	if (strcmp(text, "0") == 0 || strcmp(text, "none") == 0) {
		out->num = 0;
		return 0;
	}
	if (!svc_parse_bytes(text, &out->num))
		return why_is(why, n, "expected a size like 512m or 2g, or 0 for none");
	return 0;
}

static int parse_count(const char *text, struct svc_setting *out, char *why, size_t n)
{
	if (whole(text, 0, 1 << 22, &out->num) < 0)
		return why_is(why, n, "expected a number from 0 (none) to 4194304");
	return 0;
}

static int parse_bool(const char *text, struct svc_setting *out, char *why, size_t n)
{
	static const char *const yes[] = {"1", "true", "yes", "on"}, *const no[] = {"0", "false", "no",
										    "off"};

	for (size_t i = 0; i < 4; i++) {
		if (strcmp(text, yes[i]) == 0 || strcmp(text, no[i]) == 0) {
			out->num = strcmp(text, yes[i]) == 0;
			return 0;
		}
	}
	return why_is(why, n, "expected true or false (1 or 0)");
}

static int parse_wait(const char *text, struct svc_setting *out, char *why, size_t n)
{
	if (whole(text, 1, 65535, &out->num) < 0)
		return why_is(why, n, "expected seconds from 1 to 65535");
	return 0;
}

static int parse_pool_size(const char *text, struct svc_setting *out, char *why, size_t n)
{
	if (whole(text, 0, 64, &out->num) < 0)
		return why_is(why, n, "expected a number of spare databases from 0 (no pool) to 64");
	return 0;
}

static int parse_age(const char *text, struct svc_setting *out, char *why, size_t n)
{
	struct te_err err = {0};

	if (te_duration_parse(text, &out->num, &err) < 0)
		return why_is(why, n, "expected a duration: 30s, 5m, 2h, 1d");
	return 0;
}

/* "a,b" -> list; each a name of letters, digits and ":._-". */
static int parse_names(const char *text, struct svc_setting *out, char *why, size_t n)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:._-";

	for (const char *p = text; *p;) {
		size_t len = strcspn(p, ",");

		if (!len || strspn(p, ok) < len) {
			te_strv_free(out->list);
			out->list = NULL;
			return why_is(why, n,
				      "expected names of letters, digits and ':._-', comma-separated");
		}
		out->list = te_strv_push(out->list, xstrndup(p, len));
		p += len + (p[len] == ',');
	}
	return 0;
}

/* A cap of the Compose loader: a positive whole number (bytes may be
 * written as a size, 32m). */
static int parse_cap(const char *text, struct svc_setting *out, char *why, size_t n)
{
	if (whole(text, 1, 1LL << 40, &out->num) == 0 || (svc_parse_bytes(text, &out->num) && out->num > 0))
		return 0;
	return why_is(why, n, "expected a positive number");
}

/* An image reference: no blanks, no option-looking or empty name. */
static int parse_image(const char *text, struct svc_setting *out, char *why, size_t n)
{
	if (*text && (*text == '-' || strpbrk(text, " \t\n\r") || strlen(text) > 255))
		return why_is(why, n, "expected an image reference such as registry/name:tag");
	return 0;
}

/* ---- the table ---- */

static const struct svc_setting_def table[SVC_SETTINGS_N] = {
    [SVC_SET_PORT_RANGE] = {"port_range", "port_range", "TASKENV_PORT_RANGE", NULL, "20000-29999",
			    parse_port_range, 0, "host ports taskenv may publish on 127.0.0.1 (LO-HI)"},
    [SVC_SET_SUBNET_POOL] = {"subnet_pool", "subnet_pool", "TASKENV_SUBNET_POOL", NULL, "", parse_cidr, 0,
			     "pool task networks take their subnets from (CIDR; default 10.224.0.0/16)"},
    [SVC_SET_SUBNET_PREFIX] = {"subnet_prefix", "subnet_prefix", "TASKENV_SUBNET_PREFIX", NULL, "26",
			       parse_prefix, 0, "prefix length of each task network's subnet"},
    [SVC_SET_ENGINE] = {"engine", "engine", "TASKENV_ENGINE", NULL, "", parse_socket, 0,
			"default engine socket (unix://PATH) when --host and DOCKER_HOST are unset"},
    [SVC_SET_STATE] = {"state", "state", "TASKENV_STATE", NULL, "", parse_text, 0,
		       "the ledger file (default $XDG_STATE_HOME/taskenv/state.db)"},
    [SVC_SET_TASK] = {"task", NULL, "TASKENV_TASK", NULL, "", parse_text, 0,
		      "default task name when -t is not given (else the git branch)"},
    [SVC_SET_WORKTREE_PREFIX] = {"worktree_prefix", "worktree_prefix", "TASKENV_WORKTREE_PREFIX", NULL,
				 "task", parse_branch_prefix, 0,
				 "branch prefix of task worktrees (<prefix>/TASK)"},
    [SVC_SET_LIMIT_CPUS] = {"limits.cpus", "limits.cpus", "TASKENV_LIMIT_CPUS", "TASKENV_DEFAULT_CPUS", "2",
			    parse_cpus, 0, "cpus of a container whose service sets none (0: no limit)"},
    [SVC_SET_LIMIT_MEMORY] = {"limits.memory", "limits.memory", "TASKENV_LIMIT_MEMORY",
			      "TASKENV_DEFAULT_MEMORY", "2g", parse_bytes, 0,
			      "memory of a container whose service sets none (0: no limit)"},
    [SVC_SET_LIMIT_PIDS] = {"limits.pids", "limits.pids", "TASKENV_LIMIT_PIDS", "TASKENV_DEFAULT_PIDS",
			    "1024", parse_count, 0,
			    "pids_limit of a container whose service sets none (0: no limit)"},
    [SVC_SET_NO_NEW_PRIVILEGES] = {"no_new_privileges", "no_new_privileges", "TASKENV_NO_NEW_PRIVILEGES",
				   NULL, "true", parse_bool, 0,
				   "add no-new-privileges:true unless a service writes its own"},
    [SVC_SET_WAIT_TIMEOUT] = {"wait_timeout", "wait_timeout", "TASKENV_WAIT_TIMEOUT", NULL, "120", parse_wait,
			      0, "seconds each depends_on or --wait health wait may take"},
    [SVC_SET_ALLOW] = {"allow", "allow", NULL, NULL, "", parse_names, SVC_SETTING_LIST | SVC_SETTING_PROJECT,
		       "policy exceptions granted to every project (also per project)"},
    [SVC_SET_COMPOSE_MAX_BYTES] = {"compose.max_bytes", "compose.max_bytes", "TASKENV_COMPOSE_MAX_BYTES",
				   NULL, "32m", parse_cap, 0, "largest Compose file taskenv reads (bytes)"},
    [SVC_SET_COMPOSE_MAX_DEPTH] = {"compose.max_depth", "compose.max_depth", "TASKENV_COMPOSE_MAX_DEPTH",
				   NULL, "100", parse_cap, 0,
				   "deepest nesting of mappings and lists in a Compose file"},
    [SVC_SET_COMPOSE_MAX_NODES] = {"compose.max_nodes", "compose.max_nodes", "TASKENV_COMPOSE_MAX_NODES",
				   NULL, "4000000", parse_cap, 0,
				   "most YAML nodes of one load, an alias counting as what it repeats"},
    [SVC_SET_POOL_SIZE] = {"pool_size", "pool_size", "TASKENV_POOL_SIZE", NULL, "2", parse_pool_size, 0,
			   "spare databases kept per Postgres template built from migrations (0: no pool)"},
    [SVC_SET_TEMPLATE_GC_AGE] = {"template_gc_age", "template_gc_age", "TASKENV_TEMPLATE_GC_AGE", NULL, "7d",
				 parse_age, 0,
				 "gc removes a built Postgres template no task has used for this long"},
    [SVC_SET_SHARED_IMAGE_POSTGRES] = {"shared_images.postgres", "shared_images.postgres",
				       "TASKENV_SHARED_IMAGE_POSTGRES", NULL, "", parse_image, 0,
				       "image of the shared Postgres server container (\"\": taskenv's)"},
    [SVC_SET_SHARED_IMAGE_RABBITMQ] = {"shared_images.rabbitmq", "shared_images.rabbitmq",
				       "TASKENV_SHARED_IMAGE_RABBITMQ", NULL, "", parse_image, 0,
				       "image of the shared RabbitMQ server container (\"\": taskenv's)"},
    [SVC_SET_SHARED_IMAGE_S3] = {"shared_images.s3", "shared_images.s3", "TASKENV_SHARED_IMAGE_S3", NULL, "",
				 parse_image, 0, "image of each task's s3rver container (\"\": taskenv's)"},
    [SVC_SET_BROKER_DIR] = {"broker.dir", "broker.dir", "TASKENV_BROKER_DIR", NULL, "", parse_text, 0,
			    "where each task's broker socket directory is made (default\n"
			    "$XDG_RUNTIME_DIR/taskenv, else /run/taskenv for root, else /tmp/taskenv-UID)"},
};

const struct svc_setting_def *svc_setting_def(enum svc_setting_id id)
{
	return id < SVC_SETTINGS_N ? &table[id] : NULL;
}

static int by_key(const char *key)
{
	for (int i = 0; i < SVC_SETTINGS_N; i++)
		if (table[i].key && strcmp(table[i].key, key) == 0)
			return i;
	return -1;
}

/* Some setting's file key lies below PATH ("limits" for "limits.cpus"). */
static bool is_group(const char *path)
{
	size_t n = strlen(path);

	for (int i = 0; i < SVC_SETTINGS_N; i++)
		if (table[i].key && strncmp(table[i].key, path, n) == 0 && table[i].key[n] == '.')
			return true;
	return false;
}

static void item_clear(struct svc_setting *it)
{
	free(it->text);
	te_strv_free(it->list);
	*it = (struct svc_setting){.def = it->def};
}

/* Parse TEXT into IT (replacing what it held); -1 with WHY. */
static int item_set(struct svc_setting *it, const char *text, const char *source, const char *var, char *why,
		    size_t n)
{
	struct svc_setting v = {.def = it->def, .text = xstrdup(text), .source = source, .var = var};

	if (it->def->parse(text, &v, why, n) < 0) {
		item_clear(&v);
		return -1;
	}
	item_clear(it);
	*it = v;
	return 0;
}

/* ---- the config file ---- */

static char *config_path(void)
{
	/* TASKENV_CONFIG names where the settings are, so it cannot be one;
	 * XDG_CONFIG_HOME and HOME are the XDG base directory rules. */
	const char *p = getenv("TASKENV_CONFIG");
	const char *x = getenv("XDG_CONFIG_HOME");
	const char *h = getenv("HOME");

	if (p && *p)
		return xstrdup(p);
	if (x && *x == '/')
		return xasprintf("%s/taskenv/config.yaml", x);
	return xasprintf("%s/.config/taskenv/config.yaml", h && *h ? h : "");
}

struct reader {
	struct svc_settings *s;
	yaml_document_t *doc;
};

static int node_error(const struct reader *r, const yaml_node_t *n, struct te_err *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int node_error(const struct reader *r, const yaml_node_t *n, struct te_err *err, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return te_err_set(err, TE_E_USAGE, "%s:%zu:%zu: %s", r->s->file, n->start_mark.line + 1,
			  n->start_mark.column + 1, msg);
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* V's text: a scalar, or for a list setting a sequence of scalars joined with ','. */
static char *value_text(const struct reader *r, const struct svc_setting_def *d, const yaml_node_t *v,
			struct te_err *err)
{
	te_autobuf struct te_buf b = TE_BUF_INIT(0);

	if (scalar(v))
		return xstrdup(scalar(v));
	if (v->type != YAML_SEQUENCE_NODE || !(d->flags & SVC_SETTING_LIST)) {
		node_error(r, v, err, "setting '%s' must be a single value", d->name);
		return NULL;
	}
	te_buf_adds(&b, "");
	for (yaml_node_item_t *i = v->data.sequence.items.start; i < v->data.sequence.items.top; i++) {
		const yaml_node_t *item = yaml_document_get_node(r->doc, *i);

		if (!scalar(item) || strchr(scalar(item), ',')) {
			node_error(r, item ? item : v, err, "setting '%s' takes a list of names", d->name);
			return NULL;
		}
		te_buf_addf(&b, "%s%s", b.len ? "," : "", scalar(item));
	}
	return te_buf_detach(&b);
}

static int read_value(const struct reader *r, struct svc_setting *it, const yaml_node_t *v,
		      struct te_err *err)
{
	te_autofree char *text = NULL;
	char why[160];

	if (it->source)
		return node_error(r, v, err, "setting '%s' is given twice", it->def->name);
	text = value_text(r, it->def, v, err);
	if (!text)
		return -1;
	if (item_set(it, text, "config file", NULL, why, sizeof(why)) < 0)
		return node_error(r, v, err, "invalid %s '%s': %s", it->def->name, text, why);
	return 0;
}

static int read_projects(const struct reader *r, const yaml_node_t *m, struct te_err *err);

/* A mapping of settings at PATH ("" at the top, "limits." inside limits);
 * PROJECT: inside a projects: entry, where only per-project settings go. */
static int read_mapping(const struct reader *r, const yaml_node_t *m, const char *path,
			struct svc_settings_project *project, struct te_err *err)
{
	if (m->type != YAML_MAPPING_NODE)
		return node_error(r, m, err, "expected a mapping of settings");
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = yaml_document_get_node(r->doc, p->key);
		const yaml_node_t *v = yaml_document_get_node(r->doc, p->value);
		te_autofree char *key = NULL;
		int id;

		if (!scalar(k) || !v)
			return node_error(r, m, err, "expected scalar keys");
		key = xasprintf("%s%s", path, scalar(k));
		id = by_key(key);
		if (!project && strcmp(key, "projects") == 0) {
			if (read_projects(r, v, err) < 0)
				return -1;
		} else if (id >= 0 && project && !(table[id].flags & SVC_SETTING_PROJECT)) {
			return node_error(r, k, err, "setting '%s' cannot be set per project", key);
		} else if (id >= 0) {
			if (read_value(r, project ? &project->items[id] : &r->s->items[id], v, err) < 0)
				return -1;
		} else if (v->type == YAML_MAPPING_NODE && is_group(key)) {
			te_autofree char *sub = xasprintf("%s.", key);

			if (read_mapping(r, v, sub, project, err) < 0)
				return -1;
		} else {
			return node_error(r, k, err, "unknown setting '%s' (see `taskenv settings`)", key);
		}
	}
	return 0;
}

/* Trailing slashes off, so "/a/b/" and "/a/b" name one directory. */
static char *dir_key(const char *dir)
{
	char real[PATH_MAX];
	size_t n = strlen(dir);

	if (realpath(dir, real))
		return xstrdup(real);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	return xstrndup(dir, n);
}

static int read_projects(const struct reader *r, const yaml_node_t *m, struct te_err *err)
{
	struct svc_settings *s = r->s;

	if (m->type != YAML_MAPPING_NODE)
		return node_error(r, m, err, "projects: expected a mapping of absolute directories");
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = yaml_document_get_node(r->doc, p->key);
		const yaml_node_t *v = yaml_document_get_node(r->doc, p->value);
		struct svc_settings_project *pr;

		if (!scalar(k) || scalar(k)[0] != '/' || !v)
			return node_error(r, k ? k : m, err, "projects: '%s' is not an absolute directory",
					  scalar(k) ? scalar(k) : "");
		s->projects = xrealloc(s->projects, (s->n_projects + 1) * sizeof(*s->projects));
		pr = &s->projects[s->n_projects++];
		*pr = (struct svc_settings_project){xstrdup(scalar(k)), dir_key(scalar(k)), {{0}}};
		for (int i = 0; i < SVC_SETTINGS_N; i++)
			pr->items[i].def = &table[i];
		if (read_mapping(r, v, "", pr, err) < 0)
			return -1;
	}
	return 0;
}

static int read_file(struct svc_settings *s, FILE *f, struct te_err *err)
{
	yaml_parser_t ps;
	yaml_document_t doc;
	yaml_node_t *root;
	struct reader r = {s, &doc};
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
		rc = read_mapping(&r, root, "", NULL, err);
	yaml_document_delete(&doc);
	yaml_parser_delete(&ps);
	return rc;
}

/* ---- load ---- */

/* A variable wins over the file; the older name counts only when the
 * current one is unset. */
static int read_env(struct svc_setting *it, struct te_err *err)
{
	const char *var = it->def->env;
	const char *v = var ? getenv(var) : NULL;
	char why[160];

	if ((!v || !*v) && it->def->alias) {
		var = it->def->alias;
		v = getenv(var);
	}
	if (!v || !*v)
		return 0;
	if (item_set(it, v, "environment", var, why, sizeof(why)) < 0)
		return te_err_set(err, TE_E_USAGE, "invalid %s '%s' (from %s): %s", it->def->name, v, var,
				  why);
	return 0;
}

int svc_settings_load(struct svc_settings *s, struct te_err *err)
{
	struct state_subnet_pool pool;
	char why[160];
	FILE *f;
	int rc = 0;

	memset(s, 0, sizeof(*s));
	for (int i = 0; i < SVC_SETTINGS_N; i++) {
		s->items[i].def = &table[i];
		if (item_set(&s->items[i], table[i].def, "default", NULL, why, sizeof(why)) < 0)
			TE_BUG("a setting's default does not parse");
		s->items[i].source = NULL; /* "default" once the file had its say */
	}
	s->file = config_path();
	f = fopen(s->file, "re");
	if (!f && errno != ENOENT)
		return te_err_set(err, TE_E_IO, "cannot read config file '%s': %s", s->file, strerror(errno));
	if (f) {
		s->file_exists = true;
		rc = read_file(s, f, err);
		fclose(f);
	}
	for (int i = 0; i < SVC_SETTINGS_N; i++)
		if (!s->items[i].source)
			s->items[i].source = "default";
	for (int i = 0; rc == 0 && i < SVC_SETTINGS_N; i++)
		rc = read_env(&s->items[i], err);
	if (rc == 0)
		rc = state_subnet_pool_parse(s->items[SVC_SET_SUBNET_POOL].text,
					     (int)s->items[SVC_SET_SUBNET_PREFIX].num, &pool, err);
	return rc;
}

void svc_settings_release(struct svc_settings *s)
{
	for (int i = 0; i < SVC_SETTINGS_N; i++)
		item_clear(&s->items[i]);
	for (size_t p = 0; p < s->n_projects; p++) {
		for (int i = 0; i < SVC_SETTINGS_N; i++)
			item_clear(&s->projects[p].items[i]);
		free(s->projects[p].dir);
		free(s->projects[p].real);
	}
	free(s->projects);
	free(s->file);
	memset(s, 0, sizeof(*s));
}

const struct svc_setting *svc_settings_at(const struct svc_settings *s, enum svc_setting_id id)
{
	if (id >= SVC_SETTINGS_N)
		TE_BUG("no such setting id");
	return &s->items[id];
}

static const struct svc_setting *by_name(const struct svc_settings *s, const char *name)
{
	for (int i = 0; i < SVC_SETTINGS_N; i++)
		if (strcmp(table[i].name, name) == 0)
			return &s->items[i];
	return NULL;
}

const char *svc_settings_get(const struct svc_settings *s, const char *name)
{
	const struct svc_setting *it = by_name(s, name);

	return it ? it->text : NULL;
}

const char *svc_settings_source(const struct svc_settings *s, const char *name)
{
	const struct svc_setting *it = by_name(s, name);

	return it ? it->source : NULL;
}

static char **push_new(char **v, char *const *add)
{
	for (size_t i = 0; add && add[i]; i++) {
		bool seen = false;

		for (size_t j = 0; v && v[j] && !seen; j++)
			seen = strcmp(v[j], add[i]) == 0;
		if (!seen)
			v = te_strv_push(v, xstrdup(add[i]));
	}
	return v;
}

char **svc_settings_list_for(const struct svc_settings *s, enum svc_setting_id id, const char *project_dir)
{
	te_autofree char *want = project_dir ? dir_key(project_dir) : NULL;
	char **v = push_new(NULL, svc_settings_at(s, id)->list);

	for (size_t p = 0; want && p < s->n_projects; p++)
		if (strcmp(s->projects[p].real, want) == 0)
			v = push_new(v, s->projects[p].items[id].list);
	return v;
}

char **svc_settings_allow_for(const struct svc_settings *s, const char *project_dir)
{
	return svc_settings_list_for(s, SVC_SET_ALLOW, project_dir);
}
