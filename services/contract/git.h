/* Running the git program (fork/exec through posix_spawnp, no shell):
 * taskenv never re-implements git. */
#ifndef TASKENV_SERVICES_GIT_H
#define TASKENV_SERVICES_GIT_H

#include <stddef.h>

struct te_err;
struct te_buf;

/* Cap on what one git command may print, in bytes (stdout and stderr each). */
#define SVC_GIT_OUTPUT_MAX (8u * 1024u * 1024u)

/* Run `git -C DIR ARGS...` (ARGS NULL-terminated, borrowed) with stdin on
 * /dev/null. Its stdout is appended to OUT (may be NULL: discarded).
 * Returns git's exit status (0..255) when it ran; a non-zero status is
 * not an error here. -1 with TE_E_IO when git cannot be started or is
 * killed, or when its output exceeds SVC_GIT_OUTPUT_MAX. When STDERR_OUT
 * is non-NULL it receives git's stderr (owned, trimmed). */
int svc_git(const char *dir, const char *const *args, struct te_buf *out, char **stderr_out,
	    struct te_err *err);

/* Run git and insist on exit 0: its stdout with trailing newlines trimmed,
 * owned, or NULL with TE_E_FAIL "git <args[0]>: <git's stderr>". */
char *svc_git_line(const char *dir, const char *const *args, struct te_err *err);

#endif
