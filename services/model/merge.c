#include "services/model/merge.h"
#include "services/model/compose.h"
#include "common/err.h"
#include "common/mem.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define TAKE(dst, src)                                                                                       \
	do {                                                                                                 \
		if (src) {                                                                                   \
			free(dst);                                                                           \
			(dst) = (src);                                                                       \
			(src) = NULL;                                                                        \
		}                                                                                            \
	} while (0)

static void take_strv(char ***dst, char ***src)
{
	if (!*src)
		return;
	te_strv_free(*dst);
	*dst = *src;
	*src = NULL;
}

/* Append SRC's entries not already in DST; SRC is emptied. */
static void union_strv(char ***dst, char ***src)
{
	for (size_t i = 0; *src && (*src)[i]; i++) {
		bool have = false;

		for (size_t j = 0; *dst && (*dst)[j] && !have; j++)
			have = strcmp((*dst)[j], (*src)[i]) == 0;
		if (have)
			free((*src)[i]);
		else
			*dst = te_strv_push(*dst, (*src)[i]);
	}
	free(*src);
	*src = NULL;
}

static void kv_merge(struct svc_kv **dst, size_t *nd, struct svc_kv **src, size_t *ns)
{
	for (size_t i = 0; i < *ns; i++) {
		struct svc_kv *s = &(*src)[i];
		size_t j = 0;

		while (j < *nd && strcmp((*dst)[j].key, s->key) != 0)
			j++;
		if (j < *nd) {
			free((*dst)[j].key);
			free((*dst)[j].value);
			(*dst)[j] = *s;
			continue;
		}
		*dst = xrealloc(*dst, (*nd + 1) * sizeof(**dst));
		(*dst)[(*nd)++] = *s;
	}
	free(*src);
	*src = NULL;
	*ns = 0;
}

static bool same_port(const struct svc_port *a, const struct svc_port *b)
{
	return a->host_port == b->host_port && a->container_port == b->container_port &&
	       strcmp(a->proto, b->proto) == 0 &&
	       ((!a->host_ip && !b->host_ip) ||
		(a->host_ip && b->host_ip && strcmp(a->host_ip, b->host_ip) == 0));
}

static void merge_ports(struct svc_service *d, struct svc_service *s)
{
	for (size_t i = 0; i < s->n_ports; i++) {
		bool have = false;

		for (size_t j = 0; j < d->n_ports && !have; j++)
			have = same_port(&d->ports[j], &s->ports[i]);
		if (have) {
			free(s->ports[i].host_ip);
			continue;
		}
		d->ports = xrealloc(d->ports, (d->n_ports + 1) * sizeof(*d->ports));
		d->ports[d->n_ports++] = s->ports[i];
	}
	free(s->ports);
	s->ports = NULL;
	s->n_ports = 0;
}

static void merge_mounts(struct svc_service *d, struct svc_service *s)
{
	for (size_t i = 0; i < s->n_mounts; i++) {
		size_t j = 0;

		while (j < d->n_mounts && strcmp(d->mounts[j].target, s->mounts[i].target) != 0)
			j++;
		if (j < d->n_mounts) {
			free(d->mounts[j].source);
			free(d->mounts[j].target);
			d->mounts[j] = s->mounts[i];
			continue;
		}
		d->mounts = xrealloc(d->mounts, (d->n_mounts + 1) * sizeof(*d->mounts));
		d->mounts[d->n_mounts++] = s->mounts[i];
	}
	free(s->mounts);
	s->mounts = NULL;
	s->n_mounts = 0;
}

static void merge_deps(struct svc_service *d, struct svc_service *s)
{
	for (size_t i = 0; i < s->n_deps; i++) {
		size_t j = 0;

		while (j < d->n_deps && strcmp(d->deps[j].service, s->deps[i].service) != 0)
			j++;
		if (j < d->n_deps) {
			free(d->deps[j].service);
			free(d->deps[j].condition);
			d->deps[j] = s->deps[i];
			continue;
		}
		d->deps = xrealloc(d->deps, (d->n_deps + 1) * sizeof(*d->deps));
		d->deps[d->n_deps++] = s->deps[i];
	}
	free(s->deps);
	s->deps = NULL;
	s->n_deps = 0;
}

