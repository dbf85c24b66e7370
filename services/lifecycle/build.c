#define TE_WITH_CJSON
#include "services/lifecycle/build.h"
#include "services/model/compose.h"
#include "services/lifecycle/context.h"
#include "services/model/plan.h"
#include "services/model/boundary.h"
#include "engine/build.h"
#include "engine/engine.h"

#include "common/buf.h"
#include "common/cleanup.h"
#include "common/err.h"
#include "common/mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add_param(struct te_buf *q, struct engine *e, const char *key, const char *value)
{
	te_autofree char *v = engine_escape(e, value);

	te_buf_addf(q, "%s%s=%s", q->len ? "&" : "", key, v);
}

static void add_json_param(struct te_buf *q, struct engine *e, const char *key, const cJSON *j)
{
	te_autofree char *text = cJSON_PrintUnformatted(j);

	add_param(q, e, key, text);
}

static cJSON *args_json(const struct svc_build *b)
{
	cJSON *o = cJSON_CreateObject();

	for (size_t i = 0; i < b->n_args; i++)
		if (b->args[i].value)
			cJSON_AddStringToObject(o, b->args[i].key, b->args[i].value);
	return o;
}

static cJSON *labels_json(const struct svc_plan *plan, const struct svc_plan_container *c)
{
	const struct svc_build *b = &c->svc->build;
	te_autojson cJSON *ours = svc_plan_labels(plan, "image", c->svc->name);
	cJSON *o = cJSON_CreateObject();
	cJSON *it;

	for (size_t i = 0; i < b->n_labels; i++)
		if (!cJSON_GetObjectItemCaseSensitive(ours, b->labels[i].key))
			cJSON_AddStringToObject(o, b->labels[i].key,
						b->labels[i].value ? b->labels[i].value : "");
	cJSON_ArrayForEach (it, ours)
		cJSON_AddStringToObject(o, it->string, it->valuestring);
	return o;
}

/* dockerd reads extrahosts as a repeated parameter (r.Form), Podman's
 * compat handler as one JSON array (and answers 400 to anything else). */
static void add_extra_hosts(struct te_buf *q, struct engine *e, char *const *hosts)
{
	te_autojson cJSON *a = NULL;

	if (!hosts || !hosts[0])
		return;
	if (!e || strcmp(engine_flavor(e), "podman") != 0) {
		for (size_t i = 0; hosts[i]; i++)
			add_param(q, e, "extrahosts", hosts[i]);
		return;
	}
	a = cJSON_CreateArray();
	for (size_t i = 0; hosts[i]; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(hosts[i]));
	add_json_param(q, e, "extrahosts", a);
}

char *svc_build_query(struct engine *e, const struct svc_plan *plan, const struct svc_plan_container *c,
		      const char *dockerfile)
{
	const struct svc_build *b = &c->svc->build;
	te_autobuf struct te_buf q = TE_BUF_INIT(0);
	te_autojson cJSON *args = args_json(b);
	te_autojson cJSON *labels = labels_json(plan, c);

	add_param(&q, e, "t", c->image);
	add_param(&q, e, "dockerfile", dockerfile);
	add_json_param(&q, e, "buildargs", args);
	add_json_param(&q, e, "labels", labels);
	if (b->target)
		add_param(&q, e, "target", b->target);
	if (b->network)
		add_param(&q, e, "networkmode", b->network);
	if (b->shm_size)
		te_buf_addf(&q, "&shmsize=%lld", b->shm_size);
	add_extra_hosts(&q, e, b->extra_hosts);
	if (b->cache_from && b->cache_from[0]) {
		te_autojson cJSON *cf = cJSON_CreateArray();

		for (size_t i = 0; b->cache_from[i]; i++)
			cJSON_AddItemToArray(cf, cJSON_CreateString(b->cache_from[i]));
		add_json_param(&q, e, "cachefrom", cf);
	}
	if (b->pull == 1)
		te_buf_adds(&q, "&pull=1");
	te_buf_adds(&q, "&rm=1&forcerm=1");
	/* Podman's /build (buildah) commits every step as an image carrying the
	 * labels= of the final one, so a task's labels would be left on untagged
	 * layer images (and a failed build would leave them behind). Without
	 * layers it commits only the result; the price is no layer cache. */
	if (e && strcmp(engine_flavor(e), "podman") == 0)
		te_buf_adds(&q, "&layers=0");
	return te_buf_detach(&q);
}

struct line_ctx {
	svc_progress_fn fn;
	void *ctx;
	const char *service;
};

static void on_line(void *ctx, const char *line)
{
	struct line_ctx *lc = ctx;

	if (lc->fn)
		lc->fn(lc->ctx, "build", lc->service, line);
}

static void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

/* PATH (relative to DIR unless absolute) resolves, every symlink followed,
 * inside the project: taskenv reads it and sends what it read to the
 * engine, so a context of $HOME or a Dockerfile "../../etc/shadow" (or a
 * symlink to either, made after `check`) would ship the host. */
static int check_inside(const struct svc_plan *plan, const struct svc_plan_container *c, const char *dir,
			const char *path, const char *what, struct te_err *err)
{
	const struct svc_loc *at = &c->svc->build.loc;
	te_autofree char *joined = path[0] == '/' ? xstrdup(path) : xasprintf("%s/%s", dir, path);
	te_autofree char *root = svc_project_boundary(plan->project->dir);
	te_autofree char *real = realpath(joined, NULL);

	if (!root || !real)
		return te_err_set(err, TE_E_IO, "service '%s': build %s '%s': %s", c->svc->name, what, joined,
				  strerror(errno));
	if (!svc_path_within(real, root))
		return te_err_set(err, TE_E_POLICY,
				  "%s:%d:%d: service '%s': build: %s '%s' resolves to '%s', outside the "
				  "project '%s': refused",
				  at->file ? at->file : "compose file", at->line, at->col, c->svc->name, what,
				  path, real, root);
	return 0;
}

int svc_build_image(struct engine *e, const struct svc_plan *plan, const struct svc_plan_container *c,
		    svc_progress_fn progress, void *progress_ctx, struct te_err *err)
{
	const struct svc_build *b = &c->svc->build;
	__attribute__((cleanup(fclosep))) FILE *tar = tmpfile();
	te_autofree char *dockerfile = NULL;
	te_autofree char *query = NULL;
	struct line_ctx lc = {progress, progress_ctx, c->svc->name};

	if (!tar)
		return te_err_set(err, TE_E_IO, "service '%s': temporary file for the build context: %s",
				  c->svc->name, strerror(errno));
	if (check_inside(plan, c, b->context, ".", "context", err) < 0 ||
	    (!b->dockerfile_inline &&
	     check_inside(plan, c, b->context, b->dockerfile ? b->dockerfile : "Dockerfile", "dockerfile",
			  err) < 0))
		return -1;
	if (svc_context_pack(b->context, b->dockerfile, b->dockerfile_inline, tar, &dockerfile, err) < 0)
		return te_err_prefix(err, "service '%s': ", c->svc->name);
	if (fflush(tar) != 0)
		return te_err_set(err, TE_E_IO, "service '%s': build context: %s", c->svc->name,
				  strerror(errno));
	query = svc_build_query(e, plan, c, dockerfile);
	if (engine_build(e, query, tar, on_line, &lc, err) < 0)
		return te_err_prefix(err, "service '%s': ", c->svc->name);
	return 0;
}
