/* What one load shares across the files it reads: the project boundary,
 * the caps and what counts against them, the files read besides the -f
 * ones (the model's locations point into them), the parsed files extends
 * reads again, and the extends and include chains (for cycles). Internal
 * to services/model/ (load.c, extends.c, include.c, parse.c). */
#ifndef TASKENV_SERVICES_MODEL_LOAD_CTX_H
#define TASKENV_SERVICES_MODEL_LOAD_CTX_H

#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

#include "services/model/load.h"

struct te_err;
struct svc_env;
struct svc_project;
struct svc_yaml_log;

/* An extends chain longer than this is refused: each link is a recursion,
 * and a real file's chains are a few links long. */
#define SVC_EXTENDS_MAX 32
/* Includes nest at most this deep (each is a recursion too). */
#define SVC_INCLUDE_MAX 16

/* A file extends read, kept parsed for the other services extending from it. */
struct svc_load_doc {
	const char *file; /* borrowed from svc_load_ctx.sources */
	char *dir;	  /* owned: the file's directory, where its relative paths hang off */
	yaml_document_t doc;
};

struct svc_load_ctx {
	char *boundary; /* owned: real path of the project directory; no file is read from outside */
	struct svc_load_limits lim; /* defaults filled in */
	long long nodes;	    /* YAML nodes read so far, all files together */
	char **sources;		    /* owned: every file read besides the -f files */
	struct svc_load_doc *docs;
	size_t n_docs;
	/* The extends being resolved, outermost first: file and service of each. */
	const char *ext_file[SVC_EXTENDS_MAX];
	const char *ext_service[SVC_EXTENDS_MAX];
	size_t ext_depth;
	/* The files being loaded, outermost first (an include cycle check). */
	const char *loading[SVC_INCLUDE_MAX + 1];
	size_t n_loading;
	struct svc_yaml_log *log; /* borrowed */
};

/* C ready for PROJECT_DIR (absolute) with LIM (zeros: the defaults). */
int svc_load_ctx_init(struct svc_load_ctx *c, const char *project_dir, const struct svc_load_limits *lim,
		      struct svc_yaml_log *log, struct te_err *err);
/* Frees the parsed documents; hands the source names to P (may be NULL: freed). */
void svc_load_ctx_release(struct svc_load_ctx *c, struct svc_project *p);

/* The copy of PATH that lives as long as the model (svc_loc.file). */
const char *svc_load_source(struct svc_load_ctx *c, const char *path);

/* PATH as written in WHAT (e.g. "services.web.extends.file"), relative to
 * DIR, resolved with every symlink followed: owned, or NULL with
 * TE_E_COMPOSE at Y's node N when it does not exist or lies outside the
 * project directory (taskenv reads Compose files only from inside it). */
struct svc_yaml;
char *svc_load_inside(struct svc_yaml *y, const yaml_node_t *n, const char *dir, const char *path,
		      const char *what);

/* Parse FILE (absolute) into *DOC within C's caps, counting its nodes;
 * one document per file. TE_E_COMPOSE "FILE:LINE:COL: ..." for YAML errors
 * and caps (each naming the cap and its setting), TE_E_IO when it cannot
 * be read. On error *DOC needs no delete. */
int svc_load_parse(struct svc_load_ctx *c, const char *file, yaml_document_t *doc, struct te_err *err);

/* The parsed file REAL (a real path) for extends: cached in C. Borrowed. */
struct svc_load_doc *svc_load_doc(struct svc_load_ctx *c, const char *real, struct te_err *err);

/* Load FILES (absolute) one after the other into P, each merged into
 * what came before (merge.c), with DIR for relative paths and ENV for
 * interpolation; the first must define services. Includes are followed
 * (include.c). P is not finalized. */
int svc_load_files(struct svc_load_ctx *c, struct svc_project *p, char *const *files, const char *dir,
		   struct svc_env *env, struct te_err *err);

#endif
