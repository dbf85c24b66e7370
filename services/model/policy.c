#include "services/model/policy.h"
#include "services/model/load.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/mem.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const fixed_names[] = {
    "engine-socket", "privileged",     "host-network", "host-pid",	     "host-ipc",
    "host-userns",   "host-uts",       "devices",      "cap:SYS_ADMIN",	     "cap:SYS_PTRACE",
    "cap:NET_ADMIN", "cap:SYS_MODULE", "cap:ALL",      "seccomp-unconfined", "apparmor-unconfined",
    "label-disable", "bind-system",    "bind-home",    "bind-credentials",   "bind-outside-project",
    "public-port",   "host-sysctl",    "mac-address",  "other-container",
};

static const char *const dangerous_caps[] = {"SYS_ADMIN", "SYS_PTRACE", "NET_ADMIN", "SYS_MODULE", "ALL"};
static const char *const system_dirs[] = {"/etc", "/var", "/run", "/proc", "/sys", "/dev", "/root"};
static const char *const cred_paths[] = {".ssh",    ".aws",   ".config/gcloud", ".kube",
					 ".docker", ".gnupg", ".netrc",		".git-credentials"};
static const char *const socket_names[] = {"docker.sock", "podman.sock", "containerd.sock"};
static const char *const socket_paths[] = {"/var/run/docker.sock",
					   "/run/docker.sock",
					   "/run/podman/podman.sock",
					   "/var/run/podman/podman.sock",
					   "/run/containerd/containerd.sock",
					   "/var/run/containerd/containerd.sock"};

bool svc_policy_known(const char *name)
{
	/* template:NAME grants cloning one Postgres template (lifecycle/pgtpl.h). */
	if (strncmp(name, "template:", 9) == 0)
		return name[9] && strlen(name + 9) < 64 &&
		       strspn(name + 9, "abcdefghijklmnopqrstuvwxyz"
					"ABCDEFGHIJKLMNOPQRSTUVWXYZ"
					"0123456789_-$") == strlen(name + 9);
	for (size_t i = 0; i < sizeof(fixed_names) / sizeof(fixed_names[0]); i++)
		if (strcmp(fixed_names[i], name) == 0)
			return true;
	return false;
}

int svc_policy_validate(const struct svc_project *p, char *const *allow, struct te_err *err)
{
	for (size_t i = 0; allow && allow[i]; i++)
		if (!svc_policy_known(allow[i]))
			return te_err_set(err, TE_E_USAGE,
					  "unknown exception '%s' in --allow (see 'taskenv check --help')",
					  allow[i]);
	for (size_t i = 0; p->allow && p->allow[i]; i++)
		if (!svc_policy_known(p->allow[i]))
			return te_err_set(err, TE_E_COMPOSE, "%s: x-taskenv.allow: unknown exception '%s'",
					  p->files && p->files[0] ? p->files[0] : "compose file",
					  p->allow[i]);
	return 0;
}

struct check {
	const struct svc_project *p;
	char *const *allow;
	struct svc_finding *v;
	size_t n;
	char *project_real; /* realpath of the project directory */
	char *home;	    /* realpath of $HOME, or NULL */
};

static bool allowed(const struct check *c, const char *name)
{
	for (size_t i = 0; c->allow && c->allow[i]; i++)
		if (strcmp(c->allow[i], name) == 0)
			return true;
	for (size_t i = 0; c->p->allow && c->p->allow[i]; i++)
		if (strcmp(c->p->allow[i], name) == 0)
			return true;
	return false;
}

static void add(struct check *c, struct svc_loc loc, const char *service, const char *key, const char *allow,
		char *owned_reason)
{
	if (allowed(c, allow)) {
		free(owned_reason);
		return;
	}
	c->v = xrealloc(c->v, (c->n + 1) * sizeof(*c->v));
	c->v[c->n++] =
	    (struct svc_finding){loc, xstrdup(service), xstrdup(key), owned_reason, xstrdup(allow)};
}

