/* The gate's entry: the exception names, the findings, the table of
 * routes (every Engine request but GET/HEAD taskenv may send, each with
 * its judge) and ownership from labels. */
#include "services/gate/gate.h"
#include "services/gate/gate_int.h"
#include "services/model/plan.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <stdlib.h>
#include <string.h>

/* ---- exception names (docs/security.md) ---- */

static const char *const fixed_names[] = {
    "engine-socket",	"privileged",
    "host-network",	"host-pid",
    "host-ipc",		"host-userns",
    "host-uts",		"host-cgroupns",
    "devices",		"seccomp-profile",
    "bind-system",	"bind-home",
    "bind-credentials", "bind-outside-project",
    "public-port",	"host-sysctl",
    "mac-address",	"external-network",
    "external-volume",	"network-driver",
    "volume-driver",	"runtime",
    "log-driver",	"host-credentials",
};

/* NAME after PREFIX is a non-empty word of [A-Za-z0-9_.-] (cap:, template:). */
static bool word_after(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);
	const char *w = name + n;

	if (strncmp(name, prefix, n) != 0 || !*w)
		return false;
	return strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") == strlen(w);
}

bool gate_exception_known(const char *name)
{
	for (size_t i = 0; i < sizeof(fixed_names) / sizeof(fixed_names[0]); i++)
		if (strcmp(fixed_names[i], name) == 0)
			return true;
	if (word_after(name, "cap:") || word_after(name, "template:"))
		return true;
	return strncmp(name, "path:/", 6) == 0;
}

int gate_exceptions_validate(char *const *names, const char *where, struct te_err *err)
{
	for (size_t i = 0; names && names[i]; i++)
		if (!gate_exception_known(names[i]))
			return te_err_set(err, TE_E_USAGE,
					  "unknown exception '%s' in %s (the names: docs/security.md, "
					  "'taskenv check --help')",
					  names[i], where);
	return 0;
}

bool gate_granted(const struct gate *g, const char *name)
{
	for (size_t i = 0; g->granted && g->granted[i]; i++)
		if (strcmp(g->granted[i], name) == 0)
			return true;
	return false;
}

/* ---- findings ---- */

void gate_add(struct gate *g, const struct gate_at *at, const char *key, const char *allow, char *reason)
{
	if (allow && gate_granted(g, allow)) {
		free(reason);
		return;
	}
	g->v = xrealloc(g->v, (g->n + 1) * sizeof(*g->v));
	g->v[g->n++] = (struct gate_finding){at->loc, xstrdup(at->subject ? at->subject : "-"), xstrdup(key),
					     reason, allow ? xstrdup(allow) : NULL};
}

static int by_place(const void *a, const void *b)
{
	const struct gate_finding *x = a, *y = b;
	int c = strcmp(x->loc.file ? x->loc.file : "", y->loc.file ? y->loc.file : "");

	if (c)
		return c;
	if (x->loc.line != y->loc.line)
		return x->loc.line < y->loc.line ? -1 : 1;
	if (x->loc.col != y->loc.col)
		return x->loc.col < y->loc.col ? -1 : 1;
	return x < y ? -1 : x > y; /* qsort is not stable: keep the order found */
}

void gate_findings_sort(struct gate *g)
{
	if (g->n > 1)
		qsort(g->v, g->n, sizeof(*g->v), by_place);
}

void gate_findings_clear(struct gate *g)
{
	for (size_t i = 0; i < g->n; i++) {
		free(g->v[i].service);
		free(g->v[i].key);
		free(g->v[i].reason);
		free(g->v[i].allow);
	}
	free(g->v);
	g->v = NULL;
	g->n = 0;
}

void gate_release(struct gate *g)
{
	gate_findings_clear(g);
	free(g->task);
	free(g->ledger_id);
	te_strv_free(g->granted);
	free(g->boundary);
	te_strv_free(g->sockets);
	te_strv_free(g->shared_images);
	te_strv_free(g->own_dirs);
	free(g->broker_dir);
	memset(g, 0, sizeof(*g));
}

