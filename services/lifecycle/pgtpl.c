/* Templates built from migrations: the hash that names them and the build
 * (pgtpl.h). The pool refill and gc are in pgpool.c. */
#include "services/lifecycle/pgtpl.h"
#include "services/lifecycle/drvrun.h"
#include "services/lifecycle/ops.h"
#include "services/model/compose.h"
#include "services/model/plan.h"
#include "drivers/postgres.h"
#include "engine/engine.h"
#include "state/ledger.h"
#include "state/secrets.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/fault.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HASH_MAX_BYTES (256u << 20)
#define HASH_MAX_DEPTH 32
#define TAIL_LINES 16
#define TAIL_LINE_MAX 200

/* ---- the hash ---- */

struct hasher {
	EVP_MD_CTX *md;
	char root[PATH_MAX]; /* the project directory, resolved */
	size_t bytes;
};

/* Every field ends in a NUL, so no two field lists hash alike. */
static void put_str(struct hasher *h, const char *s)
{
	EVP_DigestUpdate(h->md, s, strlen(s) + 1);
}

static void put_strv(struct hasher *h, const char *what, char *const *v)
{
	put_str(h, what);
	for (size_t i = 0; v && v[i]; i++)
		put_str(h, v[i]);
	put_str(h, "");
}

static bool inside(const char *root, const char *real)
{
	size_t n = strlen(root);

	return strncmp(real, root, n) == 0 && (real[n] == '/' || real[n] == '\0');
}

static int hash_file(struct hasher *h, const char *real, const char *rel, const struct stat *st,
		     struct te_err *err)
{
	char buf[65536], size[32];
	int fd = open(real, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	ssize_t r = 0;

	if (fd < 0)
		return te_err_set(err, TE_E_USAGE, "template input '%s': %s", rel, strerror(errno));
	snprintf(size, sizeof(size), "%lld", (long long)st->st_size);
	put_str(h, "file");
	put_str(h, rel);
	put_str(h, size);
	while ((r = read(fd, buf, sizeof(buf))) > 0 && h->bytes + (size_t)r <= HASH_MAX_BYTES) {
		h->bytes += (size_t)r;
		EVP_DigestUpdate(h->md, buf, (size_t)r);
	}
	close(fd);
	if (r < 0)
		return te_err_set(err, TE_E_USAGE, "template input '%s': %s", rel, strerror(errno));
	if (r > 0)
		return te_err_set(err, TE_E_USAGE, "template inputs pass %u MiB (at '%s')",
				  HASH_MAX_BYTES >> 20, rel);
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of directory REAL, sorted (".", ".." left out). Owned. */
static char **dir_names(const char *real, const char *rel, size_t *n, struct te_err *err)
{
	DIR *d = opendir(real);
	struct dirent *e;
	char **v = NULL;

	*n = 0;
	if (!d)
		return te_err_set(err, TE_E_USAGE, "template input '%s': %s", rel, strerror(errno)), NULL;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
			v = te_strv_push(v, xstrdup(e->d_name));
			(*n)++;
		}
	closedir(d);
	if (!v)
		v = xcalloc(1, sizeof(*v));
	qsort(v, *n, sizeof(*v), cmp_names);
	return v;
}

/* PATH, named REL in the hash and in messages: resolved (every symlink),
 * inside the project, a file or a directory walked in name order. */
static int hash_path(struct hasher *h, const char *path, const char *rel, int depth, struct te_err *err)
{
	char real[PATH_MAX];
	struct stat st;
	te_autostrv char **names = NULL;
	size_t n;

	if (!realpath(path, real))
		return te_err_set(err, TE_E_USAGE, "template input '%s': %s", rel, strerror(errno));
	if (!inside(h->root, real))
		return te_err_set(err, TE_E_USAGE,
				  "template input '%s' leads outside the project directory (to %s)", rel,
				  real);
	if (stat(real, &st) < 0)
		return te_err_set(err, TE_E_USAGE, "template input '%s': %s", rel, strerror(errno));
	if (S_ISREG(st.st_mode))
		return hash_file(h, real, rel, &st, err);
	if (!S_ISDIR(st.st_mode))
		return te_err_set(err, TE_E_USAGE, "template input '%s' is neither a file nor a directory",
				  rel);
	if (depth >= HASH_MAX_DEPTH)
		return te_err_set(err, TE_E_USAGE,
				  "template input '%s': directories nested too deep (a symlink loop?)", rel);
	names = dir_names(real, rel, &n, err);
	if (!names)
		return -1;
	put_str(h, "dir");
	put_str(h, rel);
	for (size_t i = 0; i < n; i++) {
		te_autofree char *child = xasprintf("%s/%s", real, names[i]);
		te_autofree char *crel = xasprintf("%s/%s", rel, names[i]);

		if (hash_path(h, child, crel, depth + 1, err) < 0)
			return -1;
	}
	return 0;
}

int svc_tmpl_hash(const char *project_dir, char *const *inputs, char *const *entrypoint, char *const *command,
		  const char *image_id, const char *server_id, const char *ledger_id, char hex[65],
		  struct te_err *err)
{
	struct hasher h = {.md = EVP_MD_CTX_new()};
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned int dn = 0;
	int rc = 0;