static struct svc_loc key_loc(const struct svc_service *s, enum svc_key k)
{
	return s->key_loc[k].line ? s->key_loc[k] : s->loc;
}

/* ---- paths ---- */

/* realpath of the longest existing prefix of the absolute PATH, the rest
 * appended lexically ("..", "." and empty segments folded). Owned. */
static char *resolve(const char *path)
{
	te_autofree char *head = xstrdup(path);
	te_autobuf struct te_buf tail = TE_BUF_INIT(0);
	char *real = NULL;

	for (;;) {
		char *slash;

		real = realpath(head, NULL);
		if (real || strcmp(head, "/") == 0 || !*head)
			break;
		slash = strrchr(head, '/');
		if (!slash)
			break;
		te_buf_addf(&tail, "/%s", slash + 1);
		*slash = '\0';
		if (!*head) {
			head[0] = '/', head[1] = '\0';
		}
	}
	if (!real)
		real = xstrdup("/");
	/* TAIL holds the missing segments in reverse order. */
	for (;;) {
		char *seg = tail.data ? strrchr(tail.data, '/') : NULL;
		char *next;

		if (!seg)
			break;
		if (strcmp(seg + 1, "..") == 0) {
			char *up = strrchr(real, '/');

			if (up && up != real)
				*up = '\0';
			else
				real[1] = '\0';
		} else if (*(seg + 1) && strcmp(seg + 1, ".") != 0) {
			next = xasprintf("%s%s%s", real, strcmp(real, "/") == 0 ? "" : "/", seg + 1);
			free(real);
			real = next;
		}
		*seg = '\0';
		tail.len = (size_t)(seg - tail.data);
	}
	return real;
}

/* PATH is DIR or below it. */
static bool within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return true;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* SOCK (a socket path) is REAL or below it, literally or after realpath. */
static bool covers(const char *real, const char *sock)
{
	te_autofree char *sock_real = resolve(sock);

	return within(sock_real, real) || within(sock, real);
}

/* The engine sockets named by DOCKER_HOST / CONTAINER_HOST (unix://). */
static bool covers_env_socket(const char *real)
{
	/* The engine clients' own variables, not taskenv settings: the sockets
	 * they name are the ones a bind must not expose. */
	static const char *const vars[] = {"DOCKER_HOST", "CONTAINER_HOST"};

	for (size_t i = 0; i < 2; i++) {
		const char *v = getenv(vars[i]);

		if (v && strncmp(v, "unix://", 7) == 0 && v[7] == '/' && covers(real, v + 7))
			return true;
	}
	return false;
}

/* REAL is an engine socket, or a directory holding one (at any depth for
 * the well-known and configured paths, directly for any other). */
static bool is_socket_path(const struct check *c, const char *real)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR"); /* where rootless engines put theirs */
	const char *base = strrchr(real, '/');

	for (size_t i = 0; i < sizeof(socket_names) / sizeof(socket_names[0]); i++) {
		te_autofree char *child = xasprintf("%s/%s", real, socket_names[i]);

		if ((base && strcmp(base + 1, socket_names[i]) == 0) || access(child, F_OK) == 0)
			return true;
	}
	for (size_t i = 0; i < sizeof(socket_paths) / sizeof(socket_paths[0]); i++)
		if (covers(real, socket_paths[i]))
			return true;
	if (xdg && *xdg) {
		te_autofree char *podman = xasprintf("%s/podman/podman.sock", xdg);
		te_autofree char *docker = xasprintf("%s/docker.sock", xdg);

		if (covers(real, podman) || covers(real, docker))
			return true;
	}
	return covers_env_socket(real);
}

static const char *cred_hit(const struct check *c, const char *real)
{
	for (size_t i = 0; c->home && i < sizeof(cred_paths) / sizeof(cred_paths[0]); i++) {
		te_autofree char *cred = xasprintf("%s/%s", c->home, cred_paths[i]);

		/* Inside a credential path, or a directory of $HOME above one. */
		if (within(real, cred) ||
		    (within(cred, real) && within(real, c->home) && strcmp(real, c->home) != 0))
			return cred_paths[i];
	}
	return NULL;
}

