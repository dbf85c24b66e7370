#include "services/lifecycle/shared.h"
#include "drivers/driver.h"
#include "engine/connect.h"
#include "engine/engine.h"
#include "state/ledger.h"
#include "state/secrets.h"
#include "services/lifecycle/reskind.h"
#include "services/lifecycle/allowed.h"
#include "services/model/plan.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <unistd.h>

#define SHARED_TASK "_shared" /* secrets file of the ledger's shared servers */
#define READY_TIMEOUT_S 120
#define MAX_PORTS 2

_Static_assert(sizeof(((struct drv_shared *)0)->ports) / sizeof(char *) == MAX_PORTS + 1,
	       "drv_shared.ports holds MAX_PORTS ports and the NULL");

void svc_shared_release(struct svc_shared *s)
{
	free(s->container);
	free(s->admin_url);
	free(s->client_port);
	memset(s, 0, sizeof(*s));
}

int svc_shared_slot(const char *driver)
{
	for (size_t i = 0; driver && i < DRV_COUNT; i++)
		if (drv_at(i)->shared && strcmp(drv_at(i)->name, driver) == 0)
			return (int)i;
	return -1;
}

static char *container_name(struct ledger *l, const struct drv_ops *d)
{
	return xasprintf("taskenv-shared-%s-%.8s", d->name, state_ledger_id(l));
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

/* Find or create the shared network NAME. *MADE (caller frees) is its id
 * when this call created it, else NULL. */
static int ensure_network(struct engine *e, struct ledger *l, const char *name, char **made,
			  struct te_err *err)
{
	te_autojson cJSON *obj = NULL;
	te_autojson cJSON *body = cJSON_CreateObject();
	te_autofree char *id = NULL;

	*made = NULL;
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
	*made = TE_STEAL(id);
	return 0;
}

/* A free loopback port, fixed in the container's PortBindings: Docker
 * re-allocates an ephemeral (HostPort "") binding when a running container
 * joins another network, which would move the server under its tasks.
 * The socket stays open in *FD until all ports of a container are picked,
 * so they differ. */
static int free_port(char *out, size_t n, int *fd, struct te_err *err)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);

	*fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (*fd < 0 || bind(*fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    getsockname(*fd, (struct sockaddr *)&a, &len) < 0)
		return te_err_set(err, TE_E_IO, "pick a loopback port: %s", strerror(errno));
	snprintf(out, n, "%u", (unsigned)ntohs(a.sin_port));
	return 0;
}

