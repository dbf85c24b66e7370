#include "services/lifecycle/orphans.h"
#include "services/lifecycle/guard.h"
#include "services/lifecycle/reskind.h"
#include "engine/engine.h"
#include "state/ledger.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *label_of(const cJSON *obj, const char *key)
{
	return cJSON_GetStringValue(
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItem(obj, "Labels"), key));
}

/* Containers say "Created" in unix seconds, networks "Created" and volumes
 * "CreatedAt" in RFC 3339 (the offset is dropped: an age in the listing,
 * not a decision). */
static long long created_of(const cJSON *obj)
{
	const cJSON *c = cJSON_GetObjectItem(obj, "Created");
	const char *s;
	struct tm tm = {0};

	if (cJSON_IsNumber(c))
		return (long long)c->valuedouble;
	s = cJSON_GetStringValue(c ? c : cJSON_GetObjectItem(obj, "CreatedAt"));
	if (!s || sscanf(s, "%d-%d-%dT%d:%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
			 &tm.tm_min, &tm.tm_sec) != 6)
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (long long)timegm(&tm);
}

static struct svc_orphan_group *group_for(struct svc_orphan_group **v, size_t *n, const char *id)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*v)[i].ledger_id, id) == 0)
			return &(*v)[i];
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	memset(&(*v)[*n], 0, sizeof(**v));
	(*v)[*n].ledger_id = xstrdup(id);
	return &(*v)[(*n)++];
}

static void add_object(struct svc_orphan_group *g, enum svc_res_kind kind, const cJSON *obj)
{
	const char *task = label_of(obj, "io.taskenv.task");
	long long t = created_of(obj);
	bool have = false;

	*(kind == SVC_RES_CONTAINER ? &g->containers
	  : kind == SVC_RES_NETWORK ? &g->networks
				    : &g->volumes) += 1;
	for (size_t i = 0; task && g->tasks && g->tasks[i]; i++)
		have |= strcmp(g->tasks[i], task) == 0;
	if (task && !have)
		g->tasks = te_strv_push(g->tasks, xstrdup(task));
	if (t > 0 && (!g->oldest || t < g->oldest))
		g->oldest = t;
	if (t > g->newest)
		g->newest = t;
}

static int cmp_group(const void *a, const void *b)
{
	return strcmp(((const struct svc_orphan_group *)a)->ledger_id,
		      ((const struct svc_orphan_group *)b)->ledger_id);
}

static char *state_dir(const struct ledger *l)
{
	te_autofree char *p = xstrdup(state_path(l));

	return xstrdup(dirname(p));
}

int svc_orphans_list(struct engine *e, struct ledger *l, struct svc_orphan_group **out, size_t *n,
		     struct te_err *err)
{
	te_autofree char *dir = state_dir(l);
	struct svc_orphan_group *v = NULL;
	size_t m = 0;

	for (int i = 0; i < SVC_RES_COUNT; i++) {
		const struct svc_res_kind_ops *k = svc_res_kind(i);
		te_autojson cJSON *list = NULL;
		const cJSON *obj;

		if (!k->list || !k->entry_name)
			continue;
		if (k->list(e, "io.taskenv.ledger", &list, err) < 0) {
			svc_orphan_groups_free(v, m);
			return te_err_prefix(err, "gc --orphans: list %ss: ", k->name);
		}
		cJSON_ArrayForEach (obj, list) {
			const char *id = label_of(obj, "io.taskenv.ledger");

			if (id && *id && strcmp(id, state_ledger_id(l)) != 0)
				add_object(group_for(&v, &m, id), k->kind, obj);
		}
	}
	for (size_t i = 0; i < m; i++)
		if (state_ledger_find_id(dir, v[i].ledger_id, &v[i].ledger_file, err) < 0) {
			svc_orphan_groups_free(v, m);
			return -1;
		}
	if (m)
		qsort(v, m, sizeof(*v), cmp_group);
	*out = v;
	*n = m;
	return 0;
}

void svc_orphan_groups_free(struct svc_orphan_group *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].ledger_id);
		te_strv_free(v[i].tasks);
		free(v[i].ledger_file);
	}
	free(v);
}

struct group_rm {
	struct engine *e;
	struct ledger *l;
	const char *ledger_id;
	svc_progress_fn progress;
	void *pctx;
	size_t *removed;
	size_t *remaining;
};

/* One object of the group: labelled with its ledger id (checked again on
 * the entry itself), removed as gc removes this ledger's orphans; a failure
 * is counted and the rest goes on. */
static int remove_entry(void *ctx, const struct svc_res_kind_ops *k, const cJSON *obj, struct te_err *err)
{
	const struct group_rm *g = ctx;
	const char *name = k->entry_name(obj);
	const char *ref = cJSON_GetStringValue(cJSON_GetObjectItem(obj, k->entry_ref));
	struct engine *e = g->e;
	struct te_err e2 = {0};
	char what[sizeof(e2.msg) + 64];

	(void)err;
	if (!name || !ref || strcmp(label_of(obj, "io.taskenv.ledger") ?: "", g->ledger_id) != 0)
		return 0;
	if ((svc_res_before_remove(e, g->l, NULL, k->kind, ref, &e2) < 0 || k->remove(e, ref, -1, &e2) < 0) &&
	    e2.code != TE_E_NOTFOUND) {
		(*g->remaining)++;
		snprintf(what, sizeof(what), "orphan of ledger %s, failed: %s", g->ledger_id, e2.msg);
	} else {
		(*g->removed)++;
		snprintf(what, sizeof(what), "orphan of ledger %s, removed", g->ledger_id);
	}
	if (g->progress)
		g->progress(g->pctx, k->name, name, what);
	return 0;
}

int svc_orphans_remove(struct engine *e, struct ledger *l, const char *ledger_id, svc_progress_fn progress,
		       void *progress_ctx, size_t *removed, size_t *remaining, struct te_err *err)
{
	te_autofree char *dir = state_dir(l);
	te_autofree char *file = NULL;
	te_autofree char *label = xasprintf("io.taskenv.ledger=%s", ledger_id);
	struct group_rm g = {e, l, ledger_id, progress, progress_ctx, removed, remaining};
	int rc;

	*removed = *remaining = 0;
	if (strcmp(ledger_id, state_ledger_id(l)) == 0)
		return te_err_set(
		    err, TE_E_USAGE,
		    "ledger id '%s' is this ledger's own: its tasks go with `down`, its orphans "
		    "with `gc`",
		    ledger_id);
	rc = state_ledger_find_id(dir, ledger_id, &file, err);
	if (rc < 0)
		return -1;
	if (rc > 0)
		return te_err_set(
		    err, TE_E_CONFLICT,
		    "ledger id '%s' is held by the ledger file '%s': take its tasks down through "
		    "it (TASKENV_STATE=%s taskenv down -t TASK); nothing removed",
		    ledger_id, file, file);
	/* The checks above make this group's objects nobody's but that dead
	 * ledger's: the gate judges the removals as that ledger's. */
	svc_guard_ledger_id(e, l, ledger_id);
	rc = svc_res_each_labelled(e, label, "gc --orphans", remove_entry, &g, err);
	svc_guard_ledger_id(e, l, NULL);
	if (rc < 0)
		return -1;
	if (*remaining)
		return te_err_set(err, TE_E_REMAINS, "ledger id '%s': %zu object(s) could not be removed",
				  ledger_id, *remaining);
	return 0;
}
