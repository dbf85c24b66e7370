/* The plan's Engine API bodies: POST /networks/create, /volumes/create and
 * /containers/create, built from the planned objects and the model (pure;
 * the gate judges them before they are sent). */
#include "services/model/plan.h"
#include "services/model/compose.h"
#include "services/model/task.h"
#include "common/err.h"
#include "common/path.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The file's own labels first, ours last so nobody can forge ownership. */
static cJSON *merged_labels(const struct svc_plan *plan, const char *kind, const char *key,
			    const struct svc_kv *kv, size_t n)
{
	cJSON *l = cJSON_CreateObject();
	te_autojson cJSON *ours = svc_plan_labels(plan, kind, key);
	cJSON *it;

	for (size_t i = 0; i < n; i++)
		if (kv[i].value && !cJSON_GetObjectItemCaseSensitive(ours, kv[i].key))
			cJSON_AddStringToObject(l, kv[i].key, kv[i].value);
	cJSON_ArrayForEach (it, ours)
		cJSON_AddStringToObject(l, it->string, it->valuestring);
	return l;
}

static cJSON *kv_json(const struct svc_kv *kv, size_t n)
{
	cJSON *o = cJSON_CreateObject();

	for (size_t i = 0; i < n; i++)
		cJSON_AddStringToObject(o, kv[i].key, kv[i].value ? kv[i].value : "");
	return o;
}

static void add_ipam(cJSON *b, const struct svc_network *d)
{
	cJSON *ipam, *cfg;

	if (!d->ipam_driver && !d->n_ipam)
		return;
	ipam = cJSON_AddObjectToObject(b, "IPAM");
	cJSON_AddStringToObject(ipam, "Driver", d->ipam_driver ? d->ipam_driver : "default");
	cfg = cJSON_AddArrayToObject(ipam, "Config");
	for (size_t i = 0; i < d->n_ipam; i++) {
		cJSON *pool = cJSON_CreateObject();

		if (d->ipam[i].subnet)
			cJSON_AddStringToObject(pool, "Subnet", d->ipam[i].subnet);
		if (d->ipam[i].ip_range)
			cJSON_AddStringToObject(pool, "IPRange", d->ipam[i].ip_range);
		if (d->ipam[i].gateway)
			cJSON_AddStringToObject(pool, "Gateway", d->ipam[i].gateway);
		cJSON_AddItemToArray(cfg, pool);
	}
}

/* A fixed `name:` never becomes a global name: the object is task-scoped
 * and the name the file asked for is kept only as a label. */
static void add_original_name(cJSON *b, const char *name)
{
	cJSON *labels = cJSON_GetObjectItemCaseSensitive(b, "Labels");

	cJSON_DeleteItemFromObjectCaseSensitive(labels, SVC_LABEL_ORIGINAL_NAME);
	if (name)
		cJSON_AddStringToObject(labels, SVC_LABEL_ORIGINAL_NAME, name);
}

cJSON *svc_plan_network_body(const struct svc_plan *plan, const struct svc_plan_network *n)
{
	cJSON *b = cJSON_CreateObject();
	const struct svc_network *d = n->decl;

	cJSON_AddStringToObject(b, "Name", n->name);
	cJSON_AddStringToObject(b, "Driver", d && d->driver ? d->driver : "bridge");
	cJSON_AddBoolToObject(b, "CheckDuplicate", 1);
	cJSON_AddBoolToObject(b, "Internal", d && d->internal);
	if (d) {
		cJSON_AddBoolToObject(b, "Attachable", d->attachable);
		cJSON_AddBoolToObject(b, "EnableIPv6", d->enable_ipv6);
		cJSON_AddItemToObject(b, "Options", kv_json(d->driver_opts, d->n_driver_opts));
		add_ipam(b, d);
	}
	cJSON_AddItemToObject(
	    b, "Labels", merged_labels(plan, "network", n->key, d ? d->labels : NULL, d ? d->n_labels : 0));
	add_original_name(b, d ? d->name : NULL);
	return b;
}

