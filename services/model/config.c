#define TE_WITH_YAML
#define TE_WITH_CJSON
#include "services/model/config.h"
#include "services/model/compose.h"
#include "services/model/keys.h"
#include "services/model/kinds.h"
#include "services/model/plan.h"
#include "services/model/task.h"
#include "common/buf.h"
#include "common/cleanup.h"
#include "common/err.h"
#include "common/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Top-level secrets/configs: the source kind and where it comes from, never
 * a secret's value (an environment source shows the variable's name). */
static cJSON *decls_json(const struct svc_file_decl *d, size_t n, bool secret)
{
	cJSON *o = cJSON_CreateObject();

	for (size_t i = 0; i < n; i++) {
		cJSON *e = cJSON_AddObjectToObject(o, d[i].key);

		svc_json_add_str(e, "file", d[i].file);
		svc_json_add_str(e, "environment", d[i].env);
		if (!secret)
			svc_json_add_str(e, "content", d[i].content);
	}
	return o;
}

static cJSON *labels_with_original(const struct svc_kv *l, size_t n, const char *original)
{
	cJSON *o = svc_json_kv(l, n);

	cJSON_DeleteItemFromObjectCaseSensitive(o, SVC_LABEL_ORIGINAL_NAME);
	if (original)
		cJSON_AddStringToObject(o, SVC_LABEL_ORIGINAL_NAME, original);
	return o;
}

static cJSON *ipam(const struct svc_network *n)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *cfg;

	svc_json_add_str(o, "driver", n->ipam_driver);
	if (!n->n_ipam)
		return o;
	cfg = cJSON_AddArrayToObject(o, "config");
	for (size_t i = 0; i < n->n_ipam; i++) {
		cJSON *p = cJSON_CreateObject();

		svc_json_add_str(p, "subnet", n->ipam[i].subnet);
		svc_json_add_str(p, "ip_range", n->ipam[i].ip_range);
		svc_json_add_str(p, "gateway", n->ipam[i].gateway);
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
	svc_json_add_str(o, "driver", n->driver);
	if (n->internal)
		cJSON_AddBoolToObject(o, "internal", 1);
	if (n->attachable)
		cJSON_AddBoolToObject(o, "attachable", 1);
	if (n->enable_ipv6)
		cJSON_AddBoolToObject(o, "enable_ipv6", 1);
	svc_json_add_kv(o, "driver_opts", n->driver_opts, n->n_driver_opts);
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
	svc_json_add_str(o, "driver", v->driver);
	svc_json_add_kv(o, "driver_opts", v->driver_opts, v->n_driver_opts);
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
	/* File order, not start order: what `docker compose config` shows; a
	 * service as its first replica (also one scaled to 0) would run. */
	for (size_t i = 0; i < p->n_services; i++) {
		struct svc_plan_container c;

		svc_plan_container_init(plan, &p->services[i], 1, &c);
		cJSON_AddItemToObject(services, p->services[i].name, svc_service_json(&c));
		svc_plan_container_release(&c);
	}
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
		svc_json_add_str(x, "file_name", p->name);
		if (p->allow && p->allow[0])
			cJSON_AddItemToObject(x, "allow", svc_json_strv(p->allow));
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
