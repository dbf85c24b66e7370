/* `up`: containers found, created, recreated or started, after their
 * depends_on conditions (apply_int.h). */
#include "services/lifecycle/apply.h"
#include "services/lifecycle/reskind.h"
#include "services/lifecycle/inuse.h"
#include "services/lifecycle/apply_int.h"
#include "services/lifecycle/allowed.h"
#include "services/model/compose.h"
#include "services/model/task.h"
#include "services/model/plan.h"
#include "services/model/config_hash.h"
#include "services/lifecycle/health.h"
#include "services/lifecycle/drvrun.h"
#include "engine/connect.h"
#include "common/fault.h"
#include "engine/engine.h"
#include "state/ledger.h"
#include "common/err.h"
#include "common/mem.h"
#include "common/buf.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <stdio.h>
#include <string.h>

static int connect_more(struct up *u, const struct svc_plan_container *c, const char *id, struct te_err *err)
{
	for (size_t i = 1; c->networks && c->networks[i]; i++) {
		te_fault_point("before-connect", "container", c->name);
		if (engine_network_connect(u->e, c->networks[i], id, c->aliases, err) < 0)
			return -1;
		te_fault_point("after-connect", "container", c->name);
	}
	return 0;
}

static int start_container(struct up *u, const struct svc_plan_container *c, const char *id,
			   struct te_err *err)
{
	te_fault_point("before-start", "container", c->name);
	if (engine_container_start(u->e, id, err) < 0)
		return te_err_prefix(err, "service '%s': start container '%s': ", c->svc->name, c->name);
	te_fault_point("after-start", "container", c->name);
	up_step(u, "container", c->name, "started");
	return 0;
}

/* What the Compose file declared for the container, kept in the ledger row
 * so `verify` can tell a declared host path from one added by hand:
 * {"declared_mounts":[{"type":"bind","source":ABS,"target","read_only"} |
 *  {"type":"volume","source":ENGINE NAME or null (anonymous),"target","read_only"}],
 *  "restart_with":[SERVICE...]} (the dependencies it has with restart: true),
 *  "allowed": svc_allowed_of(its create body) (lifecycle/allowed.h)}. */
static int record_detail(struct up *u, const struct svc_plan_container *c, long long row, struct te_err *err)
{
	te_autojson cJSON *d = cJSON_CreateObject();
	te_autofree char *text = NULL;
	cJSON *a = cJSON_AddArrayToObject(d, "declared_mounts");

	for (size_t i = 0; i < c->svc->n_mounts; i++) {
		const struct svc_mount *m = &c->svc->mounts[i];
		const struct svc_plan_volume *v = m->type == SVC_MOUNT_VOLUME && m->source
						      ? svc_plan_volume_by_key(u->plan, m->source)
						      : NULL;
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "type", m->type == SVC_MOUNT_BIND ? "bind" : "volume");
		if (m->type == SVC_MOUNT_BIND || v)
			cJSON_AddStringToObject(o, "source", m->type == SVC_MOUNT_BIND ? m->source : v->name);
		else
			cJSON_AddNullToObject(o, "source");
		cJSON_AddStringToObject(o, "target", m->target);
		cJSON_AddBoolToObject(o, "read_only", m->read_only);
		cJSON_AddItemToArray(a, o);
	}
	if (c->svc->engine_broker && u->plan->broker_dir) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "type", "bind");
		cJSON_AddStringToObject(o, "source", u->plan->broker_dir);
		cJSON_AddStringToObject(o, "target", SVC_BROKER_TARGET);
		cJSON_AddBoolToObject(o, "read_only", true);
		cJSON_AddBoolToObject(o, "broker", true); /* x-taskenv.engine: broker */
		cJSON_AddItemToArray(a, o);
	}
	/* The judged HostConfig fields of the body this container is (or was)
	 * created from, for verify's "hostconfig" check. */
	{
		te_autojson cJSON *body =
		    svc_plan_container_body(u->plan, c, u->host_ports[c - u->plan->containers]);

		cJSON *allowed = svc_allowed_of(body);

		svc_allowed_add_networks(allowed, c->networks);
		cJSON_AddItemToObject(d, "allowed", allowed);
	}
	/* depends_on ... restart: true: `taskenv restart DEP` restarts this one too. */
	a = cJSON_AddArrayToObject(d, "restart_with");
	for (size_t i = 0; i < c->svc->n_deps; i++)
		if (c->svc->deps[i].restart)
			cJSON_AddItemToArray(a, cJSON_CreateString(c->svc->deps[i].service));
	/* Its dependency level: `down` stops and removes level by level, the
	 * deepest first, with or without the file. */
	cJSON_AddNumberToObject(d, "level", c->level);
	text = cJSON_PrintUnformatted(d);
	return state_resource_set_detail(u->l, row, text, err);
}

