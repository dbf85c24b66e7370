/* POST /containers/create: the named table of every field taskenv may
 * send in Config, HostConfig and NetworkingConfig, each with its rule. A
 * field not in the table is refused. */
#include "services/gate/gate_int.h"
#include "services/model/plan.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

extern char **environ;

struct gate_at gate_at_field(const struct gate_at *at, const struct gate_field *f)
{
	struct gate_at a = *at;

	if (at->svc && f->svc_key >= 0 && at->svc->key_loc[f->svc_key].line)
		a.loc = at->svc->key_loc[f->svc_key];
	return a;
}

static const char *fkey(const struct gate_field *f)
{
	return f->compose_key ? f->compose_key : f->name;
}

void gate_fields(struct gate *g, const struct gate_at *at, const struct gate_field *table, size_t n,
		 const char *where, const cJSON *obj)
{
	const cJSON *it;

	if (obj && !cJSON_IsObject(obj)) {
		gate_add(g, at, where, NULL, xasprintf("%s is not an object", where));
		return;
	}
	cJSON_ArrayForEach (it, obj) {
		const struct gate_field *f = NULL;

		for (size_t i = 0; !f && i < n; i++)
			if (strcmp(table[i].name, it->string) == 0)
				f = &table[i];
		if (!f) {
			gate_add(g, at, where, NULL,
				 xasprintf("%s.%s is a field taskenv never sends", where, it->string));
			continue;
		}
		if (f->rule) {
			struct gate_at a = gate_at_field(at, f);

			f->rule(g, &a, f, it);
		}
	}
}

/* ---- where an item came from ---- */

static struct gate_at at_mount(const struct gate_at *at, const char *target)
{
	struct gate_at a = *at;

	for (size_t i = 0; at->svc && target && i < at->svc->n_mounts; i++)
		if (at->svc->mounts[i].target && strcmp(at->svc->mounts[i].target, target) == 0)
			a.loc = at->svc->mounts[i].loc;
	return a;
}

static struct gate_at at_port(const struct gate_at *at, const char *key)
{
	struct gate_at a = *at;

	for (size_t i = 0; at->svc && i < at->svc->n_ports; i++) {
		char k[32];

		snprintf(k, sizeof(k), "%d/%s", at->svc->ports[i].container_port, at->svc->ports[i].proto);
		if (strcmp(k, key) == 0)
			a.loc = at->svc->ports[i].loc;
	}
	return a;
}

static struct gate_at at_sysctl(const struct gate_at *at, const char *key)
{
	struct gate_at a = *at;

	for (size_t i = 0; at->svc && i < at->svc->n_sysctls; i++)
		if (strcmp(at->svc->sysctls[i].key, key) == 0)
			a.loc = at->svc->sysctls[i].loc;
	return a;
}

/* ---- rules ---- */

static void must_string(struct gate *g, const struct gate_at *at, const struct gate_field *f, const cJSON *v)
{
	if (!cJSON_IsString(v))
		gate_add(g, at, fkey(f), NULL, xasprintf("%s is not a string", f->name));
}

static void must_strv(struct gate *g, const struct gate_at *at, const struct gate_field *f, const cJSON *v)
{
	const cJSON *it;

	if (!cJSON_IsArray(v)) {
		gate_add(g, at, fkey(f), NULL, xasprintf("%s is not a list", f->name));
		return;
	}
	cJSON_ArrayForEach (it, v)
		if (!cJSON_IsString(it))
			gate_add(g, at, fkey(f), NULL,
				 xasprintf("%s holds a value that is not a string", f->name));
}

static bool shared_body(const struct gate *g, const cJSON *labels);

static void r_labels(struct gate *g, const struct gate_at *at, const struct gate_field *f, const cJSON *v)
{
	(void)f;
	gate_labels(g, at, v, shared_body(g, v));
}

