#include "services/model/task.h"

#include "common/buf.h"
#include "common/err.h"
#include "common/mem.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define TASK_NAME_MAX 63
/* A branch name is short; anything longer than this is not a branch. */
#define GIT_OUTPUT_MAX 4096

extern char **environ;

static int is_lower_or_digit(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

int svc_task_name_check(const char *name, struct te_err *err)
{
	size_t n = name ? strlen(name) : 0;
	bool ok = n >= 1 && n <= TASK_NAME_MAX && is_lower_or_digit(name[0]);

	for (size_t i = 1; ok && i < n; i++)
		ok = is_lower_or_digit(name[i]) || name[i] == '_' || name[i] == '-';
	if (ok)
		return 0;
	return te_err_set(err, TE_E_TASKNAME,
			  "invalid task name '%s': must match " SVC_TASK_NAME_RULE
			  " (lowercase letters, digits, '_' and '-', at most 63 characters)",
			  name ? name : "");
}

/* Read FD to EOF into B. Output past the cap is drained, not kept, so the
 * child never blocks on a full pipe; *overflow says it happened. */
static void read_child(int fd, struct te_buf *b, bool *overflow)
{
	char chunk[512];
	ssize_t n;

	*overflow = false;
	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (te_buf_add(b, chunk, (size_t)n) < 0)
			*overflow = true;
	}
}

static int wait_child(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Spawn ARGV (no shell) with stdout on a pipe, stdin and stderr on
 * /dev/null. Returns the pid, or -1. */
static pid_t spawn_reader(char *const argv[], int *read_fd)
{
	posix_spawn_file_actions_t fa;
	int fds[2];
	pid_t pid;
	int rc;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (rc != 0) {
		close(fds[0]);
		return -1;
	}
	*read_fd = fds[0];
	return pid;
}

/* The short name of the branch HEAD points at in DIR, owned, or NULL when
 * DIR is not in a repository, HEAD is detached, or git is missing. */
/* The first line git prints for `git -C DIR ARGS...` (at most four,
 * NULL-terminated), owned, or NULL when git fails or prints nothing. */
static char *git_line(const char *dir, const char *const args[5])
{
	/* The repository's config is the project's: nothing in it runs (as
	 * services/contract/git.c does for every other git command). */
	char *argv[] = {"git",
			"-c",
			"core.fsmonitor=false",
			"-c",
			"core.hooksPath=/dev/null",
			"-C",
			(char *)dir,
			(char *)args[0],
			(char *)args[1],
			(char *)args[2],
			(char *)args[3],
			NULL};
	te_autobuf struct te_buf out = TE_BUF_INIT(GIT_OUTPUT_MAX);
	bool overflow;
	int fd, status;
	pid_t pid = spawn_reader(argv, &fd);

	if (pid < 0)
		return NULL;
	read_child(fd, &out, &overflow);
	close(fd);
	status = wait_child(pid);
	if (status != 0 || overflow || out.len == 0)
		return NULL;
	out.len = strcspn(out.data, "\r\n");
	out.data[out.len] = '\0';
	return out.len ? te_buf_detach(&out) : NULL;
}

static char *git_branch(const char *dir)
{
	return git_line(dir, (const char *const[5]){"symbolic-ref", "--quiet", "--short", "HEAD", NULL});
}

/* Six hex digits of the work tree's path (FNV-1a): two checkouts on the
 * same branch ("main") are two tasks, the same checkout is one. */
static void tree_tag(const char *dir, char out[7])
{
	te_autofree char *top = git_line(dir, (const char *const[5]){"rev-parse", "--show-toplevel", NULL});
	uint32_t h = 2166136261u;

	for (const char *p = top ? top : dir; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	snprintf(out, 7, "%06x", (unsigned)(h & 0xffffffu));
}

static char *checked(char *owned, const char *source, struct te_err *err)
{
	if (svc_task_name_check(owned, err) == 0)
		return owned;
	if (source)
		te_err_prefix(err, "%s: ", source);
	free(owned);
	return NULL;
}

char *svc_task_resolve(const char *flag, const char *env, const char *dir, struct te_err *err)
{
	te_autofree char *branch = NULL;
	te_autofree char *source = NULL;
	const char *slash;
	char tag[7];

	if (flag)
		return checked(xstrdup(flag), NULL, err);
	/* An empty variable means unset, as for DOCKER_HOST. */
	if (env && *env)
		return checked(xstrdup(env), "TASKENV_TASK", err);
	branch = git_branch(dir ? dir : ".");
	if (!branch) {
		te_err_set(err, TE_E_TASKNAME,
			   "no task name: pass -t NAME, set TASKENV_TASK, or run inside a git branch");
		return NULL;
	}
	slash = strrchr(branch, '/');
	tree_tag(dir ? dir : ".", tag);
	source = xasprintf("task name from git branch '%s'", branch);
	/* At most 63 characters with the tag. */
	return checked(xasprintf("%.55s-%s", slash ? slash + 1 : branch, tag), source, err);
}

char *svc_name_container(const char *task, const char *service, int n)
{
	return xasprintf("%s-%s-%d", task, service, n);
}

char *svc_name_network(const char *task, const char *key)
{
	return xasprintf("%s_%s", task, key);
}

char *svc_name_volume(const char *task, const char *key)
{
	return xasprintf("%s_%s", task, key);
}

char *svc_name_image(const char *task, const char *service)
{
	char *s = xasprintf("%s-%s", task, service);

	for (char *c = s; *c; c++)
		if (*c >= 'A' && *c <= 'Z')
			*c = (char)(*c - 'A' + 'a');
	return s;
}