char *gate_finding_format(const struct gate_finding *f)
{
	te_autofree char *where = f->loc.file && f->loc.line
				      ? xasprintf("%s:%d:%d", f->loc.file, f->loc.line, f->loc.col)
				      : xstrdup("engine request");
	te_autofree char *tail = f->allow ? xasprintf("needs --allow %s", f->allow) : xstrdup("refused");

	return xasprintf("%s: %s: %s: %s (%s)", where, f->service, f->key, f->reason, tail);
}

/* ---- ownership ---- */

static const char *label(const cJSON *obj, const char *name)
{
	const cJSON *l = cJSON_GetObjectItemCaseSensitive(obj, "Labels");
	const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(obj, "Config");

	if (cfg && !cJSON_IsObject(l))
		l = cJSON_GetObjectItemCaseSensitive(cfg, "Labels");
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(l, name));
}

enum gate_owner gate_owner_of(const struct gate *g, const cJSON *obj)
{
	const char *task = label(obj, "io.taskenv.task");
	const char *ledger = label(obj, "io.taskenv.ledger");
	bool ours = ledger && g->ledger_id && strcmp(ledger, g->ledger_id) == 0;

	if (ours && label(obj, "io.taskenv.shared") && !task)
		return GATE_OWN_SHARED;
	if (ours && task && (!g->task || strcmp(task, g->task) == 0))
		return GATE_OWN_TASK;
	return task ? GATE_OWN_OTHER : GATE_OWN_NONE;
}

int gate_lookup_owner(struct gate *g, const char *kind, const char *ref, enum gate_owner *out, cJSON **obj,
		      bool *missing)
{
	struct te_err err = {0};
	cJSON *j = NULL;

	if (obj)
		*obj = NULL;
	if (missing)
		*missing = false;
	*out = GATE_OWN_NONE;
	if (!g->lookup)
		return -1;
	if (g->lookup(g->lookup_ctx, kind, ref, &j, &err) < 0) {
		if (missing)
			*missing = err.code == TE_E_NOTFOUND;
		return -1;
	}
	*out = gate_owner_of(g, j);
	if (obj)
		*obj = j;
	else
		cJSON_Delete(j);
	return 0;
}

/* ---- routes ---- */

/* A request: the path's {id} segments, the query, the body. */
struct req {
	const char *method;
	char *id[2];
	const char *query;
	const cJSON *body;
	struct gate_at at; /* the request itself, for findings about it */
};

/* The object ID of KIND must be this task's (or this ledger's shared
 * server's): taskenv changes or removes nothing else. */
static void owned(struct gate *g, struct req *r, const char *kind, const char *id, bool shared_ok)
{
	enum gate_owner o;
	bool missing;

	if (gate_lookup_owner(g, kind, id, &o, NULL, &missing) < 0) {
		/* Gone already: the request can do nothing to anyone else's. */
		if (missing)
			return;
		gate_add(g, &r->at, kind, NULL, xasprintf("cannot tell whose %s '%s' is", kind, id));
		return;
	}
	if (o == GATE_OWN_TASK || (shared_ok && o == GATE_OWN_SHARED))
		return;
	gate_add(g, &r->at, kind, NULL,
		 xasprintf("%s '%s' is not this task's (%s)", kind, id,
			   o == GATE_OWN_OTHER ? "another task's" : "not taskenv's"));
}

static void r_container_create(struct gate *g, struct req *r)
{
	gate_container_create(g, r->body);
}

static void r_container(struct gate *g, struct req *r)
{
	owned(g, r, "container", r->id[0], true);
}

/* %XX in an id segment (engine_escape's): the name the engine sees. */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '%' && s[1] && s[2]) {
			char hex[3] = {s[1], s[2], 0};

			*o++ = (char)strtol(hex, NULL, 16);
			s += 2;
			continue;
		}
		*o++ = *s;
	}
	*o = '\0';
}

/* A recreate (docs/up.md) gives the new container the old one's name: a
 * container of this task may take a name of this task's ("<task>-..."),
 * never one another task's containers use. */