bool gate_credential_name(const char *name, size_t n)
{
	static const char *const suffixes[] = {"_TOKEN",    "_KEY",  "_SECRET",
					       "_PASSWORD", "_PASS", "_CREDENTIALS"};
	static const char *const inside[] = {"SECRET", "PASSWORD", "TOKEN"};
	static const char *const exact[] = {"SSH_AUTH_SOCK", "GITHUB_TOKEN", "NPM_TOKEN", "KUBECONFIG",
					    "DOCKER_AUTH_CONFIG"};
	te_autofree char *up = xstrndup(name, n);

	for (char *p = up; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	if (strncmp(up, "AWS_", 4) == 0 || strncmp(up, "GOOGLE_", 7) == 0 || strncmp(up, "AZURE_", 6) == 0)
		return true;
	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (strcmp(up, exact[i]) == 0)
			return true;
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t k = strlen(suffixes[i]);

		if (n > k && strcmp(up + n - k, suffixes[i]) == 0)
			return true;
	}
	for (size_t i = 0; i < sizeof(inside) / sizeof(inside[0]); i++)
		if (strstr(up, inside[i]))
			return true;
	return false;
}

/* A URL whose user part carries a password (SCHEME://USER:PW@...): an
 * admin URL such as PG_ADMIN_URL, whatever the variable is called. */
static bool url_with_password(const char *v)
{
	const char *p = strstr(v, "://");
	size_t n;

	if (!p)
		return false;
	p += 3;
	n = strcspn(p, "/?#@");
	return p[n] == '@' && memchr(p, ':', n) != NULL;
}

/* The host credential variable whose value VALUE carries (by name or by
 * interpolation), or NULL. Short values say nothing. */
char *gate_credential_in(const char *value)
{
	for (char **e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');

		if (!eq || strlen(eq + 1) < 6 ||
		    (!gate_credential_name(*e, (size_t)(eq - *e)) && !url_with_password(eq + 1)))
			continue;
		if (strstr(value, eq + 1))
			return xstrndup(*e, (size_t)(eq - *e));
	}
	return NULL;
}

static void r_env(struct gate *g, const struct gate_at *at, const struct gate_field *f, const cJSON *v)
{
	const cJSON *it;

	must_strv(g, at, f, v);
	cJSON_ArrayForEach (it, v) {
		const char *s = cJSON_GetStringValue(it);
		const char *eq = s ? strchr(s, '=') : NULL;
		te_autofree char *name = eq ? gate_credential_in(eq + 1) : NULL;
		te_autofree char *var = eq ? xstrndup(s, (size_t)(eq - s)) : NULL;

		if (name)
			gate_add(g, at, fkey(f), "host-credentials",
				 xasprintf("'%s' passes the host's credential variable %s into the container",
					   var, name));
	}
}

/* Every string in V (keys of objects too) that carries a host credential:
 * a command, a label, a working directory are as good a way out as Env. */
void gate_credentials(struct gate *g, const struct gate_at *at, const char *key, const cJSON *v)
{
	const cJSON *it;
	te_autofree char *name = NULL;

	if (v && v->string)
		name = gate_credential_in(v->string);
	if (!name && cJSON_IsString(v))
		name = gate_credential_in(v->valuestring);
	if (name) {
		gate_add(g, at, key, "host-credentials",
			 xasprintf("%s carries the host's credential variable %s", key, name));
		return;
	}
	cJSON_ArrayForEach (it, v)
		gate_credentials(g, at, key, it);
}

/* The Config and HostConfig fields of a container body but Env (r_env
 * names the variable): judged for host credentials. */
static void body_credentials(struct gate *g, const struct gate_at *at, const struct gate_field *table,
			     size_t n, const cJSON *obj)
{
	const cJSON *it;

	cJSON_ArrayForEach (it, obj)
		for (size_t i = 0; i < n; i++)
			if (strcmp(table[i].name, it->string) == 0 && strcmp(it->string, "Env") != 0 &&
			    strcmp(it->string, "HostConfig") != 0) {
				struct gate_at a = gate_at_field(at, &table[i]);

				gate_credentials(g, &a, fkey(&table[i]), it);
			}
}

static bool loopback(const char *ip)
{
	return !*ip || strncmp(ip, "127.", 4) == 0 || strcmp(ip, "::1") == 0;
}

