#define TE_WITH_YAML
#define TE_WITH_CJSON
#include "services/model/config.h"
#include "services/model/compose.h"
#include "services/model/plan.h"
#include "services/model/task.h"
#include "common/buf.h"
#include "common/cleanup.h"
#include "common/err.h"
#include "common/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Go's time.Duration.String() for whole units, as Compose prints. */
static char *duration(long long ns)
{
	te_autobuf struct te_buf b = TE_BUF_INIT(0);
	long long h = ns / 3600000000000LL, m = ns / 60000000000LL % 60, rest = ns % 60000000000LL;

	if (ns == 0)
		return xstrdup("0s");
	if (ns < 1000000000LL) {
		if (ns % 1000000 == 0)
			return xasprintf("%lldms", ns / 1000000);
		if (ns % 1000 == 0)
			return xasprintf("%lldus", ns / 1000);
		return xasprintf("%lldns", ns);
	}
	if (h)
		te_buf_addf(&b, "%lldh", h);
	if (h || m)
		te_buf_addf(&b, "%lldm", m);
	if (rest % 1000000000LL == 0)
		te_buf_addf(&b, "%llds", rest / 1000000000LL);
	else
		te_buf_addf(&b, "%gs", (double)rest / 1e9);
	return te_buf_detach(&b);
}

static void add_dur(cJSON *o, const char *key, long long ns)
{
	te_autofree char *s = NULL;

	if (!ns)
		return;
	s = duration(ns);
	cJSON_AddStringToObject(o, key, s);
}

static cJSON *strv(char *const *v)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; v && v[i]; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
	return a;
}

static void add_strv(cJSON *o, const char *key, char *const *v)
{
	if (v && v[0])
		cJSON_AddItemToObject(o, key, strv(v));
}

static void add_str(cJSON *o, const char *key, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, key, v);
}

static cJSON *kv(const struct svc_kv *v, size_t n)
{
	cJSON *o = cJSON_CreateObject();

	for (size_t i = 0; i < n; i++)
		cJSON_AddStringToObject(o, v[i].key, v[i].value ? v[i].value : "");
	return o;
}

static void add_kv(cJSON *o, const char *key, const struct svc_kv *v, size_t n)
{
	if (n)
		cJSON_AddItemToObject(o, key, kv(v, n));
}