static void merge_nets(struct svc_service *d, struct svc_service *s)
{
	for (size_t i = 0; i < s->n_net_attach; i++) {
		struct svc_net_attach *a = &s->net_attach[i];
		size_t j = 0;

		while (j < d->n_net_attach && strcmp(d->net_attach[j].key, a->key) != 0)
			j++;
		if (j < d->n_net_attach) {
			free(a->key);
			union_strv(&d->net_attach[j].aliases, &a->aliases);
			TAKE(d->net_attach[j].ipv4_address, a->ipv4_address);
			continue;
		}
		d->net_attach = xrealloc(d->net_attach, (d->n_net_attach + 1) * sizeof(*d->net_attach));
		d->net_attach[d->n_net_attach++] = *a;
	}
	free(s->net_attach);
	s->net_attach = NULL;
	s->n_net_attach = 0;
}

static void merge_health(struct svc_health *d, struct svc_health *s)
{
	if (!s->set)
		return;
	d->set = true;
	d->loc = s->loc;
	d->disable |= s->disable;
	take_strv(&d->test, &s->test);
	d->interval_ns = s->interval_ns ? s->interval_ns : d->interval_ns;
	d->timeout_ns = s->timeout_ns ? s->timeout_ns : d->timeout_ns;
	d->start_period_ns = s->start_period_ns ? s->start_period_ns : d->start_period_ns;
	d->start_interval_ns = s->start_interval_ns ? s->start_interval_ns : d->start_interval_ns;
	d->retries = s->retries ? s->retries : d->retries;
}

static void merge_strings(struct svc_service *d, struct svc_service *s)
{
	char **dst[] = {&d->image,   &d->working_dir, &d->user,	       &d->container_name,
			&d->restart, &d->stop_signal, &d->pull_policy, &d->network_mode,
			&d->pid,     &d->ipc,	      &d->userns_mode, &d->uts,
			&d->cgroup,  &d->hostname,    &d->domainname,  &d->platform};
	char **src[] = {&s->image,   &s->working_dir, &s->user,	       &s->container_name,
			&s->restart, &s->stop_signal, &s->pull_policy, &s->network_mode,
			&s->pid,     &s->ipc,	      &s->userns_mode, &s->uts,
			&s->cgroup,  &s->hostname,    &s->domainname,  &s->platform};

	for (size_t i = 0; i < sizeof(dst) / sizeof(dst[0]); i++)
		TAKE(*dst[i], *src[i]);
	take_strv(&d->command, &s->command);
	take_strv(&d->entrypoint, &s->entrypoint);
}

static void merge_lists(struct svc_service *d, struct svc_service *s)
{
	char ***dst[] = {&d->tmpfs,   &d->cap_add, &d->cap_drop, &d->security_opt, &d->extra_hosts,
			 &d->devices, &d->dns,	   &d->expose,	 &d->group_add,	   &d->profiles};
	char ***src[] = {&s->tmpfs,   &s->cap_add, &s->cap_drop, &s->security_opt, &s->extra_hosts,
			 &s->devices, &s->dns,	   &s->expose,	 &s->group_add,	   &s->profiles};

	for (size_t i = 0; i < sizeof(dst) / sizeof(dst[0]); i++)
		union_strv(dst[i], src[i]);
}

static void merge_numbers(struct svc_service *d, const struct svc_service *s)
{
	int *dt[] = {&d->read_only, &d->init, &d->privileged, &d->tty, &d->stdin_open};
	const int *st[] = {&s->read_only, &s->init, &s->privileged, &s->tty, &s->stdin_open};
	long long *dn[] = {&d->mem_limit, &d->mem_reservation, &d->shm_size, &d->pids_limit,
			   &d->stop_grace_ns};
	const long long *sn[] = {&s->mem_limit, &s->mem_reservation, &s->shm_size, &s->pids_limit,
				 &s->stop_grace_ns};

	for (size_t i = 0; i < sizeof(dt) / sizeof(dt[0]); i++)
		if (*st[i] != SVC_UNSET)
			*dt[i] = *st[i];
	for (size_t i = 0; i < sizeof(dn) / sizeof(dn[0]); i++)
		if (*sn[i])
			*dn[i] = *sn[i];
	if (s->cpus > 0)
		d->cpus = s->cpus;
	for (size_t i = 0; i < SVC_K_MAX; i++)
		if (s->key_loc[i].line)
			d->key_loc[i] = s->key_loc[i];
	d->has_build |= s->has_build;
}