static void r_ports(struct gate *g, const struct gate_at *at, const struct gate_field *f, const cJSON *v)
{
	const cJSON *port, *b;

	(void)f;
	cJSON_ArrayForEach (port, v) {
		struct gate_at a = at_port(at, port->string);

		cJSON_ArrayForEach (b, port) {
			const char *ip = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "HostIp"));

			if (!ip || !loopback(ip))
				gate_add(g, &a, "ports", "public-port",
					 xasprintf("port %s is published on '%s', not on loopback",
						   port->string, ip ? ip : "every address"));
		}
	}
}

/* A bind to DST that is one of the service's secrets or configs: where it
 * was declared, and the key. 0 when it is none. */
static int at_file_ref(const struct gate *g, const struct gate_at *at, const char *dst, struct gate_at *a,
		       const char **key)
{
	for (int sec = 1; at->svc && g->plan && sec >= 0; sec--) {
		const struct svc_file_ref *r = sec ? at->svc->secrets : at->svc->configs;
		size_t n = sec ? at->svc->n_secrets : at->svc->n_configs;
		const struct svc_file_decl *d = sec ? g->plan->project->secrets : g->plan->project->configs;
		size_t nd = sec ? g->plan->project->n_secrets : g->plan->project->n_configs;

		for (size_t i = 0; i < n; i++) {
			te_autofree char *t = svc_plan_file_target(sec, &r[i]);

			if (strcmp(t, dst) != 0)
				continue;
			*key = sec ? "secrets" : "configs";
			for (size_t j = 0; j < nd; j++)
				if (strcmp(d[j].key, r[i].source) == 0)
					a->loc = d[j].loc;
			return 1;
		}
	}
	return 0;
}

/* "SRC:DST[:OPTS]": a host path (absolute) or a volume name. */
static void judge_bind(struct gate *g, const struct gate_at *at, const char *bind, bool paths_only)
{
	const char *key = "volumes";
	te_autofree char *copy = xstrdup(bind);
	char *dst = strchr(copy, ':');
	char *opts = dst ? strchr(dst + 1, ':') : NULL;
	struct gate_at a;
	bool ro = false;

	if (!dst) {
		gate_add(g, at, "volumes", NULL, xasprintf("bind '%s' has no target", bind));
		return;
	}
	*dst++ = '\0';
	if (opts)
		*opts++ = '\0';
	a = at_mount(at, dst);
	at_file_ref(g, at, dst, &a, &key);
	for (char *o = opts, *next; o && *o; o = next) {
		next = strchr(o, ',');
		if (next)
			*next++ = '\0';
		/* A live container's Binds carry the engine's own options
		 * (Podman: rprivate, rbind, ...): at start only the path matters. */
		if (strcmp(o, "ro") == 0)
			ro = true;
		else if (!paths_only && strcmp(o, "rw") != 0 && strcmp(o, "nocopy") != 0)
			gate_add(g, &a, key, NULL, xasprintf("bind option '%s' of '%s'", o, bind));
	}
	if (copy[0] == '/')
		gate_host_path(g, &a, key, copy, ro);
	else if (!paths_only)
		gate_volume_use(g, &a, key, copy);
}

static void r_binds(struct gate *g, const struct gate_at *at, const struct gate_field *f, const cJSON *v)
{
	const cJSON *it;

	must_strv(g, at, f, v);
	cJSON_ArrayForEach (it, v)
		if (cJSON_IsString(it))
			judge_bind(g, at, it->valuestring, false);
}

static void r_mounts(struct gate *g, const struct gate_at *at, const struct gate_field *f, const cJSON *v)
{
	const cJSON *m, *it;

	(void)f;
	cJSON_ArrayForEach (m, v) {
		const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "Type"));
		const char *src = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "Source"));
		const char *dst = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "Target"));
		struct gate_at a = at_mount(at, dst);

		cJSON_ArrayForEach (it, m)
			if (strcmp(it->string, "Type") != 0 && strcmp(it->string, "Source") != 0 &&
			    strcmp(it->string, "Target") != 0 && strcmp(it->string, "ReadOnly") != 0)
				gate_add(g, &a, "volumes", NULL,
					 xasprintf("HostConfig.Mounts[].%s is a field taskenv never sends",
						   it->string));
		if (!type || strcmp(type, "bind") != 0 || !src) {
			gate_add(g, &a, "volumes", NULL, xstrdup("a mount that is not a bind with a source"));
			continue;
		}
		gate_host_path(g, &a, "volumes", src,
			       cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "ReadOnly")));
	}
}

