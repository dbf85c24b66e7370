/* The error type every library function fills (crun/git style).
 *
 * Library code returns 0 / -1 (or NULL) and fills a caller-owned
 * struct te_err passed last; only cmd/ prints it and picks the exit code.
 * The message lives in a fixed buffer: setting an error never allocates. */
#ifndef TASKENV_COMMON_ERR_H
#define TASKENV_COMMON_ERR_H

#include <stddef.h>

enum te_code {
	TE_OK = 0,
	TE_E_FAIL,	   /* generic failure */
	TE_E_USAGE,	   /* bad flags or arguments (exit 2) */
	TE_E_IO,	   /* local file or system call */
	TE_E_COMPOSE,	   /* YAML syntax, schema or interpolation error in a Compose file */
	TE_E_TASKNAME,	   /* invalid or undeterminable task name */
	TE_E_UNREACHABLE,  /* no engine answers on the socket (exit 3) */
	TE_E_ENGINE,	   /* the engine answered with an error */
	TE_E_NOTFOUND,	   /* the engine (or ledger) says: no such object */
	TE_E_CONFLICT,	   /* the object exists / is owned by someone else */
	TE_E_STATE,	   /* sqlite ledger */
	TE_E_PORTS,	   /* port range exhausted */
	TE_E_REMAINS,	   /* down finished but owned resources remain */
	TE_E_POLICY,	   /* the policy refuses the Compose file (exit 1) */
	TE_E_UNHEALTHY,	   /* a service did not become healthy / complete in time (exit 1) */
	TE_E_WRONG_ENGINE, /* the socket reaches another engine than the task's (exit 3) */
};

struct te_err {
	int code;	 /* enum te_code */
	int http_status; /* engine HTTP status when code is TE_E_ENGINE/NOTFOUND/CONFLICT, else 0 */
	char msg[1024];
};

/* Set *err (if non-NULL) to CODE and a printf-formatted message.
 * Always returns -1 so callers can write `return te_err_set(...)`. */
int te_err_set(struct te_err *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Prefix the existing message with context: "service 'db': " + old message.
 * Keeps the code. Returns -1. */
int te_err_prefix(struct te_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Reset to TE_OK with an empty message. */
void te_err_clear(struct te_err *err);

/* The last words of a process about to end itself (TE_BUG, out of memory,
 * a fault-injection kill): one line, without its newline, handed to FN just
 * before. Nothing below cmd/ prints: cmd/ installs the printer (stderr);
 * without one (NULL, the default) the line is dropped. FN must not allocate:
 * memory may be what ran out. */
typedef void (*te_last_words_fn)(const char *line);
void te_set_last_words(te_last_words_fn fn);
/* Format into a fixed buffer (no allocation) and hand it to the printer. */
void te_last_words(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Broken invariant: abort with file:line. Never for user errors. */
#define TE_BUG(msg) te_bug(__FILE__, __LINE__, (msg))
void te_bug(const char *file, int line, const char *msg) __attribute__((noreturn));

#endif
