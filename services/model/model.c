#include "services/model/compose.h"

#include "common/mem.h"
#include "services/model/load.h"

#include <stdlib.h>
#include <string.h>

void svc_kv_free(struct svc_kv *kv, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(kv[i].key);
		free(kv[i].value);
	}
	free(kv);
}

static void decls_free(struct svc_file_decl *d, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(d[i].key);
		free(d[i].file);
		free(d[i].env);
		free(d[i].content);
	}
	free(d);
}

void svc_service_release(struct svc_service *s)
{
	svc_service_keys_release(s);
	free(s->name);
	te_strv_free(s->depends_on);
	te_strv_free(s->networks);
	svc_kv_free(s->inject, s->n_inject);
	svc_kv_free(s->env_paths, s->n_env_paths);
	for (size_t i = 0; i < s->n_resets; i++)
		free(s->resets[i].entry);
	free(s->resets);
	memset(s, 0, sizeof(*s));
}

static void resource_release(struct svc_resource *r)
{
	free(r->key);
	free(r->driver);
	free(r->server);
	free(r->isolation);
	free(r->tmpl);
	if (r->build) {
		free(r->build->service);
		te_strv_free(r->build->command);
		te_strv_free(r->build->inputs);
		free(r->build);
	}
	free(r->container_host);
	free(r->amqp_port);
	free(r->image);
	te_strv_free(r->buckets);
}

void svc_project_free(struct svc_project *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_services; i++)
		svc_service_release(&p->services[i]);
	free(p->services);
	for (size_t i = 0; i < p->n_volumes; i++) {
		free(p->volumes[i].key);
		free(p->volumes[i].name);
		free(p->volumes[i].driver);
		svc_kv_free(p->volumes[i].driver_opts, p->volumes[i].n_driver_opts);
		svc_kv_free(p->volumes[i].labels, p->volumes[i].n_labels);
	}
	free(p->volumes);
	for (size_t i = 0; i < p->n_networks; i++) {
		free(p->networks[i].key);
		free(p->networks[i].name);
		free(p->networks[i].driver);
		svc_kv_free(p->networks[i].driver_opts, p->networks[i].n_driver_opts);
		free(p->networks[i].ipam_driver);
		for (size_t j = 0; j < p->networks[i].n_ipam; j++) {
			free(p->networks[i].ipam[j].subnet);
			free(p->networks[i].ipam[j].ip_range);
			free(p->networks[i].ipam[j].gateway);
		}
		free(p->networks[i].ipam);
		svc_kv_free(p->networks[i].labels, p->networks[i].n_labels);
	}
	decls_free(p->secrets, p->n_secrets);
	decls_free(p->configs, p->n_configs);
	free(p->name);
	free(p->version);
	te_strv_free(p->allow);
	te_strv_free(p->warnings);
	free(p->networks);
	for (size_t i = 0; i < p->n_resources; i++)
		resource_release(&p->resources[i]);
	free(p->resources);
	free(p->dir);
	te_strv_free(p->files);
	te_strv_free(p->sources);
	free(p);
}

const struct svc_service *svc_project_service(const struct svc_project *p, const char *name)
{
	for (size_t i = 0; p && name && i < p->n_services; i++)
		if (strcmp(p->services[i].name, name) == 0)
			return &p->services[i];
	return NULL;
}

const struct svc_volume *svc_project_volume(const struct svc_project *p, const char *key)
{
	for (size_t i = 0; p && key && i < p->n_volumes; i++)
		if (strcmp(p->volumes[i].key, key) == 0)
			return &p->volumes[i];
	return NULL;
}

const struct svc_network *svc_project_network(const struct svc_project *p, const char *key)
{
	for (size_t i = 0; p && key && i < p->n_networks; i++)
		if (strcmp(p->networks[i].key, key) == 0)
			return &p->networks[i];
	return NULL;
}

const struct svc_resource *svc_project_resource(const struct svc_project *p, const char *key)
{
	for (size_t i = 0; p && key && i < p->n_resources; i++)
		if (strcmp(p->resources[i].key, key) == 0)
			return &p->resources[i];
	return NULL;
}

int svc_pull_policy(const char *v, enum svc_pull *out, long long *every_ns)
{
	static const struct {
		const char *name;
		enum svc_pull p;
		long long ns;
	} fixed[] = {
	    {"missing", SVC_PULL_MISSING, 0},
	    {"if_not_present", SVC_PULL_MISSING, 0},
	    {"always", SVC_PULL_ALWAYS, 0},
	    {"never", SVC_PULL_NEVER, 0},
	    {"build", SVC_PULL_BUILD, 0},
	    {"daily", SVC_PULL_REFRESH, 86400LL * 1000000000LL},
	    {"weekly", SVC_PULL_REFRESH, 7 * 86400LL * 1000000000LL},
	};
	const char *d;
	char *end;
	long long n;

	*out = SVC_PULL_MISSING;
	*every_ns = 0;
	for (size_t i = 0; v && i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (strcmp(v, fixed[i].name) == 0) {
			*out = fixed[i].p;
			*every_ns = fixed[i].ns;
			return 0;
		}
	if (!v)
		return 0;
	if (strncmp(v, "every_", 6) != 0)
		return -1;
	d = v + 6;
	*out = SVC_PULL_REFRESH;
	/* str2duration, as compose-go: Go durations, and "d" / "w" units. */
	n = strtoll(d, &end, 10);
	if (end != d && n > 0 && (strcmp(end, "d") == 0 || strcmp(end, "w") == 0)) {
		*every_ns = n * (*end == 'd' ? 1 : 7) * 86400LL * 1000000000LL;
		return 0;
	}
	return svc_parse_duration(d, every_ns) && *every_ns > 0 ? 0 : -1;
}