/* Docker's default capability set: the same list on both engines. */
static const char *const default_caps[] = {
    "CHOWN",  "DAC_OVERRIDE", "FSETID",	 "FOWNER",	     "MKNOD",	   "NET_RAW", "SETGID",
    "SETUID", "SETFCAP",      "SETPCAP", "NET_BIND_SERVICE", "SYS_CHROOT", "KILL",    "AUDIT_WRITE"};

static void r_cap_add(struct gate *g, const struct gate_at *at, const struct gate_field *f, const cJSON *v)
{
	const cJSON *it;

	must_strv(g, at, f, v);
	cJSON_ArrayForEach (it, v) {
		const char *cap = cJSON_GetStringValue(it);
		te_autofree char *name = NULL;
		bool dflt = false;

		if (!cap)
			continue;
		if (strncasecmp(cap, "CAP_", 4) == 0)
			cap += 4;
		for (size_t i = 0; i < sizeof(default_caps) / sizeof(default_caps[0]); i++)
			dflt = dflt || strcasecmp(cap, default_caps[i]) == 0;
		if (dflt)
			continue;
		name = xasprintf("cap:%s", cap);
		for (char *p = name + 4; *p; p++)
			*p = (char)toupper((unsigned char)*p);
		gate_add(g, at, "cap_add", name,
			 xasprintf("cap_add: %s is outside Docker's default capability set", name + 4));
	}
}

/* One security_opt: "KEY=VALUE" or "KEY:VALUE". */
static void judge_secopt(struct gate *g, const struct gate_at *at, const char *o)
{
	size_t n = strcspn(o, "=:");
	const char *val = o[n] ? o + n + 1 : "";
	te_autofree char *key = xstrndup(o, n);

	if (strcmp(key, "no-new-privileges") == 0 && (!*val || !strcmp(val, "true") || !strcmp(val, "false")))
		return;
	/* Turning a confinement off is refused outright (privileged aside). */
	if (strcmp(key, "label") == 0 && strcmp(val, "disable") == 0) {
		gate_add(g, at, "security_opt", NULL, xasprintf("%s turns SELinux labels off", o));
		return;
	}
	if (strcmp(key, "label") == 0 && (!strncmp(val, "type:", 5) || !strncmp(val, "user:", 5) ||
					  !strncmp(val, "role:", 5) || !strncmp(val, "level:", 6)))
		return;
	if (strcmp(key, "apparmor") == 0 && *val && strcmp(val, "unconfined") != 0)
		return;
	if (strcmp(key, "apparmor") == 0 && strcmp(val, "unconfined") == 0) {
		gate_add(g, at, "security_opt", NULL, xasprintf("%s turns AppArmor off", o));
		return;
	}
	if (strcmp(key, "seccomp") == 0 && strcmp(val, "unconfined") == 0) {
		gate_add(g, at, "security_opt", NULL, xasprintf("%s turns seccomp off", o));
		return;
	}
	if (strcmp(key, "seccomp") == 0 && *val && val[0] != '{') {
		gate_add(g, at, "security_opt", "seccomp-profile",
			 xasprintf("%s sets a seccomp profile of the file's choosing", o));
		return;
	}
	gate_add(g, at, "security_opt", NULL, xasprintf("security option '%s'", o));
}

static void r_secopt(struct gate *g, const struct gate_at *at, const struct gate_field *f, const cJSON *v)
{
	const cJSON *it;

	must_strv(g, at, f, v);
	cJSON_ArrayForEach (it, v)
		if (cJSON_IsString(it))
			judge_secopt(g, at, it->valuestring);
}

static void r_privileged(struct gate *g, const struct gate_at *at, const struct gate_field *f, const cJSON *v)
{
	(void)f;
	if (cJSON_IsTrue(v))
		gate_add(g, at, "privileged", "privileged",
			 xstrdup("privileged: true gives the container every capability and every device of "
				 "the host"));
}