	if (!h.md || EVP_DigestInit_ex(h.md, EVP_sha256(), NULL) != 1)
		TE_BUG("EVP sha256 unavailable");
	if (!realpath(project_dir, h.root)) {
		EVP_MD_CTX_free(h.md);
		return te_err_set(err, TE_E_USAGE, "project directory '%s': %s", project_dir,
				  strerror(errno));
	}
	put_str(&h, "taskenv-template-1");
	put_str(&h, ledger_id);
	put_str(&h, h.root);
	put_str(&h, server_id);
	put_str(&h, image_id);
	put_strv(&h, "entrypoint", entrypoint);
	put_strv(&h, "command", command);
	put_str(&h, "inputs");
	for (size_t i = 0; rc == 0 && inputs && inputs[i]; i++) {
		te_autofree char *path = xasprintf("%s/%s", h.root, inputs[i]);

		rc = hash_path(&h, path, inputs[i], 0, err);
	}
	EVP_DigestFinal_ex(h.md, d, &dn);
	EVP_MD_CTX_free(h.md);
	for (unsigned int i = 0; i < 32 && i < dn; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
	return rc;
}

/* ---- the build ---- */

/* The last lines a migration printed, for the error and the events. */
struct tail {
	char *lines[TAIL_LINES];
	size_t n; /* lines seen */
};

static int tail_line(void *ctx, int stream, const char *line, size_t n)
{
	struct tail *t = ctx;
	char **slot = &t->lines[t->n++ % TAIL_LINES];

	free(*slot);
	*slot = xstrndup(line, n < TAIL_LINE_MAX ? n : TAIL_LINE_MAX);
	return 0;
}

/* The last lines, oldest first, each after "  | ", at most MAX bytes. Owned. */
static char *tail_text(const struct tail *t, size_t max)
{
	te_autobuf struct te_buf b = TE_BUF_INIT(0);
	size_t first = t->n > TAIL_LINES ? t->n - TAIL_LINES : 0;

	for (size_t i = first; i < t->n; i++)
		te_buf_addf(&b, "\n  | %s", t->lines[i % TAIL_LINES]);
	if (b.len > max) {
		char *cut = xasprintf("\n  | ...%s", b.data + b.len - max);

		return cut;
	}
	return te_buf_detach(&b);
}

static void tail_release(struct tail *t)
{
	for (size_t i = 0; i < TAIL_LINES; i++)
		free(t->lines[i]);
}

struct build {
	struct svc_tmpl_ctx *x;
	const struct svc_resource *r;
	const struct svc_drv_target *t;
	const struct svc_plan_container *c;
	char hash[65];
	char *name;
	struct drv_pg_tpl *pg; /* holds the template lock */
	struct drv_recorder *rec;
	long long row;
};

static void step(const struct build *b, const char *what)
{
	if (b->x->progress)
		b->x->progress(b->x->progress_ctx, "postgres-template", b->name, what);
}

static const struct svc_plan_container *plan_container(const struct svc_plan *plan, const char *service)
{
	for (size_t i = 0; i < plan->n_containers; i++)
		if (strcmp(plan->containers[i].svc->name, service) == 0)
			return &plan->containers[i];
	return NULL;
}

/* Name the template: the hash of the inputs, the command, the image. */
static int name_it(struct build *b, struct te_err *err)
{
	const struct svc_tmpl_build *tb = b->r->build;
	const struct svc_service *s;
	te_autojson cJSON *img = NULL;
	te_autofree char *server = drv_pg_server_id(b->t->server);
	const char *id;

	b->c = plan_container(b->x->plan, tb->service);
	if (!b->c)
		return te_err_set(err, TE_E_USAGE, "template.migrate: no service '%s' in the plan",
				  tb->service);
	s = b->c->svc;
	if (engine_image_inspect(b->x->e, b->c->image, &img, err) < 0)
		return te_err_prefix(err, "template.migrate: service '%s': ", tb->service);
	id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(img, "Id"));
	if (svc_tmpl_hash(b->x->plan->project->dir, tb->inputs, s->entrypoint,
			  tb->command ? tb->command : s->command, id ? id : b->c->image, server,
			  state_ledger_id(b->x->l), b->hash, err) < 0)
		return -1;
	b->name = drv_pg_template_name(b->hash);
	return 0;
}

/* The "_pg" row of the template, 0 when there is none; *CREATED says
 * whether it is created (the ledger's word for ready). */
static long long tmpl_row(struct ledger *l, const char *name, bool *created, struct te_err *err)
{
	struct state_resource *rows = NULL;
	size_t n = 0;
	long long id = 0;

	*created = false;
	if (state_resource_list(l, SVC_PG_OWNER, false, &rows, &n, err) < 0)
		return -1;
	for (size_t i = 0; i < n && !id; i++)
		if (strcmp(rows[i].kind, "postgres-template") == 0 && strcmp(rows[i].name, name) == 0) {
			id = rows[i].id;
			*created = strcmp(rows[i].state, STATE_CREATED) == 0;
		}
	state_resources_free(rows, n);
	return id;
}

int svc_tmpl_built(struct ledger *l, const char *tmpl, bool *built, struct te_err *err)
{
	long long row = tmpl ? tmpl_row(l, tmpl, built, err) : 0;

	if (!tmpl)
		*built = false;
	return row < 0 ? -1 : 0;
}

static bool granted(char *const *allow, const char *tmpl)
{
	te_autofree char *want = xasprintf("template:%s", tmpl);

	for (size_t i = 0; allow && allow[i]; i++)
		if (strcmp(allow[i], want) == 0)
			return true;
	return false;
}

/* Cloning a system database copies what every task's server holds (roles'
 * objects, extensions' state); another task's copies its data. */
static int refuse_template(struct ledger *l, const struct svc_resource *r, char *const *allow,
			   struct te_err *err)
{
	static const char *const system[] = {"postgres", "template0", "template1"};
	static const char *const held[] = {"postgres-database", "postgres-pool"};
	const struct svc_loc *at = r->tmpl_loc.line ? &r->tmpl_loc : &r->loc;
	bool built = false;
	int rc;

