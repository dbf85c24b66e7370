#include "services/contract/verify.h"
#include "services/contract/verify_int.h"
#include "services/lifecycle/reskind.h"
#include "services/lifecycle/allowed.h"
#include "services/lifecycle/drvrun.h"
#include "drivers/postgres.h"
#include "services/contract/contract.h"
#include "services/contract/snapshot.h"
#include "engine/engine.h"
#include "engine/exec_probe.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void svc_verify_result(struct verify *v, const char *check, const char *subject, const char *res,
		       const char *fmt, ...)
{
	cJSON *o = cJSON_CreateObject();
	te_autofree char *ev = NULL;
	va_list ap;

	va_start(ap, fmt);
	ev = xvasprintf(fmt, ap);
	va_end(ap);
	cJSON_AddStringToObject(o, "check", check);
	cJSON_AddStringToObject(o, "subject", subject);
	cJSON_AddStringToObject(o, "result", res);
	cJSON_AddStringToObject(o, "evidence", ev);
	cJSON_AddItemToArray(v->results, o);
	if (strcmp(res, SVC_VERIFY_FAIL) == 0)
		v->failed++;
}

const char *svc_verify_name_of(const cJSON *obj)
{
	const char *n = svc_json_str(obj, "Name", NULL);

	return *n == '/' ? n + 1 : n;
}

/* ---- ledger and engine agree ---- */

/* A row of KIND names NAME; a listed container may also be a row of
 * another container kind (a task's own server) when ANY_CONTAINER. */
static bool recorded_as(const struct svc_snapshot *s, enum svc_res_kind kind, bool any_container,
			const char *name)
{
	for (size_t i = 0; i < s->n_res; i++)
		if ((svc_res_kind_of(s->res[i].kind) == kind || (any_container && kind == SVC_RES_CONTAINER &&
								 svc_res_kind_container(s->res[i].kind))) &&
		    strcmp(s->res[i].name, name) == 0)
			return true;
	return false;
}

static bool recorded(const struct svc_snapshot *s, enum svc_res_kind kind, const char *name)
{
	return recorded_as(s, kind, false, name);
}

static void check_recorded(struct verify *v, const cJSON *entries, enum svc_res_kind kind, int *present)
{
	const cJSON *it;

	cJSON_ArrayForEach (it, entries) {
		const struct state_resource *r = &v->s.res[cJSON_GetObjectItem(it, "resource")->valueint];

		if (cJSON_GetObjectItem(it, "inspect"))
			(*present)++;
		else
			svc_verify_result(v, "ledger-engine", r->name, SVC_VERIFY_FAIL,
					  "recorded %s (ledger state %s) is missing from the engine",
					  svc_res_kind_name(kind), r->state);
	}
}

/* The name of an entry of KIND's list answer, "" when it has none. */
static const char *listed_name(enum svc_res_kind kind, const cJSON *o)
{
	const char *n = svc_res_kind(kind)->entry_name(o);

	return n ? n : "";
}

static int check_unrecorded(struct verify *v, enum svc_res_kind kind, const char *label, struct te_err *err)
{
	te_autojson cJSON *list = NULL;
	const cJSON *o;

	if (svc_res_kind(kind)->list(v->e, label, &list, err) < 0)
		return -1;
	cJSON_ArrayForEach (o, list) {
		const char *n = listed_name(kind, o);

		if (!recorded_as(&v->s, kind, true, n))
			svc_verify_result(v, "ledger-engine", n, SVC_VERIFY_FAIL,
					  "%s carries label %s but the ledger has no row for it",
					  svc_res_kind_name(kind), label);
	}
	return 0;
}

static int check_ledger_engine(struct verify *v, struct te_err *err)
{
	te_autofree char *label = xasprintf("io.taskenv.task=%s", v->s.task);
	int present = 0, before = v->failed;

	check_recorded(v, v->s.containers, SVC_RES_CONTAINER, &present);
	check_recorded(v, v->s.networks, SVC_RES_NETWORK, &present);
	check_recorded(v, v->s.volumes, SVC_RES_VOLUME, &present);
	if (check_unrecorded(v, SVC_RES_CONTAINER, label, err) < 0 ||
	    check_unrecorded(v, SVC_RES_NETWORK, label, err) < 0 ||
	    check_unrecorded(v, SVC_RES_VOLUME, label, err) < 0)
		return -1;
	if (v->failed == before)
		svc_verify_result(v, "ledger-engine", v->s.task, SVC_VERIFY_PASS,
				  "%d recorded objects present on the engine; none unrecorded with label %s",
				  present, label);
	return 0;
}