/* A local bind volume's device is a host path: sent resolved. */
static cJSON *volume_opts(const struct svc_volume *d)
{
	cJSON *o = kv_json(d->driver_opts, d->n_driver_opts);
	const char *opt = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "o"));
	const char *dev = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "device"));

	if (opt && strstr(opt, "bind") && dev && dev[0] == '/') {
		te_autofree char *real = te_path_resolve(dev);

		cJSON_ReplaceItemInObjectCaseSensitive(o, "device", cJSON_CreateString(real));
	}
	return o;
}

cJSON *svc_plan_volume_body(const struct svc_plan *plan, const struct svc_plan_volume *v)
{
	cJSON *b = cJSON_CreateObject();
	const struct svc_volume *d = v->decl;

	cJSON_AddStringToObject(b, "Name", v->name);
	cJSON_AddStringToObject(b, "Driver", d && d->driver ? d->driver : "local");
	if (d)
		cJSON_AddItemToObject(b, "DriverOpts", volume_opts(d));
	cJSON_AddItemToObject(
	    b, "Labels", merged_labels(plan, "volume", v->key, d ? d->labels : NULL, d ? d->n_labels : 0));
	add_original_name(b, d ? d->name : NULL);
	return b;
}

static cJSON *strv_json(char *const *v)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; v && v[i]; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
	return a;
}

static cJSON *env_json(const struct svc_service *s)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < s->n_environment; i++) {
		te_autofree char *kv = NULL;

		if (!s->environment[i].value)
			continue;
		kv = xasprintf("%s=%s", s->environment[i].key, s->environment[i].value);
		cJSON_AddItemToArray(a, cJSON_CreateString(kv));
	}
	return a;
}

static void add_ports(cJSON *cfg, cJSON *hc, const struct svc_service *s, const int *host_ports,
		      bool public_ok)
{
	cJSON *exposed = cJSON_AddObjectToObject(cfg, "ExposedPorts");
	cJSON *bindings = cJSON_AddObjectToObject(hc, "PortBindings");

	for (size_t i = 0; i < s->n_ports; i++) {
		char key[32], port[16];
		cJSON *list, *b;

		snprintf(key, sizeof(key), "%d/%s", s->ports[i].container_port, s->ports[i].proto);
		snprintf(port, sizeof(port), "%d", host_ports[i]);
		if (!cJSON_GetObjectItemCaseSensitive(exposed, key))
			cJSON_AddObjectToObject(exposed, key);
		list = cJSON_GetObjectItemCaseSensitive(bindings, key);
		if (!list)
			list = cJSON_AddArrayToObject(bindings, key);
		b = cJSON_CreateObject();
		/* A host ip other than loopback is published as written only
		 * when the trusted side granted public-port. */
		cJSON_AddStringToObject(b, "HostIp",
					public_ok && s->ports[i].host_ip &&
						strncmp(s->ports[i].host_ip, "127.", 4) != 0 &&
						strcmp(s->ports[i].host_ip, "::1") != 0
					    ? s->ports[i].host_ip
					    : SVC_HOST_IP);
		cJSON_AddStringToObject(b, "HostPort", port);
		cJSON_AddItemToArray(list, b);
	}
}

/* A host path as the engine is sent it: resolved, every symlink followed
 * (the gate judged it so). Read-only binds of /etc/localtime and
 * /etc/timezone stay as written: the gate allows them as such, and they
 * resolve into /usr/share/zoneinfo. Owned. */
static char *host_source(const char *src, bool read_only)
{
	if (read_only && (strcmp(src, "/etc/localtime") == 0 || strcmp(src, "/etc/timezone") == 0))
		return xstrdup(src);
	return src[0] == '/' ? te_path_resolve(src) : xstrdup(src);
}

static void add_bind_mount(cJSON *hc, const struct svc_mount *m)
{
	cJSON *mounts = cJSON_GetObjectItemCaseSensitive(hc, "Mounts");
	cJSON *o = cJSON_CreateObject();

	if (!mounts)
		mounts = cJSON_AddArrayToObject(hc, "Mounts");
	te_autofree char *src = host_source(m->source, m->read_only);

	cJSON_AddStringToObject(o, "Type", "bind");
	cJSON_AddStringToObject(o, "Source", src);
	cJSON_AddStringToObject(o, "Target", m->target);
	cJSON_AddBoolToObject(o, "ReadOnly", m->read_only);
	cJSON_AddItemToArray(mounts, o);
}

