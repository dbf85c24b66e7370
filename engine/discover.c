#include "engine/engine.h"

#include "common/err.h"
#include "common/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define UNIX_SCHEME "unix://"

/* Turn one explicit setting (--host or an environment variable, named by
 * SOURCE for the message) into a socket path. Only unix:// is accepted:
 * the ledger, ports and cleanup all assume the engine runs on this host. */
static int parse_host(const char *source, const char *value, char **path_out, struct te_err *err)
{
	size_t n = strlen(UNIX_SCHEME);

	if (strncmp(value, UNIX_SCHEME, n) != 0)
		return te_err_set(err, TE_E_USAGE,
				  "host '%s' from %s is not a unix:// socket; taskenv talks only to an "
				  "engine on this host (the control plane stays here), use unix:///PATH",
				  value, source);
	if (value[n] == '\0')
		return te_err_set(err, TE_E_USAGE, "host '%s' from %s names no socket path", value, source);
	*path_out = xstrdup(value + n);
	return 0;
}

static bool is_socket(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

/* The well-known places, in the order Docker and Podman users expect.
 * Fills CAND with owned strings; returns how many. */
static size_t default_candidates(char *cand[3])
{
	const char *xdg = getenv("XDG_RUNTIME_DIR"); /* Podman's rootless socket lives here */
	size_t n = 0;

	cand[n++] = xstrdup("/var/run/docker.sock");
	if (xdg && *xdg)
		cand[n++] = xasprintf("%s/podman/podman.sock", xdg);
	cand[n++] = xstrdup("/run/podman/podman.sock");
	return n;
}

static int probe_defaults(char **path_out, struct te_err *err)
{
	char *cand[3];
	size_t n = default_candidates(cand);
	char tried[512] = "";
	int rc = -1;

	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(tried);

		if (rc != 0 && is_socket(cand[i])) {
			*path_out = xstrdup(cand[i]);
			rc = 0;
		}
		snprintf(tried + len, sizeof(tried) - len, "%s%s", i ? ", " : "", cand[i]);
		free(cand[i]);
	}
	if (rc == 0)
		return 0;
	return te_err_set(err, TE_E_UNREACHABLE,
			  "no engine socket found (tried %s); start one (e.g. `dockerd` or "
			  "`podman system service --time=0`) or point --host/DOCKER_HOST at a running "
			  "engine's unix:// socket",
			  tried);
}

int engine_resolve_socket(const char *host, char **path_out, struct te_err *err)
{
	/* The docker and podman clients' variables, honoured as they honour
	 * them; taskenv's own engine setting is passed in as HOST by cmd/. */
	static const char *const vars[] = {"DOCKER_HOST", "CONTAINER_HOST"};

	*path_out = NULL;
	if (host)
		return parse_host("--host", host, path_out, err);
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);

		/* An empty variable means unset, as the docker CLI treats it. */
		if (v && *v)
			return parse_host(vars[i], v, path_out, err);
	}
	return probe_defaults(path_out, err);
}
