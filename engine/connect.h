/* Attaching containers to further networks (a container is created on
 * one network; API < 1.44 accepts a single EndpointsConfig entry). */
#ifndef TASKENV_ENGINE_CONNECT_H
#define TASKENV_ENGINE_CONNECT_H

struct te_err;
struct engine;

/* POST /networks/{network}/connect {"Container": CONTAINER,
 * "EndpointConfig": {"Aliases": ALIASES}}; ALIASES is NULL-terminated,
 * borrowed, may be NULL. Errors as in engine.h. */
int engine_network_connect(struct engine *e, const char *network, const char *container, char *const *aliases,
			   struct te_err *err);

#endif
