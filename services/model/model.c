#include "services/model/compose.h"

#include "common/mem.h"

#include <stdlib.h>
#include <string.h>

static void kv_free(struct svc_kv *kv, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(kv[i].key);
		free(kv[i].value);
	}
	free(kv);
}

static void build_release(struct svc_build *b)
{
	free(b->context);
	free(b->dockerfile);
	free(b->dockerfile_inline);
	kv_free(b->args, b->n_args);
	free(b->target);
	kv_free(b->labels, b->n_labels);
	free(b->network);
	te_strv_free(b->extra_hosts);
	te_strv_free(b->cache_from);
}

static void refs_free(struct svc_file_ref *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(r[i].source);
		free(r[i].target);
		free(r[i].uid);
		free(r[i].gid);
	}
	free(r);
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

static void service_release(struct svc_service *s)
{
	build_release(&s->build);
	refs_free(s->secrets, s->n_secrets);
	refs_free(s->configs, s->n_configs);
	free(s->runtime);
	te_strv_free(s->ulimits);
	free(s->mac_address);
	free(s->name);
	free(s->image);
	te_strv_free(s->command);
	te_strv_free(s->entrypoint);
	kv_free(s->environment, s->n_environment);
	for (size_t i = 0; i < s->n_ports; i++)
		free(s->ports[i].host_ip);
	free(s->ports);
	for (size_t i = 0; i < s->n_mounts; i++) {
		free(s->mounts[i].source);
		free(s->mounts[i].target);
	}
	free(s->mounts);
	te_strv_free(s->depends_on);
	free(s->working_dir);
	free(s->user);
	kv_free(s->labels, s->n_labels);
	free(s->container_name);
	te_strv_free(s->networks);
	for (size_t i = 0; i < s->n_deps; i++)
		free(s->deps[i].service), free(s->deps[i].condition);
	free(s->deps);
	for (size_t i = 0; i < s->n_net_attach; i++) {
		free(s->net_attach[i].key);
		te_strv_free(s->net_attach[i].aliases);
		free(s->net_attach[i].ipv4_address);
	}
	free(s->net_attach);
	te_strv_free(s->health.test);
	char **strvs[] = {s->tmpfs,    s->cap_add, s->cap_drop, s->security_opt, s->extra_hosts,
			  s->profiles, s->devices, s->dns,	s->expose,	 s->group_add};
	for (size_t i = 0; i < sizeof(strvs) / sizeof(strvs[0]); i++)
		te_strv_free(strvs[i]);
	char *strs[] = {s->restart, s->stop_signal, s->pull_policy, s->network_mode,
			s->pid,	    s->ipc,	    s->userns_mode, s->uts,
			s->cgroup,  s->hostname,    s->domainname,  s->platform};
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		free(strs[i]);
	kv_free(s->sysctls, s->n_sysctls);
	kv_free(s->inject, s->n_inject);
}

void svc_service_release(struct svc_service *s)
{
	service_release(s);
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
		service_release(&p->services[i]);
	free(p->services);
	for (size_t i = 0; i < p->n_volumes; i++) {
		free(p->volumes[i].key);
		free(p->volumes[i].name);
		free(p->volumes[i].driver);
		kv_free(p->volumes[i].driver_opts, p->volumes[i].n_driver_opts);
		kv_free(p->volumes[i].labels, p->volumes[i].n_labels);
	}
	free(p->volumes);
	for (size_t i = 0; i < p->n_networks; i++) {
		free(p->networks[i].key);
		free(p->networks[i].name);
		free(p->networks[i].driver);
		kv_free(p->networks[i].driver_opts, p->networks[i].n_driver_opts);
		free(p->networks[i].ipam_driver);
		for (size_t j = 0; j < p->networks[i].n_ipam; j++) {
			free(p->networks[i].ipam[j].subnet);
			free(p->networks[i].ipam[j].ip_range);
			free(p->networks[i].ipam[j].gateway);
		}
		free(p->networks[i].ipam);
		kv_free(p->networks[i].labels, p->networks[i].n_labels);
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