/* A later build:, secrets: or configs: replaces the earlier one whole. */
static void merge_build(struct svc_service *d, struct svc_service *s)
{
	struct svc_build tb = d->build;
	struct svc_file_ref *tr;
	size_t tn;

	if (s->build.set) {
		d->build = s->build;
		s->build = tb;
	}
	if (s->n_secrets) {
		tr = d->secrets, tn = d->n_secrets;
		d->secrets = s->secrets, d->n_secrets = s->n_secrets;
		s->secrets = tr, s->n_secrets = tn;
	}
	if (s->n_configs) {
		tr = d->configs, tn = d->n_configs;
		d->configs = s->configs, d->n_configs = s->n_configs;
		s->configs = tr, s->n_configs = tn;
	}
	TAKE(d->runtime, s->runtime);
	TAKE(d->mac_address, s->mac_address);
	take_strv(&d->ulimits, &s->ulimits);
}

static void merge_service(struct svc_service *d, struct svc_service *s)
{
	merge_build(d, s);
	merge_strings(d, s);
	merge_lists(d, s);
	merge_numbers(d, s);
	kv_merge(&d->environment, &d->n_environment, &s->environment, &s->n_environment);
	kv_merge(&d->labels, &d->n_labels, &s->labels, &s->n_labels);
	kv_merge(&d->sysctls, &d->n_sysctls, &s->sysctls, &s->n_sysctls);
	kv_merge(&d->inject, &d->n_inject, &s->inject, &s->n_inject);
	merge_ports(d, s);
	merge_mounts(d, s);
	merge_deps(d, s);
	merge_nets(d, s);
	merge_health(&d->health, &s->health);
}

static void merge_services(struct svc_project *dst, struct svc_project *src)
{
	for (size_t i = 0; i < src->n_services; i++) {
		struct svc_service *s = &src->services[i];
		size_t j = 0;

		while (j < dst->n_services && strcmp(dst->services[j].name, s->name) != 0)
			j++;
		if (j < dst->n_services) {
			merge_service(&dst->services[j], s);
			continue;
		}
		dst->services = xrealloc(dst->services, (dst->n_services + 1) * sizeof(*dst->services));
		dst->services[dst->n_services++] = *s;
		memset(s, 0, sizeof(*s));
	}
}

static void merge_volumes(struct svc_project *dst, struct svc_project *src)
{
	for (size_t i = 0; i < src->n_volumes; i++) {
		struct svc_volume *s = &src->volumes[i];
		size_t j = 0;

		while (j < dst->n_volumes && strcmp(dst->volumes[j].key, s->key) != 0)
			j++;
		if (j == dst->n_volumes) {
			dst->volumes = xrealloc(dst->volumes, (dst->n_volumes + 1) * sizeof(*dst->volumes));
			memset(&dst->volumes[dst->n_volumes++], 0, sizeof(*s));
		}
		struct svc_volume *d = &dst->volumes[j];
		TAKE(d->key, s->key);
		TAKE(d->name, s->name);
		TAKE(d->driver, s->driver);
		d->external |= s->external;
		d->loc = s->loc;
		kv_merge(&d->labels, &d->n_labels, &s->labels, &s->n_labels);
		kv_merge(&d->driver_opts, &d->n_driver_opts, &s->driver_opts, &s->n_driver_opts);
	}
}

static void merge_networks(struct svc_project *dst, struct svc_project *src)
{
	for (size_t i = 0; i < src->n_networks; i++) {
		struct svc_network *s = &src->networks[i];
		size_t j = 0;

		while (j < dst->n_networks && strcmp(dst->networks[j].key, s->key) != 0)
			j++;
		if (j == dst->n_networks) {
			dst->networks =
			    xrealloc(dst->networks, (dst->n_networks + 1) * sizeof(*dst->networks));
			memset(&dst->networks[dst->n_networks++], 0, sizeof(*s));
		}
		struct svc_network *d = &dst->networks[j];
		TAKE(d->key, s->key);
		TAKE(d->name, s->name);
		TAKE(d->driver, s->driver);
		TAKE(d->ipam_driver, s->ipam_driver);
		d->external |= s->external;
		d->internal |= s->internal;
		d->attachable |= s->attachable;
		d->enable_ipv6 |= s->enable_ipv6;
		d->loc = s->loc;
		if (s->n_ipam) {
			struct svc_ipam_pool *tmp = d->ipam;
			size_t n = d->n_ipam;

			d->ipam = s->ipam, d->n_ipam = s->n_ipam;
			s->ipam = tmp, s->n_ipam = n;
		}
		kv_merge(&d->labels, &d->n_labels, &s->labels, &s->n_labels);
		kv_merge(&d->driver_opts, &d->n_driver_opts, &s->driver_opts, &s->n_driver_opts);
	}
}

/* x-taskenv.resources by key: a later file's declaration replaces the
 * earlier one whole (swapped, so SRC frees the old one). */
