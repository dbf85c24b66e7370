/* verify's probes of the task's broker from inside each container it is
 * bound into (x-taskenv.engine: broker, docs/broker.md): the broker
 * answers and lists only the task's containers, another task's container
 * inspected by full ID is refused, and so is a privileged create. */
#include "services/contract/verify.h"
#include "services/contract/verify_int.h"
#include "services/lifecycle/broker.h"
#include "services/model/compose.h"
#include "engine/engine.h"
#include "state/ledger.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <stdlib.h>
#include <string.h>

#define CURL                                                                                                 \
	"command -v curl >/dev/null 2>&1 || exit 3; curl -sS --max-time 10 --unix-socket " SVC_BROKER_TARGET \
	"/" SVC_BROKER_SOCKET " "

/* INSP has the task's broker directory DIR (a realpath) at SVC_BROKER_TARGET. */
static bool has_broker(const cJSON *insp, const char *dir)
{
	const cJSON *m;

	cJSON_ArrayForEach (m, cJSON_GetObjectItem(insp, "Mounts")) {
		const char *src = cJSON_GetStringValue(cJSON_GetObjectItem(m, "Source"));
		const char *dst = cJSON_GetStringValue(cJSON_GetObjectItem(m, "Destination"));

		if (src && dst && strcmp(dst, SVC_BROKER_TARGET) == 0 && strcmp(src, dir) == 0)
			return true;
	}
	return false;
}

static bool is_task_container(const struct verify *v, const char *name)
{
	const cJSON *c;

	cJSON_ArrayForEach (c, v->live)
		if (strcmp(svc_verify_name_of(cJSON_GetObjectItem(c, "inspect")), name) == 0)
			return true;
	return false;
}

/* The broker's list, judged: only the task's containers, NAME among them. */
static void check_list(struct verify *v, const char *name, const char *out)
{
	te_autojson cJSON *list = cJSON_Parse(out);
	const cJSON *c;
	bool self = false;
	int n = 0;

	if (!cJSON_IsArray(list)) {
		svc_verify_result(v, "engine-broker", name, SVC_VERIFY_FAIL,
				  "the broker at " SVC_BROKER_TARGET "/" SVC_BROKER_SOCKET
				  " does not answer a container list: %.200s",
				  out);
		return;
	}
	cJSON_ArrayForEach (c, list) {
		const char *cn = cJSON_GetStringValue(cJSON_GetArrayItem(cJSON_GetObjectItem(c, "Names"), 0));

		cn = cn && *cn == '/' ? cn + 1 : cn;
		if (!cn || !is_task_container(v, cn)) {
			svc_verify_result(v, "engine-broker", name, SVC_VERIFY_FAIL,
					  "the broker lists '%s', which is not the task's", cn ? cn : "?");
			return;
		}
		self = self || strcmp(cn, name) == 0;
		n++;
	}
	if (!self)
		svc_verify_result(v, "engine-broker", name, SVC_VERIFY_FAIL,
				  "the broker's list (%d) lacks the container itself", n);
	else
		svc_verify_result(v, "engine-broker", name, SVC_VERIFY_PASS,
				  "the broker answers inside and lists %d container(s), all the task's", n);
}

/* The full ID of a running container of another task of this ledger, or NULL. Owned. */
static char *other_task_container(struct verify *v, struct te_err *err)
{
	te_autofree char *label = xasprintf("io.taskenv.ledger=%s", state_ledger_id(v->l));
	te_autojson cJSON *list = NULL;
	const cJSON *c;

	if (engine_container_list(v->e, label, &list, err) < 0) {
		te_err_clear(err);
		return NULL;
	}
	cJSON_ArrayForEach (c, list) {
		const char *t = cJSON_GetStringValue(
		    cJSON_GetObjectItem(cJSON_GetObjectItem(c, "Labels"), "io.taskenv.task"));
		const char *id = cJSON_GetStringValue(cJSON_GetObjectItem(c, "Id"));

		if (t && id && strcmp(t, v->s.task) != 0 && strspn(id, "0123456789abcdef") == strlen(id))
			return xstrdup(id);
	}
	return NULL;
}

/* An HTTP status the probe printed: refused (4xx) or not. */
static void check_refused(struct verify *v, const char *name, const char *what, int rc, const char *out)
{
	if (rc != 0)
		svc_verify_result(v, "engine-broker", name, SVC_VERIFY_NV, "%s: the probe failed (%.200s)",
				  what, out ? out : "");
	else if (out[0] == '4')
		svc_verify_result(v, "engine-broker", name, SVC_VERIFY_PASS, "%s: refused (HTTP %s)", what,
				  out);
	else
		svc_verify_result(v, "engine-broker", name, SVC_VERIFY_FAIL, "%s: answered HTTP %s", what,
				  out);
}

static int probe_one(struct verify *v, const cJSON *insp, const char *other, struct te_err *err)
{
	const char *name = svc_verify_name_of(insp);
	const char *image =
	    cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(insp, "Config"), "Image"));
	te_autofree char *out = NULL, *script = NULL;
	int rc = svc_verify_probe(v, name, CURL "'http://broker/containers/json?all=1'", &out, err);

	if (rc < 0)
		return -1;
	if (rc == 1) {
		svc_verify_result(v, "engine-broker", name, SVC_VERIFY_NV,
				  "not verifiable in this image (no sh or curl)");
		return 0;
	}
	check_list(v, name, out);
	if (other) {
		free(out);
		script = xasprintf(CURL "-o /dev/null -w '%%{http_code}' 'http://broker/containers/%s/json'",
				   other);
		rc = svc_verify_probe(v, name, script, &out, err);
		if (rc < 0)
			return -1;
		check_refused(v, name, "another task's container inspected by full ID", rc, out);
	}
	if (!image || strspn(image, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/:@-") !=
			  strlen(image))
		image = "busybox";
	free(out);
	free(script);
	script =
	    xasprintf(CURL "-o /dev/null -w '%%{http_code}' -X POST -H 'Content-Type: application/json' "
			   "-d '{\"Image\":\"%s\",\"Cmd\":[\"true\"],\"HostConfig\":{\"Privileged\":true}}' "
			   "'http://broker/containers/create'",
		      image);
	rc = svc_verify_probe(v, name, script, &out, err);
	if (rc < 0)
		return -1;
	check_refused(v, name, "a privileged container created through the broker", rc, out);
	return 0;
}

int svc_verify_broker(struct verify *v, struct te_err *err)
{
	te_autofree char *dir = svc_broker_dir_of(v->l, v->s.task);
	te_autofree char *real = dir ? realpath(dir, NULL) : NULL;
	te_autofree char *other = NULL;
	bool looked = false;
	const cJSON *c;

	cJSON_ArrayForEach (c, v->live) {
		const cJSON *insp = cJSON_GetObjectItem(c, "inspect");

		if (!real || !has_broker(insp, real) ||
		    !cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(insp, "State"), "Running")))
			continue;
		if (!looked) {
			other = other_task_container(v, err);
			looked = true;
		}
		if (probe_one(v, insp, other, err) < 0)
			return -1;
	}
	return 0;
}
