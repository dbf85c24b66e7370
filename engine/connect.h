/* Attaching containers to further networks (a container is created on
 * one network; API < 1.44 accepts a single EndpointsConfig entry), and
 * detaching them. */
#ifndef TASKENV_ENGINE_CONNECT_H
#define TASKENV_ENGINE_CONNECT_H

#include <stdbool.h>

struct te_err;
struct engine;

/* POST /networks/{network}/connect {"Container": CONTAINER,
 * "EndpointConfig": {"Aliases": ALIASES}}; ALIASES is NULL-terminated,
 * borrowed, may be NULL. Errors as in engine.h. */
int engine_network_connect(struct engine *e, const char *network, const char *container, char *const *aliases,
			   struct te_err *err);

/* POST /networks/{network}/disconnect {"Container": CONTAINER, "Force":
 * FORCE}. CONTAINER is a name or id; dockerd finds the endpoint of a
 * container that no longer exists by the endpoint's name only. */
int engine_network_disconnect(struct engine *e, const char *network, const char *container, bool force,
			      struct te_err *err);

#endif