static void r_devices(struct gate *g, const struct gate_at *at, const struct gate_field *f, const cJSON *v)
{
	const cJSON *it;

	(void)f;
	cJSON_ArrayForEach (it, v) {
		const char *d = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "PathOnHost"));

		gate_add(g, at, "devices", "devices",
			 xasprintf("passes host device '%s' into the container", d ? d : "?"));
	}
}

/* Sysctls the kernel namespaces per container (Docker's list, which runc
 * enforces); net.* only with the container's own network namespace. */
static bool namespaced_sysctl(const char *k, bool host_net)
{
	static const char *const exact[] = {"kernel.msgmax",  "kernel.msgmnb",		"kernel.msgmni",
					    "kernel.sem",     "kernel.shmall",		"kernel.shmmax",
					    "kernel.shmmni",  "kernel.shm_rmid_forced", "kernel.domainname",
					    "kernel.hostname"};

	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (strcmp(exact[i], k) == 0)
			return true;
	if (strncmp(k, "fs.mqueue.", 10) == 0)
		return true;
	return strncmp(k, "net.", 4) == 0 && !host_net;
}

static void r_sysctls(struct gate *g, const struct gate_at *at, const struct gate_field *f, const cJSON *v)
{
	const cJSON *it;

	(void)f;
	cJSON_ArrayForEach (it, v) {
		struct gate_at a = at_sysctl(at, it->string);

		/* NetworkMode host is refused on its own; judge as if shared. */
		if (!namespaced_sysctl(it->string, false))
			gate_add(
			    g, &a, "sysctls", "host-sysctl",
			    xasprintf(
				"sysctl '%s' is not namespaced: it would change the host kernel for every "
				"task",
				it->string));
	}
}

/* CONTAINER (a "container:NAME" target or a VolumesFrom name) must carry
 * this task's labels: in check, one of the plan's containers. */
bool gate_task_container(struct gate *g, const char *name)
{
	enum gate_owner o;
	bool missing = true;

	/* One that exists is judged by its labels; one not made yet (up
	 * judges before it creates) must be one the plan makes. */
	if (g->lookup && gate_lookup_owner(g, "container", name, &o, NULL, &missing) == 0)
		return o == GATE_OWN_TASK;
	for (size_t i = 0; missing && g->plan && i < g->plan->n_containers; i++)
		if (strcmp(g->plan->containers[i].name, name) == 0)
			return true;
	return false;
}

/* PidMode, IpcMode, UsernsMode, UTSMode, CgroupnsMode: private, or joined
 * to this task's container; host needs its exception. */
static void r_ns(struct gate *g, const struct gate_at *at, const struct gate_field *f, const cJSON *v)
{
	static const char *const ok[] = {"", "private", "shareable", "none"};
	const char *m = cJSON_GetStringValue(v);
	const char *allow = f->name[0] == 'P'	? "host-pid"
			    : f->name[0] == 'I' ? "host-ipc"
			    : f->name[1] == 's' ? "host-userns"
			    : f->name[0] == 'U' ? "host-uts"
						: "host-cgroupns";

	if (!m)
		return must_string(g, at, f, v);
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (strcmp(m, ok[i]) == 0)
			return;
	if (strcmp(m, "host") == 0) {
		gate_add(g, at, fkey(f), allow, xasprintf("%s: host shares the host's namespace", fkey(f)));
		return;
	}
	if (strncmp(m, "container:", 10) == 0 && gate_task_container(g, m + 10))
		return;
	gate_add(g, at, fkey(f), NULL,
		 strncmp(m, "container:", 10) == 0
		     ? xasprintf("%s: %s is not a container of this task", fkey(f), m)
		     : xasprintf("%s: '%s'", fkey(f), m));
}

static void r_volumes_from(struct gate *g, const struct gate_at *at, const struct gate_field *f,
			   const cJSON *v)
{
	const cJSON *it;

	must_strv(g, at, f, v);
	cJSON_ArrayForEach (it, v) {
		const char *s = cJSON_GetStringValue(it);
		te_autofree char *name = s ? xstrndup(s, strcspn(s, ":")) : NULL;

		if (name && !gate_task_container(g, name))
			gate_add(g, at, "volumes_from", NULL,
				 xasprintf("'%s' is not a container of this task", s));
	}
}