	for (size_t i = 0; i < sizeof(system) / sizeof(system[0]); i++)
		if (strcmp(r->tmpl, system[i]) == 0)
			return te_err_set(err, TE_E_POLICY,
					  "%s:%d:%d: resource '%s': template: '%s' is a system database: "
					  "refused (no exception opens it)",
					  at->file, at->line, at->col, r->key, r->tmpl);
	for (size_t i = 0; i < sizeof(held) / sizeof(held[0]); i++) {
		rc = state_resource_held(l, held[i], r->tmpl, err);
		if (rc < 0)
			return -1;
		if (rc > 0)
			return te_err_set(err, TE_E_POLICY,
					  "%s:%d:%d: resource '%s': template: '%s' is a task's database in "
					  "this ledger: refused (no exception opens it)",
					  at->file, at->line, at->col, r->key, r->tmpl);
	}
	if (svc_tmpl_built(l, r->tmpl, &built, err) < 0)
		return -1;
	if (built || granted(allow, r->tmpl))
		return 0;
	return te_err_set(
	    err, TE_E_POLICY,
	    "%s:%d:%d: resource '%s': template: '%s' is not granted (needs --allow template:%s, "
	    "or allow: [template:%s] in the user config file)",
	    at->file, at->line, at->col, r->key, r->tmpl, r->tmpl, r->tmpl);
}

/* Drivers talk to a server: over http(s) (RabbitMQ's API, S3) or libpq
 * (postgresql://): no file://, no keyword=value conninfo. The drivers
 * check again at each connection (CURLOPT_PROTOCOLS_STR, drv_pg_url_ok). */
static int check_scheme(const struct svc_resource *r, struct te_err *err)
{
	bool pg = strcmp(r->driver, "postgres") == 0;
	const char *u = r->server;

	if (!u || (pg && drv_pg_url_ok(u)) ||
	    (!pg && (strncmp(u, "http://", 7) == 0 || strncmp(u, "https://", 8) == 0)))
		return 0;
	const struct svc_loc *at = r->server_loc.line ? &r->server_loc : &r->loc;

	return te_err_set(err, TE_E_USAGE, "%s:%d:%d: resource '%s': server: must be %s", at->file, at->line,
			  at->col, r->key,
			  pg ? "a postgresql:// URL whose parameters pick only the server and the login (no "
			       "passfile, sslkey, service, ...)"
			     : "an http:// or https:// URL");
}

int svc_resources_schemes(const struct svc_project *project, struct te_err *err)
{
	for (size_t i = 0; i < project->n_resources; i++)
		if (check_scheme(&project->resources[i], err) < 0)
			return -1;
	return 0;
}

int svc_resources_admit(struct ledger *l, const struct svc_project *project, char *const *allow,
			struct te_err *err)
{
	for (size_t i = 0; i < project->n_resources; i++) {
		const struct svc_resource *r = &project->resources[i];

		if (check_scheme(r, err) < 0)
			return -1;
		if (r->tmpl && !r->build && strcmp(r->driver, "postgres") == 0 &&
		    refuse_template(l, r, allow, err) < 0)
			return -1;
	}
	return 0;
}

/* The variables the service's x-taskenv.env names, from VALUES with the
 * resource's own values replaced by the template's. Owned "K=V" list. */
static char **migrate_env(struct build *b, const cJSON *values, const char *password, struct te_err *err)
{
	const struct drv_ops *ops = drv_find("postgres");
	te_autofree char *detail = drv_pg_tpl_detail(b->pg);
	te_autojson cJSON *vals = values ? cJSON_Duplicate(values, 1) : cJSON_CreateObject();
	te_autojson cJSON *env = cJSON_CreateArray();
	cJSON *mine = ops->describe(detail, password, b->t->container_host, b->t->container_port, err);
	const cJSON *e;
	char **out = NULL;

	if (!mine)
		return NULL;
	cJSON_DeleteItemFromObjectCaseSensitive(vals, b->r->key);
	cJSON_AddItemToObject(vals, b->r->key, mine);
	if (svc_drivers_inject(b->c->svc, vals, env, err) < 0) {
		te_err_prefix(err, "template migration (resources are provisioned in file order): ");
		return NULL;
	}
	out = xcalloc(1, sizeof(*out));
	cJSON_ArrayForEach (e, env)
		out = te_strv_push(out, xstrdup(cJSON_GetStringValue(e)));
	return out;
}

static char *argv_text(char *const *v)
{
	te_autobuf struct te_buf b = TE_BUF_INIT(0);

	for (size_t i = 0; v && v[i]; i++)
		te_buf_addf(&b, "%s%s", i ? " " : "", v[i]);
	return b.len ? te_buf_detach(&b) : xstrdup("(the service's own command)");
}

/* Run the migration; on exit status 0 the template is marked ready. */
static int migrate(struct build *b, const cJSON *values, const char *password, struct te_err *err)
{
	const struct svc_tmpl_build *tb = b->r->build;
	te_autostrv char **env = migrate_env(b, values, password, err);
	struct tail tail = {0};
	struct svc_run_opts o = {.service = tb->service,
				 .cmd = tb->command,
				 .env = env,
				 .rm = true,
				 .output = tail_line,
				 .output_ctx = &tail,
				 .plan = b->x->plan};
	te_autofree char *what = xasprintf("migrating (one-off container of service '%s')", tb->service);
	te_autofree char *run = NULL;
	te_autofree char *cmd = argv_text(tb->command);
	te_autofree char *out = NULL;
	te_autofree char *msg = NULL;
	te_autofree char *event = NULL;
	struct te_err ignored = {0};
	int code = -1, rc;

	if (!env)
		return -1;
	step(b, what);
	rc = svc_run(b->x->e, b->x->l, b->x->plan->task, &o, &code, &run, err);
	out = tail_text(&tail, 600);
	tail_release(&tail);
	if (rc < 0)
		return te_err_prefix(err, "template %s: migration (service '%s'): ", b->name, tb->service);
	msg = xasprintf("template %s: migration `%s` (service '%s', container %s) exited %d%s", b->name, cmd,
			tb->service, run, code, *out ? ", last output:" : "");
	/* The output stays in the events, the build's record. */
	event = xasprintf("%s%s", msg, out);
	state_event_add(b->x->l, b->x->plan->task, NULL, event, &ignored);
	if (code != 0)
		return te_err_set(err, TE_E_FAIL, "%s", event);
	te_fault_point("before-ready", "postgres-template", b->name);
	return drv_pg_tpl_mark_ready(b->pg, err);
}

/* Under the lock, with the template absent or left by a killed build:
 * row, objects, migration, ready. A failure drops what was made. */
static int build_locked(struct build *b, const cJSON *values, struct te_err *err)
{
	te_autofree char *sname = drv_secret_server(b->name);
	te_autofree char *detail = drv_pg_tpl_detail(b->pg);
	te_autofree char *password = NULL;
	struct te_err e2 = {0};

	if (state_secret_put(b->x->l, SVC_PG_OWNER, sname, b->t->server, err) < 0 ||
	    drv_task_password(b->rec, b->name, &password, err) < 0 ||
	    b->rec->intend(b->rec->ctx, "postgres-template", b->name, detail, &b->row, err) < 0)
		return -1;
	step(b, "building");
	te_fault_point("before-create", "postgres-template", b->name);
	if (drv_pg_tpl_create(b->pg, password, err) < 0)
		return -1;
	te_fault_point("after-create", "postgres-template", b->name);
	if (migrate(b, values, password, err) == 0)
		return b->rec->created(b->rec->ctx, b->row, b->name, err);
	/* Nothing half-built stays marked or recorded as a template. */
	if (drv_pg_tpl_drop(b->pg, &e2) == 0)
		state_resource_set_state(b->x->l, b->row, STATE_REMOVED, &e2);
	step(b, "failed");
	return -1;
}

static int ready_or_build(struct build *b, const cJSON *values, struct te_err *err)
{
	enum drv_pg_tpl_state st;
	bool created;
	long long row;
	int rc =
	    drv_pg_tpl_open(b->t->server, state_ledger_id(b->x->l), b->name, b->hash, false, &b->pg, err);

	if (rc == 1) {
		step(b, "waiting (another up builds it)");
		rc = drv_pg_tpl_open(b->t->server, state_ledger_id(b->x->l), b->name, b->hash, true, &b->pg,
				     err);
	}
	if (rc < 0 || drv_pg_tpl_state(b->pg, &st, err) < 0)
		return -1;
	if (st != DRV_PG_TPL_READY)
		return build_locked(b, values, err);
	/* Ready on the server: a build killed between its ready mark and its
	 * ledger update is recorded now (its migration had exited 0). */
	row = tmpl_row(b->x->l, b->name, &created, err);
	if (row < 0)
		return -1;
	step(b, "ready");
	if (created)
		return 0;
	{
		te_autofree char *sname = drv_secret_server(b->name);
		te_autofree char *detail = drv_pg_tpl_detail(b->pg);

		if (state_secret_put(b->x->l, SVC_PG_OWNER, sname, b->t->server, err) < 0 ||
		    b->rec->intend(b->rec->ctx, "postgres-template", b->name, detail, &b->row, err) < 0)
			return -1;
		return b->rec->created(b->rec->ctx, b->row, b->name, err);
	}
}

int svc_tmpl_prepare(void *ctx, const struct svc_resource *r, const struct svc_drv_target *t,
		     const cJSON *values, char **tmpl, struct te_err *err)
{
	struct build b = {.x = ctx, .r = r, .t = t};
	bool created = false;
	long long row;
	int rc = -1;

	*tmpl = NULL;
	if (name_it(&b, err) < 0)
		goto out;
	b.rec = svc_recorder_new(b.x->l, SVC_PG_OWNER, b.name);
	row = tmpl_row(b.x->l, b.name, &created, err);
	if (row < 0)
		goto out;
	/* Created in the ledger means ready: no lock, no session. Touched: the
	 * last use gc goes by; a touch fails once gc is removing it, and then
	 * it is built again. */
	if (created && state_resource_touch(b.x->l, row, err) < 0) {
		if (err->code != TE_E_NOTFOUND)
			goto out;
		te_err_clear(err);
		created = false;
	}
	if (!created) {
		if (ready_or_build(&b, values, err) < 0)
			goto out;
		row = tmpl_row(b.x->l, b.name, &created, err);
		if (row <= 0 || state_resource_touch(b.x->l, row, err) < 0)
			goto out;
	}
	b.x->used = te_strv_push(b.x->used, xstrdup(b.name));
	*tmpl = TE_STEAL(b.name);
	rc = 0;
out:
	drv_pg_tpl_close(b.pg);
	svc_recorder_free(b.rec);
	free(b.name);
	return rc;
}
