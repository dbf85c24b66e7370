/* Who else uses a task's network or volume (inuse.h). */
#include "services/lifecycle/inuse.h"
#include "engine/connect.h"
#include "engine/engine.h"
#include "state/ledger.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *str_of(const cJSON *obj, const char *key)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(obj, key));
}

/* A list entry has "Labels", an inspect answer "Config.Labels". */
static const cJSON *labels_of(const cJSON *c)
{
	const cJSON *l = cJSON_GetObjectItemCaseSensitive(c, "Labels");

	if (!cJSON_IsObject(l))
		l = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(c, "Config"), "Labels");
	return l;
}

/* Networks is keyed by network name on both engines; its NetworkID is the
 * id on dockerd (empty before the first start), the name on Podman. */
static bool uses_network(const cJSON *c, const char *name, const char *id)
{
	const cJSON *nets = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(c, "NetworkSettings"), "Networks");
	const cJSON *n;

	cJSON_ArrayForEach (n, nets) {
		const char *nid = str_of(n, "NetworkID");

		if (n->string && strcmp(n->string, name) == 0)
			return true;
		if (nid && *nid && (strcmp(nid, name) == 0 || (id && strcmp(nid, id) == 0)))
			return true;
	}
	return false;
}

static bool uses_volume(const cJSON *c, const char *name)
{
	const cJSON *m;

	cJSON_ArrayForEach (m, cJSON_GetObjectItemCaseSensitive(c, "Mounts")) {
		const char *type = str_of(m, "Type");
		const char *n = str_of(m, "Name");

		if (type && n && strcmp(type, "volume") == 0 && strcmp(n, name) == 0)
			return true;
	}
	return false;
}

bool svc_container_uses(const cJSON *c, enum svc_res_kind kind, const char *name, const char *id)
{
	if (kind == SVC_RES_NETWORK)
		return uses_network(c, name, id);
	if (kind == SVC_RES_VOLUME)
		return uses_volume(c, name);
	return false;
}

/* TASK's own container, or (networks) one of this ledger's shared server
 * containers, which carry no task label: a task container always has one
 * (the plan writes it last), so a Compose file cannot pass for shared. */
static bool ours(const cJSON *c, struct ledger *l, const char *task, enum svc_res_kind kind)
{
	const cJSON *lab = labels_of(c);
	const char *led = str_of(lab, "io.taskenv.ledger");
	const char *t = str_of(lab, "io.taskenv.task");

	if (!led || strcmp(led, state_ledger_id(l)) != 0)
		return false;
	if (!t)
		return kind == SVC_RES_NETWORK && cJSON_GetObjectItemCaseSensitive(lab, "io.taskenv.shared");
	return task && strcmp(t, task) == 0;
}

struct users {
	struct engine *e;
	struct ledger *l;
	const char *task;
	enum svc_res_kind kind;
	const char *name;
	const char *id; /* the network's id, or NULL */
	char *names;	/* "'a', 'b'", owned */
	size_t n;
};

/* Ask container CID itself: a user when it exists, is not ours, and says
 * it uses the object, or the network says so (SAYS). Gone is no user. */
static int confirm(struct users *u, const char *cid, bool says, struct te_err *err)
{
	te_autojson cJSON *obj = NULL;
	const char *n;
	char *next;

	if (engine_container_inspect(u->e, cid, &obj, err) < 0) {
		if (err->code != TE_E_NOTFOUND)
			return -1;
		te_err_clear(err);
		return 0;
	}
	if (ours(obj, u->l, u->task, u->kind) || !(says || svc_container_uses(obj, u->kind, u->name, u->id)))
		return 0;
	n = str_of(obj, "Name");
	if (!n || !*n)
		n = cid;
	next = xasprintf("%s%s'%s'", u->names ? u->names : "", u->names ? ", " : "", *n == '/' ? n + 1 : n);
	free(u->names);
	u->names = next;
	u->n++;
	return 0;
}

static bool listed(const cJSON *list, const char *cid)
{
	const cJSON *c;

	cJSON_ArrayForEach (c, list) {
		const char *id = str_of(c, "Id");

		if (id && strcmp(id, cid) == 0)
			return true;
	}
	return false;
}

/* Every container's own entry, then the network's endpoints that the list
 * did not have (created since, or left over). */
static int find_users(struct users *u, const cJSON *list, const cJSON *endpoints, struct te_err *err)
{
	const cJSON *c;

	cJSON_ArrayForEach (c, list) {
		const char *cid = str_of(c, "Id");
		bool says = cid && cJSON_GetObjectItemCaseSensitive(endpoints, cid);

		if (!cid || ours(c, u->l, u->task, u->kind) ||
		    !(says || svc_container_uses(c, u->kind, u->name, u->id)))
			continue;
		if (confirm(u, cid, says, err) < 0)
			return -1;
	}
	cJSON_ArrayForEach (c, endpoints)
		if (c->string && !listed(list, c->string) && confirm(u, c->string, true, err) < 0)
			return -1;
	return 0;
}

