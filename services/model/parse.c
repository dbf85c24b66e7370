/* Reading a Compose file into a libyaml document within the caps, and the
 * rest of what one load shares (load_ctx.h).
 *
 * Why two passes. libyaml builds the whole document before we see it, and
 * some inputs cost it far more than their size: flow nesting makes its
 * scanner look at every open level for each token (100,000 levels of "["
 * took over 35 s), and aliases let a small file stand for a huge tree. So
 * the file is first read as events, which costs at most what the caps
 * allow: nesting deeper than the cap stops at the first level too deep,
 * and each alias counts as the nodes of what it repeats (an anchor's size
 * is known when it closes), so a "billion laughs" stops at the node cap.
 * Only then is the same text loaded as a document. */
#define TE_WITH_YAML
#include "services/model/load_ctx.h"

#include "common/buf.h"
#include "common/cleanup.h"
#include "common/err.h"
#include "common/mem.h"
#include "services/model/compose.h"
#include "services/model/index.h"
#include "services/model/yaml.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- the context ---- */

int svc_load_ctx_init(struct svc_load_ctx *c, const char *project_dir, const struct svc_load_limits *lim,
		      struct svc_yaml_log *log, struct te_err *err)
{
	memset(c, 0, sizeof(*c));
	c->boundary = realpath(project_dir, NULL);
	if (!c->boundary)
		return te_err_set(err, TE_E_IO, "project directory '%s': %s", project_dir, strerror(errno));
	c->lim.max_bytes = lim && lim->max_bytes > 0 ? lim->max_bytes : SVC_LOAD_MAX_BYTES;
	c->lim.max_depth = lim && lim->max_depth > 0 ? lim->max_depth : SVC_LOAD_MAX_DEPTH;
	c->lim.max_nodes = lim && lim->max_nodes > 0 ? lim->max_nodes : SVC_LOAD_MAX_NODES;
	c->log = log;
	return 0;
}

void svc_load_ctx_release(struct svc_load_ctx *c, struct svc_project *p)
{
	for (size_t i = 0; i < c->n_docs; i++) {
		yaml_document_delete(&c->docs[i].doc);
		free(c->docs[i].dir);
	}
	free(c->docs);
	if (p) {
		for (size_t i = 0; c->sources && c->sources[i]; i++)
			p->sources = te_strv_push(p->sources, c->sources[i]);
		free(c->sources);
	} else {
		te_strv_free(c->sources);
	}
	free(c->boundary);
	memset(c, 0, sizeof(*c));
}

const char *svc_load_source(struct svc_load_ctx *c, const char *path)
{
	for (size_t i = 0; c->sources && c->sources[i]; i++)
		if (strcmp(c->sources[i], path) == 0)
			return c->sources[i];
	c->sources = te_strv_push(c->sources, xstrdup(path));
	return c->sources[te_strv_len(c->sources) - 1];
}

static bool within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return true;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

char *svc_load_inside(struct svc_yaml *y, const yaml_node_t *n, const char *dir, const char *path,
		      const char *what)
{
	te_autofree char *joined = path[0] == '/' ? xstrdup(path) : xasprintf("%s/%s", dir, path);
	char *real = realpath(joined, NULL);

	if (!real) {
		svc_yaml_err(y, n, "%s: '%s': %s", what, joined, strerror(errno));
		return NULL;
	}
	if (y->ctx && !within(real, y->ctx->boundary)) {
		svc_yaml_err(y, n,
			     "%s: '%s' is outside the project directory '%s': taskenv reads Compose files "
			     "only from inside it",
			     what, real, y->ctx->boundary);
		free(real);
		return NULL;
	}
	return real;
}

/* ---- reading a file ---- */