static bool is_system(const char *real)
{
	if (strcmp(real, "/") == 0)
		return true;
	for (size_t i = 0; i < sizeof(system_dirs) / sizeof(system_dirs[0]); i++)
		if (within(real, system_dirs[i]))
			return true;
	return false;
}

static bool is_directory(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* One host path bound into SERVICE (SOURCE as written in the model). Each
 * kind of exposure is its own finding, so allowing one never lets another
 * through; "outside the project" is reported only when nothing more
 * specific applies. */
static void check_host_path(struct check *c, struct svc_loc loc, const char *service, const char *key,
			    const char *source)
{
	te_autofree char *real = resolve(source);
	const char *cred = cred_hit(c, real);
	bool sock = is_socket_path(c, real);

	if (sock)
		add(c, loc, service, key, "engine-socket",
		    xasprintf("bind of '%s' exposes the container engine's socket (control of the host)",
			      real));
	if (cred)
		add(c, loc, service, key, "bind-credentials",
		    xasprintf("bind of '%s' exposes credentials (~/%s)", real, cred));
	/* The socket itself: engine-socket says all there is to say. A
	 * directory above one (/var/run, /) exposes more than the socket. */
	if (within(real, c->project_real) || (sock && !is_directory(real)))
		return;
	if (is_system(real))
		add(c, loc, service, key, "bind-system", xasprintf("bind of system path '%s'", real));
	else if (c->home && strcmp(real, c->home) == 0)
		add(c, loc, service, key, "bind-home", xasprintf("bind of the home directory '%s'", real));
	else if (!sock && !cred)
		add(c, loc, service, key, "bind-outside-project",
		    xasprintf("bind source '%s' is outside the project directory '%s'", real,
			      c->project_real));
}

/* ---- service keys ---- */

static void check_modes(struct check *c, const struct svc_service *s)
{
	const char *vals[] = {s->network_mode, s->pid, s->ipc, s->userns_mode, s->uts};
	const char *keys[] = {"network_mode", "pid", "ipc", "userns_mode", "uts"};
	const char *names[] = {"host-network", "host-pid", "host-ipc", "host-userns", "host-uts"};
	enum svc_key slots[] = {SVC_K_NETWORK_MODE, SVC_K_PID, SVC_K_IPC, SVC_K_USERNS, SVC_K_UTS};

	for (size_t i = 0; i < 5; i++)
		if (vals[i] && strcmp(vals[i], "host") == 0)
			add(c, key_loc(s, slots[i]), s->name, keys[i], names[i],
			    xasprintf("%s: host shares the host's namespace with the container", keys[i]));
	if (s->privileged == 1)
		add(c, key_loc(s, SVC_K_PRIVILEGED), s->name, "privileged", "privileged",
		    xstrdup("privileged: true gives the container every capability and every device of the "
			    "host"));
	if (s->devices && s->devices[0])
		add(c, key_loc(s, SVC_K_DEVICES), s->name, "devices", "devices",
		    xasprintf("devices: passes host device '%s' into the container", s->devices[0]));
}

/* "container:NAME" in volumes_from, network_mode, pid or ipc reaches a
 * container taskenv did not make for this task (this task's own are
 * written "service:NAME" / "NAME"): its volumes, or its namespaces. */
static void check_other_containers(struct check *c, const struct svc_service *s)
{
	const char *vals[] = {s->network_mode, s->pid, s->ipc};
	const char *keys[] = {"network_mode", "pid", "ipc"};
	enum svc_key slots[] = {SVC_K_NETWORK_MODE, SVC_K_PID, SVC_K_IPC};

	for (size_t i = 0; i < 3; i++)
		if (vals[i] && strncmp(vals[i], "container:", 10) == 0)
			add(c, key_loc(s, slots[i]), s->name, keys[i], "other-container",
			    xasprintf("%s: %s joins the namespace of a container outside the task", keys[i],
				      vals[i]));
	for (size_t i = 0; s->volumes_from && s->volumes_from[i]; i++)
		if (strncmp(s->volumes_from[i], "container:", 10) == 0)
			add(c, key_loc(s, SVC_K_VOLUMES_FROM), s->name, "volumes_from", "other-container",
			    xasprintf("volumes_from: %s mounts the volumes of a container outside the task",
				      s->volumes_from[i]));
}

static void check_caps(struct check *c, const struct svc_service *s)
{
	for (size_t i = 0; s->cap_add && s->cap_add[i]; i++) {
		const char *cap = s->cap_add[i];

		if (strncasecmp(cap, "CAP_", 4) == 0)
			cap += 4;
		for (size_t k = 0; k < sizeof(dangerous_caps) / sizeof(dangerous_caps[0]); k++) {
			te_autofree char *name = NULL;

			if (strcasecmp(cap, dangerous_caps[k]) != 0)
				continue;
			name = xasprintf("cap:%s", dangerous_caps[k]);
			add(c, key_loc(s, SVC_K_CAP_ADD), s->name, "cap_add", name,
			    xasprintf("cap_add: %s breaks the container boundary", dangerous_caps[k]));
		}
	}
}

static void check_security_opt(struct check *c, const struct svc_service *s)
{
	static const char *const bad[][2] = {
	    {"seccomp", "unconfined"}, {"apparmor", "unconfined"}, {"label", "disable"}};
	static const char *const names[] = {"seccomp-unconfined", "apparmor-unconfined", "label-disable"};

	for (size_t i = 0; s->security_opt && s->security_opt[i]; i++) {
		const char *o = s->security_opt[i];

		for (size_t k = 0; k < 3; k++) {
			size_t n = strlen(bad[k][0]);

			if (strncmp(o, bad[k][0], n) == 0 && (o[n] == '=' || o[n] == ':') &&
			    strcmp(o + n + 1, bad[k][1]) == 0)
				add(c, key_loc(s, SVC_K_SECURITY_OPT), s->name, "security_opt", names[k],
				    xasprintf("security_opt: %s turns off a confinement layer", o));
		}
	}
}

static bool loopback(const char *ip)
{
	return strncmp(ip, "127.", 4) == 0 || strcmp(ip, "::1") == 0 || strcmp(ip, "localhost") == 0;
}

static void check_ports(struct check *c, const struct svc_service *s)
{
	for (size_t i = 0; i < s->n_ports; i++) {
		const struct svc_port *p = &s->ports[i];

		if (p->host_ip && !loopback(p->host_ip))
			add(c, p->loc, s->name, "ports", "public-port",
			    xasprintf("port %d/%s is published on %s, not on loopback", p->container_port,
				      p->proto, p->host_ip));
	}
}

/* Sysctls the kernel namespaces per container (Docker's list, which runc
 * enforces); net.* only with the container's own network namespace. */
static bool namespaced_sysctl(const struct svc_service *s, const char *k)
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
	return strncmp(k, "net.", 4) == 0 && !(s->network_mode && strcmp(s->network_mode, "host") == 0);
}