/* The image id C runs: what the hash is made of, so a rebuilt or re-pulled
 * image is a change. Owned; NULL when the engine does not say. */
static char *image_id(struct up *u, const struct svc_plan_container *c)
{
	te_autojson cJSON *img = NULL;
	struct te_err ignored;

	if (engine_image_inspect(u->e, c->image, &img, &ignored) < 0)
		return NULL;
	const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(img, "Id"));

	return id ? xstrdup(id) : NULL;
}

static bool plan_volume_named(const struct svc_plan *plan, const char *name)
{
	for (size_t i = 0; i < plan->n_volumes; i++)
		if (strcmp(plan->volumes[i].name, name) == 0)
			return true;
	return false;
}

static void set_label(cJSON *labels, const char *key, const char *value)
{
	cJSON_DeleteItemFromObjectCaseSensitive(labels, key);
	cJSON_AddStringToObject(labels, key, value ? value : "");
}

/* The body container IDX is created from, as every `up` would make it
 * (driver values injected), with its configuration hash on it. *PARTS:
 * the per-part hashes (owned). Owned; NULL on error. */
static cJSON *wanted_body(struct up *u, size_t idx, char **hash, char **parts, struct te_err *err)
{
	const struct svc_plan_container *c = &u->plan->containers[idx];
	cJSON *body = svc_plan_container_body(u->plan, c, u->host_ports[idx]);
	cJSON *env = cJSON_GetObjectItemCaseSensitive(body, "Env");
	cJSON *labels = cJSON_GetObjectItemCaseSensitive(body, "Labels");
	te_autofree char *img = image_id(u, c);

	if (!env)
		env = cJSON_AddArrayToObject(body, "Env");
	if (svc_drivers_inject(c->svc, u->values, env, err) < 0) {
		cJSON_Delete(body);
		return NULL;
	}
	*hash = svc_config_hash(body, img, c->networks && c->networks[0] ? c->networks + 1 : NULL, parts);
	set_label(labels, SVC_LABEL_CONFIG_HASH, *hash);
	set_label(labels, SVC_LABEL_CONFIG_PARTS, *parts);
	set_label(labels, SVC_LABEL_COMPOSE_IMAGE, img ? img : c->image);
	return body;
}

/* Create NAME from BODY (borrowed) and record it in ROW; *ID owned. */
static int create_as(struct up *u, size_t idx, const char *name, const cJSON *body, long long row, char **id,
		     struct te_err *err)
{
	const struct svc_plan_container *c = &u->plan->containers[idx];

	te_fault_point("before-create", "container", name);
	te_fault_soon("during-create", "container", name);
	if (engine_container_create(u->e, name, body, id, err) < 0)
		return te_err_prefix(err, "service '%s': create container '%s': ", c->svc->name, name);
	te_fault_point("after-create", "container", name);
	if (state_resource_created(u->l, row, *id, err) < 0)
		return -1;
	if (connect_more(u, c, *id, err) < 0)
		return te_err_prefix(err, "service '%s': ", c->svc->name);
	return 0;
}