/* ---- every container of the task: the ledger's and any labelled ---- */

static void add_live(struct verify *v, const char *name, int row, const cJSON *insp)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "name", name);
	cJSON_AddNumberToObject(o, "row", row);
	cJSON_AddItemToObject(o, "inspect", cJSON_Duplicate(insp, 1));
	cJSON_AddItemToArray(v->live, o);
}

/* ID is a container already in v->live. */
static bool live_id(const struct verify *v, const char *id)
{
	const cJSON *c;

	cJSON_ArrayForEach (c, v->live)
		if (strcmp(svc_json_str(cJSON_GetObjectItem(c, "inspect"), "Id", NULL), id) == 0)
			return true;
	return false;
}

static int collect_live(struct verify *v, struct te_err *err)
{
	te_autofree char *label = xasprintf("io.taskenv.task=%s", v->s.task);
	te_autojson cJSON *list = NULL;
	const cJSON *it;

	cJSON_ArrayForEach (it, v->s.containers) {
		const cJSON *insp = cJSON_GetObjectItem(it, "inspect");
		int row = cJSON_GetObjectItem(it, "resource")->valueint;

		if (insp)
			add_live(v, v->s.res[row].name, row, insp);
	}
	if (engine_container_list(v->e, label, &list, err) < 0)
		return -1;
	cJSON_ArrayForEach (it, list) {
		te_autojson cJSON *insp = NULL;
		const char *n = listed_name(SVC_RES_CONTAINER, it);

		/* A recorded name is not enough: a container made by hand under
		 * the name of one taskenv created (the original removed) is
		 * another container, judged against the name's allowed record. */
		if (recorded(&v->s, SVC_RES_CONTAINER, n) && live_id(v, svc_json_str(it, "Id", NULL)))
			continue;
		if (engine_container_inspect(v->e, svc_json_str(it, "Id", NULL), &insp, err) < 0)
			return -1;
		add_live(v, n, -1, insp);
	}
	return 0;
}

/* ---- ports ---- */

static void check_binding(struct verify *v, const char *name, const char *service, int replica,
			  const char *key, const cJSON *b)
{
	const char *ip = svc_json_str(b, "HostIp", NULL), *slash = strchr(key, '/');
	int host = (int)strtol(svc_json_str(b, "HostPort", NULL), NULL, 10);
	int cport = (int)strtol(key, NULL, 10);
	int want = svc_snapshot_port(&v->s, service, replica, cport, slash ? slash + 1 : "tcp");
	te_autofree char *subj = xasprintf("%s %s", name, key);

	if (strcmp(ip, "127.0.0.1") != 0)
		svc_verify_result(v, "ports", subj, SVC_VERIFY_FAIL,
				  "published on '%s:%d', not on 127.0.0.1 only", *ip ? ip : "0.0.0.0", host);
	else if (want != host)
		svc_verify_result(v, "ports", subj, SVC_VERIFY_FAIL,
				  "engine binds 127.0.0.1:%d, the ledger says %d", host, want);
	else
		svc_verify_result(v, "ports", subj, SVC_VERIFY_PASS,
				  "127.0.0.1:%d, equal to the ledger's port", host);
}

static void check_ports(struct verify *v)
{
	const cJSON *c, *p, *b;

	cJSON_ArrayForEach (c, v->live) {
		int row = cJSON_GetObjectItem(c, "row")->valueint;
		const char *svc = row >= 0 ? v->s.res[row].service : NULL;
		const cJSON *insp = cJSON_GetObjectItem(c, "inspect");

		cJSON_ArrayForEach (p, svc_inspect_ports(insp))
			cJSON_ArrayForEach (b, p)
				check_binding(v, svc_verify_name_of(insp), svc, svc_inspect_replica(insp),
					      p->string, b);
	}
}

/* ---- mounts ---- */

static bool declared(const struct state_resource *r, const char *source, const char *target)
{
	te_autojson cJSON *d = r && r->detail ? cJSON_Parse(r->detail) : NULL;
	const cJSON *m;
	char real[PATH_MAX];

	cJSON_ArrayForEach (m, cJSON_GetObjectItem(d, "declared_mounts")) {
		const char *src = svc_json_str(m, "source", NULL);

		if (strcmp(svc_json_str(m, "target", NULL), target) != 0)
			continue;
		if (strcmp(src, source) == 0 || (realpath(src, real) && strcmp(real, source) == 0))
			return true;
	}
	return false;
}

