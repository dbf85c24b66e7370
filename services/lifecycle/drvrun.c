#include "services/lifecycle/drvrun.h"
#include "services/model/compose.h"
#include "state/ledger.h"
#include "state/secrets.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <ctype.h>
#include <string.h>

/* The recorder drivers write through: ledger rows and the secrets file. */
struct rec_ctx {
	struct ledger *l;
	const char *task;
	const char *key; /* the resource key, recorded as the row's service */
	svc_progress_fn progress;
	void *progress_ctx;
	/* The last rows intended, for progress (kind static, name the
	 * driver's, alive until its provision() returns). */
	struct {
		long long row;
		const char *kind, *name;
	} last[4];
	size_t n_last;
	/* The task's rows before this `up`: one already created is reported as
	 * "exists" (a re-`up` finds it), not "created". Owned. */
	struct state_resource *known;
	size_t n_known;
	long long found[4]; /* rows the driver found on its server (drv_recorder.found) */
	size_t n_found;
};

static bool known_created(const struct rec_ctx *c, long long row)
{
	for (size_t i = 0; i < c->n_known; i++)
		if (c->known[i].id == row)
			return strcmp(c->known[i].state, STATE_CREATED) == 0;
	return false;
}

static int rec_intend(void *ctx, const char *kind, const char *name, const char *detail, long long *row,
		      struct te_err *err)
{
	struct rec_ctx *c = ctx;

	if (state_resource_intend(c->l, c->task, kind, name, c->key, row, err) < 0)
		return -1;
	c->last[c->n_last % 4].row = *row;
	c->last[c->n_last % 4].kind = kind;
	c->last[c->n_last++ % 4].name = name;
	return state_resource_set_detail(c->l, *row, detail, err);
}

static void rec_found(void *ctx, long long row)
{
	struct rec_ctx *c = ctx;

	c->found[c->n_found++ % 4] = row;
}

static bool was_found(const struct rec_ctx *c, long long row)
{
	for (size_t i = 0; i < 4 && i < c->n_found; i++)
		if (c->found[i] == row)
			return true;
	return false;
}

/* What happened, not what the ledger expected: an object the ledger had
 * as created that the server no longer had (dropped by hand) is
 * "recreated"; one the server had is "exists". */
static const char *step_word(const struct rec_ctx *c, long long row)
{
	if (was_found(c, row))
		return "exists";
	return known_created(c, row) ? "recreated" : "created";
}

static int rec_created(void *ctx, long long row, const char *id, struct te_err *err)
{
	struct rec_ctx *c = ctx;

	if (state_resource_created(c->l, row, id, err) < 0)
		return -1;
	for (size_t i = 0; c->progress && i < 4 && i < c->n_last; i++)
		if (c->last[i].row == row)
			c->progress(c->progress_ctx, c->last[i].kind, c->last[i].name, step_word(c, row));
	return 0;
}

static int rec_get(void *ctx, const char *name, char **out, struct te_err *err)
{
	struct rec_ctx *c = ctx;

	return state_secret_get(c->l, c->task, name, out, err);
}

static int rec_put(void *ctx, const char *name, const char *value, struct te_err *err)
{
	struct rec_ctx *c = ctx;

	return state_secret_put(c->l, c->task, name, value, err);
}

/* Pool databases are made under SVC_PG_OWNER with the template as their
 * service; a claimed one becomes this task's row for this resource key. */
static int rec_claim(void *ctx, const char *kind, const char *group, bool take_new, char **name,
		     long long *row, struct te_err *err)
{
	struct rec_ctx *c = ctx;

	return state_resource_claim(c->l, SVC_PG_OWNER, kind, group, c->task, c->key, take_new, row, name,
				    err);
}

static int rec_consumed(void *ctx, long long row, struct te_err *err)
{
	struct rec_ctx *c = ctx;

	return state_resource_set_state(c->l, row, STATE_REMOVED, err);
}

struct svc_recorder {
	struct drv_recorder rec;
	struct rec_ctx c;
};

struct drv_recorder *svc_recorder_new(struct ledger *l, const char *task, const char *key)
{
	struct svc_recorder *r = xcalloc(1, sizeof(*r));

	r->c = (struct rec_ctx){.l = l, .task = task, .key = key};
	r->rec = (struct drv_recorder){&r->c,	rec_intend, rec_created,  rec_get,
				       rec_put, rec_claim,  rec_consumed, rec_found};
	return &r->rec;
}

