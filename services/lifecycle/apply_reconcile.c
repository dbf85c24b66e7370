/* `up` as a reconciler (docs/up.md): which containers `up SERVICE...`
 * touches, recreates a crash cut short, and orphans (apply_int.h). */
#include "services/lifecycle/apply.h"
#include "services/lifecycle/apply_int.h"
#include "services/lifecycle/reskind.h"
#include "services/lifecycle/teardown.h"
#include "services/lifecycle/inuse.h"
#include "services/model/compose.h"
#include "services/model/plan.h"
#include "engine/engine.h"
#include "state/ledger.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <string.h>

/* "<12 hex>_<name>": the temporary name of a recreate; *REAL the name. */
static bool temp_name(const char *name, const char **real)
{
	for (int i = 0; i < 12; i++)
		if (!strchr("0123456789abcdef", name[i]) || !name[i])
			return false;
	if (name[12] != '_' || !name[13])
		return false;
	*real = name + 13;
	return true;
}

static bool is_container(const struct state_resource *r)
{
	return svc_res_kind_of(r->kind) == SVC_RES_CONTAINER;
}

/* A removal cut short: finished (the object gone, the row removed). */
static int finish_removal(struct up *u, const struct state_resource *r, struct te_err *err)
{
	te_autojson cJSON *obj = NULL;

	if (svc_res_inspect(u->e, r->kind, r->name, r->engine_id, &obj, err) < 0) {
		if (err->code != TE_E_NOTFOUND)
			return -1;
		te_err_clear(err);
		return state_resource_set_state(u->l, r->id, STATE_REMOVED, err);
	}
	if (!up_owned(u->plan, obj))
		return state_resource_set_state(u->l, r->id, STATE_REMOVED, err);
	if (engine_container_remove_keep_volumes(u->e, cJSON_GetStringValue(cJSON_GetObjectItem(obj, "Id")),
						 true, err) < 0 &&
	    err->code != TE_E_NOTFOUND)
		return -1;
	up_step(u, "container", r->name, "removed (a removal was interrupted)");
	return state_resource_set_state(u->l, r->id, STATE_REMOVED, err);
}

/* A recreate cut short: row R names the new container under its
 * temporary name. The old one still there: the new one goes (the loop
 * recreates again). The old one gone: the new one takes the name. */
static int finish_recreate(struct up *u, const struct state_resource *r, const char *real, struct te_err *err)
{
	te_autojson cJSON *obj = NULL;
	te_autojson cJSON *cur = NULL;
	const char *id, *cur_id;

	if (svc_res_inspect(u->e, r->kind, r->name, r->engine_id, &obj, err) < 0) {
		if (err->code != TE_E_NOTFOUND)
			return -1;
		te_err_clear(err);
		return state_resource_set_state(u->l, r->id, STATE_REMOVED, err);
	}
	if (!up_owned(u->plan, obj))
		return state_resource_set_state(u->l, r->id, STATE_REMOVED, err);
	id = cJSON_GetStringValue(cJSON_GetObjectItem(obj, "Id"));
	if (!r->engine_id && state_resource_created(u->l, r->id, id, err) < 0)
		return -1;
	if (engine_container_inspect(u->e, real, &cur, err) == 0) {
		cur_id = cJSON_GetStringValue(cJSON_GetObjectItem(cur, "Id"));
		if (cur_id && id && strcmp(cur_id, id) == 0)
			return state_resource_rename(u->l, r->id, real, err);
		if (state_resource_set_state(u->l, r->id, STATE_REMOVING, err) < 0 ||
		    (engine_container_remove_keep_volumes(u->e, id, true, err) < 0 &&
		     err->code != TE_E_NOTFOUND))
			return -1;
		up_step(u, "container", r->name, "removed (a recreate was interrupted)");
		return state_resource_set_state(u->l, r->id, STATE_REMOVED, err);
	}
	if (err->code != TE_E_NOTFOUND)
		return -1;
	if (engine_container_rename(u->e, id, real, err) < 0)
		return te_err_prefix(err, "finish an interrupted recreate of '%s': ", real);
	up_step(u, "container", real, "renamed (an interrupted recreate finished)");
	return state_resource_rename(u->l, r->id, real, err);
}