static int read_capped(struct svc_load_ctx *c, const char *file, struct te_buf *b, struct te_err *err)
{
	FILE *f = fopen(file, "rb");
	char chunk[65536];
	struct stat st;
	size_t n;
	int rc = 0;

	if (!f)
		return te_err_set(err, TE_E_IO, "read '%s': %s", file, strerror(errno));
	if (fstat(fileno(f), &st) < 0 || !S_ISREG(st.st_mode)) {
		fclose(f);
		return te_err_set(err, TE_E_IO, "read '%s': not a regular file", file);
	}
	te_buf_init(b, (size_t)c->lim.max_bytes);
	while (rc == 0 && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		if (te_buf_add(b, chunk, n) < 0)
			rc = te_err_set(err, TE_E_COMPOSE,
					"%s: larger than the cap of %lld bytes (compose.max_bytes, "
					"TASKENV_COMPOSE_MAX_BYTES)",
					file, c->lim.max_bytes);
	if (rc == 0 && ferror(f))
		rc = te_err_set(err, TE_E_IO, "read '%s': %s", file, strerror(errno));
	fclose(f);
	return rc;
}

static int yaml_error(const yaml_parser_t *ps, const char *file, struct te_err *err)
{
	const char *problem = ps->problem ? ps->problem : "invalid YAML";

	if (ps->error == YAML_READER_ERROR)
		return te_err_set(err, TE_E_COMPOSE, "%s: %s at byte %zu", file, problem, ps->problem_offset);
	if (ps->error == YAML_MEMORY_ERROR)
		return te_err_set(err, TE_E_COMPOSE, "%s: out of memory parsing YAML", file);
	return te_err_set(err, TE_E_COMPOSE, "%s:%zu:%zu: %s%s%s", file, ps->problem_mark.line + 1,
			  ps->problem_mark.column + 1, problem, ps->context ? " " : "",
			  ps->context ? ps->context : "");
}

/* Anchors by name, open addressing: a file may have many, and an alias
 * must find its anchor in constant time for the pass to stay linear. */
struct anchors {
	char **name;
	long long *size;
	size_t cap, n;
};

static size_t anchor_slot(const struct anchors *a, const char *name)
{
	size_t i = (size_t)(svc_hash(name) & (a->cap - 1));

	while (a->name[i] && strcmp(a->name[i], name) != 0)
		i = (i + 1) & (a->cap - 1);
	return i;
}

static void anchor_put(struct anchors *a, const char *name, long long size)
{
	size_t i;

	if ((a->n + 1) * 2 > a->cap) {
		struct anchors g = {xcalloc(a->cap ? a->cap * 2 : 64, sizeof(char *)),
				    xcalloc(a->cap ? a->cap * 2 : 64, sizeof(long long)),
				    a->cap ? a->cap * 2 : 64, a->n};

		for (size_t j = 0; j < a->cap; j++)
			if (a->name[j]) {
				size_t k = anchor_slot(&g, a->name[j]);

				g.name[k] = a->name[j];
				g.size[k] = a->size[j];
			}
		free(a->name);
		free(a->size);
		*a = g;
	}
	i = anchor_slot(a, name);
	if (!a->name[i]) {
		a->name[i] = xstrdup(name);
		a->n++;
	}
	a->size[i] = size; /* an anchor redefined later takes the new node, as in YAML */
}

static long long anchor_size(const struct anchors *a, const char *name)
{
	size_t i;

	if (!a->cap)
		return 1;
	i = anchor_slot(a, name);
	return a->name[i] ? a->size[i] : 1;
}

static void anchors_release(struct anchors *a)
{
	for (size_t i = 0; i < a->cap; i++)
		free(a->name[i]);
	free(a->name);
	free(a->size);
}

/* One open mapping or sequence: where its count started, its anchor. */
struct frame {
	long long start;
	char *anchor;
};

struct scan {
	struct svc_load_ctx *c;
	const char *file;
	struct anchors anchors;
	struct frame *stack; /* grown as deep as the file goes, never past the cap */
	size_t depth, cap;
	struct te_err *err;
};

static int cap_error(struct scan *s, const yaml_mark_t *m, const char *what, long long cap,
		     const char *setting, const char *env)
{
	return te_err_set(s->err, TE_E_COMPOSE, "%s:%zu:%zu: %s than the cap of %lld (%s, %s)", s->file,
			  m->line + 1, m->column + 1, what, cap, setting, env);
}

static int count(struct scan *s, const yaml_mark_t *m, long long n)
{
	s->c->nodes += n;
	if (s->c->nodes > s->c->lim.max_nodes)
		return cap_error(s, m, "more YAML nodes (aliases counted as what they repeat)",
				 s->c->lim.max_nodes, "compose.max_nodes", "TASKENV_COMPOSE_MAX_NODES");
	return 0;
}

static int scan_event(struct scan *s, const yaml_event_t *ev)
{
	const yaml_mark_t *m = &ev->start_mark;
	const char *anchor = NULL;
	struct frame *f;

	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		if (count(s, m, 1) < 0)
			return -1;
		if (ev->data.scalar.anchor)
			anchor_put(&s->anchors, (const char *)ev->data.scalar.anchor, 1);
		return 0;
	case YAML_ALIAS_EVENT:
		return count(s, m, anchor_size(&s->anchors, (const char *)ev->data.alias.anchor));
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		anchor =
		    (const char *)(ev->type == YAML_SEQUENCE_START_EVENT ? ev->data.sequence_start.anchor
									 : ev->data.mapping_start.anchor);
		if ((long long)s->depth >= s->c->lim.max_depth)
			return cap_error(s, m, "mappings and lists nested deeper", s->c->lim.max_depth,
					 "compose.max_depth", "TASKENV_COMPOSE_MAX_DEPTH");
		if (count(s, m, 1) < 0)
			return -1;
		if (s->depth == s->cap) {
			s->cap = s->cap ? s->cap * 2 : 32;
			s->stack = xrealloc(s->stack, s->cap * sizeof(*s->stack));
		}
		f = &s->stack[s->depth++];
		f->start = s->c->nodes;
		f->anchor = anchor ? xstrdup(anchor) : NULL;
		return 0;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		f = &s->stack[--s->depth];
		if (f->anchor)
			anchor_put(&s->anchors, f->anchor, s->c->nodes - f->start + 1);
		free(f->anchor);
		return 0;
	default: return 0;
	}
}

