#include "services/shared.h"
#include "drivers/driver.h"
#include "engine/engine.h"
#include "state/ledger.h"
#include "state/secrets.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <unistd.h>

#define SHARED_TASK "_shared" /* secrets file of the ledger's shared servers */
#define READY_TIMEOUT_S 120

void svc_shared_release(struct svc_shared *s)
{
	free(s->container);
	free(s->admin_url);
	s->container = s->admin_url = NULL;
}

static char *container_name(struct ledger *l)
{
	return xasprintf("taskenv-shared-postgres-%.8s", state_ledger_id(l));
}

static cJSON *labels(struct ledger *l, const char *what)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "io.taskenv.shared", what);
	cJSON_AddStringToObject(o, "io.taskenv.ledger", state_ledger_id(l));
	cJSON_AddStringToObject(o, "io.taskenv.version", TASKENV_VERSION);
	return o;
}

static bool ours(struct ledger *l, const cJSON *obj)
{
	const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(obj, "Config");
	const cJSON *lab = cJSON_GetObjectItemCaseSensitive(cfg ? cfg : obj, "Labels");
	const char *led = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(lab, "io.taskenv.ledger"));

	return cJSON_GetObjectItemCaseSensitive(lab, "io.taskenv.shared") && led &&
	       strcmp(led, state_ledger_id(l)) == 0;
}

static int ensure_network(struct engine *e, struct ledger *l, const char *name, struct te_err *err)
{
	te_autojson cJSON *obj = NULL;
	te_autojson cJSON *body = cJSON_CreateObject();
	te_autofree char *id = NULL;

	if (engine_network_inspect(e, name, &obj, err) == 0)
		return ours(l, obj)
			   ? 0
			   : te_err_set(err, TE_E_CONFLICT, "network '%s' exists and is not taskenv's", name);
	if (err->code != TE_E_NOTFOUND)
		return -1;
	cJSON_AddStringToObject(body, "Name", name);
	cJSON_AddBoolToObject(body, "CheckDuplicate", true);
	cJSON_AddItemToObject(body, "Labels", labels(l, "network"));
	if (engine_network_create(e, body, &id, err) < 0 && err->code != TE_E_CONFLICT)
		return -1;
	te_err_clear(err);
	return 0;
}

/* A free loopback port, fixed in the container's PortBindings: Docker
 * re-allocates an ephemeral (HostPort "") binding when a running container
 * joins another network, which would move the server under its tasks. */
static int free_port(char *out, size_t n, struct te_err *err)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
		if (fd >= 0)
			close(fd);
		return te_err_set(err, TE_E_IO, "pick a loopback port: %s", strerror(errno));
	}
	close(fd);
	snprintf(out, n, "%u", (unsigned)ntohs(a.sin_port));
	return 0;
}

static cJSON *container_body(struct ledger *l, const char *image, const char *net, const char *pw,
			     const char *port)
{
	cJSON *b = cJSON_CreateObject();
	cJSON *env = cJSON_AddArrayToObject(b, "Env");
	cJSON *hc = cJSON_AddObjectToObject(b, "HostConfig");
	cJSON *pb = cJSON_AddArrayToObject(cJSON_AddObjectToObject(hc, "PortBindings"), "5432/tcp");
	cJSON *bind = cJSON_CreateObject();
	te_autofree char *pwenv = xasprintf("POSTGRES_PASSWORD=%s", pw);

	cJSON_AddStringToObject(b, "Image", image);
	cJSON_AddItemToArray(env, cJSON_CreateString(pwenv));
	cJSON_AddItemToObject(b, "Labels", labels(l, "postgres"));
	cJSON_AddObjectToObject(cJSON_AddObjectToObject(b, "ExposedPorts"), "5432/tcp");
	cJSON_AddStringToObject(bind, "HostIp", "127.0.0.1");
	cJSON_AddStringToObject(bind, "HostPort", port);
	cJSON_AddItemToArray(pb, bind);
	cJSON_AddStringToObject(hc, "NetworkMode", net);
	return b;
}

/* After a 409 from a concurrent create, Docker may answer 404 for a moment
 * while the winner registers the container. */
static int inspect_settled(struct engine *e, const char *name, cJSON **obj, struct te_err *err)
{
	for (int i = 0;; i++) {
		if (engine_container_inspect(e, name, obj, err) == 0)
			return 0;
		if (err->code != TE_E_NOTFOUND || i == 50)
			return -1;
		usleep(100 * 1000);
	}
}