static void check_sysctls(struct check *c, const struct svc_service *s)
{
	for (size_t i = 0; i < s->n_sysctls; i++)
		if (!namespaced_sysctl(s, s->sysctls[i].key))
			add(c, s->sysctls[i].loc, s->name, "sysctls", "host-sysctl",
			    xasprintf("sysctl '%s' is not namespaced: it would change the host kernel for "
				      "every task",
				      s->sysctls[i].key));
}

/* Secret and config files are bind mounts: the same rules for their sources. */
static void check_file_refs(struct check *c, const struct svc_service *s, bool secret)
{
	const struct svc_file_ref *r = secret ? s->secrets : s->configs;
	size_t n = secret ? s->n_secrets : s->n_configs;
	const struct svc_file_decl *d = secret ? c->p->secrets : c->p->configs;
	size_t nd = secret ? c->p->n_secrets : c->p->n_configs;

	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < nd; j++)
			if (strcmp(d[j].key, r[i].source) == 0 && d[j].kind == SVC_FILE_FILE)
				check_host_path(c, d[j].loc, s->name, secret ? "secrets" : "configs",
						d[j].file);
}

static void check_service(struct check *c, const struct svc_service *s)
{
	check_sysctls(c, s);
	check_file_refs(c, s, true);
	check_file_refs(c, s, false);
	if (s->mac_address)
		add(c, key_loc(s, SVC_K_MAC_ADDRESS), s->name, "mac_address", "mac-address",
		    xasprintf("mac_address '%s' is fixed: every task of this project would use the same MAC, "
			      "which clashes on any network two tasks share (external networks, macvlan)",
			      s->mac_address));
	check_modes(c, s);
	check_other_containers(c, s);
	check_caps(c, s);
	check_security_opt(c, s);
	for (size_t i = 0; i < s->n_mounts; i++)
		if (s->mounts[i].type == SVC_MOUNT_BIND && s->mounts[i].source)
			check_host_path(c, s->mounts[i].loc, s->name, "volumes", s->mounts[i].source);
	check_ports(c, s);
}

