/* Between broker_proc.c (the process, its directory and socket) and
 * broker.c (the HTTP server). Internal to the broker. */
#ifndef TASKENV_SERVICES_LIFECYCLE_BROKER_INT_H
#define TASKENV_SERVICES_LIFECYCLE_BROKER_INT_H

struct te_err;

/* Listen on SOCKET: its directory made 0700 (or checked: ours, not a
 * symlink, no access for group or others), a stale socket file (nobody
 * answers on it) removed, a live one refused (TE_E_CONFLICT). Returns the
 * listening fd or -1. */
int svc_broker_listen(const char *socket, struct te_err *err);
/* Remove SOCKET (only if it is a socket) and its directory. */
void svc_broker_unlink(const char *socket);

#endif