static int free_ports(const struct drv_ops *d, char out[][16], struct te_err *err)
{
	int fds[MAX_PORTS] = {-1, -1}, rc = 0;

	for (size_t i = 0; d->shared->ports[i] && rc == 0; i++)
		rc = free_port(out[i], sizeof(out[i]), &fds[i], err);
	for (size_t i = 0; i < MAX_PORTS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return rc;
}

static void add_env(cJSON *env, const char *var, const char *value)
{
	te_autofree char *line = var ? xasprintf("%s=%s", var, value) : NULL;

	if (line)
		cJSON_AddItemToArray(env, cJSON_CreateString(line));
}

/* Every port of R published on 127.0.0.1 at the fixed HOST[i]. */
static void add_ports(cJSON *b, cJSON *hc, const struct drv_ops *d, char host[][16])
{
	cJSON *exp = cJSON_AddObjectToObject(b, "ExposedPorts");
	cJSON *pbs = cJSON_AddObjectToObject(hc, "PortBindings");

	for (size_t i = 0; d->shared->ports[i]; i++) {
		te_autofree char *key = xasprintf("%s/tcp", d->shared->ports[i]);
		cJSON *bind = cJSON_CreateObject();

		cJSON_AddObjectToObject(exp, key);
		cJSON_AddStringToObject(bind, "HostIp", "127.0.0.1");
		cJSON_AddStringToObject(bind, "HostPort", host[i]);
		cJSON_AddItemToArray(cJSON_AddArrayToObject(pbs, key), bind);
	}
}

static cJSON *container_body(struct ledger *l, const struct drv_ops *d, const char *image, const char *net,
			     const char *pw, char host[][16])
{
	cJSON *b = cJSON_CreateObject();
	cJSON *env = cJSON_AddArrayToObject(b, "Env");
	cJSON *hc = cJSON_AddObjectToObject(b, "HostConfig");
	cJSON *sys = cJSON_AddObjectToObject(hc, "Sysctls");

	cJSON_AddStringToObject(b, "Image", image);
	add_env(env, d->shared->user_env, d->shared->user);
	add_env(env, d->shared->password_env, pw);
	cJSON_AddItemToObject(b, "Labels", labels(l, d->name));
	add_ports(b, hc, d, host);
	cJSON_AddStringToObject(hc, "NetworkMode", net);
	/* A new network namespace starts with the host's forwarding
	 * settings: never route between the task networks it joins. */
	cJSON_AddStringToObject(sys, "net.ipv4.ip_forward", "0");
	cJSON_AddStringToObject(sys, "net.ipv6.conf.all.forwarding", "0");
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

/* A shared network this `up` made and then could not put its container on
 * is removed again (by id): nothing else can be on it, as containers join it
 * only under lock_shared, which the caller holds. Returns -1: the caller's
 * error stands. */
static int drop_network(struct engine *e, const char *made)
{
	struct te_err ignored = {0};

	if (made)
		(void)engine_network_remove(e, made, &ignored);
	return -1;
}

/* Create (or find, when a concurrent `up` won the race) and start it. */
static int ensure_container(struct engine *e, struct ledger *l, const struct drv_ops *d, const char *image,
			    const char *pw, cJSON **obj, bool *was_running, struct te_err *err)
{
	te_autofree char *name = container_name(l, d);
	/* Docker keeps a container's published ports on the endpoint of the
	 * network whose name sorts first; when a task network that sorts
	 * earlier is connected, it moves them, and the proxy drops every open
	 * host-side session. "0--" sorts before every "<task>_<key>" network
	 * except those of tasks named "0--" + something below "t". */
	te_autofree char *net = xasprintf("0--taskenv-shared-%.8s", state_ledger_id(l));
	te_autofree char *id = NULL;
	te_autofree char *made = NULL;
	te_autojson cJSON *body = NULL;
	char ports[MAX_PORTS][16];

	if (engine_container_inspect(e, name, obj, err) < 0) {
		if (err->code != TE_E_NOTFOUND || ensure_network(e, l, net, &made, err) < 0 ||
		    free_ports(d, ports, err) < 0)
			return drop_network(e, made);
		body = container_body(l, d, image, net, pw, ports);
		if (engine_container_create(e, name, body, &id, err) < 0 && err->code != TE_E_CONFLICT) {
			te_err_prefix(err, "shared %s container '%s' (image %s): ", d->name, name, image);
			return drop_network(e, made);
		}
		if (inspect_settled(e, name, obj, err) < 0)
			return -1;
	}
	if (!ours(l, *obj))
		return te_err_set(err, TE_E_CONFLICT,
				  "container '%s' exists and is not this ledger's shared server", name);
	*was_running =
	    !made && !id && cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(*obj, "State"), "Running"));
	if (engine_container_start(e, cJSON_GetStringValue(cJSON_GetObjectItem(*obj, "Id")), err) < 0)
		return -1;
	cJSON_Delete(*obj);
	*obj = NULL;
	return engine_container_inspect(e, name, obj, err);
}

/* Where container PORT is published (fixed in PortBindings), or NULL. */
static const char *host_port(const cJSON *obj, const char *port)
{
	const cJSON *ports = cJSON_GetObjectItem(cJSON_GetObjectItem(obj, "HostConfig"), "PortBindings");
	te_autofree char *key = xasprintf("%s/tcp", port);
	const cJSON *b = cJSON_GetArrayItem(cJSON_GetObjectItem(ports, key), 0);
	const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(b, "HostPort"));

	return v && *v ? v : NULL;
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

/* The admin password of R: fixed, or kept in the ledger's "_shared" secrets. */
static char *admin_password(struct ledger *l, const struct drv_ops *d, struct te_err *err)
{
	te_autofree char *fresh = NULL;
	char *pw = NULL;

	if (!d->shared->secret)
		return xstrdup(d->shared->fixed_password);
	fresh = drv_random_password(err);
	if (!fresh || state_secret_get_or_put(l, SHARED_TASK, d->shared->secret, fresh, &pw, err) < 0)
		return NULL;
	return pw;
}

static int fill(const struct drv_ops *d, const cJSON *obj, const char *user, const char *pw,
		struct svc_shared *out, struct te_err *err)
{
	const char *admin = host_port(obj, d->shared->admin_port);
	const char *client = host_port(obj, d->shared->ports[0]);

	if (!admin || !client)
		return te_err_set(err, TE_E_ENGINE, "shared %s container: a port of it is not published",
				  d->name);
	out->container = xstrdup(cJSON_GetStringValue(cJSON_GetObjectItem(obj, "Id")));
	out->admin_url =
	    xasprintf("%s://%s:%s@127.0.0.1:%s%s", d->shared->scheme, user, pw, admin, d->shared->path);
	out->port = d->shared->ports[0];
	out->client_port = xstrdup(client);
	out->amqp_port = d->shared->amqp ? out->client_port : NULL;
	return 0;
}