static void r_container_rename(struct gate *g, struct req *r)
{
	te_autofree char *name = strncmp(r->query, "name=", 5) == 0 ? xstrdup(r->query + 5) : NULL;
	size_t tn = g->task ? strlen(g->task) : 0;

	owned(g, r, "container", r->id[0], false);
	if (name)
		unescape(name);
	if (!name || !tn || strncmp(name, g->task, tn) != 0 || name[tn] != '-' ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != strlen(name))
		gate_add(g, &r->at, "container", NULL,
			 xasprintf("rename to '%s': only to a name of this task's ('%s-...')",
				   name ? name : "", g->task ? g->task : ""));
}

/* start / restart: the engine resolves each bind's source again now. */
static void r_container_start(struct gate *g, struct req *r)
{
	te_autojson cJSON *obj = NULL;
	enum gate_owner o;
	bool missing;

	owned(g, r, "container", r->id[0], true);
	if (g->n == 0 && gate_lookup_owner(g, "container", r->id[0], &o, &obj, &missing) == 0)
		gate_container_start(g, obj);
}

static void r_exec_create(struct gate *g, struct req *r)
{
	owned(g, r, "container", r->id[0], true);
	gate_exec_create(g, r->id[0], r->body);
}

static void r_exec(struct gate *g, struct req *r)
{
	owned(g, r, "exec", r->id[0], true);
}

static void r_network_create(struct gate *g, struct req *r)
{
	gate_network_create(g, r->body);
}

static void r_network(struct gate *g, struct req *r)
{
	owned(g, r, "network", r->id[0], true);
}

static void r_network_connect(struct gate *g, struct req *r)
{
	gate_network_connect(g, r->id[0], r->body);
}

/* Disconnecting from a network of this task (or this ledger's shared one). */
static void r_network_disconnect(struct gate *g, struct req *r)
{
	owned(g, r, "network", r->id[0], true);
}

static void r_volume_create(struct gate *g, struct req *r)
{
	gate_volume_create(g, r->body);
}

/* An anonymous volume carries no labels of ours: taskenv removes one it
 * found on its own container (Podman keeps them at v=1, see
 * svc_container_remove) only with force=0, so the engine keeps any that a
 * container, anyone's, still uses. */
static bool anonymous(const cJSON *v)
{
	const cJSON *labels = cJSON_GetObjectItemCaseSensitive(v, "Labels");

	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "Anonymous")) ||
	       cJSON_GetObjectItemCaseSensitive(labels, "com.docker.volume.anonymous") != NULL;
}

static void r_volume(struct gate *g, struct req *r)
{
	te_autojson cJSON *obj = NULL;
	enum gate_owner o;
	bool missing;

	if (strcmp(r->query, "force=0") == 0 &&
	    gate_lookup_owner(g, "volume", r->id[0], &o, &obj, &missing) == 0 && o == GATE_OWN_NONE &&
	    anonymous(obj))
		return;
	owned(g, r, "volume", r->id[0], false);
}

static void r_build(struct gate *g, struct req *r)
{
	gate_build(g, r->query);
}

/* A pull creates nothing anyone else uses differently: the image store
 * is shared by name, and a pull of a name gives what its registry says. */
static void r_pull(struct gate *g, struct req *r)
{
	te_autofree char *q = xstrdup(r->query ? r->query : "");
	te_autofree char *cred = NULL;

	unescape(q);
	cred = gate_credential_in(q);
	if (cred)
		gate_add(g, &r->at, "image", "host-credentials",
			 xasprintf("the pull names the host's credential variable %s", cred));
}

static void r_image_delete(struct gate *g, struct req *r)
{
	owned(g, r, "image", r->id[0], false);
}