void svc_recorder_free(struct drv_recorder *rec)
{
	free(rec);
}

/* The name an earlier `up` recorded for resource KEY's primary object. */
static const char *known_name(const struct rec_ctx *c, const char *kind, const char *key)
{
	for (size_t i = 0; i < c->n_known; i++)
		if (c->known[i].service && strcmp(c->known[i].service, key) == 0 &&
		    strcmp(c->known[i].kind, kind) == 0)
			return c->known[i].name;
	return NULL;
}

static cJSON *describe_key(struct ledger *l, const char *task, const struct drv_ops *ops, const char *key,
			   const char *host, const char *port, struct te_err *err);

static int up_one(struct ledger *l, const struct svc_resource *r, const struct svc_drv_target *t,
		  const char *task, struct rec_ctx *c, cJSON *values, struct te_err *err)
{
	const struct drv_ops *ops = drv_find(r->driver);
	te_autofree char *sname = drv_secret_server(r->key);
	te_autofree char *built = NULL;
	struct drv_recorder rec = {c,	    rec_intend, rec_created,  rec_get,
				   rec_put, rec_claim,	rec_consumed, rec_found};
	struct drv_spec spec = {task,	 state_ledger_id(l), r->key,	   t->server, r->isolation,
				r->tmpl, r->buckets,	     t->amqp_port, NULL,      false};
	cJSON *v;

	if (!ops)
		return te_err_set(err, TE_E_USAGE, "unknown driver '%s'", r->driver);
	if (state_secret_put(l, task, sname, t->server, err) < 0)
		return -1;
	c->key = r->key;
	if (t->prepare && t->prepare(t->prepare_ctx, r, t, values, &built, err) < 0)
		return -1;
	spec.tmpl = built ? built : r->tmpl;
	spec.built = built != NULL;
	spec.name = known_name(c, ops->primary_kind, r->key);
	if (ops->provision(&spec, &rec, err) < 0)
		return -1;
	v = describe_key(l, task, ops, r->key, t->container_host, t->container_port, err);
	if (!v)
		return -1;
	cJSON_AddItemToObject(values, r->key, v);
	return 0;
}

int svc_drivers_up(struct ledger *l, const struct svc_project *project, const char *task,
		   const struct svc_drv_target *targets, svc_progress_fn progress, void *progress_ctx,
		   cJSON **values, struct te_err *err)
{
	te_autojson cJSON *vals = cJSON_CreateObject();
	struct rec_ctx c = {.l = l, .task = task, .progress = progress, .progress_ctx = progress_ctx};
	int rc = 0;

	if (state_resource_list(l, task, false, &c.known, &c.n_known, err) < 0)
		return -1;
	for (size_t i = 0; rc == 0 && i < project->n_resources; i++) {
		const struct svc_resource *r = &project->resources[i];

		if (up_one(l, r, &targets[i], task, &c, vals, err) < 0)
			rc = te_err_prefix(err, "resource '%s' (driver %s): ", r->key, r->driver);
	}
	state_resources_free(c.known, c.n_known);
	if (rc == 0)
		*values = TE_STEAL(vals);
	return rc;
}

int svc_drivers_inject(const struct svc_service *s, const cJSON *values, cJSON *env, struct te_err *err)
{
	for (size_t i = 0; i < s->n_inject; i++) {
		const char *ref = s->inject[i].value;
		const char *dot = strchr(ref, '.');
		te_autofree char *key = xstrndup(ref, (size_t)(dot - ref));
		const char *v = cJSON_GetStringValue(
		    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(values, key), dot + 1));
		te_autofree char *line = NULL;

		if (!v)
			return te_err_set(err, TE_E_COMPOSE,
					  "%s:%d:%d: service '%s': resource '%s' has no '%s'",
					  s->inject[i].loc.file, s->inject[i].loc.line, s->inject[i].loc.col,
					  s->name, key, dot + 1);
		line = xasprintf("%s=%s", s->inject[i].key, v);
		cJSON_AddItemToArray(env, cJSON_CreateString(line));
	}
	return 0;
}

/* R as its driver sees it, with the admin URL and the password the
 * secrets of R's task keep for R: then teardown, or only the look-up. */
