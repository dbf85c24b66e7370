/* Host paths: every one that reaches the engine (bind sources, a local
 * volume's device) or that taskenv reads for the task (env files, secret
 * and config files, build contexts and Dockerfiles) is resolved with every
 * symlink followed and must lie inside the project boundary or a trusted
 * `path:/DIR`; engine sockets and every directory above one are the engine
 * socket, whatever the boundary says. */
#include "services/gate/gate_int.h"
#include "common/buf.h"
#include "common/path.h"
#include "common/mem.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const system_dirs[] = {"/etc", "/var",  "/run", "/proc", "/sys",  "/dev", "/root",
					  "/usr", "/boot", "/lib", "/bin",  "/sbin", "/opt", "/srv"};
static const char *const cred_paths[] = {".ssh",    ".aws",   ".config/gcloud", ".kube",
					 ".docker", ".gnupg", ".netrc",		".git-credentials"};
static const char *const socket_names[] = {"docker.sock", "podman.sock", "containerd.sock"};
static const char *const socket_paths[] = {"/var/run/docker.sock",
					   "/run/docker.sock",
					   "/run/podman/podman.sock",
					   "/var/run/podman/podman.sock",
					   "/run/containerd/containerd.sock",
					   "/var/run/containerd/containerd.sock"};
/* Read-only binds of these are allowed as written (judged before
 * resolution: they resolve into /usr/share/zoneinfo). */
static const char *const zone_files[] = {"/etc/localtime", "/etc/timezone"};

char *gate_resolve(const char *path)
{
	return te_path_resolve(path);
}

bool gate_within(const char *path, const char *dir)
{
	return te_path_within(path, dir);
}

/* SOCK (a socket path) is REAL or below it, literally or after realpath. */
static bool covers(const char *real, const char *sock)
{
	te_autofree char *sock_real = gate_resolve(sock);

	return gate_within(sock_real, real) || gate_within(sock, real);
}

/* The sockets of DOCKER_HOST / CONTAINER_HOST (the engine clients' own
 * variables: the sockets they name are ones a bind must not expose). */
static bool covers_env_socket(const char *real)
{
	static const char *const vars[] = {"DOCKER_HOST", "CONTAINER_HOST"};

	for (size_t i = 0; i < 2; i++) {
		const char *v = getenv(vars[i]);

		if (v && strncmp(v, "unix://", 7) == 0 && v[7] == '/' && covers(real, v + 7))
			return true;
	}
	return false;
}

/* REAL is an engine socket or a directory holding one. */
static bool is_socket_path(const struct gate *g, const char *real)
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
	for (size_t i = 0; g->sockets && g->sockets[i]; i++)
		if (covers(real, g->sockets[i]))
			return true;
	if (xdg && *xdg) {
		te_autofree char *podman = xasprintf("%s/podman/podman.sock", xdg);
		te_autofree char *docker = xasprintf("%s/docker.sock", xdg);

		if (covers(real, podman) || covers(real, docker))
			return true;
	}
	return covers_env_socket(real);
}

/* The user's home, resolved, or NULL (unset, relative or "/"). */
static char *home_real(void)
{
	const char *home = getenv("HOME"); /* the user's home, whose binds are judged; no setting */
	char *h;

	if (!home || home[0] != '/')
		return NULL;
	h = gate_resolve(home);
	if (strcmp(h, "/") == 0) {
		free(h);
		return NULL;
	}
	return h;
}

static const char *cred_hit(const char *home, const char *real)
{
	for (size_t i = 0; home && i < sizeof(cred_paths) / sizeof(cred_paths[0]); i++) {
		te_autofree char *cred = xasprintf("%s/%s", home, cred_paths[i]);

		/* Inside a credential path, or a directory of $HOME above one. */
		if (gate_within(real, cred) ||
		    (gate_within(cred, real) && gate_within(real, home) && strcmp(real, home) != 0))
			return cred_paths[i];
	}
	return NULL;
}

static bool is_system(const char *real)
{
	if (strcmp(real, "/") == 0)
		return true;
	for (size_t i = 0; i < sizeof(system_dirs) / sizeof(system_dirs[0]); i++)
		if (gate_within(real, system_dirs[i]))
			return true;
	return false;
}

static bool is_directory(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Inside a `path:/DIR` the trusted side granted (DIR resolved too). */
static bool trusted_path(const struct gate *g, const char *real)
{
	for (size_t i = 0; g->own_dirs && g->own_dirs[i]; i++) {
		te_autofree char *dir = gate_resolve(g->own_dirs[i]);

		if (gate_within(real, dir))
			return true;
	}
	for (size_t i = 0; g->granted && g->granted[i]; i++) {
		te_autofree char *dir = NULL;

		if (strncmp(g->granted[i], "path:/", 6) != 0)
			continue;
		dir = gate_resolve(g->granted[i] + 5);
		if (gate_within(real, dir))
			return true;
	}
	return false;
}

static bool zone_file(const char *as_written, bool read_only)
{
	for (size_t i = 0; read_only && i < sizeof(zone_files) / sizeof(zone_files[0]); i++)
		if (strcmp(as_written, zone_files[i]) == 0)
			return true;
	return false;
}

/* Each kind of exposure is its own finding, so granting one never lets
 * another through; "outside the project" only when nothing more specific
 * applies. */
int gate_host_path(struct gate *g, const struct gate_at *at, const char *key, const char *as_written,
		   bool read_only)
{
	size_t before = g->n;
	te_autofree char *real = NULL;
	te_autofree char *home = home_real();
	const char *cred;
	bool sock;

	if (as_written[0] != '/') {
		gate_add(g, at, key, NULL, xasprintf("host path '%s' is not absolute", as_written));
		return -1;
	}
	if (zone_file(as_written, read_only))
		return 0;
	real = gate_resolve(as_written);
	cred = cred_hit(home, real);
	sock = is_socket_path(g, real);
	if (sock)
		gate_add(g, at, key, "engine-socket",
			 xasprintf("'%s' exposes the container engine's socket (control of the host)", real));
	if (cred)
		gate_add(g, at, key, "bind-credentials",
			 xasprintf("'%s' exposes credentials (~/%s)", real, cred));
	if ((g->boundary && gate_within(real, g->boundary)) || trusted_path(g, real) ||
	    (sock && !is_directory(real)))
		return g->n > before ? -1 : 0;
	if (is_system(real))
		gate_add(g, at, key, "bind-system", xasprintf("'%s' is a system path", real));
	else if (home && strcmp(real, home) == 0)
		gate_add(g, at, key, "bind-home", xasprintf("'%s' is the home directory", real));
	else if (!sock && !cred)
		gate_add(g, at, key, "bind-outside-project",
			 xasprintf("'%s' is outside the project '%s'", real,
				   g->boundary ? g->boundary : "(none)"));
	return g->n > before ? -1 : 0;
}

char *gate_project_boundary(const struct svc_project *p)
{
	te_autofree char *dir = gate_resolve(p->dir ? p->dir : "/");
	char *up = xstrdup(dir);

	/* The nearest ancestor holding .git (a directory, or a worktree's
	 * file), found without asking git: core.worktree cannot move it. */
	for (;;) {
		te_autofree char *dotgit = xasprintf("%s/.git", up);
		char *slash;

		if (access(dotgit, F_OK) == 0)
			return up;
		slash = strrchr(up, '/');
		if (!slash || slash == up)
			break;
		*slash = '\0';
	}
	free(up);
	return xstrdup(dir);
}
