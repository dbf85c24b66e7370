/* The journal: every `exec` and `run` of a task (time, service, argv, exit
 * status, the last lines of its output) as an event of the ledger, so the
 * evidence shows the work that was done, not only what was created. */
#ifndef TASKENV_SERVICES_JOURNAL_H
#define TASKENV_SERVICES_JOURNAL_H

#include <stddef.h>

struct te_err;
struct ledger;
struct cJSON;

/* What is kept of a command's output: the last SVC_TAIL_BYTES bytes, of
 * which the last SVC_TAIL_LINES lines are journalled. */
#define SVC_TAIL_BYTES 4096
#define SVC_TAIL_LINES 20

/* The end of a stream, as it passes (no allocation). Zero-initialise. */
struct svc_tail {
	char buf[SVC_TAIL_BYTES];
	size_t len;   /* bytes in buf, the oldest first */
	size_t total; /* every byte seen */
};
void svc_tail_add(struct svc_tail *t, const char *p, size_t n);
/* The last MAX_LINES lines of T (a partial last line counts as one),
 * without invalid UTF-8 bytes (replaced by '?'). Owned. */
char *svc_tail_lines(const struct svc_tail *t, int max_lines);
/* Does T hold S (a message of the runtime, such as "executable file not found")? */
int svc_tail_has(const struct svc_tail *t, const char *s);

struct svc_journal_entry {
	const char *verb;	       /* "exec" or "run" */
	const char *service;	       /* the service it ran in */
	const char *container;	       /* the container's name, or NULL */
	char *const *argv;	       /* the command as given (NULL: the service's own) */
	int exit_code;		       /* the command's status; -1 when it did not run */
	const char *error;	       /* why it did not run (taskenv's message), or NULL */
	const struct svc_tail *output; /* its output, or NULL */
};

/* Append E to TASK's events: resource "<verb> <service>", outcome "exit N"
 * (or "failed"), message a JSON object {"time", "service", "container",
 * "argv", "exit_code", "error", "output_tail"} of at most a few KiB. */
int svc_journal_add(struct ledger *l, const char *task, const struct svc_journal_entry *e,
		    struct te_err *err);

/* TASK's journal, oldest first: an array of the objects above (owned). */
int svc_journal_list(struct ledger *l, const char *task, struct cJSON **out, struct te_err *err);

#endif