static const char *exposed(char *const *absent, const char *source)
{
	for (size_t i = 0; absent && absent[i]; i++)
		if (svc_path_exposes(source, absent[i]))
			return absent[i];
	return NULL;
}

static void check_mount(struct verify *v, const char *cname, const struct state_resource *r, const cJSON *m,
			char *const *absent)
{
	const char *src = svc_json_str(m, "Source", NULL), *dst = svc_json_str(m, "Destination", NULL);
	const char *bad = exposed(absent, src);
	te_autofree char *subj = xasprintf("%s %s", cname, dst);

	if (strcmp(svc_json_str(m, "Type", NULL), "bind") != 0)
		return;
	if (bad)
		svc_verify_result(v, "mounts", subj, SVC_VERIFY_FAIL, "host path '%s' exposes '%s'", src,
				  bad);
	else if (!declared(r, src, dst))
		svc_verify_result(v, "mounts", subj, SVC_VERIFY_FAIL,
				  "host path '%s' is mounted but the Compose file did not declare it", src);
	else
		svc_verify_result(v, "mounts", subj, SVC_VERIFY_PASS, "host path '%s' (%s) is declared", src,
				  cJSON_IsTrue(cJSON_GetObjectItem(m, "RW")) ? "rw" : "ro");
}

static void check_mounts(struct verify *v)
{
	te_autostrv char **absent = svc_contract_absent_paths(v->s.row.engine);
	const cJSON *c, *m;
	int binds = 0, before = v->failed;

	cJSON_ArrayForEach (c, v->live) {
		int row = cJSON_GetObjectItem(c, "row")->valueint;
		const cJSON *insp = cJSON_GetObjectItem(c, "inspect");

		cJSON_ArrayForEach (m, cJSON_GetObjectItem(insp, "Mounts")) {
			binds += strcmp(svc_json_str(m, "Type", NULL), "bind") == 0;
			check_mount(v, svc_verify_name_of(insp), row >= 0 ? &v->s.res[row] : NULL, m, absent);
		}
	}
	if (binds == 0 && v->failed == before)
		svc_verify_result(v, "mounts", v->s.task, SVC_VERIFY_PASS,
				  "no host path is bind-mounted into any container");
}

/* ---- inside the containers ---- */

/* Run `sh -c SCRIPT` in CONTAINER: 0 with *out (owned, trimmed) when it
 * exited 0; 1 when the image lacks what the probe needs (no sh, exit
 * 126/127, or the script's own exit 3 for "file not there"); 2 when it
 * exited otherwise (*out its output); -1 when the engine is unreachable. */
int svc_verify_probe(struct verify *v, const char *container, const char *script, char **out,
		     struct te_err *err)
{
	char *argv[] = {"sh", "-c", (char *)script, NULL};
	te_autobuf struct te_buf b = TE_BUF_INIT(ENGINE_PROBE_OUTPUT_MAX);
	int code = -1;

	*out = NULL;
	if (engine_exec_probe(v->e, container, argv, &code, &b, err) < 0) {
		if (err->code == TE_E_UNREACHABLE)
			return -1;
		*out = xstrdup(err->msg);
		te_err_clear(err);
		return 1;
	}
	while (b.len && strchr("\r\n ", b.data[b.len - 1]))
		b.data[--b.len] = '\0';
	*out = te_buf_detach(&b);
	return code == 0 ? 0 : code == 3 || code == 126 || code == 127 ? 1 : 2;
}

static char *socket_script(const char *engine_socket)
{
	return xasprintf("for p in /var/run/docker.sock /run/docker.sock /run/podman/podman.sock "
			 "/var/run/podman/podman.sock /run/user/*/podman/podman.sock /run/user/*/docker.sock "
			 "'%s'; do [ -S \"$p\" ] && echo \"$p\"; done; exit 0",
			 engine_socket ? engine_socket : "/var/run/docker.sock");
}

static int check_socket(struct verify *v, const char *name, struct te_err *err)
{
	te_autofree char *script = socket_script(v->s.row.engine);
	te_autofree char *out = NULL;
	int rc = svc_verify_probe(v, name, script, &out, err);

	if (rc < 0)
		return -1;
	if (rc > 0)
		svc_verify_result(v, "engine-socket", name, SVC_VERIFY_NV,
				  "not verifiable in this image (%s)", out);
	else if (*out)
		svc_verify_result(v, "engine-socket", name, SVC_VERIFY_FAIL,
				  "engine socket reachable inside: %s", out);
	else
		svc_verify_result(
		    v, "engine-socket", name, SVC_VERIFY_PASS,
		    "test -S finds no engine socket at the usual paths nor at the engine's own");
	return 0;
}

