#include "services/contract/git.h"

#include "services/model/boundary.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* The repository's own config is the project's, so untrusted: nothing in
 * it may make a git command taskenv runs execute a program. These override
 * it from the command line (which wins over every config file): no
 * fsmonitor hook, no hooks at all (worktree add runs post-checkout), no ssh
 * command, no transport, no pager. Aliases never replace a built-in
 * command, and taskenv runs only built-ins (git_builtin). */
static const char *const hardening[] = {
    "core.fsmonitor=false",  "core.hooksPath=/dev/null",
    "core.sshCommand=false", "protocol.allow=never",
    "core.pager=cat",	     "core.askPass=",
    "credential.helper=",    "core.untrackedCache=false",
};

static const char *const builtins[] = {"rev-parse", "worktree", "status",   "diff", "symbolic-ref",
				       "branch",    "config",	"ls-files", "log"};

static bool git_builtin(const char *cmd)
{
	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (strcmp(builtins[i], cmd) == 0)
			return true;
	return false;
}

static char **push_c(char **v, const char *setting)
{
	v = te_strv_push(v, xstrdup("-c"));
	return te_strv_push(v, xstrdup(setting));
}

static char **git_argv(const char *dir, char *const *filters, const char *const *args)
{
	char **v = te_strv_push(NULL, xstrdup("git"));

	for (size_t i = 0; i < sizeof(hardening) / sizeof(hardening[0]); i++)
		v = push_c(v, hardening[i]);
	/* A filter driver (.gitattributes + filter.NAME.clean/smudge/process
	 * in the repository's config) runs at status, diff and checkout: each
	 * one the config names is emptied, which git reads as "no filter". */
	for (size_t i = 0; filters && filters[i]; i++) {
		static const char *const keys[] = {"clean=", "smudge=", "process=", "required=false"};

		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			te_autofree char *c = xasprintf("filter.%s.%s", filters[i], keys[k]);

			v = push_c(v, c);
		}
	}
	v = te_strv_push(v, xstrdup("-C"));
	v = te_strv_push(v, xstrdup(dir));
	for (size_t i = 0; args[i]; i++) {
		v = te_strv_push(v, xstrdup(args[i]));
		/* diff drivers and textconv of the repository's config run programs. */
		if (i == 0 && strcmp(args[0], "diff") == 0) {
			v = te_strv_push(v, xstrdup("--no-ext-diff"));
			v = te_strv_push(v, xstrdup("--no-textconv"));
		}
	}
	return v;
}

/* The environment git runs with: ours, and the repository found by looking
 * (svc_project_boundary: the nearest ancestor holding .git), never where
 * its config says (core.worktree can point at "/"); no prompts, no
 * optional index writes. Owned. */
static char **git_env(const char *dir)
{
	te_autofree char *top = svc_project_boundary(dir);
	te_autofree char *gitdir = top ? xasprintf("%s/.git", top) : NULL;
	struct stat st;
	char **v = NULL;

	for (char **e = environ; e && *e; e++)
		if (strncmp(*e, "GIT_DIR=", 8) != 0 && strncmp(*e, "GIT_WORK_TREE=", 14) != 0)
			v = te_strv_push(v, xstrdup(*e));
	if (gitdir && lstat(gitdir, &st) == 0) {
		v = te_strv_push(v, xasprintf("GIT_DIR=%s", gitdir));
		v = te_strv_push(v, xasprintf("GIT_WORK_TREE=%s", top));
	}
	v = te_strv_push(v, xstrdup("GIT_TERMINAL_PROMPT=0"));
	return te_strv_push(v, xstrdup("GIT_OPTIONAL_LOCKS=0"));
}

static pid_t spawn(char **argv, char **envp, int out_fd, int err_fd)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int rc;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
	posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, envp);
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

static int run_git(const char *dir, char *const *filters, const char *const *args, struct te_buf *out,
		   char **stderr_out, struct te_err *err)
{
	te_autostrv char **argv = git_argv(dir, filters, args);
	te_autostrv char **envp = git_env(dir);
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
	pid = spawn(argv, envp, po[1], pe[1]);
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

static bool listed(char *const *v, const char *s)
{
	for (size_t i = 0; v && v[i]; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

/* The filter drivers the config of DIR's repository names ("filter.NAME.KEY"),
 * read with `git config` (reading config runs nothing). Owned, or NULL. */
static char **filter_names(const char *dir)
{
	static const char *const args[] = {"config", "--name-only", "--get-regexp", "^filter\\.", NULL};
	te_autobuf struct te_buf out = TE_BUF_INIT(SVC_GIT_OUTPUT_MAX);
	struct te_err ignored = {0};
	char **names = NULL;

	if (run_git(dir, NULL, args, &out, NULL, &ignored) != 0 || !out.data)
		return NULL;
	for (char *line = out.data, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		char *last;

		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		last = strrchr(line, '.');
		if (strncmp(line, "filter.", 7) != 0 || !last || last <= line + 7)
			continue;
		*last = '\0';
		if (!listed(names, line + 7))
			names = te_strv_push(names, xstrdup(line + 7));
	}
	return names;
}

int svc_git(const char *dir, const char *const *args, struct te_buf *out, char **stderr_out,
	    struct te_err *err)
{
	te_autostrv char **filters = NULL;

	if (!args[0] || !git_builtin(args[0]))
		return te_err_set(err, TE_E_USAGE, "git %s: not a command taskenv runs",
				  args[0] ? args[0] : "");
	filters = filter_names(dir);
	return run_git(dir, filters, args, out, stderr_out, err);
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