static cJSON *ports(const struct svc_service *s)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < s->n_ports; i++) {
		const struct svc_port *p = &s->ports[i];
		cJSON *o = cJSON_CreateObject();
		char hint[16];

		cJSON_AddStringToObject(o, "mode", "ingress");
		cJSON_AddStringToObject(o, "host_ip",
					p->host_ip && strncmp(p->host_ip, "127.", 4) != 0 ? p->host_ip
											  : SVC_HOST_IP);
		cJSON_AddNumberToObject(o, "target", p->container_port);
		/* The host port is allocated at `up`; the file's is only a hint. */
		if (p->host_port) {
			snprintf(hint, sizeof(hint), "%d", p->host_port);
			cJSON_AddStringToObject(o, "x-published-hint", hint);
		}
		cJSON_AddStringToObject(o, "protocol", p->proto);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

static cJSON *mounts(const struct svc_service *s)
{
	static const char *const types[] = {"volume", "bind", "tmpfs"};
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < s->n_mounts; i++) {
		const struct svc_mount *m = &s->mounts[i];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "type", types[m->type]);
		add_str(o, "source", m->source);
		cJSON_AddStringToObject(o, "target", m->target);
		if (m->read_only)
			cJSON_AddBoolToObject(o, "read_only", 1);
		if (m->type == SVC_MOUNT_BIND)
			cJSON_AddBoolToObject(cJSON_AddObjectToObject(o, "bind"), "create_host_path",
					      !m->no_create_host_path);
		if (m->type == SVC_MOUNT_VOLUME && m->nocopy)
			cJSON_AddBoolToObject(cJSON_AddObjectToObject(o, "volume"), "nocopy", 1);
		if (m->type == SVC_MOUNT_TMPFS && m->tmpfs_size)
			cJSON_AddNumberToObject(cJSON_AddObjectToObject(o, "tmpfs"), "size",
						(double)m->tmpfs_size);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

static cJSON *deps(const struct svc_service *s)
{
	cJSON *o = cJSON_CreateObject();

	for (size_t i = 0; i < s->n_deps; i++) {
		cJSON *d = cJSON_AddObjectToObject(o, s->deps[i].service);

		cJSON_AddStringToObject(d, "condition", s->deps[i].condition);
		cJSON_AddBoolToObject(d, "required", s->deps[i].required);
		cJSON_AddBoolToObject(d, "restart", s->deps[i].restart);
	}
	return o;
}

static cJSON *health(const struct svc_health *h)
{
	cJSON *o = cJSON_CreateObject();

	if (h->disable)
		cJSON_AddBoolToObject(o, "disable", 1);
	add_strv(o, "test", h->test);
	add_dur(o, "interval", h->interval_ns);
	add_dur(o, "timeout", h->timeout_ns);
	add_dur(o, "start_period", h->start_period_ns);
	add_dur(o, "start_interval", h->start_interval_ns);
	if (h->retries)
		cJSON_AddNumberToObject(o, "retries", h->retries);
	return o;
}

/* The service's networks with the aliases the plan gives it. */
static cJSON *service_networks(const struct svc_plan_container *c, const struct svc_service *s)
{
	cJSON *o = cJSON_CreateObject();

	if (s->network_mode)
		return o;
	for (size_t i = 0; i < (s->n_net_attach ? s->n_net_attach : 1); i++) {
		cJSON *n = cJSON_AddObjectToObject(o, s->n_net_attach ? s->net_attach[i].key : "default");

		cJSON_AddItemToObject(n, "aliases", strv(c->aliases));
		if (s->n_net_attach)
			add_str(n, "ipv4_address", s->net_attach[i].ipv4_address);
	}
	return o;
}

static void add_tri(cJSON *o, const char *key, int v)
{
	if (v != SVC_UNSET)
		cJSON_AddBoolToObject(o, key, v == 1);
}

static void add_num(cJSON *o, const char *key, double v)
{
	if (v != 0)
		cJSON_AddNumberToObject(o, key, v);
}

static void service_scalars(cJSON *o, const struct svc_service *s)
{
	const char *keys[] = {"working_dir", "user",	    "hostname",	   "domainname",   "platform",
			      "restart",     "stop_signal", "pull_policy", "network_mode", "pid",
			      "ipc",	     "userns_mode", "uts",	   "cgroup"};
	const char *vals[] = {s->working_dir, s->user,	      s->hostname,    s->domainname,   s->platform,
			      s->restart,     s->stop_signal, s->pull_policy, s->network_mode, s->pid,
			      s->ipc,	      s->userns_mode, s->uts,	      s->cgroup};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		add_str(o, keys[i], vals[i]);
	add_tri(o, "read_only", s->read_only);
	add_tri(o, "init", s->init);
	add_tri(o, "privileged", s->privileged);
	add_tri(o, "tty", s->tty);
	add_tri(o, "stdin_open", s->stdin_open);
	add_num(o, "mem_limit", (double)s->mem_limit);
	add_num(o, "mem_reservation", (double)s->mem_reservation);
	add_num(o, "shm_size", (double)s->shm_size);
	add_num(o, "pids_limit", (double)s->pids_limit);
	add_num(o, "cpus", s->cpus);
	add_dur(o, "stop_grace_period", s->stop_grace_ns);
}

static void service_lists(cJSON *o, const struct svc_service *s)
{
	const char *keys[] = {"cap_add", "cap_drop", "security_opt", "extra_hosts", "tmpfs",
			      "devices", "dns",	     "expose",	     "group_add",   "profiles"};
	char **const vals[] = {s->cap_add, s->cap_drop, s->security_opt, s->extra_hosts, s->tmpfs,
			       s->devices, s->dns,	s->expose,	 s->group_add,	 s->profiles};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		add_strv(o, keys[i], vals[i]);
}

static cJSON *build_json(const struct svc_build *b)
{
	cJSON *o = cJSON_CreateObject();

	add_str(o, "context", b->context);
	add_str(o, "dockerfile", b->dockerfile);
	add_str(o, "dockerfile_inline", b->dockerfile_inline);
	add_kv(o, "args", b->args, b->n_args);
	add_str(o, "target", b->target);
	add_kv(o, "labels", b->labels, b->n_labels);
	add_str(o, "network", b->network);
	add_num(o, "shm_size", (double)b->shm_size);
	add_strv(o, "extra_hosts", b->extra_hosts);
	add_strv(o, "cache_from", b->cache_from);
	add_tri(o, "pull", b->pull);
	return o;
}

/* Service side of secrets/configs: long form, always, as Compose prints it. */
static cJSON *refs_json(const struct svc_file_ref *r, size_t n, bool secret)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < n; i++) {
		cJSON *o = cJSON_CreateObject();
		te_autofree char *target = svc_plan_file_target(secret, &r[i]);

		cJSON_AddStringToObject(o, "source", r[i].source);
		cJSON_AddStringToObject(o, "target", target);
		add_str(o, "uid", r[i].uid);
		add_str(o, "gid", r[i].gid);
		if (r[i].mode >= 0)
			cJSON_AddNumberToObject(o, "mode", r[i].mode);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

static void service_extras(cJSON *o, const struct svc_service *s)
{
	if (s->build.set)
		cJSON_AddItemToObject(o, "build", build_json(&s->build));
	if (s->n_secrets)
		cJSON_AddItemToObject(o, "secrets", refs_json(s->secrets, s->n_secrets, true));
	if (s->n_configs)
		cJSON_AddItemToObject(o, "configs", refs_json(s->configs, s->n_configs, false));
	add_str(o, "runtime", s->runtime);
	add_str(o, "mac_address", s->mac_address);
	if (s->ulimits) {
		cJSON *u = cJSON_AddObjectToObject(o, "ulimits");

		for (size_t i = 0; s->ulimits[i]; i++) {
			const char *eq = strchr(s->ulimits[i], '=');
			long long soft = 0, hard = 0;
			te_autofree char *name = xstrndup(s->ulimits[i], (size_t)(eq - s->ulimits[i]));
			cJSON *l = cJSON_AddObjectToObject(u, name);

			sscanf(eq + 1, "%lld:%lld", &soft, &hard);
			cJSON_AddNumberToObject(l, "soft", (double)soft);
			cJSON_AddNumberToObject(l, "hard", (double)hard);
		}
	}
}

/* Top-level secrets/configs: the source kind and where it comes from, never
 * a secret's value (an environment source shows the variable's name). */
static cJSON *decls_json(const struct svc_file_decl *d, size_t n, bool secret)
{
	cJSON *o = cJSON_CreateObject();

	for (size_t i = 0; i < n; i++) {
		cJSON *e = cJSON_AddObjectToObject(o, d[i].key);

		add_str(e, "file", d[i].file);
		add_str(e, "environment", d[i].env);
		if (!secret)
			add_str(e, "content", d[i].content);
	}
	return o;
}

static cJSON *service_json(const struct svc_plan_container *c)
{
	const struct svc_service *s = c->svc;
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "container_name", c->name);
	cJSON_AddStringToObject(o, "image", c->image);
	if (s->command)
		cJSON_AddItemToObject(o, "command", strv(s->command));
	if (s->entrypoint)
		cJSON_AddItemToObject(o, "entrypoint", strv(s->entrypoint));
	add_kv(o, "environment", s->environment, s->n_environment);
	add_kv(o, "labels", s->labels, s->n_labels);
	add_kv(o, "sysctls", s->sysctls, s->n_sysctls);
	if (s->n_ports)
		cJSON_AddItemToObject(o, "ports", ports(s));
	if (s->n_mounts)
		cJSON_AddItemToObject(o, "volumes", mounts(s));
	if (s->n_deps)
		cJSON_AddItemToObject(o, "depends_on", deps(s));
	if (s->health.set)
		cJSON_AddItemToObject(o, "healthcheck", health(&s->health));
	if (!s->network_mode)
		cJSON_AddItemToObject(o, "networks", service_networks(c, s));
	service_scalars(o, s);
	service_lists(o, s);
	service_extras(o, s);
	return o;
}

