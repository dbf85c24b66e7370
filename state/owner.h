/* Who holds a task, until when, and one lock per task.
 *
 * Owner: the host, pid, the pid's start time (field 22 of /proc/<pid>/stat,
 * clock ticks after boot, so a recycled pid is not mistaken for the owner)
 * and user of the process that holds the task. A task is *live* while its
 * owner runs: same host, pid alive, same start time.
 *
 * Lease and retention: unix-second deadlines on the task row. `gc` removes a
 * task once its deadline passed and its owner is not live; a retention
 * deadline, when set, replaces the lease.
 *
 * Per-task lock: `up`, `down`, `retain` and `gc` of one task run one at a
 * time. It is an flock(2) on "<ledger>.locks/<task>.lock" (directory 0700),
 * not a sqlite row: the kernel drops an flock when its holder dies, even by
 * SIGKILL, so a crashed `up` never leaves a stale lock to be guessed at by
 * pid; and a sqlite write transaction held across engine calls would stop
 * every other task's ledger writes (sqlite has one writer), while an flock
 * per task leaves independent tasks running side by side. Ledger writes
 * stay short BEGIN IMMEDIATE transactions under sqlite's own locking. */
#ifndef TASKENV_STATE_OWNER_H
#define TASKENV_STATE_OWNER_H

#include <stdbool.h>

struct te_err;
struct ledger;
struct state_task;

struct state_owner {
	char host[256];
	long long pid;
	long long start; /* clock ticks after boot, /proc/<pid>/stat field 22 */
	char user[64];
};

/* Fill O for process PID (0: this process): gethostname(2), /proc/PID/stat,
 * the login name of getuid() (else the uid in decimal).
 * TE_E_IO when /proc/PID/stat cannot be read (no such process). */
int state_owner_of(long long pid, struct state_owner *o, struct te_err *err);

/* The start time of PID from /proc/PID/stat; -1 when it cannot be read. */
long long state_proc_start(long long pid);

/* Is the task's recorded owner running? False when no owner is recorded
 * or the pid is dead or recycled; true (cannot tell, so assume it runs)
 * when the owner is on another host. */
bool state_task_owner_live(const struct state_task *t);

/* Record owner O of task NAME and its lease deadline (unix seconds, 0: no
 * lease). TE_E_NOTFOUND when there is no such task. */
int state_task_set_owner(struct ledger *l, const char *name, const struct state_owner *o,
			 long long lease_expires, struct te_err *err);

/* Record a retention until UNTIL (unix seconds; 0 clears it) asked for by
 * WHO (may be NULL) for REASON (may be NULL). TE_E_NOTFOUND when no task. */
int state_task_set_retention(struct ledger *l, const char *name, long long until, const char *who,
			     const char *reason, struct te_err *err);

/* The deadline gc goes by: retain_until when set, else lease_expires (0: none). */
long long state_task_deadline(const struct state_task *t);

/* Take the per-task lock of TASK (a valid task name). WAIT: block until it
 * is free; else return 1 at once when another process holds it. 0 with
 * *fd_out (the lock; state_task_unlock releases it) on success.
 * TE_E_IO when the lock file cannot be made or locked. */
int state_task_lock(struct ledger *l, const char *task, bool wait, int *fd_out, struct te_err *err);
void state_task_unlock(int fd); /* -1 is a no-op */

/* Told while a lock is held by another process: its PID and VERB (as the
 * holder wrote them into the lock file; 0 and "?" when unknown) and the
 * seconds waited so far. */
typedef void (*state_lock_wait_fn)(void *ctx, long long pid, const char *verb, long long waited);

/* state_task_lock with WAIT, telling WAITING (may be NULL: just block) at
 * once and then every 5 s while another process holds the lock. */
int state_task_lock_wait(struct ledger *l, const char *task, state_lock_wait_fn waiting, void *ctx,
			 int *fd_out, struct te_err *err);

#endif