/* An `image:` the resource asks for must be what the running shared
 * container was made from: one container serves every task of the ledger,
 * and silently serving another image would hide the request. Podman may
 * report a short name with its "localhost/" or registry prefix. */
static int same_image(const struct drv_ops *d, const cJSON *obj, const char *image, struct te_err *err)
{
	const char *have =
	    cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(obj, "Config"), "Image"));
	const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(obj, "Name"));
	size_t hn = have ? strlen(have) : 0, in = image ? strlen(image) : 0;

	if (!image || !have || strcmp(have, image) == 0 ||
	    (hn > in && have[hn - in - 1] == '/' && strcmp(have + hn - in, image) == 0))
		return 0;
	if (name && *name == '/')
		name++;
	return te_err_set(err, TE_E_CONFLICT,
			  "the shared %s container '%s' runs image %s, not %s: one container serves every "
			  "task of this ledger; remove it (docker rm -f %s) or drop image:",
			  d->name, name ? name : "?", have, image, name ? name : "?");
}

int svc_shared_start(struct engine *e, struct ledger *l, const char *driver, const char *image,
		     struct svc_shared *out, struct te_err *err)
{
	int slot = svc_shared_slot(driver);
	const struct drv_ops *d = slot >= 0 ? drv_at((size_t)slot) : NULL;
	te_autofree char *pw = NULL;
	te_autojson cJSON *obj = NULL;
	int fd = -1, rc;

	if (!d)
		return te_err_set(err, TE_E_USAGE, "driver '%s' has no shared server container", driver);
	pw = admin_password(l, d, err);
	if (!pw || lock_shared(l, &fd, err) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	rc = ensure_container(e, l, d, image ? image : d->shared->image, pw, &obj, &out->was_running, err);
	close(fd);
	if (rc < 0 || same_image(d, obj, image, err) < 0 || fill(d, obj, d->shared->user, pw, out, err) < 0)
		return -1;
	out->driver = d->name;
	return 0;
}

int svc_shared_ready(const struct svc_shared *s, struct te_err *err)
{
	const struct drv_ops *ops = drv_find(s->driver);

	return ops && ops->ready ? ops->ready(s->admin_url, READY_TIMEOUT_S, err) : 0;
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
	if (attached(e, container, network))
		return 0;
	if (engine_network_connect(e, network, container, aliases, err) < 0)
		return te_err_prefix(err, "shared server container: ");
	return 0;
}

static int detach_one(struct engine *e, const char *name, const char *network, struct te_err *err)
{
	if (!attached(e, name, network))
		return 0;
	return engine_network_disconnect(e, network, name, true, err);
}

int svc_shared_detach(struct engine *e, struct ledger *l, const char *network, struct te_err *err)
{
	for (size_t i = 0; i < DRV_COUNT; i++) {
		te_autofree char *name = NULL;

		if (!drv_at(i)->shared || drv_at(i)->shared->per_task)
			continue;
		name = container_name(l, drv_at(i));
		if (detach_one(e, name, network, err) < 0)
			return -1;
	}
	return 0;
}

/* ---- one server container per task (drv_shared.per_task) ---- */

char *svc_shared_task_name(const char *task, const char *driver)
{
	return xasprintf("%s-taskenv-%s", task, driver);
}

/* The task's random value of secret NAME (made once, kept in its secrets). */
static char *task_secret(struct ledger *l, const char *task, const char *name, struct te_err *err)
{
	te_autofree char *fresh = drv_random_password(err);
	char *v = NULL;

	if (!fresh || state_secret_get_or_put(l, task, name, fresh, &v, err) < 0)
		return NULL;
	return v;
}

static cJSON *task_body(const struct svc_shared_task *t, const struct drv_ops *d, const char *image,
			const char *user, const char *pw, int port)
{
	cJSON *b = cJSON_CreateObject();
	cJSON *env = cJSON_AddArrayToObject(b, "Env");
	cJSON *lab = cJSON_AddObjectToObject(b, "Labels");
	cJSON *hc = cJSON_AddObjectToObject(b, "HostConfig");
	cJSON *sys = cJSON_AddObjectToObject(hc, "Sysctls");
	cJSON *eps =
	    cJSON_AddObjectToObject(cJSON_AddObjectToObject(b, "NetworkingConfig"), "EndpointsConfig");
	cJSON *al = cJSON_AddArrayToObject(cJSON_AddObjectToObject(eps, t->network), "Aliases");
	char host[MAX_PORTS][16] = {{0}};

	cJSON_AddStringToObject(b, "Image", image);
	add_env(env, d->shared->user_env, user);
	add_env(env, d->shared->password_env, pw);
	cJSON_AddStringToObject(lab, "io.taskenv.task", t->task);
	cJSON_AddStringToObject(lab, "io.taskenv.ledger", state_ledger_id(t->l));
	cJSON_AddStringToObject(lab, "io.taskenv.version", TASKENV_VERSION);
	cJSON_AddStringToObject(lab, "io.taskenv.server", d->name);
	snprintf(host[0], sizeof(host[0]), "%d", port);
	add_ports(b, hc, d, host);
	cJSON_AddStringToObject(hc, "NetworkMode", t->network);
	cJSON_AddStringToObject(sys, "net.ipv4.ip_forward", "0");
	cJSON_AddStringToObject(sys, "net.ipv6.conf.all.forwarding", "0");
	for (size_t i = 0; t->aliases && t->aliases[i]; i++)
		cJSON_AddItemToArray(al, cJSON_CreateString(t->aliases[i]));
	return b;
}

/* Record, then create: the ledger protocol of every engine object. */
static int task_create(const struct svc_shared_task *t, const struct drv_ops *d, const char *name,
		       const char *image, const char *user, const char *pw, cJSON **obj, struct te_err *err)
{
	te_autofree char *kind = xasprintf("%s-server", d->name);
	te_autojson cJSON *body = NULL;
	te_autofree char *id = NULL;
	/* Held in the ledger's port table like a service's, under a name no
	 * Compose service can have (they start with a letter or digit). */
	te_autofree char *owner = xasprintf("_%s-server", d->name);
	long long row;
	int port = 0;

	/* Its row's kind is one of the kind table's (reskind.c). */
	if (!svc_res_kind_container(kind))
		TE_BUG("a per-task server container needs the kind '<driver>-server'");
	if (state_resource_intend(t->l, t->task, kind, name, d->name, &row, err) < 0 ||
	    state_port_reserve(t->l, t->task, owner, (int)strtol(d->shared->ports[0], NULL, 10), "tcp",
			       "127.0.0.1", 0, t->port_lo, t->port_hi, state_port_probe_bind, NULL, &port,
			       err) < 0)
		return -1;
	body = task_body(t, d, image, user, pw, port);
	if (engine_container_create(t->e, name, body, &id, err) < 0)
		return te_err_prefix(err, "%s server container '%s' (image %s): ", d->name, name, image);
	if (state_resource_created(t->l, row, id, err) < 0)
		return -1;
	{
		te_autojson cJSON *detail = cJSON_CreateObject();
		te_autofree char *text = NULL;

		cJSON_AddItemToObject(detail, "allowed", svc_allowed_of(body));
		text = cJSON_PrintUnformatted(detail);
		if (state_resource_set_detail(t->l, row, text, err) < 0)
			return -1;
	}
	return engine_container_inspect(t->e, id, obj, err);
}

int svc_shared_start_task(const struct svc_shared_task *t, const char *driver, const char *image,
			  struct svc_shared *out, struct te_err *err)
{
	int slot = svc_shared_slot(driver);
	const struct drv_ops *d = slot >= 0 ? drv_at((size_t)slot) : NULL;
	te_autofree char *name = NULL;
	te_autofree char *user = NULL;
	te_autofree char *pw = NULL;
	te_autojson cJSON *obj = NULL;
	const char *id;

