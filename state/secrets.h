/* The task's secrets, kept out of the ledger: admin URLs of the servers its
 * driver resources live on, and the passwords of its own roles and users.
 *
 * Why a file and not derived passwords: an admin URL carries the admin's
 * password, which can only be stored, not derived; one mechanism for both
 * keeps it simple, and stored task passwords can be truly random (128 bits
 * from getrandom) rather than a function of a long-lived key whose leak
 * would expose every past and future task.
 *
 * Layout: "<ledger path>.secrets/" (mode 0700) holds one "<task>.json"
 * (mode 0600), a JSON object name -> value. Writes go to a temporary file
 * renamed over the old one, under an exclusive flock(2) on the directory,
 * so concurrent `up`s of several tasks never lose each other's writes and
 * a crash leaves the old or the new file, never half of one.
 * Errors: TE_E_IO naming the path. */
#ifndef TASKENV_STATE_SECRETS_H
#define TASKENV_STATE_SECRETS_H

struct te_err;
struct ledger;

/* *OUT owned, or NULL when TASK has no secret NAME (not an error). */
int state_secret_get(struct ledger *l, const char *task, const char *name, char **out, struct te_err *err);
/* Set TASK's secret NAME to VALUE (replacing it). */
int state_secret_put(struct ledger *l, const char *task, const char *name, const char *value,
		     struct te_err *err);
/* TASK's secret NAME if stored, else store VALUE and give that: the check
 * and the write happen under one lock, so concurrent callers agree.
 * *OUT owned. */
int state_secret_get_or_put(struct ledger *l, const char *task, const char *name, const char *value,
			    char **out, struct te_err *err);
/* Delete TASK's secrets file; a missing one is fine. */
int state_secrets_drop(struct ledger *l, const char *task, struct te_err *err);

#endif
