/* Loader internals shared by load.c and the x-taskenv parser (resources.c):
 * the few helpers a second parser needs to read nodes with load.c's rules
 * (merge keys, interpolation, "FILE:LINE:COL: " messages). Not public API. */
#ifndef TASKENV_SERVICES_LOAD_INT_H
#define TASKENV_SERVICES_LOAD_INT_H

#include <stddef.h>
#include <yaml.h>

#include "services/model/compose.h"

struct loader;

/* One key of a mapping after merge keys; nodes and NAME borrowed. */
struct svc_ld_pair {
	const char *name;
	yaml_node_t *key;
	yaml_node_t *val;
};

/* "FILE:LINE:COL: message" at node N into the loader's error; returns -1. */
int svc_ld_err(struct loader *l, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
struct svc_loc svc_ld_loc(const struct loader *l, const yaml_node_t *n);
struct svc_project *svc_ld_project(struct loader *l);
/* The pairs of mapping N (PATH names it in messages): *OUT owned array. */
int svc_ld_map(struct loader *l, yaml_node_t *n, const char *path, struct svc_ld_pair **out, size_t *nout);
/* An interpolated scalar; *OUT stays NULL for a YAML null. */
int svc_ld_string(struct loader *l, yaml_node_t *n, const char *path, char **out);
/* A list of interpolated strings: owned NULL-terminated *OUT. */
int svc_ld_strings(struct loader *l, yaml_node_t *n, const char *path, char ***out);

/* resources.c: top-level x-taskenv (N is its value), into the project. */
int svc_ld_taskenv(struct loader *l, yaml_node_t *n);
/* resources.c: a service's x-taskenv (N is its value), into S. Needs the
 * top-level resources loaded first. */
int svc_ld_service_taskenv(struct loader *l, struct svc_service *s, yaml_node_t *n, const char *path);

#endif