	if (!d || !d->shared->per_task)
		return te_err_set(err, TE_E_USAGE, "driver '%s' has no per-task server container", driver);
	name = svc_shared_task_name(t->task, d->name);
	user = task_secret(t->l, t->task, d->shared->user_secret, err);
	pw = user ? task_secret(t->l, t->task, d->shared->secret, err) : NULL;
	if (!pw)
		return -1;
	if (engine_container_inspect(t->e, name, &obj, err) == 0) {
		if (!svc_labels_match(obj, t->task, state_ledger_id(t->l)))
			return te_err_set(err, TE_E_CONFLICT,
					  "container '%s' already exists and does not belong to task '%s' of "
					  "this ledger; taskenv leaves it alone",
					  name, t->task);
		out->was_running =
		    cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(obj, "State"), "Running"));
	} else if (err->code != TE_E_NOTFOUND ||
		   task_create(t, d, name, image ? image : d->shared->image, user, pw, &obj, err) < 0) {
		return -1;
	}
	id = cJSON_GetStringValue(cJSON_GetObjectItem(obj, "Id"));
	if (!out->was_running) {
		cJSON *fresh = NULL;

		if (engine_container_start(t->e, id, err) < 0 ||
		    engine_container_inspect(t->e, id, &fresh, err) < 0)
			return -1;
		cJSON_Delete(obj);
		obj = fresh;
	}
	if (fill(d, obj, user, pw, out, err) < 0)
		return -1;
	out->driver = d->name;
	return 0;
}