static void r_links(struct gate *g, const struct gate_at *at, const struct gate_field *f, const cJSON *v)
{
	r_volumes_from(g, at, f, v); /* "NAME:ALIAS": the same rule for NAME */
}

static void r_netmode(struct gate *g, const struct gate_at *at, const struct gate_field *f, const cJSON *v)
{
	const char *m = cJSON_GetStringValue(v);

	if (!m)
		return must_string(g, at, f, v);
	if (strcmp(m, "none") == 0)
		return;
	if (strcmp(m, "host") == 0) {
		gate_add(g, at, "network_mode", "host-network",
			 xstrdup("network_mode: host shares the host's network namespace"));
		return;
	}
	if (strncmp(m, "container:", 10) == 0) {
		if (!gate_task_container(g, m + 10))
			gate_add(g, at, "network_mode", NULL,
				 xasprintf("%s is not a container of this task", m));
		return;
	}
	/* Not written: the plan's primary network, which its endpoint names
	 * too (judged there, under networks:). */
	if (at->svc && !at->svc->key_loc[SVC_K_NETWORK_MODE].line)
		return;
	gate_network_use(g, at, "network_mode", m);
}

static void r_runtime(struct gate *g, const struct gate_at *at, const struct gate_field *f, const cJSON *v)
{
	const char *r = cJSON_GetStringValue(v);

	(void)f;
	if (!r || (strcmp(r, "runc") != 0 && strcmp(r, "crun") != 0))
		gate_add(g, at, "runtime", "runtime", xasprintf("runtime '%s'", r ? r : "?"));
}

static void r_logconfig(struct gate *g, const struct gate_at *at, const struct gate_field *f, const cJSON *v)
{
	static const char *const ok[] = {"", "json-file", "local", "k8s-file", "journald", "none"};
	const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(v, "Type"));

	(void)f;
	for (size_t i = 0; t && i < sizeof(ok) / sizeof(ok[0]); i++)
		if (strcmp(t, ok[i]) == 0)
			return;
	gate_add(g, at, "logging", "log-driver", xasprintf("log driver '%s'", t ? t : "?"));
}

static void r_mac(struct gate *g, const struct gate_at *at, const struct gate_field *f, const cJSON *v)
{
	(void)f;
	gate_add(g, at, "mac_address", "mac-address",
		 xasprintf("mac_address '%s' is fixed: every task of this project would use the same MAC",
			   cJSON_GetStringValue(v) ? v->valuestring : "?"));
}

/* The image must not be one another task built (by its labels). */
static void r_image(struct gate *g, const struct gate_at *at, const struct gate_field *f, const cJSON *v)
{
	enum gate_owner o;

	if (!cJSON_IsString(v))
		return must_string(g, at, f, v);
	if (gate_lookup_owner(g, "image", v->valuestring, &o, NULL, NULL) == 0 && o == GATE_OWN_OTHER)
		gate_add(g, at, "image", NULL,
			 xasprintf("image '%s' is another task's (built by it)", v->valuestring));
}