/* cgroup v2 value ("max" or bytes) vs the engine's (0 = unlimited). */
static bool limit_matches(const char *cgroup, double engine)
{
	double v;

	if (engine <= 0)
		return strcmp(cgroup, "max") == 0 || strtod(cgroup, NULL) >= 9.0e18;
	v = strtod(cgroup, NULL);
	return v == engine;
}

static int check_limit(struct verify *v, const char *name, const cJSON *hc, const char *what,
		       const char *field, const char *script, struct te_err *err)
{
	te_autofree char *out = NULL;
	const cJSON *f = cJSON_GetObjectItem(hc, field);
	double want = cJSON_IsNumber(f) ? f->valuedouble : 0;
	te_autofree char *subj = xasprintf("%s %s", name, what);
	int rc = svc_verify_probe(v, name, script, &out, err);

	if (rc < 0)
		return -1;
	if (rc > 0 || !*out)
		svc_verify_result(v, "limits", subj, SVC_VERIFY_NV,
				  "not verifiable in this image (cgroup file unreadable)");
	else if (limit_matches(out, want))
		svc_verify_result(v, "limits", subj, SVC_VERIFY_PASS,
				  "engine HostConfig.%s=%.0f, cgroup says %s", field, want, out);
	else
		svc_verify_result(v, "limits", subj, SVC_VERIFY_FAIL,
				  "engine HostConfig.%s=%.0f but cgroup says %s", field, want, out);
	return 0;
}

static int check_inside(struct verify *v, struct te_err *err)
{
	static const char mem[] = "cat /sys/fs/cgroup/memory.max 2>/dev/null || "
				  "cat /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null || exit 3";
	static const char pids[] = "cat /sys/fs/cgroup/pids.max 2>/dev/null || "
				   "cat /sys/fs/cgroup/pids/pids.max 2>/dev/null || exit 3";
	const cJSON *c;

	cJSON_ArrayForEach (c, v->live) {
		const cJSON *insp = cJSON_GetObjectItem(c, "inspect");
		const cJSON *hc = cJSON_GetObjectItem(insp, "HostConfig");
		const char *name = svc_verify_name_of(insp);

		if (!cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(insp, "State"), "Running"))) {
			svc_verify_result(v, "engine-socket", name, SVC_VERIFY_NV,
					  "container is not running");
			continue;
		}
		if (check_socket(v, name, err) < 0 ||
		    check_limit(v, name, hc, "memory", "Memory", mem, err) < 0 ||
		    check_limit(v, name, hc, "pids", "PidsLimit", pids, err) < 0)
			return -1;
	}
	return 0;
}

/* ---- can this task reach another task's containers? ---- */

/* Up to 16 "IP" lines of other tasks' running containers of this ledger. */
static char *other_addresses(struct verify *v, struct te_err *err)
{
	te_autofree char *label = xasprintf("io.taskenv.ledger=%s", state_ledger_id(v->l));
	te_autojson cJSON *list = NULL;
	te_autobuf struct te_buf b = TE_BUF_INIT(0);
	const cJSON *c, *n;
	int count = 0;

	if (engine_container_list(v->e, label, &list, err) < 0)
		return NULL;
	cJSON_ArrayForEach (c, list) {
		const char *t = cJSON_GetStringValue(
		    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItem(c, "Labels"), "io.taskenv.task"));

		if (!t || strcmp(t, v->s.task) == 0 || strcmp(svc_json_str(c, "State", NULL), "running") != 0)
			continue;
		cJSON_ArrayForEach (
		    n, cJSON_GetObjectItem(cJSON_GetObjectItem(c, "NetworkSettings"), "Networks")) {
			const char *ip = svc_json_str(n, "IPAddress", NULL);

			if (*ip && count++ < 16)
				te_buf_addf(&b, "%s ", ip);
		}
	}
	return te_buf_detach(&b);
}