static void merge_resources(struct svc_project *dst, struct svc_project *src)
{
	for (size_t i = 0; i < src->n_resources; i++) {
		struct svc_resource *r = &src->resources[i], tmp;
		size_t j = 0;

		while (j < dst->n_resources && strcmp(dst->resources[j].key, r->key) != 0)
			j++;
		if (j == dst->n_resources) {
			dst->resources = xrealloc(dst->resources, (dst->n_resources + 1) * sizeof(*r));
			dst->resources[dst->n_resources++] = *r;
			memset(r, 0, sizeof(*r));
			continue;
		}
		tmp = dst->resources[j];
		dst->resources[j] = *r;
		*r = tmp;
	}
}

static void merge_decls(struct svc_file_decl **dst, size_t *nd, struct svc_file_decl **src, size_t *ns)
{
	for (size_t i = 0; i < *ns; i++) {
		struct svc_file_decl *s = &(*src)[i];
		size_t j = 0;

		while (j < *nd && strcmp((*dst)[j].key, s->key) != 0)
			j++;
		if (j == *nd)
			*dst = xrealloc(*dst, (++*nd) * sizeof(**dst));
		else
			free((*dst)[j].key), free((*dst)[j].file), free((*dst)[j].env),
			    free((*dst)[j].content);
		(*dst)[j] = *s;
	}
	free(*src);
	*src = NULL;
	*ns = 0;
}

void svc_project_merge(struct svc_project *dst, struct svc_project *src)
{
	merge_resources(dst, src);
	merge_decls(&dst->secrets, &dst->n_secrets, &src->secrets, &src->n_secrets);
	merge_decls(&dst->configs, &dst->n_configs, &src->configs, &src->n_configs);
	TAKE(dst->name, src->name);
	TAKE(dst->version, src->version);
	merge_services(dst, src);
	merge_volumes(dst, src);
	merge_networks(dst, src);
	union_strv(&dst->allow, &src->allow);
	for (size_t i = 0; src->warnings && src->warnings[i]; i++)
		dst->warnings = te_strv_push(dst->warnings, src->warnings[i]);
	free(src->warnings);
	src->warnings = NULL;
}

/* ---- finalize ---- */

