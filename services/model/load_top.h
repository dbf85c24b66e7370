/* The top level's volumes, networks, secrets and configs of one file
 * (load.c reads the rest of the top level). Internal to services/model/. */
#ifndef TASKENV_SERVICES_MODEL_LOAD_TOP_H
#define TASKENV_SERVICES_MODEL_LOAD_TOP_H

#include <stddef.h>
#include <yaml.h>

struct svc_yaml;
struct svc_project;
struct svc_file_decl;

/* `volumes:` / `networks:` (N, may be null) into P->volumes / P->networks. */
int svc_load_volumes(struct svc_yaml *y, struct svc_project *p, yaml_node_t *n);
int svc_load_networks(struct svc_yaml *y, struct svc_project *p, yaml_node_t *n);
/* `secrets:` or `configs:` (KIND) into *OUT / *NOUT. */
int svc_load_decls(struct svc_yaml *y, yaml_node_t *n, const char *kind, struct svc_file_decl **out,
		   size_t *nout);

#endif