static int maybe_start(struct up *u, const struct svc_plan_container *c, const char *id, struct te_err *err)
{
	return u->opts->no_start ? 0 : start_container(u, c, id, err);
}

static int create_container(struct up *u, size_t idx, long long row, const cJSON *body, struct te_err *err)
{
	const struct svc_plan_container *c = &u->plan->containers[idx];
	te_autofree char *id = NULL;

	if (create_as(u, idx, c->name, body, row, &id, err) < 0 || record_detail(u, c, row, err) < 0)
		return -1;
	up_step(u, "container", c->name, "created");
	return maybe_start(u, c, id, err);
}

/* Was a container of service NAME recreated by this `up`? */
static bool svc_recreated(const struct up *u, const char *name)
{
	for (size_t i = 0; i < u->plan->n_containers; i++)
		if (u->recreated[i] && strcmp(u->plan->containers[i].svc->name, name) == 0)
			return true;
	return false;
}

/* "service:NAME" or "NAME[:MODE]" (volumes_from) naming a recreated service. */
static bool points_at_recreated(const struct up *u, const char *ref, bool prefixed)
{
	const struct svc_service *s = up_service_ref(u->plan->project, ref, prefixed);

	return s && svc_recreated(u, s->name);
}

/* A container that joined a recreated one (network_mode, ipc, pid
 * service:X, volumes_from X) points at the old container's id: it must be
 * recreated too. The reason, or NULL. */
static const char *follows_recreated(const struct up *u, const struct svc_service *s)
{
	if (points_at_recreated(u, s->network_mode, true))
		return "network_mode service: recreated";
	if (points_at_recreated(u, s->ipc, true) || points_at_recreated(u, s->pid, true))
		return "ipc/pid service: recreated";
	for (size_t i = 0; s->volumes_from && s->volumes_from[i]; i++)
		if (points_at_recreated(u, s->volumes_from[i], false))
			return "volumes_from recreated";
	return NULL;
}

/* Why container IDX (inspect answer OBJ) must be recreated, owned, or NULL. */
static char *recreate_reason(const struct up *u, size_t idx, const cJSON *obj, const char *hash,
			     const char *parts)
{
	const cJSON *labels = cJSON_GetObjectItem(cJSON_GetObjectItem(obj, "Config"), "Labels");
	const char *old =
	    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(labels, SVC_LABEL_CONFIG_HASH));
	const char *old_parts =
	    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(labels, SVC_LABEL_CONFIG_PARTS));
	const char *follows = follows_recreated(u, u->plan->containers[idx].svc);
	te_autofree char *changed = NULL;

	if (follows)
		return xstrdup(follows);
	if (!old || strcmp(old, hash) != 0) {
		changed = svc_config_changes(old ? old_parts : NULL, parts);
		return xasprintf("%s changed", changed ? changed : "configuration");
	}
	return u->opts->force_recreate ? xstrdup("--force-recreate") : NULL;
}

/* Anonymous volumes of the old container OLD at the targets BODY leaves
 * anonymous are given to the new one (as Compose does), so their data
 * survives the recreate. */
static void inherit_anonymous(struct up *u, cJSON *body, const cJSON *old)
{
	cJSON *anon = cJSON_GetObjectItemCaseSensitive(body, "Volumes");
	cJSON *hc = cJSON_GetObjectItemCaseSensitive(body, "HostConfig");
	cJSON *binds = cJSON_GetObjectItemCaseSensitive(hc, "Binds");
	const cJSON *m;

	if (!binds)
		binds = cJSON_AddArrayToObject(hc, "Binds");
	cJSON_ArrayForEach (m, cJSON_GetObjectItemCaseSensitive(old, "Mounts")) {
		const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "Type"));
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "Name"));
		const char *dest = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "Destination"));
		te_autofree char *b = NULL;

		if (!type || strcmp(type, "volume") != 0 || !name || !dest ||
		    !cJSON_GetObjectItemCaseSensitive(anon, dest))
			continue;
		if (plan_volume_named(u->plan, name))
			continue;
		b = xasprintf("%s:%s", name, dest);
		cJSON_AddItemToArray(binds, cJSON_CreateString(b));
		cJSON_DeleteItemFromObjectCaseSensitive(anon, dest);
	}
}