static const struct route {
	const char *method;
	const char *pattern; /* "*" is one path segment (an id or a name) */
	void (*judge)(struct gate *g, struct req *r);
} routes[] = {
    {"POST", "/containers/create", r_container_create},
    {"POST", "/containers/*/start", r_container_start},
    {"POST", "/containers/*/restart", r_container_start},
    {"POST", "/containers/*/rename", r_container_rename},
    {"POST", "/containers/*/stop", r_container},
    {"POST", "/containers/*/kill", r_container},
    {"POST", "/containers/*/wait", r_container},
    {"POST", "/containers/*/pause", r_container},
    {"POST", "/containers/*/unpause", r_container},
    {"POST", "/containers/*/resize", r_container},
    {"POST", "/containers/*/attach", r_container},
    {"PUT", "/containers/*/archive", r_container}, /* docker cp through the broker */
    {"DELETE", "/containers/*", r_container},
    {"POST", "/containers/*/exec", r_exec_create},
    {"POST", "/exec/*/start", r_exec},
    {"POST", "/exec/*/resize", r_exec},
    {"POST", "/networks/create", r_network_create},
    {"POST", "/networks/*/connect", r_network_connect},
    {"POST", "/networks/*/disconnect", r_network_disconnect},
    {"DELETE", "/networks/*", r_network},
    {"POST", "/volumes/create", r_volume_create},
    {"DELETE", "/volumes/*", r_volume},
    {"POST", "/build", r_build},
    {"POST", "/images/create", r_pull},
    {"DELETE", "/images/*", r_image_delete},
};

/* PATH against PATTERN; the "*" segments into ID (owned, URL-decoded). */
static bool match(const char *pattern, const char *path, char *id[2])
{
	size_t k = 0;

	while (*pattern && *path) {
		if (*pattern == '*') {
			size_t n = strcspn(path, "/");

			if (n == 0 || k == 2)
				return false;
			id[k++] = xstrndup(path, n);
			path += n;
			pattern++;
			continue;
		}
		if (*pattern++ != *path++)
			return false;
	}
	return !*pattern && !*path;
}

/* Images are named with "/" (engine_seg keeps it): DELETE /images/a/b:c. */
static bool match_image(const char *method, const char *path, char *id[2])
{
	if (strcmp(method, "DELETE") != 0 || strncmp(path, "/images/", 8) != 0 || !path[8])
		return false;
	id[0] = xstrdup(path + 8);
	return true;
}

int gate_judge_add(struct gate *g, const char *method, const char *path, const char *query, const cJSON *body)
{
	size_t before = g->n;
	te_autofree char *what = xasprintf("%s %s", method, path);
	struct req r = {method, {NULL, NULL}, query ? query : "", body, {NULL, what, {NULL, 0, 0}}};
	const struct route *hit = NULL;

	for (size_t i = 0; !hit && i < sizeof(routes) / sizeof(routes[0]); i++) {
		if (strcmp(routes[i].method, method) != 0)
			continue;
		free(r.id[0]);
		free(r.id[1]);
		r.id[0] = r.id[1] = NULL;
		if (match(routes[i].pattern, path, r.id))
			hit = &routes[i];
	}
	if (!hit && match_image(method, path, r.id))
		hit = &routes[sizeof(routes) / sizeof(routes[0]) - 1];
	for (size_t i = 0; i < 2; i++)
		if (r.id[i])
			unescape(r.id[i]);
	if (!hit)
		gate_add(g, &r.at, "request", NULL, xstrdup("no rule lets taskenv send this request"));
	else
		hit->judge(g, &r);
	free(r.id[0]);
	free(r.id[1]);
	return g->n > before ? -1 : 0;
}

int gate_judge(void *vg, const char *method, const char *path, const char *query, const cJSON *body,
	       struct te_err *err)
{
	struct gate *g = vg;
	te_autofree char *first = NULL;

	gate_findings_clear(g);
	if (gate_judge_add(g, method, path, query, body) == 0)
		return 0;
	first = gate_finding_format(&g->v[0]);
	if (g->n == 1)
		return te_err_set(err, TE_E_POLICY, "refused: %s", first);
	return te_err_set(err, TE_E_POLICY, "refused (%zu findings): %s", g->n, first);
}
