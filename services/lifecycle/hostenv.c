#include "services/lifecycle/hostenv.h"
#include "services/lifecycle/drvrun.h"
#include "services/lifecycle/ops.h"
#include "services/lifecycle/status.h"
#include "services/model/compose.h"
#include "drivers/driver.h"
#include "state/ledger.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* The port of PORTS that "SERVICE:PORT" at S names, with *LEN its length. */
static const struct svc_host_port *match_at(const char *s, const struct svc_host_port *ports, size_t n,
					    size_t *len)
{
	for (size_t i = 0; i < n; i++) {
		char want[128];
		int k = snprintf(want, sizeof(want), "%s:%d", ports[i].service, ports[i].container_port);

		if (k <= 0 || (size_t)k >= sizeof(want) || strncmp(s, want, (size_t)k) != 0 ||
		    isdigit((unsigned char)s[k]))
			continue;
		*len = (size_t)k;
		return &ports[i];
	}
	return NULL;
}

char *svc_host_rewrite(const char *value, const struct svc_host_port *ports, size_t n)
{
	te_autobuf struct te_buf out = TE_BUF_INIT(0);

	for (size_t i = 0; value[i];) {
		const struct svc_host_port *p = NULL;
		size_t len = 0;

		if (i == 0 || strchr("/@=", value[i - 1]))
			p = match_at(value + i, ports, n, &len);
		if (p) {
			te_buf_addf(&out, "127.0.0.1:%d", p->host_port);
			i += len;
			continue;
		}
		te_buf_addf(&out, "%c", value[i++]);
	}
	return out.len ? te_buf_detach(&out) : xstrdup("");
}

/* KEY's host-side FIELD (x-taskenv.env "<key>.<field>"), owned. */
static char *driver_value(struct ledger *l, const char *task, const struct svc_project *p, const char *ref,
			  struct te_err *err)
{
	const char *dot = strchr(ref, '.');
	te_autofree char *key = xstrndup(ref, dot ? (size_t)(dot - ref) : strlen(ref));
	te_autojson cJSON *v = NULL;
	const struct drv_ops *ops = NULL;
	const char *s;

	for (size_t i = 0; i < p->n_resources && !ops; i++)
		if (strcmp(p->resources[i].key, key) == 0)
			ops = drv_find(p->resources[i].driver);
	if (!ops || !dot)
		return te_err_set(err, TE_E_USAGE, "no resource '%s' in task '%s'", key, task), NULL;
	v = svc_driver_describe(l, task, ops->primary_kind, key, err);
	if (!v)
		return NULL;
	s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(v, dot + 1));
	if (!s)
		return te_err_set(err, TE_E_USAGE, "resource '%s' of task '%s' has no '%s'", key, task,
				  dot + 1),
		       NULL;
	return xstrdup(s);
}

static const struct svc_service *find_service(const struct svc_project *p, const char *name)
{
	for (size_t i = 0; i < p->n_services; i++)
		if (strcmp(p->services[i].name, name) == 0)
			return &p->services[i];
	return NULL;
}

static int service_env(struct ledger *l, const char *task, const struct svc_project *p,
		       const struct svc_service *s, char ***lines, struct te_err *err)
{
	struct state_port *ports = NULL;
	size_t n = 0;
	te_autofree struct svc_host_port *hp = NULL;

	if (state_port_list(l, task, &ports, &n, err) < 0)
		return -1;
	hp = xcalloc(n + 1, sizeof(*hp));
	for (size_t i = 0; i < n; i++)
		hp[i] = (struct svc_host_port){ports[i].service, ports[i].container_port, ports[i].host_port};
	for (size_t i = 0; i < s->n_environment; i++) {
		te_autofree char *v = NULL;

		if (!s->environment[i].value)
			continue;
		v = svc_host_rewrite(s->environment[i].value, hp, n);
		*lines = te_strv_push(*lines, xasprintf("%s=%s", s->environment[i].key, v));
	}
	state_ports_free(ports, n);
	for (size_t i = 0; i < s->n_inject; i++) {
		te_autofree char *v = driver_value(l, task, p, s->inject[i].value, err);

		if (!v)
			return te_err_prefix(err, "service '%s': %s: ", s->name, s->inject[i].key);
		*lines = te_strv_push(*lines, xasprintf("%s=%s", s->inject[i].key, v));
	}
	return 0;
}

char **svc_task_host_env(struct ledger *l, const char *task, const char *service, char *const *env_files,
			 struct te_err *err)
{
	char **lines = svc_task_env(l, task, err);
	struct svc_project *p;
	const struct svc_service *s;
	int rc;

	if (!lines || !service)
		return lines;
	p = svc_task_project(l, task, env_files, err);
	if (!p) {
		te_strv_free(lines);
		return NULL;
	}
	s = find_service(p, service);
	rc = s ? service_env(l, task, p, s, &lines, err)
	       : te_err_set(err, TE_E_USAGE, "no service '%s' in the Compose file of task '%s'", service,
			    task);
	svc_project_free(p);
	if (rc < 0) {
		te_strv_free(lines);
		return NULL;
	}
	return lines;
}