/* The old container's anonymous volumes the new one did not take: they
 * would be left behind by a removal that keeps volumes. */
static void drop_untaken(struct up *u, const cJSON *old, const cJSON *body)
{
	const cJSON *binds =
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItem(body, "HostConfig"), "Binds");
	const cJSON *m;

	cJSON_ArrayForEach (m, cJSON_GetObjectItemCaseSensitive(old, "Mounts")) {
		const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "Type"));
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "Name"));
		bool taken = false;
		const cJSON *b;
		struct te_err ignored;

		if (!type || strcmp(type, "volume") != 0 || !name || plan_volume_named(u->plan, name))
			continue;
		cJSON_ArrayForEach (b, binds) {
			const char *v = cJSON_GetStringValue(b);
			size_t n = strlen(name);

			taken = taken || (v && strncmp(v, name, n) == 0 && v[n] == ':');
		}
		if (!taken)
			engine_volume_remove(u->e, name, false, &ignored);
	}
}

static int stop_seconds(const struct svc_service *s)
{
	return s->stop_grace_ns ? (int)((s->stop_grace_ns + 999999999) / 1000000000) : 10;
}

/* The old container OLD_ID (ledger row ROW) goes: stopped, then removed
 * with its volumes kept (the new container has the anonymous ones). */
static int retire(struct up *u, const struct svc_plan_container *c, const char *old_id, long long row,
		  struct te_err *err)
{
	te_fault_point("before-stop", "container", c->name);
	if (engine_container_stop(u->e, old_id, stop_seconds(c->svc), err) < 0 && err->code != TE_E_NOTFOUND)
		return te_err_prefix(err, "service '%s': stop container '%s': ", c->svc->name, c->name);
	te_fault_point("after-stop", "container", c->name);
	if (state_resource_set_state(u->l, row, STATE_REMOVING, err) < 0)
		return -1;
	te_fault_point("before-remove", "container", c->name);
	if (engine_container_remove_keep_volumes(u->e, old_id, true, err) < 0 && err->code != TE_E_NOTFOUND)
		return te_err_prefix(err, "service '%s': remove container '%s': ", c->svc->name, c->name);
	te_fault_point("after-remove", "container", c->name);
	return state_resource_set_state(u->l, row, STATE_REMOVED, err);
}

/* The new container, made under "<old id:12>_<name>", takes the name:
 * the engine's, then the ledger row's. */
static int take_name(struct up *u, const struct svc_plan_container *c, const char *id, long long row,
		     struct te_err *err)
{
	te_fault_point("before-rename", "container", c->name);
	if (engine_container_rename(u->e, id, c->name, err) < 0)
		return te_err_prefix(err, "service '%s': rename container to '%s': ", c->svc->name, c->name);
	te_fault_point("after-rename", "container", c->name);
	if (state_resource_rename(u->l, row, c->name, err) < 0)
		return -1;
	return record_detail(u, c, row, err);
}

/* As Compose recreates: the new container is created beside the old one
 * under a temporary name, with the old one's anonymous volumes; then the
 * old one is stopped and removed and the new one takes its name. Each
 * step through the ledger, so a crash at any point leaves rows that name
 * what exists (up_recover finishes or undoes it). */