static cJSON *labels_with_original(const struct svc_kv *l, size_t n, const char *original)
{
	cJSON *o = kv(l, n);

	cJSON_DeleteItemFromObjectCaseSensitive(o, SVC_LABEL_ORIGINAL_NAME);
	if (original)
		cJSON_AddStringToObject(o, SVC_LABEL_ORIGINAL_NAME, original);
	return o;
}

static cJSON *ipam(const struct svc_network *n)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *cfg;

	add_str(o, "driver", n->ipam_driver);
	if (!n->n_ipam)
		return o;
	cfg = cJSON_AddArrayToObject(o, "config");
	for (size_t i = 0; i < n->n_ipam; i++) {
		cJSON *p = cJSON_CreateObject();

		add_str(p, "subnet", n->ipam[i].subnet);
		add_str(p, "ip_range", n->ipam[i].ip_range);
		add_str(p, "gateway", n->ipam[i].gateway);
		cJSON_AddItemToArray(cfg, p);
	}
	return o;
}

static cJSON *network_json(const char *task, const struct svc_network *n)
{
	cJSON *o = cJSON_CreateObject();
	te_autofree char *scoped = n->external ? NULL : svc_name_network(task, n->key);

	cJSON_AddStringToObject(o, "name", n->external ? (n->name ? n->name : n->key) : scoped);
	if (n->external) {
		cJSON_AddBoolToObject(o, "external", 1);
		return o;
	}
	add_str(o, "driver", n->driver);
	if (n->internal)
		cJSON_AddBoolToObject(o, "internal", 1);
	if (n->attachable)
		cJSON_AddBoolToObject(o, "attachable", 1);
	if (n->enable_ipv6)
		cJSON_AddBoolToObject(o, "enable_ipv6", 1);
	add_kv(o, "driver_opts", n->driver_opts, n->n_driver_opts);
	if (n->ipam_driver || n->n_ipam)
		cJSON_AddItemToObject(o, "ipam", ipam(n));
	if (n->n_labels || n->name)
		cJSON_AddItemToObject(o, "labels", labels_with_original(n->labels, n->n_labels, n->name));
	return o;
}