int svc_res_refuse_foreign(struct engine *e, struct ledger *l, const char *task, enum svc_res_kind kind,
			   const char *ref, struct te_err *err)
{
	struct users u = {e, l, task, kind, ref, NULL, NULL, 0};
	te_autojson cJSON *net = NULL;
	te_autojson cJSON *list = NULL;
	const char *what = svc_res_kind_name(kind);
	int rc;

	if (kind != SVC_RES_NETWORK && kind != SVC_RES_VOLUME)
		return 0;
	if (kind == SVC_RES_NETWORK) {
		if (engine_network_inspect(e, ref, &net, err) < 0) {
			if (err->code != TE_E_NOTFOUND)
				return -1;
			te_err_clear(err);
			return 0;
		}
		u.id = str_of(net, "Id");
		u.name = str_of(net, "Name") ?: ref;
	}
	/* All of them, unfiltered: see inuse.h for why no filter is trusted. */
	if (engine_container_list(e, NULL, &list, err) < 0)
		return te_err_prefix(err, "%s '%s': list its users: ", what, u.name);
	rc = find_users(&u, list, cJSON_GetObjectItemCaseSensitive(net, "Containers"), err);
	if (rc == 0 && u.n) {
		te_autofree char *whose = task ? xasprintf(" (not of task '%s')", task) : xstrdup("");

		rc = te_err_set(err, TE_E_CONFLICT, "%s '%s' is in use by container%s %s%s: left in place",
				what, u.name, u.n > 1 ? "s" : "", u.names, whose);
	}
	free(u.names);
	return rc;
}

int svc_network_drop_stale_endpoints(struct engine *e, const cJSON *net, struct te_err *err)
{
	const char *ref = str_of(net, "Id");
	const cJSON *ep;

	if (!ref)
		return 0;
	cJSON_ArrayForEach (ep, cJSON_GetObjectItemCaseSensitive(net, "Containers")) {
		te_autojson cJSON *obj = NULL;
		const char *epname = str_of(ep, "Name");

		if (!ep->string || !epname || engine_container_inspect(e, ep->string, &obj, err) == 0)
			continue;
		if (err->code != TE_E_NOTFOUND)
			return -1;
		/* dockerd finds a gone container's endpoint by its name only. */
		if (engine_network_disconnect(e, ref, epname, true, err) < 0 && err->code != TE_E_NOTFOUND)
			return -1;
		te_err_clear(err);
	}
	return 0;
}

/* Nanoseconds since the epoch of an RFC 3339 time as Podman writes it
 * ("2024-05-01T10:00:00.43067595Z", or "+02:00" for a local time); -1
 * when S is not one. */
static long long rfc3339_ns(const char *s)
{
	struct tm tm = {0};
	const char *p = s ? strptime(s, "%Y-%m-%dT%H:%M:%S", &tm) : NULL;
	long long ns = 0, scale = 100000000, off;
	int sign;

	if (!p)
		return -1;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++, scale /= 10)
			ns += (*p - '0') * scale;
	ns += (long long)timegm(&tm) * 1000000000LL;
	if (p[0] == 'Z' && !p[1])
		return ns;
	sign = *p == '+' ? 1 : *p == '-' ? -1 : 0;
	if (!sign || !isdigit((unsigned char)p[1]) || !isdigit((unsigned char)p[2]) || p[3] != ':' ||
	    !isdigit((unsigned char)p[4]) || !isdigit((unsigned char)p[5]) || p[6])
		return -1;
	off = ((p[1] - '0') * 10 + (p[2] - '0')) * 3600LL + ((p[4] - '0') * 10 + (p[5] - '0')) * 60LL;
	return ns - sign * off * 1000000000LL;
}

/* Podman: sort the anonymous volumes container C (its inspect answer)
 * mounts: those made with it (created after it) into OWN, *GIVEN when one
 * is older (another container made it; the Compose file named it). Named
 * volumes never go with a container. A volume Podman does not describe
 * counts as given: keeping is the safe side. */
static void sort_volumes(struct engine *e, const cJSON *c, cJSON *own, bool *given)
{
	long long born = rfc3339_ns(str_of(c, "Created"));
	const cJSON *m;

	cJSON_ArrayForEach (m, cJSON_GetObjectItemCaseSensitive(c, "Mounts")) {
		te_autojson cJSON *vol = NULL;
		struct te_err err;
		const char *type = str_of(m, "Type");
		const char *name = str_of(m, "Name");
		long long made;

		if (!type || !name || strcmp(type, "volume") != 0)
			continue;
		if (engine_libpod_volume_inspect(e, name, &vol, &err) < 0) {
			*given |= err.code != TE_E_NOTFOUND;
			continue;
		}
		if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(vol, "Anonymous")))
			continue;
		made = rfc3339_ns(str_of(vol, "CreatedAt"));
		if (born < 0 || made < born)
			*given = true;
		else
			cJSON_AddItemToArray(own, cJSON_CreateString(name));
	}
}

int svc_container_remove(struct engine *e, const char *ref, int stop_timeout, struct te_err *err)
{
	te_autojson cJSON *c = NULL;
	te_autojson cJSON *own = cJSON_CreateArray();
	const cJSON *v;
	bool given = false;

	/* No ?t= at all is what makes the engine use the container's own
	 * StopTimeout: a t= would override it. */
	if ((stop_timeout >= 0 || stop_timeout == SVC_STOP_OWN) &&
	    engine_container_stop(e, ref, stop_timeout >= 0 ? stop_timeout : -1, err) < 0 &&
	    err->code != TE_E_NOTFOUND)
		return -1;
	/* dockerd's v=1 already keeps every volume given by name. */
	if (strcmp(engine_flavor(e), "podman") != 0)
		return engine_container_remove(e, ref, true, err);
	if (engine_container_inspect(e, ref, &c, err) < 0)
		return -1;
	sort_volumes(e, c, own, &given);
	if (!given)
		return engine_container_remove(e, ref, true, err);
	if (engine_container_remove_keep_volumes(e, ref, true, err) < 0)
		return -1;
	cJSON_ArrayForEach (v, own) {
		struct te_err ignored;

		/* Gone, or in use by another container by now: left alone. */
		(void)engine_volume_remove(e, v->valuestring, false, &ignored);
	}
	return 0;
}