static void add_tmpfs(cJSON *hc, const struct svc_service *s)
{
	cJSON *t = cJSON_CreateObject();

	for (size_t i = 0; s->tmpfs && s->tmpfs[i]; i++) {
		te_autofree char *target = xstrdup(s->tmpfs[i]);
		char *colon = strchr(target, ':');

		if (colon)
			*colon = '\0';
		cJSON_DeleteItemFromObjectCaseSensitive(t, target);
		cJSON_AddStringToObject(t, target, colon ? colon + 1 : "");
	}
	for (size_t i = 0; i < s->n_mounts; i++) {
		te_autofree char *opts = NULL;

		if (s->mounts[i].type != SVC_MOUNT_TMPFS)
			continue;
		opts =
		    s->mounts[i].tmpfs_size ? xasprintf("size=%lld", s->mounts[i].tmpfs_size) : xstrdup("");
		cJSON_DeleteItemFromObjectCaseSensitive(t, s->mounts[i].target);
		cJSON_AddStringToObject(t, s->mounts[i].target, opts);
	}
	if (t->child)
		cJSON_AddItemToObject(hc, "Tmpfs", t);
	else
		cJSON_Delete(t);
}

static void add_mounts(cJSON *cfg, cJSON *hc, const struct svc_plan *plan, const struct svc_service *s)
{
	cJSON *binds = cJSON_AddArrayToObject(hc, "Binds");
	cJSON *anon = cJSON_AddObjectToObject(cfg, "Volumes");

	for (size_t i = 0; i < s->n_mounts; i++) {
		const struct svc_mount *m = &s->mounts[i];
		const char *src = m->source;
		te_autofree char *b = NULL;
		te_autofree char *real = NULL;

		if (m->type == SVC_MOUNT_TMPFS)
			continue;
		if (!src) {
			cJSON_AddObjectToObject(anon, m->target);
			continue;
		}
		if (m->type == SVC_MOUNT_BIND && m->no_create_host_path) {
			add_bind_mount(hc, m);
			continue;
		}
		if (m->type == SVC_MOUNT_VOLUME) {
			const struct svc_plan_volume *v = svc_plan_volume_by_key(plan, src);

			if (!v)
				TE_BUG("volume mount of an unplanned volume");
			src = v->name;
		} else {
			real = host_source(src, m->read_only);
			src = real;
		}
		b = xasprintf("%s:%s%s%s", src, m->target, m->read_only ? ":ro" : "",
			      m->nocopy ? (m->read_only ? ",nocopy" : ":nocopy") : "");
		cJSON_AddItemToArray(binds, cJSON_CreateString(b));
	}
	add_tmpfs(hc, s);
}

static const struct svc_file_decl *find_decl(const struct svc_project *p, bool secret, const char *key)
{
	const struct svc_file_decl *d = secret ? p->secrets : p->configs;
	size_t n = secret ? p->n_secrets : p->n_configs;

	for (size_t i = 0; i < n; i++)
		if (strcmp(d[i].key, key) == 0)
			return &d[i];
	return NULL;
}

char *svc_plan_file_source(const struct svc_plan *plan, bool secret, const char *key)
{
	const struct svc_file_decl *d = find_decl(plan->project, secret, key);

	if (!d)
		return NULL;
	if (d->kind == SVC_FILE_FILE)
		return xstrdup(d->file);
	return xasprintf("%s/%s-%s", plan->files_dir ? plan->files_dir : "", secret ? "secrets" : "configs",
			 key);
}

char *svc_plan_file_target(bool secret, const struct svc_file_ref *r)
{
	const char *t = r->target ? r->target : r->source;

	if (t[0] == '/')
		return xstrdup(t);
	return secret ? xasprintf("/run/secrets/%s", t) : xasprintf("/%s", t);
}

/* Secrets and configs are read-only binds of one file each, as Compose
 * mounts them outside Swarm. */
