/* Streaming Engine API calls that do not fit engine_call's "one JSON
 * answer" shape: container logs (optionally followed, several containers at
 * once over curl_multi), exec (POST /containers/{id}/exec, POST
 * /exec/{id}/start, GET /exec/{id}/json), container wait and top.
 *
 * Each stream gets its own libcurl easy handle on the engine's UNIX socket
 * (engine_socket(), engine_api_version()), so a followed stream never holds
 * the engine's ordinary handle. Errors as in engine.h. */
#ifndef TASKENV_ENGINE_STREAM_H
#define TASKENV_ENGINE_STREAM_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

struct te_err;
struct engine;
struct cJSON;

/* Output of a container or exec: STREAM is 1 (stdout) or 2 (stderr; a TTY
 * stream reports 1). P[0..N) is borrowed for the call. Return 0 to go on,
 * -1 to stop the whole transfer (e.g. our stdout was closed). */
typedef int (*engine_chunk_fn)(void *ctx, int stream, const char *p, size_t n);

/* Incremental demultiplexer of the Engine's stream framing: without a TTY
 * each frame is [stream, 0, 0, 0, size BE32] + payload. Bytes may arrive
 * split anywhere. A stream whose first byte is not a frame header is a
 * TTY's raw stream and is passed on whole as stream 1. */
struct engine_demux {
	unsigned char hdr[8];
	size_t have; /* header bytes collected */
	size_t left; /* payload bytes still to come in the current frame */
	int stream;  /* of the current frame */
	int mode;    /* 0 undecided, 1 framed, 2 raw */
	engine_chunk_fn fn;
	void *ctx;
};
void engine_demux_init(struct engine_demux *d, engine_chunk_fn fn, void *ctx);
/* Feed N bytes; returns -1 when FN asked to stop. */
int engine_demux_feed(struct engine_demux *d, const char *p, size_t n);

/* One line of a container's log: SRC is the index into the IDS array given
 * to engine_logs, STREAM 1/2, LINE without its '\n' (borrowed). Lines longer
 * than ENGINE_LOG_LINE_MAX are delivered in pieces. Return -1 to stop. */
typedef int (*engine_line_fn)(void *ctx, size_t src, int stream, const char *line, size_t n);
#define ENGINE_LOG_LINE_MAX (64u * 1024u)

struct engine_logs_opts {
	bool follow;	 /* follow=1: until each container stops (or FN says stop) */
	int tail;	 /* lines from the end of each log; < 0 means all */
	bool timestamps; /* timestamps=1: each line starts with an RFC 3339 time */
	/* When non-NULL and set non-zero (e.g. by a signal handler), the
	 * transfers are abandoned within a second and engine_logs returns 0. */
	const volatile sig_atomic_t *cancel;
};

/* GET /containers/{id}/logs?stdout=1&stderr=1&follow=&tail=&timestamps= for
 * every id in IDS (NULL-terminated, borrowed) at once (curl_multi), lines
 * handed to FN as they arrive. Returns 0 when every stream ended (or FN
 * stopped them), -1 when one failed (the others are still read to the end;
 * the first error is reported, naming the container id). */
int engine_logs(struct engine *e, char *const *ids, const struct engine_logs_opts *o, engine_line_fn fn,
		void *ctx, struct te_err *err);

struct engine_exec_opts {
	char *const *cmd;    /* argv, NULL-terminated, at least one entry */
	char *const *env;    /* "K=V" entries or NULL */
	const char *user;    /* or NULL */
	const char *workdir; /* or NULL */
	bool tty;	     /* Tty (then the output is one raw stream) */
	bool privileged;
	bool attach_stdin; /* AttachStdin + OpenStdin: for engine_exec_attach */
};

/* POST /containers/{id}/exec {AttachStdout, AttachStderr, Cmd, Env, User,
 * WorkingDir, Tty}; *id_out owned. */
int engine_exec_create(struct engine *e, const char *container, const struct engine_exec_opts *o,
		       char **id_out, struct te_err *err);
/* POST /exec/{id}/start {"Detach": false, "Tty": TTY}: the engine hijacks
 * the connection and streams the output until the process ends; each chunk
 * goes to FN (demultiplexed). No stdin is sent. */
int engine_exec_start(struct engine *e, const char *exec_id, bool tty, engine_chunk_fn fn, void *ctx,
		      struct te_err *err);
/* Interactive exec: POST /exec/{id}/start {"Detach": false, "Tty": TTY}
 * with "Connection: Upgrade" / "Upgrade: tcp" on a connection of its own
 * (CURLOPT_CONNECT_ONLY + curl_easy_send/recv, as curl's sendrecv example):
 * after the engine's 101 (or 200) answer the connection carries the
 * process's stdin one way and its output the other. Bytes read from IN_FD go
 * to the process until IN_FD ends (then, without a TTY, our write side is shut
 * so the process sees end of input); output goes to FN (demultiplexed
 * without a TTY). Returns when the engine closes the connection (the process
 * ended). The exec must have been created with AttachStdin. */
int engine_exec_attach(struct engine *e, const char *exec_id, bool tty, int in_fd, engine_chunk_fn fn,
		       void *ctx, struct te_err *err);
/* The same with the TTY sized ROWS x COLS once the process started (0: as is). */
int engine_exec_attach_sized(struct engine *e, const char *exec_id, int in_fd, int rows, int cols,
			     engine_chunk_fn fn, void *ctx, struct te_err *err);
/* POST /exec/{id}/resize?h=ROWS&w=COLS (TTY execs). */
int engine_exec_resize(struct engine *e, const char *exec_id, int rows, int cols, struct te_err *err);

/* GET /exec/{id}/json: *code = ExitCode (-1 while still running). */
int engine_exec_exit_code(struct engine *e, const char *exec_id, int *code, struct te_err *err);

/* POST /containers/{id}/wait (condition not-running): blocks until the
 * container stops; *code = StatusCode. */
int engine_container_wait(struct engine *e, const char *id, int *code, struct te_err *err);

/* GET /containers/{id}/top: {"Titles": [...], "Processes": [[...], ...]}, owned. */
int engine_container_top(struct engine *e, const char *id, struct cJSON **out, struct te_err *err);

#endif
