#include "services/contract/git.h"

#include "common/buf.h"
#include "common/err.h"
#include "common/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static char **git_argv(const char *dir, const char *const *args)
{
	char **v = te_strv_push(NULL, xstrdup("git"));

	v = te_strv_push(v, xstrdup("-C"));
	v = te_strv_push(v, xstrdup(dir));
	for (size_t i = 0; args[i]; i++)
		v = te_strv_push(v, xstrdup(args[i]));
	return v;
}

static pid_t spawn(char **argv, int out_fd, int err_fd)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int rc;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
	posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	return rc == 0 ? pid : -1;
}

/* Read both pipes to EOF; past the cap output is drained, not kept, so
 * git never blocks on a full pipe. */
static bool drain(int fds[2], struct te_buf *bufs[2])
{
	struct pollfd p[2] = {{fds[0], POLLIN, 0}, {fds[1], POLLIN, 0}};
	bool overflow = false;
	char chunk[4096];
	int open_fds = 2;

	while (open_fds > 0) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++) {
			ssize_t n;

			if (p[i].fd < 0 || !p[i].revents)
				continue;
			n = read(p[i].fd, chunk, sizeof(chunk));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				p[i].fd = -1;
				open_fds--;
			} else if (te_buf_add(bufs[i], chunk, (size_t)n) < 0) {
				overflow = true;
			}
		}
	}
	return overflow;
}

static int wait_child(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void trim(struct te_buf *b)
{
	while (b->len > 0 && strchr("\r\n ", b->data[b->len - 1]))
		b->data[--b->len] = '\0';
}

int svc_git(const char *dir, const char *const *args, struct te_buf *out, char **stderr_out,
	    struct te_err *err)
{
	te_autostrv char **argv = git_argv(dir, args);
	te_autobuf struct te_buf ob = TE_BUF_INIT(SVC_GIT_OUTPUT_MAX);
	te_autobuf struct te_buf eb = TE_BUF_INIT(SVC_GIT_OUTPUT_MAX);
	struct te_buf *bufs[2] = {out ? out : &ob, &eb};
	int po[2], pe[2], status;
	bool overflow;
	pid_t pid;

	if (pipe2(po, O_CLOEXEC) < 0)
		return te_err_set(err, TE_E_IO, "pipe: %s", strerror(errno));
	if (pipe2(pe, O_CLOEXEC) < 0) {
		close(po[0]);
		close(po[1]);
		return te_err_set(err, TE_E_IO, "pipe: %s", strerror(errno));
	}
	pid = spawn(argv, po[1], pe[1]);
	close(po[1]);
	close(pe[1]);
	overflow = pid > 0 && drain((int[]){po[0], pe[0]}, bufs);
	close(po[0]);
	close(pe[0]);
	if (pid < 0)
		return te_err_set(err, TE_E_IO, "cannot run git (is it installed?)");
	status = wait_child(pid);
	if (status < 0 || overflow)
		return te_err_set(err, TE_E_IO, "git %s: %s", args[0],
				  overflow ? "output too large" : "killed");
	trim(&eb);
	if (stderr_out)
		*stderr_out = te_buf_detach(&eb);
	return status;
}

char *svc_git_line(const char *dir, const char *const *args, struct te_err *err)
{
	te_autobuf struct te_buf out = TE_BUF_INIT(SVC_GIT_OUTPUT_MAX);
	te_autofree char *msg = NULL;
	int st = svc_git(dir, args, &out, &msg, err);

	if (st < 0)
		return NULL;
	if (st != 0) {
		te_err_set(err, TE_E_FAIL, "git %s: %s", args[0], *msg ? msg : "failed");
		return NULL;
	}
	trim(&out);
	return te_buf_detach(&out);
}