#define K(id) SVC_K_##id
static const struct gate_field host_config[] = {
    {"Binds", "volumes", K(VOLUMES), r_binds},
    {"Mounts", "volumes", K(VOLUMES), r_mounts},
    {"Tmpfs", "tmpfs", K(TMPFS), NULL},
    {"PortBindings", "ports", K(PORTS), r_ports},
    {"Ulimits", "ulimits", K(ULIMITS), NULL},
    {"Memory", "mem_limit", K(MEM_LIMIT), NULL},
    {"MemoryReservation", "mem_reservation", K(MEM_RESERVATION), NULL},
    {"NanoCpus", "cpus", K(CPUS), NULL},
    {"PidsLimit", "pids_limit", K(PIDS_LIMIT), NULL},
    {"ShmSize", "shm_size", K(SHM_SIZE), NULL},
    {"Runtime", "runtime", K(RUNTIME), r_runtime},
    {"CapAdd", "cap_add", K(CAP_ADD), r_cap_add},
    {"CapDrop", "cap_drop", K(CAP_DROP), must_strv},
    {"SecurityOpt", "security_opt", K(SECURITY_OPT), r_secopt},
    {"ExtraHosts", "extra_hosts", K(EXTRA_HOSTS), must_strv},
    {"Dns", "dns", K(DNS), must_strv},
    {"DnsSearch", "dns_search", K(DNS_SEARCH), must_strv},
    {"GroupAdd", "group_add", K(GROUP_ADD), must_strv},
    {"ReadonlyRootfs", "read_only", K(READ_ONLY), NULL},
    {"Privileged", "privileged", K(PRIVILEGED), r_privileged},
    {"Init", "init", K(INIT), NULL},
    {"Sysctls", "sysctls", K(SYSCTLS), r_sysctls},
    {"Devices", "devices", K(DEVICES), r_devices},
    {"PidMode", "pid", K(PID), r_ns},
    {"IpcMode", "ipc", K(IPC), r_ns},
    {"UsernsMode", "userns_mode", K(USERNS), r_ns},
    {"UTSMode", "uts", K(UTS), r_ns},
    {"CgroupnsMode", "cgroup", K(CGROUP), r_ns},
    {"VolumesFrom", "volumes_from", K(VOLUMES_FROM), r_volumes_from},
    {"Links", "links", K(LINKS), r_links},
    {"RestartPolicy", "restart", K(RESTART), NULL},
    {"NetworkMode", "network_mode", K(NETWORK_MODE), r_netmode},
    {"LogConfig", "logging", -1, r_logconfig},
    /* How a client attaches (docker run through the broker): nothing of
     * the container's reach. */
    {"AutoRemove", NULL, -1, NULL},
    {"ConsoleSize", NULL, -1, NULL},
};

static const struct gate_field config[] = {
    {"Image", "image", K(IMAGE), r_image},
    {"Cmd", "command", K(COMMAND), must_strv},
    {"Entrypoint", "entrypoint", K(ENTRYPOINT), must_strv},
    {"Env", "environment", K(ENVIRONMENT), r_env},
    {"WorkingDir", "working_dir", K(WORKING_DIR), must_string},
    {"User", "user", K(USER), must_string},
    {"Labels", "labels", K(LABELS), r_labels},
    {"ExposedPorts", "expose", K(EXPOSE), NULL},
    {"Volumes", "volumes", K(VOLUMES), NULL}, /* anonymous volumes: the local driver, no options */
    {"StopSignal", "stop_signal", K(STOP_SIGNAL), must_string},
    {"StopTimeout", "stop_grace_period", K(STOP_GRACE_PERIOD), NULL},
    {"Hostname", "hostname", K(HOSTNAME), must_string},
    {"Domainname", "domainname", K(DOMAINNAME), must_string},
    {"Tty", "tty", K(TTY), NULL},
    {"OpenStdin", "stdin_open", K(STDIN_OPEN), NULL},
    {"AttachStdin", NULL, -1, NULL},
    {"AttachStdout", NULL, -1, NULL},
    {"AttachStderr", NULL, -1, NULL},
    {"StdinOnce", NULL, -1, NULL},
    {"Healthcheck", "healthcheck", K(HEALTHCHECK), NULL},
    {"MacAddress", "mac_address", K(MAC_ADDRESS), r_mac},
    {"HostConfig", NULL, -1, NULL},	  /* judged on its own below */
    {"NetworkingConfig", NULL, -1, NULL}, /* judged on its own below */
};

static void endpoints(struct gate *g, const struct gate_at *at, const cJSON *nc)
{
	const cJSON *eps = cJSON_GetObjectItemCaseSensitive(nc, "EndpointsConfig");
	const cJSON *ep, *it;
	struct gate_at a = *at;

	if (at->svc && at->svc->key_loc[SVC_K_NETWORKS].line)
		a.loc = at->svc->key_loc[SVC_K_NETWORKS];
	cJSON_ArrayForEach (it, nc)
		if (strcmp(it->string, "EndpointsConfig") != 0)
			gate_add(g, &a, "networks", NULL,
				 xasprintf("NetworkingConfig.%s is a field taskenv never sends", it->string));
	cJSON_ArrayForEach (ep, eps) {
		gate_network_use(g, &a, "networks", ep->string);
		cJSON_ArrayForEach (it, ep)
			if (strcmp(it->string, "Aliases") != 0)
				gate_add(g, &a, "networks", NULL,
					 xasprintf("EndpointsConfig.%s is a field taskenv never sends",
						   it->string));
	}
}

