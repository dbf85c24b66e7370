/* taskenv exec: run a command in a service's running container through the
 * Engine exec API; the command's exit status is ours. */
#include "cmd/cmd.h"
#include "engine/stream.h"
#include "services/lifecycle/ops.h"
#include "common/mem.h"

#include <errno.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct exec_args {
	const char *task;
	struct engine_exec_opts eo;
	char **env; /* owned */
	const char *service;
	bool no_tty;
};

const struct cmd_option cmd_exec_options[] = {
    CMD_OPT_TASK(struct exec_args, task),
    CMD_OPT_STRING('u', "user", "USER", struct exec_args, eo.user, "run as USER (name or uid[:gid])"),
    CMD_OPT_STRING('w', "workdir", "DIR", struct exec_args, eo.workdir,
		   "working directory inside the container"),
    CMD_OPT_KV('e', "env", struct exec_args, env, "set a variable (repeatable)"),
    CMD_OPT_FLAG('T', "no-TTY", struct exec_args, no_tty, "no pseudo-terminal even on a terminal"),
    CMD_OPT_FLAG(0, "privileged", struct exec_args, eo.privileged, "extended privileges for the command"),
    CMD_OPT_END,
};

const char cmd_exec_about[] =
    "Run CMD in the running container of SERVICE (docker compose exec). The exit\n"
    "status is CMD's own (126/127 when it cannot be run).\n"
    "With stdin and stdout on a terminal (and no -T) the command gets a TTY and the\n"
    "terminal goes raw; otherwise stdout and stderr stay apart. stdin is forwarded\n"
    "when it is a terminal, a pipe or a file (use </dev/null to keep it).\n";

static int write_out(void *ctx, int stream, const char *p, size_t n)
{
	FILE *f = stream == 2 ? stderr : stdout;

	if (fwrite(p, 1, n, f) != n)
		return -1;
	return fflush(f) == 0 ? 0 : -1;
}

/* Forward stdin when it is a terminal, a pipe or a file: not /dev/null
 * or a closed descriptor, which have nothing to give. */
static bool stdin_usable(void)
{
	struct stat st;

	if (isatty(STDIN_FILENO))
		return true;
	if (fstat(STDIN_FILENO, &st) < 0)
		return false;
	return S_ISFIFO(st.st_mode) || S_ISREG(st.st_mode) || S_ISSOCK(st.st_mode);
}

/* Raw mode for the TTY case, restored whatever happens. */
static int with_tty(struct engine *e, const char *exec_id, struct te_err *err)
{
	struct termios saved, raw;
	struct winsize ws = {0};
	int rc;

	if (tcgetattr(STDIN_FILENO, &saved) < 0)
		return te_err_set(err, TE_E_IO, "tcgetattr: %s", strerror(errno));
	ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws);
	raw = saved;
	cfmakeraw(&raw);
	tcsetattr(STDIN_FILENO, TCSANOW, &raw);
	rc = engine_exec_attach_sized(e, exec_id, STDIN_FILENO, ws.ws_row, ws.ws_col, write_out, NULL, err);
	tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	return rc;
}

static int stream_io(struct engine *e, const struct exec_args *a, const char *exec_id, struct te_err *err)
{
	if (a->eo.tty)
		return with_tty(e, exec_id, err);
	if (a->eo.attach_stdin)
		return engine_exec_attach(e, exec_id, false, STDIN_FILENO, write_out, NULL, err);
	return engine_exec_start(e, exec_id, false, write_out, NULL, err);
}

static int do_exec(struct te_ctx *ctx, struct exec_args *a, int *code, struct te_err *err)
{
	te_autofree char *task = NULL;
	te_autofree char *exec_id = NULL;
	struct engine *e = cmd_task_engine(ctx, a->task, &task, err);
	char *svc[] = {(char *)a->service, NULL};
	struct svc_container_ref *v = NULL;
	size_t n = 0;
	int rc;

	if (!e || svc_task_containers(ctx->ledger, task, svc, false, &v, &n, err) < 0)
		return -1;
	a->eo.tty = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO) && !a->no_tty;
	a->eo.attach_stdin = a->eo.tty || stdin_usable();
	rc = n ? engine_exec_create(e, v[0].id, &a->eo, &exec_id, err)
	       : te_err_set(err, TE_E_USAGE, "service '%s' has no container", a->service);
	svc_container_refs_free(v, n);
	if (rc < 0)
		return -1;
	signal(SIGPIPE, SIG_IGN);
	if (stream_io(e, a, exec_id, err) < 0)
		return -1;
	return engine_exec_exit_code(e, exec_id, code, err);
}

int cmd_exec(struct te_ctx *ctx, int argc, char **argv)
{
	struct exec_args a = {0};
	struct te_err err = {0};
	int code = -1, rc, i = cmd_parse(ctx, argc, argv, &a, &rc);

	if (i >= 0) {
		a.service = i < argc ? argv[i++] : NULL;
		if (i < argc && strcmp(argv[i], "--") == 0)
			i++;
		rc = a.service && i < argc ? 0 : cmd_usage(ctx, "expected SERVICE and a command");
	}
	if (i < 0 || rc != 0) {
		te_strv_free(a.env);
		return rc;
	}
	a.eo.cmd = argv + i;
	a.eo.env = a.env;
	rc = do_exec(ctx, &a, &code, &err);
	te_strv_free(a.env);
	if (rc < 0)
		return cmd_fail("exec", &err);
	return code < 0 ? EXIT_FAIL : code;
}
