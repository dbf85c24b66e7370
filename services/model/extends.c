/* extends (extends.h). As compose-go: the base service is resolved first
 * (recursively), its relative paths against its own file's directory, and
 * the extending service is merged over it by the same rules as a later -f
 * file (svc_service_merge). */
#include "services/model/extends.h"

#include "common/buf.h"
#include "common/cleanup.h"
#include "common/err.h"
#include "common/mem.h"
#include "services/model/compose.h"
#include "services/model/load_ctx.h"
#include "services/model/load_service.h"
#include "services/model/yaml.h"

#include <stdlib.h>
#include <string.h>

static const struct svc_yaml_key extends_keys[] = {
    SVC_KEY_LOAD("service"),
    SVC_KEY_LOAD("file"),
    {NULL, 0, NULL},
};

/* `extends: NAME` or `{service: NAME, file: F}`. */
static int read_extends(struct svc_yaml *y, yaml_node_t *n, const char *path, char **service, char **file)
{
	svc_automap struct svc_yaml_map m = {0};
	struct svc_yaml_pair *pr;

	if (n->type == YAML_SCALAR_NODE)
		return svc_yaml_string(y, n, path, service);
	if (svc_yaml_map(y, n, path, &m) < 0 || svc_yaml_check(y, &m, path, extends_keys, true) < 0)
		return -1;
	pr = svc_yaml_find(&m, "service");
	if (pr && svc_yaml_string(y, pr->val, path, service) < 0)
		return -1;
	pr = svc_yaml_find(&m, "file");
	return pr ? svc_yaml_string(y, pr->val, path, file) : 0;
}

/* "a (FILE) -> b -> a": the chain from its entry I, then FILE's SERVICE. */
static int chain_error(struct svc_yaml *y, const yaml_node_t *at, size_t from, const char *what)
{
	const struct svc_load_ctx *c = y->ctx;
	te_autobuf struct te_buf b = TE_BUF_INIT(0);

	for (size_t i = from; i < c->ext_depth; i++)
		te_buf_addf(&b, "%s (%s) -> ", c->ext_service[i], c->ext_file[i]);
	return svc_yaml_err(y, at, "%s: %s%s", what, b.data ? b.data : "", c->ext_service[from]);
}

/* Push FILE's service NAME on the chain, refusing a cycle or a long chain. */
static int chain_push(struct svc_yaml *y, const yaml_node_t *at, const char *name)
{
	struct svc_load_ctx *c = y->ctx;

	for (size_t i = 0; i < c->ext_depth; i++)
		if (c->ext_file[i] == y->file && strcmp(c->ext_service[i], name) == 0)
			return chain_error(y, at, i, "extends cycle");
	if (c->ext_depth == SVC_EXTENDS_MAX) {
		te_autofree char *what = xasprintf("extends chain longer than %d", SVC_EXTENDS_MAX);

		return chain_error(y, at, 0, what);
	}
	c->ext_file[c->ext_depth] = y->file;
	c->ext_service[c->ext_depth++] = name;
	return 0;
}

/* The pair of service NAME in B's document, or NULL with an error at Y's AT. */
static struct svc_yaml_pair *find_base(struct svc_yaml *y, struct svc_yaml *b, const yaml_node_t *at,
				       const char *name, const char *what, struct svc_yaml_map *top,
				       struct svc_yaml_map *services)
{
	yaml_node_t *root = yaml_document_get_root_node(b->doc);
	struct svc_yaml_pair *pr = NULL;

	if (root && !svc_yaml_is_null(root)) {
		if (svc_yaml_map(b, root, "the top level", top) < 0)
			return NULL;
		pr = svc_yaml_find(top, "services");
	}
	if (pr && !svc_yaml_is_null(pr->val)) {
		if (svc_yaml_map(b, pr->val, "services", services) < 0)
			return NULL;
		pr = svc_yaml_find(services, name);
	} else {
		pr = NULL;
	}
	if (!pr)
		svc_yaml_err(y, at, "%s: service '%s' not found in %s", what, name, b->file);
	return pr;
}

/* What a base service's own load set for its own base: spent. */
static void forget_tags(struct svc_service *s)
{
	for (size_t i = 0; i < s->n_resets; i++)
		free(s->resets[i].entry);
	free(s->resets);
	s->resets = NULL;
	s->n_resets = 0;
	memset(s->key_reset, 0, sizeof(s->key_reset));
}

int svc_extends_load(struct svc_yaml *y, const struct svc_project *p, struct svc_service *s,
		     const struct svc_yaml_pair *ext, const char *path)
{
	te_autofree char *what = xasprintf("%s.extends", path);
	te_autofree char *service = NULL;
	te_autofree char *file = NULL;
	te_autofree char *real = NULL;
	svc_automap struct svc_yaml_map top = {0};
	svc_automap struct svc_yaml_map services = {0};
	struct svc_yaml b = *y;
	struct svc_service base = {0};
	struct svc_yaml_pair *sp;
	int rc;

	if (read_extends(y, ext->val, what, &service, &file) < 0)
		return -1;
	if (!service || !*service)
		return svc_yaml_err(y, ext->val, "%s: service is required", what);
	if (!y->ctx)
		TE_BUG("extends read without a load context");
	b.entry_resets = NULL;
	b.tag_ok[0] = b.tag_ok[1] = NULL;
	if (file) {
		te_autofree char *fwhat = xasprintf("%s.file", what);
		struct svc_load_doc *d;

		real = svc_load_inside(y, ext->val, y->dir, file, fwhat);
		if (!real)
			return -1;
		d = svc_load_doc(y->ctx, real, y->err);
		if (!d)
			return -1;
		b.doc = &d->doc;
		b.file = d->file;
		b.dir = d->dir;
	}
	sp = find_base(y, &b, ext->val, service, what, &top, &services);
	if (!sp || chain_push(y, ext->key, s->name) < 0)
		return -1;
	rc = svc_load_service(&b, p, &base, sp);
	y->ctx->ext_depth--;
	if (rc < 0) {
		svc_service_release(&base);
		return -1;
	}
	/* A build without a context builds the base file's directory. */
	if (file && base.build.set && !base.build.context)
		base.build.context = xstrdup(b.dir);
	forget_tags(&base);
	free(base.name);
	base.name = s->name;
	base.loc = s->loc;
	base.key_loc[SVC_K_EXTENDS] = svc_yaml_loc(y, ext->key);
	*s = base;
	return 0;
}