static void add_file_mounts(cJSON *hc, const struct svc_plan *plan, const struct svc_service *s)
{
	cJSON *binds = cJSON_GetObjectItemCaseSensitive(hc, "Binds");

	for (int sec = 1; sec >= 0; sec--) {
		const struct svc_file_ref *r = sec ? s->secrets : s->configs;
		size_t n = sec ? s->n_secrets : s->n_configs;

		for (size_t i = 0; i < n; i++) {
			te_autofree char *src = svc_plan_file_source(plan, sec, r[i].source);
			te_autofree char *dst = svc_plan_file_target(sec, &r[i]);
			te_autofree char *real = NULL;
			te_autofree char *b = NULL;

			if (!src)
				TE_BUG("secret or config without a declaration");
			real = host_source(src, true);
			b = xasprintf("%s:%s:ro", real, dst);
			cJSON_AddItemToArray(binds, cJSON_CreateString(b));
		}
	}
}

static void add_ulimits(cJSON *hc, const struct svc_service *s)
{
	cJSON *a;

	if (s->runtime)
		cJSON_AddStringToObject(hc, "Runtime", s->runtime);
	if (!s->ulimits)
		return;
	a = cJSON_AddArrayToObject(hc, "Ulimits");
	for (size_t i = 0; s->ulimits[i]; i++) {
		const char *eq = strchr(s->ulimits[i], '=');
		cJSON *o = cJSON_CreateObject();
		long long soft = 0, hard = 0;
		te_autofree char *name = NULL;

		if (!eq || sscanf(eq + 1, "%lld:%lld", &soft, &hard) != 2)
			TE_BUG("malformed ulimit in the model");
		name = xstrndup(s->ulimits[i], (size_t)(eq - s->ulimits[i]));
		cJSON_AddStringToObject(o, "Name", name);
		cJSON_AddNumberToObject(o, "Soft", (double)soft);
		cJSON_AddNumberToObject(o, "Hard", (double)hard);
		cJSON_AddItemToArray(a, o);
	}
}

static void add_strv(cJSON *o, const char *key, char *const *v)
{
	if (v && v[0])
		cJSON_AddItemToObject(o, key, strv_json(v));
}

/* restart: no | always | unless-stopped | on-failure[:N]. */
static void add_restart(cJSON *hc, const char *restart)
{
	cJSON *rp;
	const char *colon;

	if (!restart)
		return;
	rp = cJSON_AddObjectToObject(hc, "RestartPolicy");
	colon = strchr(restart, ':');
	if (colon) {
		te_autofree char *name = xstrndup(restart, (size_t)(colon - restart));

		cJSON_AddStringToObject(rp, "Name", name);
		cJSON_AddNumberToObject(rp, "MaximumRetryCount", strtol(colon + 1, NULL, 10));
		return;
	}
	cJSON_AddStringToObject(rp, "Name", strcmp(restart, "no") == 0 ? "" : restart);
}

/* devices: "HOST[:CONTAINER[:PERMS]]". */
static void add_devices(cJSON *hc, char *const *devices)
{
	cJSON *a;

	if (!devices || !devices[0])
		return;
	a = cJSON_AddArrayToObject(hc, "Devices");
	for (size_t i = 0; devices[i]; i++) {
		te_autostrv char **parts = NULL;
		te_autofree char *copy = xstrdup(devices[i]);
		char *save = NULL;
		cJSON *d = cJSON_CreateObject();

		for (char *t = strtok_r(copy, ":", &save); t; t = strtok_r(NULL, ":", &save))
			parts = te_strv_push(parts, xstrdup(t));
		cJSON_AddStringToObject(d, "PathOnHost", parts ? parts[0] : devices[i]);
		cJSON_AddStringToObject(d, "PathInContainer",
					parts && parts[1] ? parts[1]
					: parts		  ? parts[0]
							  : "");
		cJSON_AddStringToObject(d, "CgroupPermissions",
					parts && parts[1] && parts[2] ? parts[2] : "rwm");
		cJSON_AddItemToArray(a, d);
	}
}

static void add_limits(cJSON *hc, const struct svc_service *s)
{
	if (s->mem_limit)
		cJSON_AddNumberToObject(hc, "Memory", (double)s->mem_limit);
	if (s->mem_reservation)
		cJSON_AddNumberToObject(hc, "MemoryReservation", (double)s->mem_reservation);
	if (s->cpus > 0)
		cJSON_AddNumberToObject(hc, "NanoCpus", (double)(long long)(s->cpus * 1e9));
	if (s->pids_limit)
		cJSON_AddNumberToObject(hc, "PidsLimit", (double)s->pids_limit);
	if (s->shm_size)
		cJSON_AddNumberToObject(hc, "ShmSize", (double)s->shm_size);
}

