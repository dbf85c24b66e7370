#include "services/contract/contract.h"
#include "services/lifecycle/reskind.h"
#include "services/contract/git.h"
#include "services/contract/snapshot.h"
#include "services/contract/worktree.h"
#include "engine/engine.h"
#include "state/ledger.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROMOTION_STATEMENT                                                                                  \
	"taskenv neither merges nor deploys: the result leaves as the branch, its diff against the base "    \
	"and this evidence, for a reviewer to promote"

static const char *const cred_paths[] = {".ssh",    ".aws",   ".config/gcloud", ".kube",
					 ".docker", ".gnupg", ".netrc",		".git-credentials"};

char **svc_contract_absent_paths(const char *socket)
{
	static const char *const sockets[] = {"/var/run/docker.sock", "/run/docker.sock",
					      "/run/podman/podman.sock"};
	/* What the contract checks is not mounted: the user's home and the
	 * runtime directory rootless engines use; neither is a setting. */
	const char *home = getenv("HOME"), *xdg = getenv("XDG_RUNTIME_DIR");
	char **v = NULL;

	if (socket && *socket)
		v = te_strv_push(v, xstrdup(socket));
	for (size_t i = 0; i < sizeof(sockets) / sizeof(sockets[0]); i++)
		if (!socket || strcmp(socket, sockets[i]) != 0)
			v = te_strv_push(v, xstrdup(sockets[i]));
	if (xdg && *xdg)
		v = te_strv_push(v, xasprintf("%s/podman/podman.sock", xdg));
	if (!home || !*home)
		return v;
	v = te_strv_push(v, xstrdup(home));
	for (size_t i = 0; i < sizeof(cred_paths) / sizeof(cred_paths[0]); i++)
		v = te_strv_push(v, xasprintf("%s/%s", home, cred_paths[i]));
	return v;
}