/* The events of TEXT within the caps (the first pass; see the top). */
static int scan(struct svc_load_ctx *c, const char *file, const struct te_buf *text, struct te_err *err)
{
	struct scan s = {c, file, {0}, NULL, 0, 0, err};
	yaml_parser_t ps;
	int rc = 0;
	bool done = false;

	if (!yaml_parser_initialize(&ps))
		TE_BUG("yaml_parser_initialize failed");
	yaml_parser_set_input_string(&ps, (const unsigned char *)(text->data ? text->data : ""), text->len);
	while (rc == 0 && !done) {
		yaml_event_t ev;

		if (!yaml_parser_parse(&ps, &ev)) {
			rc = yaml_error(&ps, file, err);
			break;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		rc = scan_event(&s, &ev);
		yaml_event_delete(&ev);
	}
	while (s.depth)
		free(s.stack[--s.depth].anchor);
	free(s.stack);
	anchors_release(&s.anchors);
	yaml_parser_delete(&ps);
	return rc;
}

/* One document per file: a second one would silently be ignored otherwise. */
static int parse_rest(yaml_parser_t *ps, const char *file, struct te_err *err)
{
	yaml_document_t extra;
	yaml_node_t *root;
	int rc = 0;

	if (!yaml_parser_load(ps, &extra))
		return yaml_error(ps, file, err);
	root = yaml_document_get_root_node(&extra);
	if (root)
		rc =
		    te_err_set(err, TE_E_COMPOSE, "%s:%zu:%zu: more than one YAML document in a compose file",
			       file, extra.start_mark.line + 1, extra.start_mark.column + 1);
	yaml_document_delete(&extra);
	return rc;
}

int svc_load_parse(struct svc_load_ctx *c, const char *file, yaml_document_t *doc, struct te_err *err)
{
	te_autobuf struct te_buf text = TE_BUF_INIT(0);
	yaml_parser_t ps;
	int rc = 0;

	if (read_capped(c, file, &text, err) < 0 || scan(c, file, &text, err) < 0)
		return -1;
	if (!yaml_parser_initialize(&ps))
		TE_BUG("yaml_parser_initialize failed");
	yaml_parser_set_input_string(&ps, (const unsigned char *)(text.data ? text.data : ""), text.len);
	/* On failure yaml_parser_load has already deleted DOC. */
	if (!yaml_parser_load(&ps, doc)) {
		rc = yaml_error(&ps, file, err);
	} else if (parse_rest(&ps, file, err) < 0) {
		yaml_document_delete(doc);
		rc = -1;
	}
	yaml_parser_delete(&ps);
	return rc;
}

struct svc_load_doc *svc_load_doc(struct svc_load_ctx *c, const char *real, struct te_err *err)
{
	const char *file = svc_load_source(c, real);
	const char *slash = strrchr(file, '/');
	struct svc_load_doc *d;

	for (size_t i = 0; i < c->n_docs; i++)
		if (c->docs[i].file == file)
			return &c->docs[i];
	c->docs = xrealloc(c->docs, (c->n_docs + 1) * sizeof(*c->docs));
	d = &c->docs[c->n_docs];
	if (svc_load_parse(c, file, &d->doc, err) < 0)
		return NULL;
	d->file = file;
	d->dir = slash == file ? xstrdup("/") : xstrndup(file, (size_t)(slash - file));
	c->n_docs++;
	return d;
}