static void add_namespaces(cJSON *hc, const struct svc_plan *plan, const struct svc_service *s)
{
	const char *modes[] = {s->pid, s->ipc, s->userns_mode, s->uts, s->cgroup};
	const char *keys[] = {"PidMode", "IpcMode", "UsernsMode", "UTSMode", "CgroupnsMode"};

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		te_autofree char *scoped = NULL;

		if (!modes[i])
			continue;
		/* "service:NAME" points at the task's own container of NAME. */
		if (strncmp(modes[i], "service:", 8) == 0)
			scoped = xasprintf("container:%s-%s-1", plan->task, modes[i] + 8);
		cJSON_AddStringToObject(hc, keys[i], scoped ? scoped : modes[i]);
	}
}

static void add_security(cJSON *hc, const struct svc_service *s)
{
	add_strv(hc, "CapAdd", s->cap_add);
	add_strv(hc, "CapDrop", s->cap_drop);
	add_strv(hc, "SecurityOpt", s->security_opt);
	add_strv(hc, "ExtraHosts", s->extra_hosts);
	add_strv(hc, "Dns", s->dns);
	add_strv(hc, "DnsSearch", s->dns_search);
	add_strv(hc, "GroupAdd", s->group_add);
	if (s->read_only == 1)
		cJSON_AddBoolToObject(hc, "ReadonlyRootfs", 1);
	if (s->privileged == 1)
		cJSON_AddBoolToObject(hc, "Privileged", 1);
	if (s->init != SVC_UNSET)
		cJSON_AddBoolToObject(hc, "Init", s->init == 1);
	if (s->n_sysctls)
		cJSON_AddItemToObject(hc, "Sysctls", kv_json(s->sysctls, s->n_sysctls));
	add_devices(hc, s->devices);
}

static void add_health(cJSON *cfg, const struct svc_health *h)
{
	cJSON *o;

	if (!h->set)
		return;
	o = cJSON_AddObjectToObject(cfg, "Healthcheck");
	if (h->disable) {
		cJSON_AddItemToObject(o, "Test", strv_json((char *[]){"NONE", NULL}));
		return;
	}
	if (h->test)
		cJSON_AddItemToObject(o, "Test", strv_json(h->test));
	if (h->interval_ns)
		cJSON_AddNumberToObject(o, "Interval", (double)h->interval_ns);
	if (h->timeout_ns)
		cJSON_AddNumberToObject(o, "Timeout", (double)h->timeout_ns);
	if (h->start_period_ns)
		cJSON_AddNumberToObject(o, "StartPeriod", (double)h->start_period_ns);
	if (h->start_interval_ns)
		cJSON_AddNumberToObject(o, "StartInterval", (double)h->start_interval_ns);
	if (h->retries)
		cJSON_AddNumberToObject(o, "Retries", h->retries);
}

static void add_config_misc(cJSON *b, const struct svc_service *s)
{
	cJSON *exposed = cJSON_GetObjectItemCaseSensitive(b, "ExposedPorts");

	if (s->stop_signal)
		cJSON_AddStringToObject(b, "StopSignal", s->stop_signal);
	if (s->stop_grace_ns)
		cJSON_AddNumberToObject(b, "StopTimeout",
					(double)((s->stop_grace_ns + 999999999) / 1000000000));
	if (s->hostname)
		cJSON_AddStringToObject(b, "Hostname", s->hostname);
	if (s->mac_address)
		cJSON_AddStringToObject(b, "MacAddress", s->mac_address);
	if (s->domainname)
		cJSON_AddStringToObject(b, "Domainname", s->domainname);
	if (s->tty == 1)
		cJSON_AddBoolToObject(b, "Tty", 1);
	if (s->stdin_open == 1)
		cJSON_AddBoolToObject(b, "OpenStdin", 1);
	for (size_t i = 0; exposed && s->expose && s->expose[i]; i++) {
		te_autofree char *k =
		    strchr(s->expose[i], '/') ? xstrdup(s->expose[i]) : xasprintf("%s/tcp", s->expose[i]);

		if (!cJSON_GetObjectItemCaseSensitive(exposed, k))
			cJSON_AddObjectToObject(exposed, k);
	}
	add_health(b, &s->health);
}