static int recreate_container(struct up *u, size_t idx, const cJSON *old, long long row, cJSON *body,
			      const char *why, struct te_err *err)
{
	const struct svc_plan_container *c = &u->plan->containers[idx];
	const char *old_id = cJSON_GetStringValue(cJSON_GetObjectItem(old, "Id"));
	te_autofree char *tmp = xasprintf("%.12s_%s", old_id ? old_id : "", c->name);
	te_autofree char *id = NULL;
	te_autofree char *what = NULL;
	long long new_row;

	inherit_anonymous(u, body, old);
	if (state_resource_intend(u->l, u->plan->task, svc_res_kind_name(SVC_RES_CONTAINER), tmp,
				  c->svc->name, &new_row, err) < 0 ||
	    create_as(u, idx, tmp, body, new_row, &id, err) < 0 || retire(u, c, old_id, row, err) < 0)
		return -1;
	drop_untaken(u, old, body);
	if (take_name(u, c, id, new_row, err) < 0)
		return -1;
	u->recreated[idx] = true;
	what = xasprintf("recreated (%s)", why);
	up_step(u, "container", c->name, what);
	return maybe_start(u, c, id, err);
}

/* depends_on: {restart: true} on a service this `up` recreated: restart. */
static const char *restart_for(const struct up *u, const struct svc_service *s)
{
	for (size_t i = 0; i < s->n_deps; i++)
		if (s->deps[i].restart && svc_recreated(u, s->deps[i].service))
			return s->deps[i].service;
	return NULL;
}

static int keep_container(struct up *u, size_t idx, const cJSON *obj, const char *id, const char *kept,
			  struct te_err *err)
{
	const struct svc_plan_container *c = &u->plan->containers[idx];
	bool running = cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(obj, "State"), "Running"));
	const char *dep = restart_for(u, c->svc);

	up_step(u, "container", c->name, kept ? kept : "unchanged");
	if (running && dep) {
		te_autofree char *what = xasprintf("restarted (%s was recreated)", dep);

		if (engine_container_stop(u->e, id, stop_seconds(c->svc), err) < 0 ||
		    engine_container_start(u->e, id, err) < 0)
			return te_err_prefix(err, "service '%s': restart: ", c->svc->name);
		up_step(u, "container", c->name, what);
		return 0;
	}
	return running ? 0 : maybe_start(u, c, id, err);
}

int up_ensure_container(struct up *u, size_t idx, struct te_err *err)
{
	const struct svc_plan_container *c = &u->plan->containers[idx];
	te_autojson cJSON *obj = NULL;
	te_autojson cJSON *body = NULL;
	te_autofree char *hash = NULL;
	te_autofree char *parts = NULL;
	te_autofree char *why = NULL;
	te_autofree char *kept = NULL;
	const char *id;
	long long row;

	if (!u->selected[idx])
		return 0;
	body = wanted_body(u, idx, &hash, &parts, err);
	if (!body)
		return -1;
	if (state_resource_intend(u->l, u->plan->task, svc_res_kind_name(SVC_RES_CONTAINER), c->name,
				  c->svc->name, &row, err) < 0)
		return -1;
	if (engine_container_inspect(u->e, c->name, &obj, err) < 0) {
		if (err->code != TE_E_NOTFOUND)
			return te_err_prefix(err, "service '%s': ", c->svc->name);
		return create_container(u, idx, row, body, err);
	}
	if (!up_owned(u->plan, obj))
		return up_not_ours(u, row, "container", c->name, err);
	id = cJSON_GetStringValue(cJSON_GetObjectItem(obj, "Id"));
	if (state_resource_created(u->l, row, id, err) < 0 || record_detail(u, c, row, err) < 0)
		return -1;
	why = recreate_reason(u, idx, obj, hash, parts);
	if (why && u->opts->no_recreate && !u->port_moved[idx])
		kept = xasprintf("kept (--no-recreate; %s)", why);
	else if (why)
		return recreate_container(u, idx, obj, row, body, why, err);
	return keep_container(u, idx, obj, id, kept, err);
}

#define FAILURE_LOG_LINES 20

/* The dependency's container that did not get there: how it ended and
 * its last log lines, for `up --json` and the evidence. */
