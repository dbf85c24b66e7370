/* The task's Engine API broker (docs/broker.md): a UNIX socket of its own
 * per task that speaks enough of the Docker Engine API for the docker CLI
 * and lets through only the task's own operations on the task's own
 * containers (broker_rules.h judges the endpoint, this module the
 * ownership: the ledger and the container's live labels). It runs as a
 * detached process recorded in the ledger as a resource of kind "broker"
 * (name: the socket path; engine id: "PID:START", START the process's
 * start time, /proc/PID/stat field 22), so down stops it and gc reaps it. */
#ifndef TASKENV_SERVICES_LIFECYCLE_BROKER_H
#define TASKENV_SERVICES_LIFECYCLE_BROKER_H

#include <signal.h>
#include <stdbool.h>

struct engine;
struct ledger;
struct te_err;
struct state_resource;

/* The directory brokers live under when the broker.dir setting is empty:
 * RUNTIME_DIR/taskenv ($XDG_RUNTIME_DIR, may be NULL), else /run/taskenv
 * for root, else /tmp/taskenv-UID. Owned. */
char *svc_broker_base(const char *runtime_dir);

/* TASK's socket: BASE/<12 hex digits of SHA-256(ledger id, task)>/docker.sock,
 * short whatever the task name and ledger path. A path that cannot be a
 * UNIX socket address (over 107 bytes) is TE_E_USAGE naming it. Owned. */
char *svc_broker_socket_path(const char *base, const char *ledger_id, const char *task, struct te_err *err);

struct svc_broker_info {
	bool running;
	long long pid;
	char socket[128];
};

/* Start TASK's broker on E's engine (the task must exist): intended row,
 * then `EXE --state LEDGER --host unix://ENGINE --broker-serve TASK`
 * detached, and wait (up to 10 s) until it listens and recorded itself.
 * A broker that already runs is kept (*info says so); a dead one's row and
 * stale socket are cleared first. */
int svc_broker_start(struct ledger *l, struct engine *e, const char *task, const char *base,
		     struct svc_broker_info *info, struct te_err *err);
/* Stop TASK's broker(s): SIGTERM (SIGKILL after 5 s) to the recorded
 * process if it is still that process, the socket and its directory
 * removed, the row marked removed. *stopped counts them (may be NULL). */
int svc_broker_stop(struct ledger *l, const char *task, int *stopped, struct te_err *err);
/* What TASK's broker row says and whether its process runs. */
int svc_broker_status(struct ledger *l, const char *task, struct svc_broker_info *info, struct te_err *err);

/* The broker process: find TASK's intended broker row, listen on its
 * socket (directory 0700 made or checked, a stale socket replaced, a live
 * one refused), record "PID:START", serve until STOP is set (the caller's
 * signal handling), then remove the socket. */
int svc_broker_serve(struct ledger *l, struct engine *e, const char *task, volatile sig_atomic_t *stop,
		     struct te_err *err);

/* Reskind hooks (reskind.h): is the process of ENGINE_ID ("PID:START")
 * running; stop it and remove SOCKET (the row's name). */
bool svc_broker_proc_alive(const char *engine_id);
int svc_broker_proc_stop(const char *socket, const char *engine_id, struct te_err *err);

/* The "TASKENV_DOCKER_HOST=unix://..." line of TASK's running broker
 * appended to *V (te_strv_push), or nothing when it has none. */
int svc_broker_env(struct ledger *l, const char *task, char ***v, struct te_err *err);

#endif