/* volumes_from: "SERVICE[:MODE]" is the first container of the task's
 * SERVICE (as Compose takes the service's first); "container:NAME[:MODE]"
 * is NAME, which the policy has judged. */
static void add_volumes_from(cJSON *hc, const struct svc_plan *plan, const struct svc_service *s)
{
	cJSON *a;

	if (!s->volumes_from || !s->volumes_from[0])
		return;
	a = cJSON_AddArrayToObject(hc, "VolumesFrom");
	for (size_t i = 0; s->volumes_from[i]; i++) {
		const char *v = s->volumes_from[i];
		te_autofree char *svc = NULL;
		te_autofree char *name = NULL;
		te_autofree char *entry = NULL;
		const char *mode;

		if (strncmp(v, "container:", 10) == 0) {
			cJSON_AddItemToArray(a, cJSON_CreateString(v + 10));
			continue;
		}
		mode = strchr(v, ':');
		svc = mode ? xstrndup(v, (size_t)(mode - v)) : xstrdup(v);
		name = svc_name_container(plan->task, svc, 1);
		entry = xasprintf("%s%s", name, mode ? mode : "");
		cJSON_AddItemToArray(a, cJSON_CreateString(entry));
	}
}

/* network_mode: host/none/bridge as written, service:NAME scoped to the task. */
static char *network_mode(const struct svc_plan *plan, const struct svc_plan_container *c)
{
	const char *m = c->svc->network_mode;

	if (m && strncmp(m, "service:", 8) == 0)
		return xasprintf("container:%s-%s-1", plan->task, m + 8);
	if (m)
		return xstrdup(m);
	return xstrdup(c->networks && c->networks[0] ? c->networks[0] : "none");
}

static cJSON *networking_config(const struct svc_plan_container *c)
{
	cJSON *nc = cJSON_CreateObject();
	cJSON *eps = cJSON_AddObjectToObject(nc, "EndpointsConfig");
	cJSON *ep;

	if (!c->networks || !c->networks[0])
		return nc;
	ep = cJSON_AddObjectToObject(eps, c->networks[0]);
	cJSON_AddItemToObject(ep, "Aliases", strv_json(c->aliases));
	return nc;
}

cJSON *svc_plan_container_body(const struct svc_plan *plan, const struct svc_plan_container *c,
			       const int *host_ports)
{
	const struct svc_service *s = c->svc;
	cJSON *b = cJSON_CreateObject();
	te_autofree char *mode = network_mode(plan, c);
	cJSON *hc, *labels;
	char number[16];

	cJSON_AddStringToObject(b, "Image", c->image);
	if (s->command)
		cJSON_AddItemToObject(b, "Cmd", strv_json(s->command));
	if (s->entrypoint)
		cJSON_AddItemToObject(b, "Entrypoint", strv_json(s->entrypoint));
	cJSON_AddItemToObject(b, "Env", env_json(s));
	if (s->working_dir)
		cJSON_AddStringToObject(b, "WorkingDir", s->working_dir);
	if (s->user)
		cJSON_AddStringToObject(b, "User", s->user);
	labels = merged_labels(plan, "container", s->name, s->labels, s->n_labels);
	snprintf(number, sizeof(number), "%d", c->number);
	cJSON_ReplaceItemInObjectCaseSensitive(labels, "com.docker.compose.container-number",
					       cJSON_CreateString(number));
	cJSON_AddItemToObject(b, "Labels", labels);
	hc = cJSON_CreateObject();
	add_ports(b, hc, s, host_ports, plan->public_ports);
	add_mounts(b, hc, plan, s);
	add_file_mounts(hc, plan, s);
	add_ulimits(hc, s);
	add_limits(hc, s);
	add_security(hc, s);
	add_namespaces(hc, plan, s);
	add_volumes_from(hc, plan, s);
	add_restart(hc, s->restart);
	add_config_misc(b, s);
	cJSON_AddItemToObject(hc, "NetworkMode", cJSON_CreateString(mode));
	cJSON_AddItemToObject(b, "HostConfig", hc);
	cJSON_AddItemToObject(b, "NetworkingConfig", networking_config(c));
	return b;
}
