/* `verify`: probes that a task's contract holds, from the host (engine
 * inspect, compared with the ledger) and from inside each running container
 * (Engine exec API, with the tools the image has). */
#ifndef TASKENV_SERVICES_VERIFY_H
#define TASKENV_SERVICES_VERIFY_H

struct te_err;
struct engine;
struct ledger;
struct cJSON;

#define SVC_VERIFY_PASS "pass"
#define SVC_VERIFY_FAIL "fail"
#define SVC_VERIFY_NV "not-verifiable"
/* cross-task: another task's container answers at its address (not a FAIL:
 * the engine's firewall holds that path; `verify --strict` counts it). */
#define SVC_VERIFY_OPEN "open"

/* Run every probe on TASK. *out (owned) is an array of
 * {"check","subject","result" (pass|fail|not-verifiable),"evidence"};
 * *failed counts the fails. Checks: "ledger-engine" (every recorded object
 * exists; no unrecorded object carries io.taskenv.task=TASK), "ports" (every
 * published port of every container with the task's label is bound to
 * 127.0.0.1 and equals the ledger's), "mounts" (no bind mount the Compose
 * file did not declare, none exposing the engine socket, $HOME or a
 * credential path), "engine-socket" (inside: no engine socket at the usual
 * paths), "limits" (inside: cgroup memory.max / pids.max equal the engine's
 * HostConfig), "egress" (internal networks), "credentials" (the drivers'
 * hook), "hostconfig" (each live container's namespace joins, Privileged,
 * CapAdd, SecurityOpt, Devices and the realpath of every bind source are
 * what its ledger row says the gate allowed at creation; a container with
 * the task's labels and no row was allowed nothing), "cross-task" (from
 * inside one running container, does any other task's running container
 * of the ledger answer ping at its address: "open" with the addresses, or
 * pass; never counted in *failed). Returns -1 only when the ledger or the engine cannot be read. */
int svc_verify(struct engine *e, struct ledger *l, const char *task, struct cJSON **out, int *failed,
	       struct te_err *err);

/* One line per result: "PASS  check  subject: evidence". Owned. */
char *svc_verify_text(const struct cJSON *results);

#endif