/* The service a body came from: its com.docker.compose.service label,
 * looked up in the plan's project. */
static const struct svc_service *body_service(const struct gate *g, const cJSON *labels)
{
	const char *s =
	    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(labels, "com.docker.compose.service"));

	return g->plan && s ? svc_project_service(g->plan->project, s) : NULL;
}

static bool shared_body(const struct gate *g, const cJSON *labels)
{
	const char *led = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(labels, "io.taskenv.ledger"));

	return cJSON_GetObjectItemCaseSensitive(labels, "io.taskenv.shared") && led && g->ledger_id &&
	       strcmp(led, g->ledger_id) == 0 && !cJSON_GetObjectItemCaseSensitive(labels, "io.taskenv.task");
}

/* A shared server container: the image from the trusted table, nothing
 * else than taskenv's own body (services/lifecycle/shared.c). */
static void shared_create(struct gate *g, const struct gate_at *at, const cJSON *body)
{
	const char *image = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(body, "Image"));
	const cJSON *hc = cJSON_GetObjectItemCaseSensitive(body, "HostConfig");
	const char *mode = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(hc, "NetworkMode"));
	bool trusted = false;

	for (size_t i = 0; image && g->shared_images && g->shared_images[i]; i++)
		trusted = trusted || strcmp(g->shared_images[i], image) == 0;
	if (!trusted)
		gate_add(g, at, "image", NULL,
			 xasprintf("shared server image '%s' is not in taskenv's trusted table",
				   image ? image : "?"));
	if (!mode || strncmp(mode, "0--taskenv-shared-", 18) != 0)
		gate_add(g, at, "network_mode", NULL, xstrdup("a shared server joins only its own network"));
	gate_fields(g, at, config, sizeof(config) / sizeof(config[0]), "Config", body);
	gate_fields(g, at, host_config, sizeof(host_config) / sizeof(host_config[0]), "HostConfig", hc);
}

void gate_container_create(struct gate *g, const cJSON *body)
{
	const cJSON *labels = cJSON_GetObjectItemCaseSensitive(body, "Labels");
	const struct svc_service *svc = body_service(g, labels);
	struct gate_at at = {svc, svc ? svc->name : "container", svc ? svc->loc : (struct svc_loc){0}};

	if (!cJSON_IsObject(body)) {
		gate_add(g, &at, "body", NULL, xstrdup("POST /containers/create without a JSON body"));
		return;
	}
	if (shared_body(g, labels)) {
		shared_create(g, &at, body);
		return;
	}
	gate_fields(g, &at, config, sizeof(config) / sizeof(config[0]), "Config", body);
	gate_fields(g, &at, host_config, sizeof(host_config) / sizeof(host_config[0]), "HostConfig",
		    cJSON_GetObjectItemCaseSensitive(body, "HostConfig"));
	body_credentials(g, &at, config, sizeof(config) / sizeof(config[0]), body);
	body_credentials(g, &at, host_config, sizeof(host_config) / sizeof(host_config[0]),
			 cJSON_GetObjectItemCaseSensitive(body, "HostConfig"));
	endpoints(g, &at, cJSON_GetObjectItemCaseSensitive(body, "NetworkingConfig"));
	gate_image_labels(g, &at, body);
}

void gate_container_start(struct gate *g, const cJSON *inspect)
{
	const cJSON *hc = cJSON_GetObjectItemCaseSensitive(inspect, "HostConfig");
	const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(inspect, "Name"));
	struct gate_at at = {NULL, name ? name + (name[0] == '/') : "container", {0}};
	const cJSON *it;

	cJSON_ArrayForEach (it, cJSON_GetObjectItemCaseSensitive(hc, "Binds"))
		if (cJSON_IsString(it))
			judge_bind(g, &at, it->valuestring, true);
	cJSON_ArrayForEach (it, cJSON_GetObjectItemCaseSensitive(hc, "Mounts")) {
		const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "Type"));
		const char *src = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "Source"));

		if (type && strcmp(type, "bind") == 0 && src)
			gate_host_path(g, &at, "volumes", src,
				       cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "ReadOnly")));
	}
}
