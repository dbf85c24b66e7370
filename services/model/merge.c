#include "services/model/merge.h"
#include "services/model/resources.h"
#include "services/model/compose.h"
#include "services/model/index.h"
#include "services/model/kinds.h"
#include "services/model/yaml.h"
#include "common/err.h"
#include "common/mem.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* By name; a service written !reset drops the earlier one, !override
 * replaces it whole (the merge document's "Reset value" and "Replace
 * value" at the level of a service). */
static void merge_services(struct svc_project *dst, struct svc_project *src)
{
	struct svc_index idx = SVC_INDEX(struct svc_service, name);

	svc_index_build(&idx, dst->services, dst->n_services);
	for (size_t i = 0; i < src->n_services; i++) {
		struct svc_service *s = &src->services[i];
		size_t j = svc_index_find(&idx, dst->services, s->name);

		if (j == SIZE_MAX)
			j = dst->n_services;
		if (j < dst->n_services && s->replace == SVC_SERVICE_MERGE) {
			svc_service_merge(&dst->services[j], s);
			continue;
		}
		if (j < dst->n_services)
			svc_service_release(&dst->services[j]);
		if (j < dst->n_services && s->replace == SVC_SERVICE_DROP) {
			memmove(&dst->services[j], &dst->services[j + 1],
				(dst->n_services - j - 1) * sizeof(*dst->services));
			dst->n_services--;
			svc_index_build(&idx, dst->services, dst->n_services);
		}
		if (s->replace == SVC_SERVICE_DROP)
			continue;
		s->replace = SVC_SERVICE_MERGE;
		if (j == dst->n_services)
			dst->services = xrealloc(dst->services, (++dst->n_services) * sizeof(*dst->services));
		dst->services[j] = *s;
		memset(s, 0, sizeof(*s));
		if (j == dst->n_services - 1)
			svc_index_added(&idx, dst->services, dst->n_services);
	}
	svc_index_release(&idx);
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
		svc_merge_str(&d->key, &s->key);
		svc_merge_str(&d->name, &s->name);
		svc_merge_str(&d->driver, &s->driver);
		d->external |= s->external;
		d->loc = s->loc;
		svc_merge_kv(&d->labels, &d->n_labels, &s->labels, &s->n_labels);
		svc_merge_kv(&d->driver_opts, &d->n_driver_opts, &s->driver_opts, &s->n_driver_opts);
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
		svc_merge_str(&d->key, &s->key);
		svc_merge_str(&d->name, &s->name);
		svc_merge_str(&d->driver, &s->driver);
		svc_merge_str(&d->ipam_driver, &s->ipam_driver);
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
		svc_merge_kv(&d->labels, &d->n_labels, &s->labels, &s->n_labels);
		svc_merge_kv(&d->driver_opts, &d->n_driver_opts, &s->driver_opts, &s->n_driver_opts);
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
	svc_merge_str(&dst->name, &src->name);
	svc_merge_str(&dst->version, &src->version);
	merge_services(dst, src);
	merge_volumes(dst, src);
	merge_networks(dst, src);
	svc_merge_strv(&dst->allow, &src->allow);
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

/* SERVICES and DROPPED (the inactive ones) by name. */
struct names {
	const struct svc_project *p;
	struct svc_index services;
	char **dropped;
	struct svc_index dropped_idx;
};

static bool is_service(const struct names *nm, const char *name)
{
	return svc_index_find(&nm->services, nm->p->services, name) != SIZE_MAX;
}

static bool was_dropped(const struct names *nm, const char *name)
{
	return nm->dropped && svc_index_find(&nm->dropped_idx, nm->dropped, name) != SIZE_MAX;
}

static int check_deps(const struct names *nm, struct svc_service *s, struct te_err *err)
{
	size_t k = 0;

	for (size_t i = 0; i < s->n_deps; i++) {
		struct svc_dep *d = &s->deps[i];

		if (strcmp(d->service, s->name) == 0)
			return loc_err(&d->loc, err, "service '%s' depends on itself%s", s->name, "");
		if (!is_service(nm, d->service) && was_dropped(nm, d->service) && d->required)
			return loc_err(&d->loc, err,
				       "service '%s' depends on service '%s' of an inactive profile", s->name,
				       d->service);
		if (!is_service(nm, d->service) && !was_dropped(nm, d->service))
			return loc_err(&d->loc, err, "service '%s' depends on undefined service '%s'",
				       s->name, d->service);
		if (!is_service(nm, d->service)) {
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
 * apply (docs: "not implemented ... when the source is a file"), and taskenv
 * does the same, saying so. Environment and content sources taskenv writes
 * itself, applying mode; it cannot chown them, and a file owned by someone
 * else than uid/gid may be unreadable where Compose's is not: refused. */
static int check_ref_attrs(struct svc_project *p, const struct svc_file_ref *r, size_t n, bool secret,
			   struct te_err *err)
{
	const char *what = secret ? "secret" : "config";

	for (size_t i = 0; i < n; i++) {
		const struct svc_file_decl *d = secret ? decl_of(p->secrets, p->n_secrets, r[i].source)
						       : decl_of(p->configs, p->n_configs, r[i].source);
		bool file = d && d->kind == SVC_FILE_FILE;

		if (d && !file && (r[i].uid || r[i].gid))
			return loc_err(&r[i].loc, err,
				       "%s '%s': uid and gid are not supported by taskenv for %s sources: it "
				       "writes the file as the invoking user; drop them (mode applies)",
				       what, r[i].source,
				       d->kind == SVC_FILE_ENV ? "environment" : "content");
		if (!file || !(r[i].uid || r[i].gid || r[i].mode >= 0))
			continue;
		p->warnings = te_strv_push(
		    p->warnings, xasprintf("%s:%d:%d: %s '%s': uid, gid and mode are ignored: a file "
					   "source is bind-mounted with the host file's owner and mode, as "
					   "Compose does outside Swarm",
					   r[i].loc.file, r[i].loc.line, r[i].loc.col, what, r[i].source));
	}
	return 0;
}

static int check_file_refs(struct svc_project *p, struct svc_service *s, struct te_err *err)
{
	if (check_ref_attrs(p, s->secrets, s->n_secrets, true, err) < 0 ||
	    check_ref_attrs(p, s->configs, s->n_configs, false, err) < 0)
		return -1;
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

/* env_file's variables under environment, which wins (Compose). */
static void env_files_in(struct svc_service *s)
{
	for (size_t i = 0; i < s->n_env_files; i++) {
		struct svc_kv *v = &s->env_files[i];
		bool have = false;

		for (size_t j = 0; j < s->n_environment && !have; j++)
			have = strcmp(s->environment[j].key, v->key) == 0;
		if (!have)
			svc_kv_put(&s->environment, &s->n_environment, TE_STEAL(v->key), TE_STEAL(v->value),
				   v->loc);
	}
	svc_kv_free(s->env_files, s->n_env_files);
	s->env_files = NULL;
	s->n_env_files = 0;
}

/* A dependency compose-go infers (links, volumes_from, network_mode /
 * ipc / pid / uts / cgroup "service:NAME"), unless depends_on names it. */
static void implicit_dep(struct svc_service *s, const char *name, size_t len, bool restart,
			 struct svc_loc loc)
{
	for (size_t i = 0; i < s->n_deps; i++)
		if (strlen(s->deps[i].service) == len && strncmp(s->deps[i].service, name, len) == 0)
			return;
	s->deps = xrealloc(s->deps, (s->n_deps + 1) * sizeof(*s->deps));
	s->deps[s->n_deps++] =
	    (struct svc_dep){xstrndup(name, len), xstrdup("service_started"), true, restart, loc};
}

static struct svc_loc loc_or(struct svc_loc l, struct svc_loc dflt)
{
	return l.line ? l : dflt;
}

static int implicit_deps(struct svc_service *s, struct te_err *err)
{
	const char *modes[] = {s->network_mode, s->ipc, s->pid, s->uts, s->cgroup};
	const enum svc_key keys[] = {SVC_K_NETWORK_MODE, SVC_K_IPC, SVC_K_PID, SVC_K_UTS, SVC_K_CGROUP};

	for (size_t i = 0; s->links && s->links[i]; i++)
		implicit_dep(s, s->links[i], strcspn(s->links[i], ":"), true,
			     loc_or(s->key_loc[SVC_K_LINKS], s->loc));
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (modes[i] && svc_has_prefix(modes[i], "service:"))
			implicit_dep(s, modes[i] + 8, strlen(modes[i] + 8), true,
				     loc_or(s->key_loc[keys[i]], s->loc));
	for (size_t i = 0; s->volumes_from && s->volumes_from[i]; i++) {
		const char *v = s->volumes_from[i];
		const char *mode = strchr(svc_has_prefix(v, "container:") ? v + 10 : v, ':');

		if (mode && strcmp(mode, ":ro") != 0 && strcmp(mode, ":rw") != 0)
			return loc_err(&s->key_loc[SVC_K_VOLUMES_FROM], err,
				       "service '%s': volumes_from '%s': the mode must be ro or rw", s->name,
				       v);
		if (!svc_has_prefix(v, "container:"))
			implicit_dep(s, v, strcspn(v, ":"), false,
				     loc_or(s->key_loc[SVC_K_VOLUMES_FROM], s->loc));
	}
	return 0;
}

static int finalize_services(struct svc_project *p, const struct names *nm, struct te_err *err)
{
	enum svc_pull pull;
	long long every;

	for (size_t i = 0; i < p->n_services; i++) {
		struct svc_service *s = &p->services[i];

		env_files_in(s);
		if ((!s->image || !*s->image) && !s->build.set)
			return loc_err(&s->loc, err, "service '%s' has no image", s->name);
		if (s->container_name && s->replicas > 1)
			return loc_err(
			    &s->key_loc[SVC_K_CONTAINER_NAME], err,
			    "service '%s': container_name with %lld replicas: a container name must "
			    "be unique, as Compose requires",
			    s->name, s->replicas);
		if (implicit_deps(s, err) < 0)
			return -1;
		if (svc_pull_policy(s->pull_policy, &pull, &every) < 0)
			return loc_err(&s->key_loc[SVC_K_PULL_POLICY], err,
				       "service '%s': pull_policy '%s': expected always, never, missing, "
				       "if_not_present, build, daily, weekly or every_<duration>",
				       s->name, s->pull_policy);
		/* Left unset by the loader so a later file's build: cannot reset it. */
		if (s->build.set && !s->build.context)
			s->build.context = xstrdup(p->dir);
		if (check_refs(p, s, err) < 0 || check_deps(nm, s, err) < 0 ||
		    svc_resources_check_inject(p, s, err) < 0)
			return -1;
	}
	return 0;
}

/* The index of a strv: entries are `char *` at stride sizeof(char *). */
static void index_strv(struct svc_index *x, char **v)
{
	*x = (struct svc_index){NULL, 0, sizeof(char *), 0};
	svc_index_build(x, v, te_strv_len(v));
}

int svc_project_finalize(struct svc_project *p, char *const *profiles, struct te_err *err)
{
	te_autostrv char **dropped = NULL;
	struct names nm = {p, SVC_INDEX(struct svc_service, name), NULL, {0}};
	int rc;

	drop_inactive(p, profiles, &dropped);
	svc_index_build(&nm.services, p->services, p->n_services);
	nm.dropped = dropped;
	index_strv(&nm.dropped_idx, dropped);
	rc = finalize_services(p, &nm, err);
	for (size_t i = 0; rc == 0 && i < p->n_resources; i++) {
		const struct svc_tmpl_build *b = p->resources[i].build;

		if (b && !is_service(&nm, b->service))
			rc = loc_err(&b->loc, err,
				     "x-taskenv.resources.%s.template.migrate: no service '%s'%s",
				     p->resources[i].key, b->service,
				     was_dropped(&nm, b->service) ? " among the active profiles" : "");
	}
	svc_index_release(&nm.services);
	svc_index_release(&nm.dropped_idx);
	if (rc < 0)
		return -1;
	if (p->n_services == 0 && p->files && p->files[0])
		return te_err_set(err, TE_E_COMPOSE, "%s: no service is active (profiles: %s)", p->files[0],
				  profiles && profiles[0] ? "none matches" : "none given; use --profile");
	return 0;
}