static int on_server(struct ledger *l, const struct state_resource *r, bool check_only, enum drv_removed *out,
		     struct te_err *err)
{
	const struct drv_ops *ops = drv_for_kind(r->kind);
	te_autofree char *sname = drv_secret_server(r->service ? r->service : "");
	te_autofree char *pname = drv_secret_password(r->service ? r->service : "");
	te_autofree char *server = NULL;
	te_autofree char *password = NULL;
	struct drv_ref ref;

	if (!ops)
		return te_err_set(err, TE_E_STATE, "no driver for resource kind '%s'", r->kind);
	if (check_only && !ops->check)
		return te_err_set(err, TE_E_FAIL, "driver %s cannot look its objects up", ops->name);
	if (state_secret_get(l, r->task, sname, &server, err) < 0 ||
	    state_secret_get(l, r->task, pname, &password, err) < 0)
		return -1;
	ref = (struct drv_ref){r->task, state_ledger_id(l), r->kind, r->name, r->detail, server, password};
	return check_only ? ops->check(&ref, out, err) : ops->teardown(&ref, out, err);
}

int svc_driver_check(struct ledger *l, const struct state_resource *r, enum drv_removed *out,
		     struct te_err *err)
{
	return on_server(l, r, true, out, err);
}

int svc_driver_down(struct ledger *l, const struct state_resource *r, enum drv_removed *out,
		    struct te_err *err)
{
	return on_server(l, r, false, out, err);
}

/* The primary row of resource KEY, described with the stored password. */
static cJSON *describe_key(struct ledger *l, const char *task, const struct drv_ops *ops, const char *key,
			   const char *host, const char *port, struct te_err *err)
{
	struct state_resource *rows = NULL;
	size_t n = 0;
	cJSON *out = NULL;
	te_autofree char *pname = drv_secret_password(key);
	te_autofree char *password = NULL;

	if (state_secret_get(l, task, pname, &password, err) < 0 ||
	    state_resource_list(l, task, false, &rows, &n, err) < 0)
		return NULL;
	for (size_t i = 0; i < n && !out; i++)
		if (rows[i].service && strcmp(rows[i].service, key) == 0 &&
		    strcmp(rows[i].kind, ops->primary_kind) == 0)
			out = ops->describe(rows[i].detail, password, host, port, err);
	state_resources_free(rows, n);
	if (!out && err->code == TE_OK)
		te_err_set(err, TE_E_NOTFOUND, "resource '%s' has no %s in the ledger", key,
			   ops->primary_kind);
	return out;
}

static char *env_name(const char *key, const char *field)
{
	char *k = xasprintf("TASKENV_%s_%s", key, field);

	for (char *c = k; *c; c++)
		*c = isalnum((unsigned char)*c) ? (char)toupper((unsigned char)*c) : '_';
	return k;
}

static void env_lines(const char *key, const cJSON *v, char ***lines)
{
	const cJSON *f;

	cJSON_ArrayForEach (f, v) {
		te_autofree char *k = env_name(key, f->string);

		*lines = te_strv_push(*lines, xasprintf("%s=%s", k, cJSON_GetStringValue(f)));
	}
}

cJSON *svc_driver_describe(struct ledger *l, const char *task, const char *kind, const char *key,
			   struct te_err *err)
{
	const struct drv_ops *ops = drv_for_kind(kind);

	if (!ops)
		return te_err_set(err, TE_E_FAIL, "no driver for kind '%s'", kind), NULL;
	return describe_key(l, task, ops, key, NULL, NULL, err);
}

int svc_drivers_env(struct ledger *l, const char *task, char ***lines, struct te_err *err)
{
	struct state_resource *rows = NULL;
	size_t n = 0;
	int rc = 0;

	if (state_resource_list(l, task, false, &rows, &n, err) < 0)
		return -1;
	for (size_t i = 0; i < n && rc == 0; i++) {
		const struct drv_ops *ops = drv_for_kind(rows[i].kind);
		te_autojson cJSON *v = NULL;
		bool seen = false;

		if (!ops || strcmp(rows[i].kind, ops->primary_kind) != 0 || !rows[i].service)
			continue;
		/* One resource may own several primary rows (s3 buckets). */
		for (size_t j = 0; j < i && !seen; j++)
			seen = rows[j].service && strcmp(rows[j].service, rows[i].service) == 0;
		if (seen)
			continue;
		v = describe_key(l, task, ops, rows[i].service, NULL, NULL, err);
		if (!v)
			rc = -1;
		else
			env_lines(rows[i].service, v, lines);
	}
	state_resources_free(rows, n);
	return rc;
}