/* A named volume of the local driver with o=bind and a device is a bind
 * mount of that host path in disguise. */
static void check_volume(struct check *c, const struct svc_volume *v)
{
	const char *device = NULL, *o = NULL;

	for (size_t i = 0; i < v->n_driver_opts; i++) {
		if (strcmp(v->driver_opts[i].key, "device") == 0)
			device = v->driver_opts[i].value;
		if (strcmp(v->driver_opts[i].key, "o") == 0)
			o = v->driver_opts[i].value;
	}
	if (device && o && strstr(o, "bind") && device[0] == '/')
		check_host_path(c, v->loc, v->key, "driver_opts", device);
}

void svc_policy_check(const struct svc_project *p, char *const *allow, struct svc_finding **out, size_t *n)
{
	const char *home = getenv("HOME"); /* the user's home, whose binds are judged; no setting */
	struct check c = {p, allow, NULL, 0, NULL, NULL};

	c.project_real = resolve(p->dir ? p->dir : "/");
	c.home = home && home[0] == '/' ? resolve(home) : NULL;
	if (c.home && strcmp(c.home, "/") == 0) {
		free(c.home);
		c.home = NULL;
	}
	for (size_t i = 0; i < p->n_services; i++)
		check_service(&c, &p->services[i]);
	for (size_t i = 0; i < p->n_volumes; i++)
		check_volume(&c, &p->volumes[i]);
	free(c.project_real);
	free(c.home);
	*out = c.v;
	*n = c.n;
}

void svc_findings_free(struct svc_finding *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].service);
		free(v[i].key);
		free(v[i].reason);
		free(v[i].allow);
	}
	free(v);
}

char *svc_finding_format(const struct svc_finding *f)
{
	return xasprintf("%s:%d:%d: %s: %s: %s (allow with '%s')", f->loc.file ? f->loc.file : "?",
			 f->loc.line, f->loc.col, f->service, f->key, f->reason, f->allow);
}

/* ---- defaults ---- */

static bool has_nnp(const struct svc_service *s)
{
	for (size_t i = 0; s->security_opt && s->security_opt[i]; i++)
		if (strncmp(s->security_opt[i], "no-new-privileges", 17) == 0)
			return true;
	return false;
}

void svc_policy_apply_defaults(struct svc_project *p, const struct svc_policy_defaults *d)
{
	for (size_t i = 0; i < p->n_services; i++) {
		struct svc_service *s = &p->services[i];

		if (!s->mem_limit && d->memory)
			s->mem_limit = d->memory;
		if (s->cpus <= 0 && d->cpus > 0)
			s->cpus = d->cpus;
		if (!s->pids_limit && d->pids)
			s->pids_limit = d->pids;
		if (d->no_new_privileges && !has_nnp(s))
			s->security_opt = te_strv_push(s->security_opt, xstrdup("no-new-privileges:true"));
	}
}