int svc_path_exposes(const char *source, const char *path)
{
	size_t n = strlen(source);

	if (strcmp(source, "/") == 0)
		return 1;
	return strncmp(source, path, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* ---- source and promotion (git) ---- */

static char *git_or_null(const char *dir, const char *const *args)
{
	struct te_err ignored;

	return dir ? svc_git_line(dir, args, &ignored) : NULL;
}

static void add_str_or_null(cJSON *o, const char *k, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

static int count_lines(const char *s)
{
	int n = 0;
	bool in_line = false;

	for (; s && *s; s++) {
		if (*s == '\n')
			in_line = false;
		else if (!in_line)
			in_line = true, n++;
	}
	return n;
}

static cJSON *lines_array(const char *s)
{
	cJSON *a = cJSON_CreateArray();
	te_autofree char *copy = xstrdup(s ? s : "");
	char *save = NULL;

	for (char *p = strtok_r(copy, "\n", &save); p; p = strtok_r(NULL, "\n", &save))
		cJSON_AddItemToArray(a, cJSON_CreateString(p));
	return a;
}

static cJSON *source_json(const struct svc_snapshot *s, const char *dir)
{
	const char *common[] = {"rev-parse", "--path-format=absolute", "--git-common-dir", NULL};
	const char *head[] = {"rev-parse", "HEAD", NULL};
	const char *status[] = {"status", "--porcelain", NULL};
	te_autofree char *repo = git_or_null(dir, common);
	te_autofree char *h = git_or_null(dir, head);
	te_autofree char *st = repo ? git_or_null(dir, status) : NULL;
	cJSON *o = cJSON_CreateObject();

	add_str_or_null(o, "repository", s->has_wt ? s->wt.repo : repo);
	add_str_or_null(o, "worktree_path", s->has_wt ? s->wt.path : NULL);
	cJSON_AddBoolToObject(o, "managed_worktree", s->has_wt);
	add_str_or_null(o, "base_commit", s->has_wt ? s->wt.base : NULL);
	add_str_or_null(o, "head_commit", h);
	if (st)
		cJSON_AddNumberToObject(o, "dirty_files", count_lines(st));
	else
		cJSON_AddNullToObject(o, "dirty_files");
	cJSON_AddItemToObject(o, "dirty", lines_array(st));
	cJSON_AddItemToObject(o, "initial_status", lines_array(s->has_wt ? s->wt.initial_status : NULL));
	cJSON_AddStringToObject(o, "evidence",
				s->has_wt ? "ledger worktrees row; git rev-parse, git status"
					  : "git rev-parse, git status in the project directory");
	return o;
}

static cJSON *promotion_json(const struct svc_snapshot *s, const char *dir)
{
	const char *branch[] = {"symbolic-ref", "--quiet", "--short", "HEAD", NULL};
	const char *base = s->has_wt ? s->wt.base : NULL;
	const char *stat[] = {"diff", "--stat", base, NULL};
	te_autofree char *b = git_or_null(dir, branch);
	te_autofree char *d = base ? git_or_null(dir, stat) : NULL;
	cJSON *o = cJSON_CreateObject();

	add_str_or_null(o, "branch", s->has_wt ? s->wt.branch : b);
	add_str_or_null(o, "base_commit", base);
	add_str_or_null(o, "diff_stat", d);
	cJSON_AddStringToObject(o, "package", "taskenv evidence -t TASK -o DIR");
	cJSON_AddStringToObject(o, "statement", PROMOTION_STATEMENT);
	return o;
}

/* ---- deterministic order (the engine reports Mounts and Ports from maps) ---- */

static const char *sort_k1, *sort_k2;

static int cmp_member(const cJSON *a, const cJSON *b, const char *k)
{
	const cJSON *x = cJSON_GetObjectItem(a, k), *y = cJSON_GetObjectItem(b, k);

	if (cJSON_IsNumber(x) && cJSON_IsNumber(y))
		return (x->valuedouble > y->valuedouble) - (x->valuedouble < y->valuedouble);
	return strcmp(cJSON_GetStringValue(x) ?: "", cJSON_GetStringValue(y) ?: "");
}

static int cmp_items(const void *pa, const void *pb)
{
	const cJSON *a = *(const cJSON *const *)pa, *b = *(const cJSON *const *)pb;
	int c = cmp_member(a, b, sort_k1);

	return c ? c : cmp_member(a, b, sort_k2);
}

/* Sort ARR's objects by members K1 then K2 (single-threaded: file statics). */
static void sort_by(cJSON *arr, const char *k1, const char *k2)
{
	size_t n = (size_t)cJSON_GetArraySize(arr), i = 0;
	te_autofree cJSON **v = xcalloc(n + 1, sizeof(*v));

	while (cJSON_GetArraySize(arr) > 0)
		v[i++] = cJSON_DetachItemFromArray(arr, 0);
	sort_k1 = k1;
	sort_k2 = k2;
	qsort(v, n, sizeof(*v), cmp_items);
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, v[i]);
}

/* ---- filesystem ---- */

static const struct state_resource *row_of(const struct svc_snapshot *s, const cJSON *entry)
{
	return &s->res[(size_t)cJSON_GetObjectItem(entry, "resource")->valuedouble];
}

static bool declared_bind(const struct state_resource *r, const char *source, const char *target)
{
	te_autojson cJSON *d = r->detail ? cJSON_Parse(r->detail) : NULL;
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

static cJSON *mount_json(const struct svc_snapshot *s, const struct state_resource *r, const cJSON *m,
			 const char *project)
{
	const char *type = svc_json_str(m, "Type", NULL), *src = svc_json_str(m, "Source", NULL);
	const char *dst = svc_json_str(m, "Destination", NULL);
	bool bind = strcmp(type, "bind") == 0;
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "container", r->name);
	cJSON_AddStringToObject(o, "type", type);
	cJSON_AddStringToObject(o, "source", bind ? src : svc_json_str(m, "Name", NULL));
	cJSON_AddStringToObject(o, "target", dst);
	cJSON_AddStringToObject(o, "mode", cJSON_IsTrue(cJSON_GetObjectItem(m, "RW")) ? "rw" : "ro");
	cJSON_AddBoolToObject(o, "inside_project", bind && project && svc_path_exposes(project, src));
	cJSON_AddBoolToObject(o, "declared", !bind || declared_bind(r, src, dst));
	cJSON_AddBoolToObject(o, "git_worktree", bind && svc_worktree_is_linked(src, NULL));
	return o;
}

static cJSON *absent_json(const cJSON *mounts, const char *socket)
{
	te_autostrv char **paths = svc_contract_absent_paths(socket);
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; paths && paths[i]; i++) {
		cJSON *o = cJSON_CreateObject(), *by = cJSON_CreateArray();
		const cJSON *m;

		cJSON_ArrayForEach (m, mounts) {
			if (strcmp(svc_json_str(m, "type", NULL), "bind") == 0 &&
			    svc_path_exposes(svc_json_str(m, "source", NULL), paths[i]))
				cJSON_AddItemToArray(by,
						     cJSON_CreateString(svc_json_str(m, "container", NULL)));
		}
		cJSON_AddStringToObject(o, "path", paths[i]);
		cJSON_AddBoolToObject(o, "absent", cJSON_GetArraySize(by) == 0);
		cJSON_AddItemToObject(o, "exposed_to", by);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

static cJSON *filesystem_json(const struct svc_snapshot *s, cJSON *warnings)
{
	cJSON *o = cJSON_CreateObject(), *mounts = cJSON_CreateArray();
	const char *project = svc_snapshot_source_dir(s);
	const cJSON *c, *m;

	add_str_or_null(o, "project_dir", s->row.project_dir);
	cJSON_ArrayForEach (c, s->containers) {
		cJSON_ArrayForEach (m, cJSON_GetObjectItem(cJSON_GetObjectItem(c, "inspect"), "Mounts")) {
			cJSON *j = mount_json(s, row_of(s, c), m, project);

			if (cJSON_IsTrue(cJSON_GetObjectItem(j, "git_worktree")))
				cJSON_AddItemToArray(
				    warnings,
				    cJSON_CreateString(
					"a container bind-mounts a git worktree whose .git file points at a "
					"host path: git does not work inside it"));
			cJSON_AddItemToArray(mounts, j);
		}
	}
	sort_by(mounts, "container", "target");
	cJSON_AddItemToObject(o, "mounts", mounts);
	cJSON_AddItemToObject(o, "absent", absent_json(mounts, s->row.engine));
	cJSON_AddStringToObject(o, "evidence", "GET /containers/{id}/json .Mounts; ledger declared_mounts");
	return o;
}

/* ---- process ---- */

static void add_ports(const struct svc_snapshot *s, const struct state_resource *r, const cJSON *insp,
		      cJSON *out)
{
	const cJSON *p, *b;

	cJSON_ArrayForEach (p, svc_inspect_ports(insp)) {
		char proto[8] = "tcp";
		int cport = (int)strtol(p->string, NULL, 10);
		const char *slash = strchr(p->string, '/');

		if (slash)
			snprintf(proto, sizeof(proto), "%s", slash + 1);
		cJSON_ArrayForEach (b, p) {
			cJSON *o = cJSON_CreateObject();

			cJSON_AddStringToObject(o, "container", r->name);
			cJSON_AddStringToObject(o, "service", r->service ? r->service : "");
			cJSON_AddStringToObject(o, "host_ip", svc_json_str(b, "HostIp", NULL));
			cJSON_AddNumberToObject(o, "host_port",
						strtol(svc_json_str(b, "HostPort", NULL), NULL, 10));
			cJSON_AddNumberToObject(o, "container_port", cport);
			cJSON_AddStringToObject(o, "proto", proto);
			cJSON_AddNumberToObject(
			    o, "ledger_host_port",
			    svc_snapshot_port(s, r->service ?: "", svc_inspect_replica(insp), cport, proto));
			cJSON_AddItemToArray(out, o);
		}
	}
}

static cJSON *containers_json(const struct svc_snapshot *s, cJSON *ports)
{
	cJSON *a = cJSON_CreateArray();
	const cJSON *c;

	cJSON_ArrayForEach (c, s->containers) {
		const struct state_resource *r = row_of(s, c);
		const cJSON *insp = cJSON_GetObjectItem(c, "inspect");
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "name", r->name);
		add_str_or_null(o, "id", r->engine_id);
		add_str_or_null(o, "service", r->service);
		cJSON_AddStringToObject(o, "ledger_state", r->state);
		cJSON_AddStringToObject(o, "live", insp ? svc_json_str(insp, "State", "Status") : "absent");
		cJSON_AddItemToArray(a, o);
		add_ports(s, r, insp, ports);
	}
	return a;
}

static cJSON *networks_json(const struct svc_snapshot *s)
{
	cJSON *a = cJSON_CreateArray();
	const cJSON *n, *cfg;

	cJSON_ArrayForEach (n, s->networks) {
		const cJSON *insp = cJSON_GetObjectItem(n, "inspect");
		cJSON *o = cJSON_CreateObject(), *subnets = cJSON_CreateArray();

		cJSON_AddStringToObject(o, "name", row_of(s, n)->name);
		add_str_or_null(o, "id", row_of(s, n)->engine_id);
		cJSON_ArrayForEach (cfg, cJSON_GetObjectItem(cJSON_GetObjectItem(insp, "IPAM"), "Config"))
			cJSON_AddItemToArray(subnets, cJSON_CreateString(svc_json_str(cfg, "Subnet", NULL)));
		cJSON_AddItemToObject(o, "subnets", subnets);
		cJSON_AddBoolToObject(o, "internal", cJSON_IsTrue(cJSON_GetObjectItem(insp, "Internal")));
		cJSON_AddStringToObject(o, "live", insp ? "present" : "absent");
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

static cJSON *volumes_json(const struct svc_snapshot *s)
{
	cJSON *a = cJSON_CreateArray();
	const cJSON *v;

	cJSON_ArrayForEach (v, s->volumes) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "name", row_of(s, v)->name);
		cJSON_AddStringToObject(o, "live", cJSON_GetObjectItem(v, "inspect") ? "present" : "absent");
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

static cJSON *process_json(const struct svc_snapshot *s, struct ledger *l)
{
	cJSON *o = cJSON_CreateObject(), *ports = cJSON_CreateArray(), *owner;

	cJSON_AddItemToObject(o, "containers", containers_json(s, ports));
	sort_by(ports, "container", "container_port");
	cJSON_AddItemToObject(o, "ports", ports);
	cJSON_AddItemToObject(o, "networks", networks_json(s));
	cJSON_AddItemToObject(o, "volumes", volumes_json(s));
	owner = cJSON_AddObjectToObject(o, "cleanup_owner");
	cJSON_AddStringToObject(owner, "ledger_id", state_ledger_id(l));
	cJSON_AddStringToObject(owner, "ledger_path", state_path(l));
	cJSON_AddStringToObject(owner, "how", "taskenv down -t TASK removes exactly the ledger's rows");
	cJSON_AddStringToObject(o, "evidence",
				"ledger resources and ports; GET /containers/{id}/json, "
				"GET /networks/{id}");
	return o;
}

/* ---- environment ---- */

static cJSON *strings_of(const cJSON *arr)
{
	cJSON *a = cJSON_CreateArray();
	const cJSON *it;

	cJSON_ArrayForEach (it, arr)
		if (cJSON_IsString(it))
			cJSON_AddItemToArray(a, cJSON_CreateString(it->valuestring));
	return a;
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static cJSON *limits_json(const char *name, const cJSON *hc)
{
	cJSON *o = cJSON_CreateObject();
	double pids = num(hc, "PidsLimit");

	cJSON_AddStringToObject(o, "container", name);
	cJSON_AddNumberToObject(o, "memory_bytes", num(hc, "Memory"));
	cJSON_AddNumberToObject(o, "nano_cpus", num(hc, "NanoCpus"));
	cJSON_AddNumberToObject(o, "cpu_quota", num(hc, "CpuQuota"));
	cJSON_AddNumberToObject(o, "pids_limit", pids > 0 ? pids : 0);
	cJSON_AddStringToObject(o, "note", "0 means unlimited");
	return o;
}

/* Driver rows: everything that is not an engine object. */
static bool driver_row(const struct state_resource *r)
{
	enum svc_res_kind k = svc_res_kind_of(r->kind);

	return k == SVC_RES_UNKNOWN || !svc_res_kind_engine(k);
}

/* How the contract lists the credentials of a driver row's kind. */
static enum svc_res_cred cred_of(const struct state_resource *r)
{
	const struct svc_res_kind_ops *k = svc_res_kind_find(r->kind);

	return k ? k->cred : SVC_CRED_NONE;
}

/* The task-scoped server objects (schema, database, vhost, bucket, ...), by
 * the ledger: {"resource", "kind", "name", "state"}. */
static cJSON *services_json(const struct svc_snapshot *s)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < s->n_res; i++) {
		const struct state_resource *r = &s->res[i];
		cJSON *o;

		if (!driver_row(r) || cred_of(r) == SVC_CRED_OWN)
			continue;
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "resource", r->service ? r->service : "");
		cJSON_AddStringToObject(o, "kind", r->kind);
		cJSON_AddStringToObject(o, "name", r->name);
		cJSON_AddStringToObject(o, "state", r->state);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

/* The task's S3 buckets live on its own emulator instance (a row of a
 * per-task server container), not on a server: every task reaches. */
static bool own_server(const struct svc_snapshot *s)
{
	for (size_t i = 0; i < s->n_res; i++)
		if (svc_res_kind_of(s->res[i].kind) == SVC_RES_S3_SERVER)
			return true;
	return false;
}

/* The task's own credentials by scope, never their secrets: a Postgres role
 * or RabbitMQ user and the objects of the same resource it is scoped to;
 * S3 emulators with one identity say so. */
static cJSON *credentials_json(const struct svc_snapshot *s)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < s->n_res; i++) {
		const struct state_resource *r = &s->res[i];
		bool user = cred_of(r) == SVC_CRED_OWN;
		cJSON *o, *scope;

		if (cred_of(r) == SVC_CRED_NONE)
			continue;
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "service", r->service ? r->service : "");
		cJSON_AddStringToObject(o, "username",
					user ? r->name
					: own_server(s)
					    ? "own (a random key of this task on its own emulator "
					      "instance, on its networks only)"
					    : "shared (one identity on this emulator)");
		scope = cJSON_AddArrayToObject(o, "scope");
		for (size_t j = 0; j < s->n_res; j++)
			if (j != i && driver_row(&s->res[j]) && r->service && s->res[j].service &&
			    strcmp(s->res[j].service, r->service) == 0 &&
			    strcmp(s->res[j].kind, r->kind) != 0)
				cJSON_AddItemToArray(scope, cJSON_CreateString(s->res[j].name));
		if (!user)
			cJSON_AddItemToArray(scope, cJSON_CreateString(r->name));
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

static cJSON *environment_json(const struct svc_snapshot *s, const cJSON *networks)
{
	cJSON *o = cJSON_CreateObject(), *images = cJSON_CreateArray(), *limits = cJSON_CreateArray();
	cJSON *egress = cJSON_CreateArray();
	const cJSON *c, *n;

	cJSON_ArrayForEach (c, s->containers) {
		const cJSON *insp = cJSON_GetObjectItem(c, "inspect"), *img = cJSON_GetObjectItem(c, "image");
		cJSON *i = cJSON_CreateObject();

		if (!insp)
			continue;
		cJSON_AddStringToObject(i, "container", row_of(s, c)->name);
		cJSON_AddStringToObject(i, "image", svc_json_str(insp, "Config", "Image"));
		cJSON_AddStringToObject(i, "id", svc_json_str(insp, "Image", NULL));
		cJSON_AddItemToObject(i, "digests", strings_of(cJSON_GetObjectItem(img, "RepoDigests")));
		cJSON_AddItemToArray(images, i);
		cJSON_AddItemToArray(
		    limits, limits_json(row_of(s, c)->name, cJSON_GetObjectItem(insp, "HostConfig")));
	}
	cJSON_ArrayForEach (n, networks) {
		cJSON *e = cJSON_CreateObject();

		cJSON_AddStringToObject(e, "network", svc_json_str(n, "name", NULL));
		cJSON_AddBoolToObject(e, "egress_allowed", !cJSON_IsTrue(cJSON_GetObjectItem(n, "internal")));
		cJSON_AddItemToArray(egress, e);
	}
	cJSON_AddItemToObject(o, "images", images);
	cJSON_AddItemToObject(o, "limits", limits);
	cJSON_AddItemToObject(o, "egress", egress);
	cJSON_AddItemToObject(o, "services", services_json(s));
	/* Building is shared state too: fine, layers are immutable, but say so. */
	cJSON_AddStringToObject(
	    o, "build_cache",
	    "shared: the engine's build cache and base images are shared by every task on "
	    "this engine; images built for this task are tagged and labelled as its own");
	cJSON_AddStringToObject(o, "evidence",
				"GET /containers/{id}/json .HostConfig, .Image; "
				"GET /images/{id}/json .RepoDigests; GET /networks/{id} .Internal");
	return o;
}

/* ---- identity ---- */

static bool no_new_privs(const cJSON *hc)
{
	const cJSON *o;

	cJSON_ArrayForEach (o, cJSON_GetObjectItem(hc, "SecurityOpt"))
		if (cJSON_IsString(o) && strncmp(o->valuestring, "no-new-privileges", 17) == 0 &&
		    !strstr(o->valuestring, "false"))
			return true;
	return false;
}

static cJSON *user_json(const char *name, const cJSON *insp, const cJSON *img)
{
	const cJSON *hc = cJSON_GetObjectItem(insp, "HostConfig");
	const char *user = svc_json_str(insp, "Config", "User");
	const char *image_user = svc_json_str(img, "Config", "User");
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "container", name);
	cJSON_AddStringToObject(o, "user", *user ? user : *image_user ? image_user : "root (image default)");
	cJSON_AddItemToObject(o, "cap_add", strings_of(cJSON_GetObjectItem(hc, "CapAdd")));
	cJSON_AddItemToObject(o, "cap_drop", strings_of(cJSON_GetObjectItem(hc, "CapDrop")));
	cJSON_AddBoolToObject(o, "privileged", cJSON_IsTrue(cJSON_GetObjectItem(hc, "Privileged")));
	cJSON_AddBoolToObject(o, "no_new_privileges", no_new_privs(hc));
	return o;
}

/* The exceptions `up` was allowed (x-taskenv.allow and --allow), as the
 * ledger recorded them; [] when none. */
static cJSON *policy_exceptions(struct ledger *l, const char *task)
{
	struct te_err ignored = {0};
	te_autofree char *allow = NULL;
	cJSON *a = NULL;

	if (state_task_get_allow(l, task, &allow, &ignored) == 0 && allow)
		a = cJSON_Parse(allow);
	if (!cJSON_IsArray(a)) {
		cJSON_Delete(a);
		a = cJSON_CreateArray();
	}
	return a;
}

static cJSON *identity_json(const struct svc_snapshot *s, struct ledger *l)
{
	cJSON *o = cJSON_CreateObject(), *users = cJSON_CreateArray();
	const cJSON *c;

	cJSON_ArrayForEach (c, s->containers) {
		const cJSON *insp = cJSON_GetObjectItem(c, "inspect");

		if (insp)
			cJSON_AddItemToArray(
			    users, user_json(row_of(s, c)->name, insp, cJSON_GetObjectItem(c, "image")));
	}
	cJSON_AddItemToObject(o, "users", users);
	cJSON_AddItemToObject(o, "credentials", credentials_json(s));
	/* What the Compose file was allowed beyond the defaults. */
	cJSON_AddItemToObject(o, "policy_exceptions", policy_exceptions(l, s->task));
	cJSON_AddStringToObject(o, "evidence",
				"GET /containers/{id}/json .Config.User, .HostConfig.CapAdd, "
				".CapDrop, .Privileged, .SecurityOpt");
	return o;
}

/* ---- the whole contract ---- */

static cJSON *header(struct engine *e, struct ledger *l, const struct svc_snapshot *s)
{
	cJSON *o = cJSON_CreateObject(), *eng;

	cJSON_AddNumberToObject(o, "schema_version", SVC_CONTRACT_SCHEMA_VERSION);
	cJSON_AddStringToObject(o, "task", s->task);
	cJSON_AddStringToObject(o, "status", s->row.status ? s->row.status : "");
	cJSON_AddNumberToObject(o, "generated", (double)time(NULL));
	eng = cJSON_AddObjectToObject(o, "engine");
	cJSON_AddStringToObject(eng, "socket", engine_socket(e));
	cJSON_AddStringToObject(eng, "flavor", engine_flavor(e));
	cJSON_AddStringToObject(eng, "version", engine_version(e));
	cJSON_AddStringToObject(eng, "api_version", engine_api_version(e));
	cJSON_AddStringToObject(o, "ledger_id", state_ledger_id(l));
	return o;
}

int svc_contract(struct engine *e, struct ledger *l, const char *task, cJSON **out, struct te_err *err)
{
	struct svc_snapshot s;
	cJSON *o, *warnings, *process;
	const char *dir;

	*out = NULL;
	if (svc_snapshot_take(e, l, task, &s, err) < 0) {
		svc_snapshot_release(&s);
		return -1;
	}
	dir = svc_snapshot_source_dir(&s);
	o = header(e, l, &s);
	warnings = cJSON_CreateArray();
	cJSON_AddItemToObject(o, "source", source_json(&s, dir));
	cJSON_AddItemToObject(o, "filesystem", filesystem_json(&s, warnings));
	process = process_json(&s, l);
	cJSON_AddItemToObject(o, "process", process);
	cJSON_AddItemToObject(o, "environment",
			      environment_json(&s, cJSON_GetObjectItem(process, "networks")));
	cJSON_AddItemToObject(o, "identity", identity_json(&s, l));
	cJSON_AddItemToObject(o, "promotion", promotion_json(&s, dir));
	cJSON_AddItemToObject(o, "warnings", warnings);
	svc_snapshot_release(&s);
	*out = o;
	return 0;
}

int svc_events_json(struct ledger *l, const char *task, cJSON **out, struct te_err *err)
{
	struct state_event *ev = NULL;
	size_t n = 0;
	cJSON *a;

	if (state_event_list(l, task, &ev, &n, err) < 0)
		return -1;
	a = cJSON_CreateArray();
	for (size_t i = 0; i < n; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "id", (double)ev[i].id);
		cJSON_AddNumberToObject(o, "time", (double)ev[i].ts);
		add_str_or_null(o, "task", ev[i].task);
		add_str_or_null(o, "verb", ev[i].verb);
		add_str_or_null(o, "resource", ev[i].resource);
		add_str_or_null(o, "outcome", ev[i].outcome);
		add_str_or_null(o, "message", ev[i].message);
		cJSON_AddItemToArray(a, o);
	}
	state_events_free(ev, n);
	*out = a;
	return 0;
}
