/* What `ps` and `env` report: the ledger joined with the engine's live view.
 * Results are cJSON documents (the --json shape; cmd/ renders text from them). */
#ifndef TASKENV_SERVICES_STATUS_H
#define TASKENV_SERVICES_STATUS_H

struct te_err;
struct engine;
struct ledger;
struct cJSON;

/* Give the engine a task was created on (SOCKET, borrowed), or NULL with
 * *err set. The returned engine is borrowed (the caller caches it). */
typedef struct engine *(*svc_engine_for_fn)(void *ctx, const char *socket, struct te_err *err);

/* ps without -t. An array, one object per task in the ledger:
 *   {"task","project_dir","status","engine","created" (unix s),
 *    "containers":{"running":N,"total":N}, "ports":["127.0.0.1:20001->3000/tcp",...],
 *    "engine_error": "..." (only when the task's engine did not answer)}
 * One GET /containers/json per engine (label io.taskenv.ledger=<id>), not
 * one call per container. Owned result in *out. */
int svc_status_tasks(struct ledger *l, svc_engine_for_fn engine_for, void *ctx, struct cJSON **out,
		     struct te_err *err);

/* ps -t TASK. One object:
 *   {"task","project_dir","status","engine","compose_files":[...],
 *    "resources":[{"kind","name","service","ledger_state","id","live"
 *                  (container: its State, e.g. "running"/"exited"; network/volume:
 *                   "present"; "absent" when the engine has no such object),
 *                  "ports":["127.0.0.1:20001->3000/tcp"] (containers)}]}
 * TE_E_NOTFOUND when the ledger has no such task. */
int svc_status_task(struct ledger *l, struct engine *e, const char *task, struct cJSON **out,
		    struct te_err *err);

/* env -t TASK: an owned NULL-terminated list of "KEY=value" lines:
 * TASKENV_TASK, TASKENV_HOST=127.0.0.1, and TASKENV_PORT_<SERVICE>_<PORT>=<hostport>
 * (_R<N> appended for replica N > 1)
 * (SERVICE upper-cased, every character outside [A-Z0-9] turned into '_';
 * "_UDP" appended for udp ports). TE_E_NOTFOUND for an unknown task. */
char **svc_task_env(struct ledger *l, const char *task, struct te_err *err);

#endif