static cJSON *volume_json(const char *task, const struct svc_volume *v)
{
	cJSON *o = cJSON_CreateObject();
	te_autofree char *scoped = v->external ? NULL : svc_name_volume(task, v->key);

	cJSON_AddStringToObject(o, "name", v->external ? (v->name ? v->name : v->key) : scoped);
	if (v->external) {
		cJSON_AddBoolToObject(o, "external", 1);
		return o;
	}
	add_str(o, "driver", v->driver);
	add_kv(o, "driver_opts", v->driver_opts, v->n_driver_opts);
	if (v->n_labels || v->name)
		cJSON_AddItemToObject(o, "labels", labels_with_original(v->labels, v->n_labels, v->name));
	return o;
}

static void add_networks(cJSON *root, const struct svc_plan *plan, const struct svc_project *p)
{
	cJSON *nets = cJSON_AddObjectToObject(root, "networks");

	if (svc_plan_network_by_key(plan, "default") && !svc_project_network(p, "default")) {
		te_autofree char *name = svc_name_network(plan->task, "default");

		cJSON_AddStringToObject(cJSON_AddObjectToObject(nets, "default"), "name", name);
	}
	for (size_t i = 0; i < p->n_networks; i++)
		cJSON_AddItemToObject(nets, p->networks[i].key, network_json(plan->task, &p->networks[i]));
}

cJSON *svc_config_json(const struct svc_project *p, const char *task, struct te_err *err)
{
	struct svc_plan *plan = svc_plan_build(p, task, "", err);
	cJSON *root, *services, *vols;

	if (!plan)
		return NULL;
	root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "name", task);
	services = cJSON_AddObjectToObject(root, "services");
	/* File order, not start order: what `docker compose config` shows. */
	for (size_t i = 0; i < p->n_services; i++)
		for (size_t j = 0; j < plan->n_containers; j++)
			if (plan->containers[j].svc == &p->services[i])
				cJSON_AddItemToObject(services, p->services[i].name,
						      service_json(&plan->containers[j]));
	add_networks(root, plan, p);
	vols = cJSON_AddObjectToObject(root, "volumes");
	for (size_t i = 0; i < p->n_volumes; i++)
		cJSON_AddItemToObject(vols, p->volumes[i].key, volume_json(task, &p->volumes[i]));
	if (p->n_secrets)
		cJSON_AddItemToObject(root, "secrets", decls_json(p->secrets, p->n_secrets, true));
	if (p->n_configs)
		cJSON_AddItemToObject(root, "configs", decls_json(p->configs, p->n_configs, false));
	if (p->name || (p->allow && p->allow[0])) {
		cJSON *x = cJSON_AddObjectToObject(root, "x-taskenv");

		/* The file's name: is recorded; the task name names the resources. */
		add_str(x, "file_name", p->name);
		if (p->allow && p->allow[0])
			cJSON_AddItemToObject(x, "allow", strv(p->allow));
	}
	svc_plan_free(plan);
	return root;
}

