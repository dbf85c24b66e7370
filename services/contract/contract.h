/* The workspace contract (docs/contract.md, schema_version 1): what a task
 * was given at six boundaries (source, filesystem, process, environment,
 * identity, promotion), each value with its evidence, read from the ledger,
 * the engine (container/network/image inspect) and git at that moment. */
#ifndef TASKENV_SERVICES_CONTRACT_H
#define TASKENV_SERVICES_CONTRACT_H

struct te_err;
struct engine;
struct ledger;
struct cJSON;

#define SVC_CONTRACT_SCHEMA_VERSION 1

/* Build the contract of TASK. Owned cJSON object in *out. TE_E_NOTFOUND
 * when the ledger has no such task; engine errors other than "no such
 * object" fail the call (an absent object is reported, not an error). */
int svc_contract(struct engine *e, struct ledger *l, const char *task, struct cJSON **out,
		 struct te_err *err);

/* The contract as Markdown (owned text), rendered from the JSON alone. */
char *svc_contract_markdown(const struct cJSON *contract);

/* The events of TASK as a JSON array (the `events --json` shape):
 * [{"id","time" (unix s),"task","verb","resource","outcome","message"}]. */
int svc_events_json(struct ledger *l, const char *task, struct cJSON **out, struct te_err *err);

/* Host paths a task must never be given: the engine's sockets (SOCKET, the
 * task's engine, first), $HOME and the credential paths under it. Owned
 * NULL-terminated list. */
char **svc_contract_absent_paths(const char *socket);

/* 1 when the mount SOURCE exposes PATH (SOURCE is PATH or a directory above it). */
int svc_path_exposes(const char *source, const char *path);

#endif
