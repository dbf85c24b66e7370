/* Running a short probe command inside a container through the Engine
 * exec API (the verify probes). Output is small and read whole. */
#ifndef TASKENV_ENGINE_EXEC_PROBE_H
#define TASKENV_ENGINE_EXEC_PROBE_H

struct te_err;
struct te_buf;
struct engine;

/* Cap on a probe's combined output, in bytes. */
#define ENGINE_PROBE_OUTPUT_MAX (64u * 1024u)

/* POST /containers/{id}/exec {"AttachStdout":true,"AttachStderr":true,
 * "Cmd":ARGV}, POST /exec/{exec}/start {"Detach":false,"Tty":false} (the
 * framed stream is demultiplexed into OUT: stdout and stderr interleaved),
 * then GET /exec/{exec}/json for ExitCode into *exit_code. ARGV is
 * NULL-terminated, borrowed. Errors as in engine.h; a command the image
 * lacks shows up either as an engine error (dockerd: HTTP 500 at start,
 * podman: exit code 127) or exit code 126/127. */
int engine_exec_probe(struct engine *e, const char *container, char *const *argv, int *exit_code,
		      struct te_buf *out, struct te_err *err);

#endif