static void note_failure(struct up *u, const char *container, const char *service)
{
	struct svc_up_failure *f = u->opts->failure;
	te_autojson cJSON *obj = NULL;
	te_autobuf struct te_buf log = TE_BUF_INIT(64 * 1024);
	struct te_err ignored;
	const cJSON *st;
	const char *status;

	if (!f)
		return;
	svc_up_failure_release(f);
	snprintf(f->service, sizeof(f->service), "%s", service);
	snprintf(f->container, sizeof(f->container), "%s", container);
	f->exit_code = -1;
	if (engine_container_inspect(u->e, container, &obj, &ignored) < 0)
		return;
	st = cJSON_GetObjectItemCaseSensitive(obj, "State");
	status = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(st, "Status"));
	snprintf(f->status, sizeof(f->status), "%s", status ? status : "");
	if (status && (strcmp(status, "exited") == 0 || strcmp(status, "dead") == 0))
		f->exit_code = (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(st, "ExitCode"));
	if (engine_container_logs(u->e, container, FAILURE_LOG_LINES, &log, &ignored) == 0)
		f->log_tail = xstrndup(log.data ? log.data : "", log.len);
}

/* One depends_on condition on every replica of the dependency. With
 * required: false a dependency that does not get there is said and
 * passed over, as Compose only warns then. */
static int wait_dep(struct up *u, const struct svc_service *s, const struct svc_dep *dep, struct te_err *err)
{
	for (size_t i = 0; i < u->plan->n_containers; i++) {
		const struct svc_plan_container *c = &u->plan->containers[i];
		te_autofree char *what = NULL;

		/* up SERVICE --no-deps: what was not chosen is not waited for. */
		if (strcmp(c->svc->name, dep->service) != 0 || !u->selected[i])
			continue;
		up_step(u, "container", c->name, dep->condition);
		if (svc_wait_condition(u->e, c->name, dep->service, dep->condition, u->opts->wait_timeout_s,
				       err) == 0) {
			if (strcmp(dep->condition, "service_completed_successfully") == 0)
				up_step(u, "container", c->name, "exited 0");
			continue;
		}
		if (dep->required) {
			/* What happened, not what was waited for: "exited 3". */
			note_failure(u, c->name, dep->service);
			if (u->opts->failure && u->opts->failure->exit_code >= 0) {
				te_autofree char *ended = xasprintf("exited %d", u->opts->failure->exit_code);

				up_step(u, "container", c->name, ended);
			}
			return te_err_prefix(err, "service '%s' depends on '%s': ", s->name, dep->service);
		}
		what = xasprintf("warning: %s (required: false, so '%s' starts anyway): %s", dep->condition,
				 s->name, err->msg);
		up_step(u, "container", c->name, what);
		te_err_clear(err);
	}
	return 0;
}

/* depends_on conditions of container IDX (its first replica waits for
 * all): its dependencies are earlier in the plan, so they have been
 * started already. */
int up_wait_deps(struct up *u, size_t idx, struct te_err *err)
{
	const struct svc_service *s = u->plan->containers[idx].svc;

	for (size_t d = 0; u->plan->containers[idx].number == 1 && d < s->n_deps; d++)
		if (strcmp(s->deps[d].condition, "service_started") != 0 &&
		    wait_dep(u, s, &s->deps[d], err) < 0)
			return -1;
	return 0;
}

/* up --wait: every service with a healthcheck is healthy. */
int up_wait_all(struct up *u, struct te_err *err)
{
	for (size_t i = 0; u->opts->wait && i < u->plan->n_containers; i++) {
		const struct svc_plan_container *c = &u->plan->containers[i];

		if (!u->selected[i] || !c->svc->health.set || c->svc->health.disable || !c->svc->health.test)
			continue;
		if (svc_wait_condition(u->e, c->name, c->svc->name, "service_healthy",
				       u->opts->wait_timeout_s, err) < 0)
			return -1;
		up_step(u, "container", c->name, "healthy");
	}
	return 0;
}