static int check_cross_task(struct verify *v, struct te_err *err)
{
	static const char script[] =
	    "command -v ping >/dev/null 2>&1 || exit 3; "
	    "for a in $TE_ADDRS; do ping -c 1 -W 1 \"$a\" >/dev/null 2>&1 && echo \"$a\"; done; exit 0";
	te_autofree char *addrs = other_addresses(v, err);
	te_autofree char *full = NULL;
	te_autofree char *out = NULL;
	const char *from = NULL;
	const cJSON *c;
	int rc;

	if (!addrs)
		return err->code == TE_E_UNREACHABLE ? -1 : (te_err_clear(err), 0);
	cJSON_ArrayForEach (c, v->live)
		if (!from && cJSON_IsTrue(cJSON_GetObjectItem(
				 cJSON_GetObjectItem(cJSON_GetObjectItem(c, "inspect"), "State"), "Running")))
			from = svc_verify_name_of(cJSON_GetObjectItem(c, "inspect"));
	if (!*addrs || !from) {
		svc_verify_result(v, "cross-task", v->s.task, SVC_VERIFY_PASS,
				  !from ? "no running container of this task to probe from"
					: "no other task of this ledger has a running container");
		return 0;
	}
	full = xasprintf("TE_ADDRS='%s'; %s", addrs, script);
	rc = svc_verify_probe(v, from, full, &out, err);
	if (rc < 0)
		return -1;
	if (rc > 0)
		svc_verify_result(v, "cross-task", v->s.task, SVC_VERIFY_NV, "no ping in %s's image (%s)",
				  from, out);
	else if (*out)
		svc_verify_result(
		    v, "cross-task", v->s.task, SVC_VERIFY_OPEN,
		    "from %s, another task's container answers at %s: the engine's firewall, not taskenv, "
		    "keeps task networks apart, and here it does not",
		    from, out);
	else
		svc_verify_result(v, "cross-task", v->s.task, SVC_VERIFY_PASS,
				  "from %s, no other task's container answers ping at %s", from, addrs);
	return 0;
}

/* ---- egress and credentials ---- */

static void check_egress(struct verify *v)
{
	const cJSON *n;

	cJSON_ArrayForEach (n, v->s.networks) {
		const cJSON *insp = cJSON_GetObjectItem(n, "inspect");

		if (insp && cJSON_IsTrue(cJSON_GetObjectItem(insp, "Internal")))
			svc_verify_result(v, "egress", svc_json_str(insp, "Name", NULL), SVC_VERIFY_PASS,
					  "network is internal (engine .Internal=true): no route out");
	}
}

/* The drivers' hook: each driver that issues task-scoped credentials adds a
 * probe here that logs in with this task's credentials against every other
 * task's resources of that driver and expects a rejection ("credentials"
 * check, one line per pair). Until drivers are present there is nothing to
 * probe, and the line says so. */
static bool cross_kind(const char *kind)
{
	enum svc_res_kind k = svc_res_kind_of(kind);

	return k == SVC_RES_POSTGRES_SCHEMA || k == SVC_RES_POSTGRES_DATABASE;
}

/* URL with this task's own credentials probing every schema and database
 * another task of this ledger holds: any that it may use is a FAIL. */
static void probe_others(struct verify *v, struct ledger *l, const char *key, const char *url)
{
	struct state_task *tasks = NULL;
	struct te_err err = {0};
	size_t nt = 0, checked = 0;
	bool ok = true;

	if (!url || state_task_list(l, &tasks, &nt, &err) < 0) {
		svc_verify_result(v, "credentials", key, SVC_VERIFY_NV,
				  "no url for the resource, or ledger: %s", err.msg);
		return;
	}
	for (size_t t = 0; t < nt; t++) {
		struct state_resource *rows = NULL;
		size_t n = 0;

		if (strcmp(tasks[t].name, v->s.task) == 0 ||
		    state_resource_list(l, tasks[t].name, false, &rows, &n, &err) < 0)
			continue;
		for (size_t i = 0; i < n; i++) {
			bool allowed = false;

			if (!cross_kind(rows[i].kind))
				continue;
			if (drv_pg_may_use(url, rows[i].kind, rows[i].name, &allowed, &err) < 0) {
				svc_verify_result(v, "credentials", key, SVC_VERIFY_NV, "%s", err.msg);
				continue;
			}
			checked++;
			if (allowed) {
				ok = false;
				svc_verify_result(v, "credentials", key, SVC_VERIFY_FAIL,
						  "task '%s' may use %s '%s' of task '%s'", v->s.task,
						  rows[i].kind, rows[i].name, tasks[t].name);
			}
		}
		state_resources_free(rows, n);
	}
	state_tasks_free(tasks, nt);
	if (ok)
		svc_verify_result(
		    v, "credentials", key, SVC_VERIFY_PASS,
		    "rejected by %zu schema/database object(s) of other tasks (has_*_privilege as the "
		    "task's role)",
		    checked);
}

