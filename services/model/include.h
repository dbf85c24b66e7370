/* include: other Compose projects whose resources this one takes.
 * Internal to services/model/ (load.c). */
#ifndef TASKENV_SERVICES_MODEL_INCLUDE_H
#define TASKENV_SERVICES_MODEL_INCLUDE_H

#include <yaml.h>

struct svc_yaml;
struct svc_project;

/* The top-level `include:` N of the file Y reads into P: each entry (a
 * path, or {path: F | [F...], project_directory, env_file}) loaded as its
 * own project (its files merged; relative paths against its project
 * directory, by default its first file's; variables from its env_file,
 * by default the .env there, under the including project's, which win),
 * its own includes followed, then its services, volumes, networks,
 * secrets, configs and x-taskenv resources added to P. A name P already
 * has is refused (unless it is the same definition, included twice), as
 * is an include cycle or a file outside the project directory. Paths are
 * relative to Y's directory. */
int svc_include_load(struct svc_yaml *y, struct svc_project *p, yaml_node_t *n);

#endif
