/* taskenv exec: run a command in a service's running container through the
 * Engine exec API; the command's exit status is ours. */
#include "cmd/cmd.h"
#include "engine/stream.h"
#include "services/lifecycle/journal.h"
#include "services/lifecycle/ops.h"
#include "engine/engine.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

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
	char *task_name;     /* resolved, owned */
	char *container;     /* the container's name, owned */
	struct svc_tail out; /* the end of the output, for the journal */
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
    "status is CMD's own; 125 when taskenv or the engine failed (no such task, the\n"
    "container is not running), 126 when CMD cannot be executed, 127 when it is not\n"
    "found. Each exec is journalled in the task's events (argv, exit status, the last\n"
    "lines of output), which `taskenv evidence` shows.\n"
    "With stdin and stdout on a terminal (and no -T) the command gets a TTY and the\n"
    "terminal goes raw; otherwise stdout and stderr stay apart. stdin is forwarded\n"
    "when it is a terminal, a pipe or a file (use </dev/null to keep it).\n";

static int write_out(void *ctx, int stream, const char *p, size_t n)
{
	FILE *f = stream == 2 ? stderr : stdout;
	struct exec_args *a = ctx;

	svc_tail_add(&a->out, p, n);
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
static int with_tty(struct engine *e, struct exec_args *a, const char *exec_id, struct te_err *err)
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
	rc = engine_exec_attach_sized(e, exec_id, STDIN_FILENO, ws.ws_row, ws.ws_col, write_out, a, err);
	tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	return rc;
}

static int stream_io(struct engine *e, struct exec_args *a, const char *exec_id, struct te_err *err)
{
	if (a->eo.tty)
		return with_tty(e, a, exec_id, err);
	if (a->eo.attach_stdin)
		return engine_exec_attach(e, exec_id, false, STDIN_FILENO, write_out, a, err);
	return engine_exec_start(e, exec_id, false, write_out, a, err);
}

/* The engine refused the exec: say why in the words of the task (a
 * stopped container, and how to start it), not the engine's. */
static int not_running(struct engine *e, struct exec_args *a, const char *id, struct te_err *err)
{
	te_autojson cJSON *c = NULL;
	struct te_err e2 = {0};
	const cJSON *st;
	const char *status;

	if (engine_container_inspect(e, id, &c, &e2) < 0)
		return -1;
	st = cJSON_GetObjectItemCaseSensitive(c, "State");
	status = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(st, "Status"));
	if (!status || strcmp(status, "running") == 0)
		return -1;
	return te_err_set(err, TE_E_CONFLICT,
			  "container '%s' of service '%s' is not running (%s, exit code %d); "
			  "`taskenv start -t %s %s` starts it",
			  a->container, a->service, status,
			  (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(st, "ExitCode")),
			  a->task_name, a->service);
}

static int do_exec(struct te_ctx *ctx, struct exec_args *a, int *code, struct te_err *err)
{
	te_autofree char *exec_id = NULL;
	struct engine *e = cmd_task_engine(ctx, a->task, &a->task_name, err);
	char *svc[] = {(char *)a->service, NULL};
	struct svc_container_ref *v = NULL;
	size_t n = 0;
	int rc;

	if (!e || svc_task_containers(ctx->ledger, a->task_name, svc, false, &v, &n, err) < 0)
		return -1;
	a->eo.tty = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO) && !a->no_tty;
	a->eo.attach_stdin = a->eo.tty || stdin_usable();
	if (n)
		a->container = xstrdup(v[0].name);
	rc = n ? engine_exec_create(e, v[0].id, &a->eo, &exec_id, err)
	       : te_err_set(err, TE_E_USAGE, "service '%s' has no container", a->service);
	if (rc < 0 && n && (err->code == TE_E_CONFLICT || err->code == TE_E_ENGINE))
		not_running(e, a, v[0].id, err);
	svc_container_refs_free(v, n);
	if (rc < 0)
		return -1;
	signal(SIGPIPE, SIG_IGN);
	if (stream_io(e, a, exec_id, err) < 0)
		return -1;
	if (engine_exec_exit_code(e, exec_id, code, err) < 0)
		return -1;
	/* dockerd answers 126 for a command it did not find too; its words
	 * in the stream tell them apart, as the docker CLI does for run. */
	if (*code == EXIT_CMD_CANNOT_EXEC && cmd_command_status(a->out.buf, a->out.len) == EXIT_CMD_NOT_FOUND)
		*code = EXIT_CMD_NOT_FOUND;
	return 0;
}

/* The journal entry; a failure to write it is said, not fatal: the
 * command has run. */
static void journal(struct te_ctx *ctx, struct exec_args *a, int code, const struct te_err *failed)
{
	struct svc_journal_entry j = {
	    "exec", a->service, a->container, a->eo.cmd, code, failed ? failed->msg : NULL, &a->out};
	struct te_err err = {0};

	if (!a->task_name || !ctx->ledger)
		return;
	if (svc_journal_add(ctx->ledger, a->task_name, &j, &err) < 0)
		fprintf(stderr, "taskenv exec: warning: not journalled: %s\n", err.msg);
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
		/* A bad flag is ours, not the command's exit 2. */
		return rc == EXIT_OK ? rc : EXIT_CMD_FAILED;
	}
	a.eo.cmd = argv + i;
	a.eo.env = a.env;
	rc = do_exec(ctx, &a, &code, &err);
	journal(ctx, &a, rc < 0 ? -1 : code, rc < 0 ? &err : NULL);
	te_strv_free(a.env);
	free(a.task_name);
	free(a.container);
	if (rc < 0)
		return cmd_fail_command("exec", &err);
	return code < 0 ? EXIT_CMD_FAILED : code;
}
