/* verify's hostconfig check: what the gate allowed at creation (the
 * ledger's "allowed" record) against each live container's HostConfig. */
#include "services/contract/verify_int.h"
#include "services/contract/verify.h"
#include "services/lifecycle/allowed.h"
#include "services/lifecycle/reskind.h"
#include "engine/engine.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The "allowed" record of the row that holds container NAME (a service
 * container or a task's own server), or NULL. *ROW_FOUND: some row does. */
static cJSON *allowed_record(struct verify *v, const char *name, bool *row_found)
{
	*row_found = false;
	for (size_t i = 0; i < v->s.n_res; i++) {
		const struct state_resource *r = &v->s.res[i];
		te_autojson cJSON *d = NULL;
		cJSON *a;

		if (!svc_res_kind_container(r->kind) || strcmp(r->name, name) != 0)
			continue;
		*row_found = true;
		d = r->detail ? cJSON_Parse(r->detail) : NULL;
		a = cJSON_DetachItemFromObjectCaseSensitive(d, "allowed");
		if (a)
			return a;
	}
	return NULL;
}

static bool is_join(const char *mode)
{
	return strncmp(mode, "container:", 10) == 0 || strcmp(mode, "host") == 0 ||
	       strncmp(mode, "ns:", 3) == 0;
}

/* The id "container:REF" names, or NULL. Owned. */
static char *joined_id(struct verify *v, const char *mode)
{
	te_autojson cJSON *o = NULL;
	struct te_err ignored;

	if (strncmp(mode, "container:", 10) != 0 ||
	    engine_container_inspect(v->e, mode + 10, &o, &ignored) < 0)
		return NULL;
	return xstrdup(svc_json_str(o, "Id", NULL));
}

static void check_ns(struct verify *v, const char *cname, const cJSON *hc, const cJSON *allowed,
		     const char *field, const char *why)
{
	const char *live = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(hc, field));
	const char *was = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(allowed, field));
	te_autofree char *live_id = NULL;
	te_autofree char *was_id = NULL;

	if (!live || !is_join(live) || (was && strcmp(live, was) == 0))
		return;
	/* The engine's own default when the body set none: dockerd on cgroup
	 * v1 (or with default-cgroupns-mode host) reports "host". */
	if (strcmp(field, "CgroupnsMode") == 0 && strcmp(live, "host") == 0 && (!was || !*was))
		return;
	live_id = joined_id(v, live);
	was_id = was ? joined_id(v, was) : NULL;
	if (live_id && was_id && strcmp(live_id, was_id) == 0)
		return;
	svc_verify_result(v, "hostconfig", cname, SVC_VERIFY_FAIL,
			  "HostConfig.%s is '%s' (a namespace join); %s '%s'", field, live, why,
			  was && *was ? was : "its own");
}

/* "CAP_SYS_ADMIN" and "sys_admin" are one capability; "x:y" and "x=y",
 * and "no-new-privileges" and "no-new-privileges:true", one option. */
