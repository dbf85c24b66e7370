/* `evidence`: the promotion package a reviewer opens, written to a folder. */
#ifndef TASKENV_SERVICES_EVIDENCE_H
#define TASKENV_SERVICES_EVIDENCE_H

struct te_err;
struct engine;
struct ledger;

/* Write into DIR (created 0755 if missing; an existing DIR must be an
 * empty directory, not a symlink: TE_E_USAGE "exists and is not empty"
 * else; every file is created new with openat under DIR's descriptor,
 * O_EXCL|O_NOFOLLOW, so nothing planted there is followed): contract.json and contract.md (svc_contract),
 * verify.txt and verify.json (svc_verify; *verify_failed gets its fail count), events.json (svc_events_json),
 * logs/<container>.log (GET /containers/{id}/logs, stdout and stderr, for each recorded container the engine
 * still has), git-diff.patch (`git diff <base>`, or `git diff HEAD` without a recorded base) and
 * git-status.txt (`git status --short
 * --untracked-files=all`) of the task's source directory. TE_E_IO names a
 * file that could not be written. */
int svc_evidence_write(struct engine *e, struct ledger *l, const char *task, const char *dir,
		       int *verify_failed, struct te_err *err);

#endif