int up_recover(struct up *u, struct te_err *err)
{
	struct state_resource *rows = NULL;
	size_t n = 0;
	int rc = 0;
	const char *real;

	if (state_resource_list(u->l, u->plan->task, false, &rows, &n, err) < 0)
		return -1;
	/* Removals first: a recreate's old container must be gone from the
	 * ledger before the new one takes its name there. */
	for (size_t i = 0; rc == 0 && i < n; i++)
		if (is_container(&rows[i]) && strcmp(rows[i].state, STATE_REMOVING) == 0)
			rc = finish_removal(u, &rows[i], err);
	for (size_t i = 0; rc == 0 && i < n; i++)
		if (is_container(&rows[i]) && strcmp(rows[i].state, STATE_REMOVING) != 0 &&
		    temp_name(rows[i].name, &real))
			rc = finish_recreate(u, &rows[i], real, err);
	state_resources_free(rows, n);
	return rc;
}

int up_orphans(struct up *u, struct te_err *err)
{
	struct state_resource *rows = NULL;
	size_t n = 0;
	int rc = 0;
	const char *real;

	if (state_resource_list(u->l, u->plan->task, false, &rows, &n, err) < 0)
		return -1;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		const struct state_resource *r = &rows[i];
		te_autofree char *what = NULL;

		if (!is_container(r) || !r->service || svc_project_service(u->plan->project, r->service) ||
		    temp_name(r->name, &real))
			continue;
		if (u->opts->remove_orphans) {
			rc = svc_down_container(u->e, u->l, u->plan->task, r, SVC_STOP_OWN, u->opts->progress,
						u->opts->progress_ctx, err);
			continue;
		}
		what = xasprintf("warning: orphan: service '%s' is not in the file "
				 "('taskenv up --remove-orphans' removes it)",
				 r->service);
		up_step(u, "container", r->name, what);
	}
	state_resources_free(rows, n);
	return rc;
}

const struct svc_service *up_service_ref(const struct svc_project *p, const char *ref, bool prefixed)
{
	char name[256];

	if (!ref || (prefixed && strncmp(ref, "service:", 8) != 0) ||
	    (!prefixed && strncmp(ref, "container:", 10) == 0))
		return NULL;
	ref += prefixed ? 8 : 0;
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(ref, ":"), ref);
	return svc_project_service(p, name);
}

/* Mark S and, unless NO_DEPS, everything it needs, in WANT (by index). */
static void want_service(const struct svc_project *p, const struct svc_service *s, bool *want, bool no_deps)
{
	const struct svc_service *d;

	if (!s || want[s - p->services])
		return;
	want[s - p->services] = true;
	if (no_deps)
		return;
	for (size_t i = 0; i < s->n_deps; i++)
		want_service(p, svc_project_service(p, s->deps[i].service), want, no_deps);
	for (size_t i = 0; s->volumes_from && s->volumes_from[i]; i++)
		want_service(p, up_service_ref(p, s->volumes_from[i], false), want, no_deps);
	d = up_service_ref(p, s->network_mode, true);
	want_service(p, d, want, no_deps);
	want_service(p, up_service_ref(p, s->ipc, true), want, no_deps);
	want_service(p, up_service_ref(p, s->pid, true), want, no_deps);
}

int up_select(struct up *u, struct te_err *err)
{
	const struct svc_project *p = u->plan->project;
	te_autofree bool *want = xcalloc(p->n_services + 1, sizeof(bool));
	char *const *names = u->opts->services;

	u->selected = xcalloc(u->plan->n_containers + 1, sizeof(bool));
	u->recreated = xcalloc(u->plan->n_containers + 1, sizeof(bool));
	u->port_moved = xcalloc(u->plan->n_containers + 1, sizeof(bool));
	for (size_t i = 0; names && names[i]; i++) {
		const struct svc_service *s = svc_project_service(p, names[i]);

		if (!s)
			return te_err_set(err, TE_E_USAGE, "no such service: '%s'", names[i]);
		want_service(p, s, want, u->opts->no_deps);
	}
	for (size_t i = 0; i < u->plan->n_containers; i++)
		u->selected[i] = !names || !names[0] || want[u->plan->containers[i].svc - p->services];
	return 0;
}