static char *norm_cap(const char *c)
{
	char *n = xstrdup(strncasecmp(c, "CAP_", 4) == 0 ? c + 4 : c);

	for (char *p = n; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	return n;
}

static char *norm_opt(const char *o)
{
	char *n = strcmp(o, "no-new-privileges") == 0 ? xstrdup("no-new-privileges=true") : xstrdup(o);
	char *colon = strchr(n, ':');

	if (colon && (!strchr(n, '=') || colon < strchr(n, '=')))
		*colon = '=';
	return n;
}

static bool listed(const cJSON *a, const char *want, char *(*norm)(const char *))
{
	te_autofree char *w = norm ? norm(want) : xstrdup(want);
	const cJSON *it;

	cJSON_ArrayForEach (it, a) {
		te_autofree char *x =
		    cJSON_IsString(it) ? (norm ? norm(it->valuestring) : xstrdup(it->valuestring)) : NULL;

		if (x && strcmp(x, w) == 0)
			return true;
	}
	return false;
}

static void check_list(struct verify *v, const char *cname, const cJSON *live, const cJSON *allowed,
		       const char *field, char *(*norm)(const char *), const char *why)
{
	const cJSON *it;

	cJSON_ArrayForEach (it, live) {
		const char *x = cJSON_IsString(it)
				    ? it->valuestring
				    : cJSON_GetStringValue(cJSON_GetObjectItem(it, "PathOnHost"));

		if (x && !listed(cJSON_GetObjectItemCaseSensitive(allowed, field), x, norm))
			svc_verify_result(v, "hostconfig", cname, SVC_VERIFY_FAIL,
					  "HostConfig.%s has '%s'; %s", field, x, why);
	}
}

/* Each bind source now: the engine resolves it again at every start (a
 * restart policy, a daemon restart), without asking taskenv. */
static void check_binds(struct verify *v, const char *cname, const cJSON *insp, const cJSON *allowed,
			const char *why)
{
	const cJSON *m;

	cJSON_ArrayForEach (m, cJSON_GetObjectItem(insp, "Mounts")) {
		const char *src = svc_json_str(m, "Source", NULL);
		te_autofree char *now = NULL;
		const cJSON *b, *hit = NULL;

		if (strcmp(svc_json_str(m, "Type", NULL), "bind") != 0 || !*src)
			continue;
		cJSON_ArrayForEach (b, cJSON_GetObjectItemCaseSensitive(allowed, "binds"))
			if (strcmp(svc_json_str(b, "source", NULL), src) == 0 ||
			    strcmp(svc_json_str(b, "real", NULL), src) == 0)
				hit = b;
		if (!hit) {
			svc_verify_result(v, "hostconfig", cname, SVC_VERIFY_FAIL,
					  "bind source '%s' (at %s); %s", src,
					  svc_json_str(m, "Destination", NULL), why);
			continue;
		}
		now = realpath(src, NULL);
		if (now && strcmp(now, svc_json_str(hit, "real", NULL)) != 0)
			svc_verify_result(
			    v, "hostconfig", cname, SVC_VERIFY_FAIL,
			    "bind source '%s' (at %s) now resolves to '%s', not '%s' as when the gate "
			    "allowed it: the engine mounts the new target at the container's next start",
			    src, svc_json_str(m, "Destination", NULL), now, svc_json_str(hit, "real", NULL));
	}
}

/* A network of this task in the ledger. */
static bool task_network(const struct verify *v, const char *name)
{
	for (size_t i = 0; i < v->s.n_res; i++)
		if (svc_res_kind_of(v->s.res[i].kind) == SVC_RES_NETWORK &&
		    strcmp(v->s.res[i].name, name) == 0)
			return true;
	return false;
}

/* Each network the container is on now: one of the task's, or one the
 * gate allowed it at creation (an external network granted). A network
 * connect needs no restart: another task's network joined by hand. */
static void check_networks(struct verify *v, const char *cname, const cJSON *insp, const cJSON *allowed,
			   const char *why)
{
	const cJSON *n;
	const cJSON *mine = cJSON_GetObjectItemCaseSensitive(allowed, "Networks");

	cJSON_ArrayForEach (n,
			    cJSON_GetObjectItem(cJSON_GetObjectItem(insp, "NetworkSettings"), "Networks")) {
		const cJSON *it;
		bool ok = task_network(v, n->string) || strcmp(n->string, "none") == 0;

		cJSON_ArrayForEach (it, mine)
			ok = ok || (cJSON_IsString(it) && strcmp(it->valuestring, n->string) == 0);
		if (!ok)
			svc_verify_result(v, "hostconfig", cname, SVC_VERIFY_FAIL,
					  "NetworkSettings.Networks has '%s', not a network of this task; %s",
					  n->string, why);
	}
}

static void check_hostconfig_one(struct verify *v, const cJSON *insp)
{
	const char *cname = svc_verify_name_of(insp);
	const cJSON *hc = cJSON_GetObjectItem(insp, "HostConfig");
	bool row = false;
	te_autojson cJSON *allowed = allowed_record(v, cname, &row);
	const char *why = "taskenv created it with";
	const char *lwhy = "not allowed when taskenv created it";
	int before = v->failed;

	if (row && !allowed) {
		svc_verify_result(v, "hostconfig", cname, SVC_VERIFY_NV,
				  "its ledger row has no record of what was allowed");
		return;
	}
	if (!row) {
		allowed = cJSON_CreateObject();
		why = "taskenv did not create this container, so nothing was allowed; its own would be";
		lwhy = "taskenv did not create this container: nothing was allowed";
	}
	for (size_t i = 0; svc_allowed_ns[i]; i++)
		check_ns(v, cname, hc, allowed, svc_allowed_ns[i], why);
	if (cJSON_IsTrue(cJSON_GetObjectItem(hc, "Privileged")) &&
	    !cJSON_IsTrue(cJSON_GetObjectItem(allowed, "Privileged")))
		svc_verify_result(v, "hostconfig", cname, SVC_VERIFY_FAIL,
				  "HostConfig.Privileged is true; %s", lwhy);
	check_list(v, cname, cJSON_GetObjectItem(hc, "CapAdd"), allowed, "CapAdd", norm_cap, lwhy);
	check_list(v, cname, cJSON_GetObjectItem(hc, "SecurityOpt"), allowed, "SecurityOpt", norm_opt, lwhy);
	check_list(v, cname, cJSON_GetObjectItem(hc, "Devices"), allowed, "Devices", NULL, lwhy);
	check_binds(v, cname, insp, allowed, lwhy);
	check_networks(v, cname, insp, allowed, lwhy);
	if (v->failed == before)
		svc_verify_result(
		    v, "hostconfig", cname, SVC_VERIFY_PASS,
		    "namespaces, privileged, cap_add, security_opt, devices, networks and the realpath of "
		    "every bind source are what the gate allowed at creation");
}

void svc_verify_hostconfig(struct verify *v)
{
	const cJSON *c;

	cJSON_ArrayForEach (c, v->live)
		check_hostconfig_one(v, cJSON_GetObjectItem(c, "inspect"));
}