static int loc_err(const struct svc_loc *loc, struct te_err *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int loc_err(const struct svc_loc *loc, struct te_err *err, const char *fmt, ...)
{
	te_autofree char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	return te_err_set(err, TE_E_COMPOSE, "%s:%d:%d: %s", loc->file, loc->line, loc->col, msg);
}

static bool active(const struct svc_service *s, char *const *profiles)
{
	if (!s->profiles || !s->profiles[0])
		return true;
	for (size_t i = 0; profiles && profiles[i]; i++) {
		if (strcmp(profiles[i], "*") == 0)
			return true;
		for (size_t j = 0; s->profiles[j]; j++)
			if (strcmp(s->profiles[j], profiles[i]) == 0)
				return true;
	}
	return false;
}

static void drop_inactive(struct svc_project *p, char *const *profiles, char ***dropped)
{
	size_t k = 0;

	for (size_t i = 0; i < p->n_services; i++) {
		if (active(&p->services[i], profiles)) {
			p->services[k++] = p->services[i];
			continue;
		}
		*dropped = te_strv_push(*dropped, xstrdup(p->services[i].name));
		svc_service_release(&p->services[i]);
	}
	p->n_services = k;
}

static bool strv_has(char *const *v, const char *s)
{
	for (size_t i = 0; v && v[i]; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

static int check_deps(struct svc_project *p, struct svc_service *s, char *const *dropped, struct te_err *err)
{
	size_t k = 0;

	for (size_t i = 0; i < s->n_deps; i++) {
		struct svc_dep *d = &s->deps[i];

		if (strcmp(d->service, s->name) == 0)
			return loc_err(&d->loc, err, "service '%s' depends on itself%s", s->name, "");
		if (!svc_project_service(p, d->service) && strv_has(dropped, d->service) && d->required)
			return loc_err(&d->loc, err,
				       "service '%s' depends on service '%s' of an inactive profile", s->name,
				       d->service);
		if (!svc_project_service(p, d->service) && !strv_has(dropped, d->service))
			return loc_err(&d->loc, err, "service '%s' depends on undefined service '%s'",
				       s->name, d->service);
		if (!svc_project_service(p, d->service)) {
			free(d->service);
			free(d->condition);
			continue;
		}
		s->deps[k++] = *d;
		s->depends_on = te_strv_push(s->depends_on, xstrdup(d->service));
	}
	s->n_deps = k;
	return 0;
}

static bool decl_has(const struct svc_file_decl *d, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(d[i].key, key) == 0)
			return true;
	return false;
}

static const struct svc_file_decl *decl_of(const struct svc_file_decl *d, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(d[i].key, key) == 0)
			return &d[i];
	return NULL;
}

/* Outside Swarm, Compose bind-mounts file sources: uid, gid and mode cannot
 * apply (docs: "not implemented ... when the source is a file"). taskenv
 * writes environment/content sources itself and applies mode, but cannot
 * chown them. Say so rather than drop them silently. */
static void warn_ignored_attrs(struct svc_project *p, const struct svc_file_ref *r, size_t n, bool secret)
{
	for (size_t i = 0; i < n; i++) {
		const struct svc_file_decl *d = secret ? decl_of(p->secrets, p->n_secrets, r[i].source)
						       : decl_of(p->configs, p->n_configs, r[i].source);
		bool file = d && d->kind == SVC_FILE_FILE;

		if (!d || !(r[i].uid || r[i].gid || (file && r[i].mode >= 0)))
			continue;
		p->warnings = te_strv_push(
		    p->warnings,
		    xasprintf(
			"%s:%d:%d: %s '%s': %s ignored: %s", r[i].loc.file, r[i].loc.line, r[i].loc.col,
			secret ? "secret" : "config", r[i].source,
			file ? "uid, gid and mode are" : "uid and gid are",
			file
			    ? "a file source is bind-mounted with the host file's owner and mode, as Compose "
			      "does outside Swarm"
			    : "taskenv writes the file as the invoking user and cannot change its owner"));
	}
}

static int check_file_refs(struct svc_project *p, struct svc_service *s, struct te_err *err)
{
	warn_ignored_attrs(p, s->secrets, s->n_secrets, true);
	warn_ignored_attrs(p, s->configs, s->n_configs, false);
	for (size_t i = 0; i < s->n_secrets; i++)
		if (!decl_has(p->secrets, p->n_secrets, s->secrets[i].source))
			return loc_err(&s->secrets[i].loc, err,
				       "service '%s' refers to undefined secret '%s'", s->name,
				       s->secrets[i].source);
	for (size_t i = 0; i < s->n_configs; i++)
		if (!decl_has(p->configs, p->n_configs, s->configs[i].source))
			return loc_err(&s->configs[i].loc, err,
				       "service '%s' refers to undefined config '%s'", s->name,
				       s->configs[i].source);
	return 0;
}

static int check_refs(struct svc_project *p, struct svc_service *s, struct te_err *err)
{
	if (check_file_refs(p, s, err) < 0)
		return -1;
	for (size_t i = 0; i < s->n_net_attach; i++) {
		const char *key = s->net_attach[i].key;

		if (strcmp(key, "default") != 0 && !svc_project_network(p, key))
			return loc_err(&s->net_attach[i].loc, err,
				       "service '%s' refers to undefined network '%s'", s->name, key);
		s->networks = te_strv_push(s->networks, xstrdup(key));
	}
	for (size_t i = 0; i < s->n_mounts; i++) {
		const struct svc_mount *m = &s->mounts[i];

		if (m->type == SVC_MOUNT_VOLUME && m->source && !svc_project_volume(p, m->source))
			return loc_err(&m->loc, err, "service '%s' refers to undefined volume '%s'", s->name,
				       m->source);
	}
	return 0;
}

int svc_project_finalize(struct svc_project *p, char *const *profiles, struct te_err *err)
{
	te_autostrv char **dropped = NULL;

	drop_inactive(p, profiles, &dropped);
	for (size_t i = 0; i < p->n_services; i++) {
		struct svc_service *s = &p->services[i];

		if ((!s->image || !*s->image) && !s->build.set)
			return loc_err(&s->loc, err, "service '%s' has no image", s->name);
		if (check_refs(p, s, err) < 0 || check_deps(p, s, dropped, err) < 0)
			return -1;
	}
	for (size_t i = 0; i < p->n_resources; i++) {
		const struct svc_tmpl_build *b = p->resources[i].build;

		if (b && !svc_project_service(p, b->service))
			return loc_err(&b->loc, err,
				       "x-taskenv.resources.%s.template.migrate: no service '%s'%s",
				       p->resources[i].key, b->service,
				       strv_has(dropped, b->service) ? " among the active profiles" : "");
	}
	if (p->n_services == 0 && p->files && p->files[0])
		return te_err_set(err, TE_E_COMPOSE, "%s: no service is active (profiles: %s)", p->files[0],
				  profiles && profiles[0] ? "none matches" : "none given; use --profile");
	return 0;
}