/* ---- YAML ---- */

static int emit_write(void *data, unsigned char *buffer, size_t size)
{
	return te_buf_add(data, buffer, size) == 0;
}

/* A plain scalar S would read back as something other than a string. */
static bool needs_quotes(const char *s)
{
	static const char *const special[] = {"",     "~",     "null",	"Null",	 "NULL", "true", "True",
					      "TRUE", "false", "False", "FALSE", "yes",	 "no",	 "on",
					      "off",  "y",     "n",	"Yes",	 "No",	 "On",	 "Off"};
	char *end;

	for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++)
		if (strcmp(s, special[i]) == 0)
			return true;
	strtod(s, &end);
	return end != s && *end == '\0';
}

static int emit(yaml_emitter_t *em, yaml_event_t *ev)
{
	return yaml_emitter_emit(em, ev) ? 0 : -1;
}

static int emit_scalar(yaml_emitter_t *em, const char *s, bool plain)
{
	yaml_event_t ev;
	yaml_scalar_style_t style = plain ? YAML_PLAIN_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE;

	if (!plain && needs_quotes(s))
		style = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
	yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), 1, 1, style);
	return emit(em, &ev);
}

static int emit_node(yaml_emitter_t *em, const cJSON *j, int depth)
{
	yaml_event_t ev;
	const cJSON *it;
	char num[64];

	if (depth > 64)
		return -1;
	if (cJSON_IsString(j))
		return emit_scalar(em, j->valuestring, false);
	if (cJSON_IsNumber(j)) {
		snprintf(num, sizeof(num), "%.17g", j->valuedouble);
		return emit_scalar(em, num, true);
	}
	if (cJSON_IsBool(j))
		return emit_scalar(em, cJSON_IsTrue(j) ? "true" : "false", true);
	if (cJSON_IsNull(j))
		return emit_scalar(em, "null", true);
	if (cJSON_IsArray(j)) {
		yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE);
		if (emit(em, &ev) < 0)
			return -1;
		cJSON_ArrayForEach (it, j)
			if (emit_node(em, it, depth + 1) < 0)
				return -1;
		yaml_sequence_end_event_initialize(&ev);
		return emit(em, &ev);
	}
	yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE);
	if (emit(em, &ev) < 0)
		return -1;
	cJSON_ArrayForEach (it, j)
		if (emit_scalar(em, it->string, false) < 0 || emit_node(em, it, depth + 1) < 0)
			return -1;
	yaml_mapping_end_event_initialize(&ev);
	return emit(em, &ev);
}

static int emit_doc(yaml_emitter_t *em, const cJSON *json)
{
	yaml_event_t ev;

	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	if (emit(em, &ev) < 0)
		return -1;
	yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
	if (emit(em, &ev) < 0 || emit_node(em, json, 0) < 0)
		return -1;
	yaml_document_end_event_initialize(&ev, 1);
	if (emit(em, &ev) < 0)
		return -1;
	yaml_stream_end_event_initialize(&ev);
	return emit(em, &ev);
}

char *svc_config_yaml(const cJSON *json, struct te_err *err)
{
	te_autobuf struct te_buf out = TE_BUF_INIT(0);
	yaml_emitter_t em;
	int rc;

	if (!yaml_emitter_initialize(&em))
		TE_BUG("yaml_emitter_initialize failed");
	yaml_emitter_set_output(&em, emit_write, &out);
	yaml_emitter_set_unicode(&em, 1);
	yaml_emitter_set_width(&em, -1);
	rc = emit_doc(&em, json);
	if (rc < 0)
		te_err_set(err, TE_E_FAIL, "emit yaml: %s", em.problem ? em.problem : "emitter error");
	yaml_emitter_delete(&em);
	return rc < 0 ? NULL : te_buf_detach(&out);
}