/* Each postgres resource of the task, probed with its own credentials.
 * RabbitMQ users carry no management tag and s3rver has one identity for
 * everyone, so those are reported as not verifiable from here. */
static void check_credentials(struct verify *v, struct ledger *l)
{
	size_t other = 0;

	for (size_t i = 0; i < v->s.n_res; i++) {
		const struct state_resource *r = &v->s.res[i];
		struct te_err err = {0};
		te_autojson cJSON *d = NULL;

		const struct svc_res_kind_ops *k = svc_res_kind_find(r->kind);

		if (!k || k->kind != SVC_RES_POSTGRES_ROLE) {
			other += k && k->driver && strcmp(k->driver, "postgres") != 0;
			continue;
		}
		d = svc_driver_describe(l, v->s.task, r->kind, r->service, &err);
		if (!d) {
			svc_verify_result(v, "credentials", r->service, SVC_VERIFY_NV, "%s", err.msg);
			continue;
		}
		probe_others(v, l, r->service, cJSON_GetStringValue(cJSON_GetObjectItem(d, "url")));
	}
	if (other)
		svc_verify_result(
		    v, "credentials", v->s.task, SVC_VERIFY_NV,
		    "%zu rabbitmq/s3 object(s): no cross-task probe from the host for these drivers", other);
}

/* Every driver object the ledger holds for the task exists on its server
 * and is still ours: one dropped by hand is a FAIL naming it. */
static void check_server_objects(struct verify *v, struct ledger *l)
{
	static const char *const words[] = {"exists on its server, marked as this task's",
					    "is gone from its server (dropped outside taskenv?)",
					    "exists on its server but is not marked as this task's"};

	for (size_t i = 0; i < v->s.n_res; i++) {
		const struct state_resource *r = &v->s.res[i];
		struct te_err err = {0};
		enum drv_removed how;
		te_autofree char *subject = NULL;

		if (!drv_for_kind(r->kind) || strcmp(r->state, STATE_CREATED) != 0)
			continue;
		subject = xasprintf("%s %s", r->kind, r->name);
		if (svc_driver_check(l, r, &how, &err) < 0)
			svc_verify_result(v, "server-object", subject, SVC_VERIFY_NV, "%s", err.msg);
		else
			svc_verify_result(v, "server-object", subject,
					  how == DRV_REMOVED ? SVC_VERIFY_PASS : SVC_VERIFY_FAIL, "%s",
					  words[how]);
	}
	drv_release_all();
}

int svc_verify(struct engine *e, struct ledger *l, const char *task, cJSON **out, int *failed,
	       struct te_err *err)
{
	struct verify v = {.e = e, .l = l};
	int rc = -1;

	*out = NULL;
	v.live = cJSON_CreateArray();
	v.results = cJSON_CreateArray();
	if (svc_snapshot_take(e, l, task, &v.s, err) == 0 && check_ledger_engine(&v, err) == 0 &&
	    collect_live(&v, err) == 0) {
		check_ports(&v);
		check_mounts(&v);
		svc_verify_hostconfig(&v);
		if (check_inside(&v, err) == 0 && svc_verify_broker(&v, err) == 0 &&
		    check_cross_task(&v, err) == 0) {
			check_egress(&v);
			check_credentials(&v, l);
			check_server_objects(&v, l);
			rc = 0;
		}
	}
	svc_snapshot_release(&v.s);
	cJSON_Delete(v.live);
	if (rc < 0) {
		cJSON_Delete(v.results);
		return -1;
	}
	*out = v.results;
	*failed = v.failed;
	return 0;
}

char *svc_verify_text(const cJSON *results)
{
	te_autobuf struct te_buf b = TE_BUF_INIT(16u * 1024u * 1024u);
	const cJSON *r;

	cJSON_ArrayForEach (r, results) {
		const char *res = svc_json_str(r, "result", NULL);
		const char *tag = strcmp(res, SVC_VERIFY_PASS) == 0   ? "PASS"
				  : strcmp(res, SVC_VERIFY_FAIL) == 0 ? "FAIL"
				  : strcmp(res, SVC_VERIFY_OPEN) == 0 ? "OPEN"
								      : "N/V ";

		te_buf_addf(&b, "%s  %-13s %s: %s\n", tag, svc_json_str(r, "check", NULL),
			    svc_json_str(r, "subject", NULL), svc_json_str(r, "evidence", NULL));
	}
	return te_buf_detach(&b);
}