/* Create (or find, when a concurrent `up` won the race) and start it. */
static int ensure_container(struct engine *e, struct ledger *l, const char *image, const char *pw,
			    cJSON **obj, struct te_err *err)
{
	te_autofree char *name = container_name(l);
	/* Docker keeps a container's published ports on the endpoint of the
	 * network whose name sorts first; when a task network that sorts
	 * earlier is connected, it moves them, and the proxy drops every open
	 * host-side session. "0--" sorts before every "<task>_<key>" network
	 * except those of tasks named "0--" + something below "t". */
	te_autofree char *net = xasprintf("0--taskenv-shared-%.8s", state_ledger_id(l));
	te_autofree char *id = NULL;
	te_autojson cJSON *body = NULL;
	char port[16];

	if (engine_container_inspect(e, name, obj, err) < 0) {
		if (err->code != TE_E_NOTFOUND || ensure_network(e, l, net, err) < 0 ||
		    free_port(port, sizeof(port), err) < 0)
			return -1;
		body = container_body(l, image, net, pw, port);
		if (engine_container_create(e, name, body, &id, err) < 0 && err->code != TE_E_CONFLICT)
			return te_err_prefix(err, "shared postgres container '%s' (image %s): ", name, image);
		if (inspect_settled(e, name, obj, err) < 0)
			return -1;
	}
	if (!ours(l, *obj))
		return te_err_set(err, TE_E_CONFLICT,
				  "container '%s' exists and is not this ledger's shared server", name);
	if (engine_container_start(e, cJSON_GetStringValue(cJSON_GetObjectItem(*obj, "Id")), err) < 0)
		return -1;
	cJSON_Delete(*obj);
	*obj = NULL;
	return engine_container_inspect(e, name, obj, err);
}

static const char *host_port(const cJSON *obj)
{
	const cJSON *ports = cJSON_GetObjectItem(cJSON_GetObjectItem(obj, "HostConfig"), "PortBindings");
	const cJSON *b = cJSON_GetArrayItem(cJSON_GetObjectItem(ports, "5432/tcp"), 0);

	return cJSON_GetStringValue(cJSON_GetObjectItem(b, "HostPort"));
}

/* Concurrent `up`s of one ledger would race to create the network (the
 * engine's duplicate-name check is not atomic): one creates, under an
 * exclusive flock on "<ledger>.shared.lock", the others wait and find it. */
static int lock_shared(struct ledger *l, int *fd, struct te_err *err)
{
	te_autofree char *path = xasprintf("%s.shared.lock", state_path(l));

	*fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (*fd < 0 || flock(*fd, LOCK_EX) < 0)
		return te_err_set(err, TE_E_IO, "lock '%s': %s", path, strerror(errno));
	return 0;
}

int svc_shared_postgres(struct engine *e, struct ledger *l, const char *image, struct svc_shared *out,
			struct te_err *err)
{
	te_autofree char *fresh = drv_random_password(err);
	te_autofree char *pw = NULL;
	te_autojson cJSON *obj = NULL;
	const char *port;
	int fd = -1, rc;

	if (!fresh || state_secret_get_or_put(l, SHARED_TASK, "postgres-admin", fresh, &pw, err) < 0)
		return -1;
	if (lock_shared(l, &fd, err) < 0)
		goto fail;
	rc = ensure_container(e, l, image ? image : SVC_SHARED_PG_IMAGE, pw, &obj, err);
	close(fd);
	if (rc < 0)
		return -1;
	port = host_port(obj);
	if (!port || !*port)
		return te_err_set(err, TE_E_ENGINE,
				  "shared postgres container: no published port for 5432/tcp");
	out->container = xstrdup(cJSON_GetStringValue(cJSON_GetObjectItem(obj, "Id")));
	out->admin_url = xasprintf("postgresql://postgres:%s@127.0.0.1:%s/postgres", pw, port);
	return drv_find("postgres")->ready(out->admin_url, READY_TIMEOUT_S, err);
fail:
	if (fd >= 0)
		close(fd);
	return -1;
}

static bool attached(struct engine *e, const char *container, const char *network)
{
	struct te_err ignored;
	te_autojson cJSON *obj = NULL;
	const cJSON *nets;

	if (engine_container_inspect(e, container, &obj, &ignored) < 0)
		return false;
	nets = cJSON_GetObjectItem(cJSON_GetObjectItem(obj, "NetworkSettings"), "Networks");
	return cJSON_GetObjectItemCaseSensitive(nets, network) != NULL;
}

int svc_shared_attach(struct engine *e, const char *container, const char *network, char *const *aliases,
		      struct te_err *err)
{
	te_autojson cJSON *body = cJSON_CreateObject();
	cJSON *al = cJSON_AddArrayToObject(cJSON_AddObjectToObject(body, "EndpointConfig"), "Aliases");
	te_autofree char *en = engine_escape(e, network);
	te_autofree char *path = xasprintf("/networks/%s/connect", en);

	if (attached(e, container, network))
		return 0;
	cJSON_AddStringToObject(body, "Container", container);
	for (size_t i = 0; aliases && aliases[i]; i++)
		cJSON_AddItemToArray(al, cJSON_CreateString(aliases[i]));
	if (engine_call(e, "POST", path, body, NULL, NULL, err) < 0)
		return te_err_prefix(err, "attach the shared postgres container to network '%s': ", network);
	return 0;
}

int svc_shared_detach(struct engine *e, struct ledger *l, const char *network, struct te_err *err)
{
	te_autofree char *name = container_name(l);
	te_autojson cJSON *body = cJSON_CreateObject();
	te_autofree char *en = engine_escape(e, network);
	te_autofree char *path = xasprintf("/networks/%s/disconnect", en);

	if (!attached(e, name, network))
		return 0;
	cJSON_AddStringToObject(body, "Container", name);
	cJSON_AddBoolToObject(body, "Force", true);
	return engine_call(e, "POST", path, body, NULL, NULL, err);
}
