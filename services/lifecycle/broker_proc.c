/* The broker process: where its socket lives, starting it detached,
 * stopping it, and its ledger row (broker.h). */
#include "services/lifecycle/broker.h"
#include "services/lifecycle/broker_int.h"
#include "services/lifecycle/reskind.h"
#include "services/model/compose.h"
#include "engine/engine.h"
#include "state/ledger.h"
#include "state/owner.h"
#include "common/err.h"
#include "common/io.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SUN_PATH_MAX (sizeof(((struct sockaddr_un *)0)->sun_path) - 1)
#define START_WAIT_MS 10000
#define STOP_WAIT_MS 5000

char *svc_broker_base(const char *runtime_dir)
{
	if (runtime_dir && *runtime_dir == '/')
		return xasprintf("%s/taskenv", runtime_dir);
	if (geteuid() == 0)
		return xstrdup("/run/taskenv");
	return xasprintf("/tmp/taskenv-%u", (unsigned)geteuid());
}

char *svc_broker_socket_path(const char *base, const char *ledger_id, const char *task, struct te_err *err)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	te_autofree char *key = xasprintf("%s\n%s", ledger_id, task);
	char hex[13];
	char *path;

	if (!EVP_Digest(key, strlen(key), md, &mdlen, EVP_sha256(), NULL))
		return te_err_set(err, TE_E_FAIL, "sha256 failed"), NULL;
	for (int i = 0; i < 6; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	path = xasprintf("%s/%s/" SVC_BROKER_SOCKET, base, hex);
	if (strlen(path) > SUN_PATH_MAX) {
		te_err_set(err, TE_E_USAGE,
			   "broker socket '%s' is %zu bytes, over the %zu a UNIX socket address holds; "
			   "set broker.dir (TASKENV_BROKER_DIR) to a shorter directory",
			   path, strlen(path), SUN_PATH_MAX);
		free(path);
		return NULL;
	}
	return path;
}

char *svc_broker_dir_path(const char *base, const char *ledger_id, const char *task, struct te_err *err)
{
	char *path = svc_broker_socket_path(base, ledger_id, task, err);

	if (path)
		*strrchr(path, '/') = '\0';
	return path;
}

/* ---- the process ---- */

static int parse_ref(const char *engine_id, long long *pid, long long *start)
{
	return engine_id && sscanf(engine_id, "%lld:%lld", pid, start) == 2 && *pid > 0 ? 0 : -1;
}

bool svc_broker_proc_alive(const char *engine_id)
{
	long long pid, start;

	return parse_ref(engine_id, &pid, &start) == 0 && state_proc_start(pid) == start;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

int svc_broker_proc_stop(const char *socket, const char *engine_id, struct te_err *err)
{
	long long pid, start;

	if (parse_ref(engine_id, &pid, &start) == 0 && state_proc_start(pid) == start) {
		kill((pid_t)pid, SIGTERM);
		for (long ms = 0; ms < STOP_WAIT_MS && state_proc_start(pid) == start; ms += 20)
			sleep_ms(20);
		if (state_proc_start(pid) == start && kill((pid_t)pid, SIGKILL) < 0 && errno != ESRCH)
			return te_err_set(err, TE_E_IO, "broker pid %lld: kill: %s", pid, strerror(errno));
	}
	/* Its own exit removes the socket; one killed or crashed leaves it. */
	if (socket)
		svc_broker_unlink(socket);
	return 0;
}

void svc_broker_unlink(const char *socket)
{
	struct stat st;

	if (lstat(socket, &st) == 0 && S_ISSOCK(st.st_mode))
		unlink(socket);
}

/* DIR exists as a directory of ours that nobody else may enter, or is made so. */
static int own_dir(const char *dir, mode_t mode, struct te_err *err)
{
	struct stat st;

	if (mkdir(dir, mode) < 0 && errno != EEXIST)
		return te_err_set(err, TE_E_IO, "broker directory '%s': %s", dir, strerror(errno));
	if (lstat(dir, &st) < 0)
		return te_err_set(err, TE_E_IO, "broker directory '%s': %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid())
		return te_err_set(err, TE_E_IO, "broker directory '%s' is not a directory of uid %u", dir,
				  (unsigned)geteuid());
	if ((st.st_mode & 0777) != mode && chmod(dir, mode) < 0)
		return te_err_set(err, TE_E_IO, "broker directory '%s': chmod: %s", dir, strerror(errno));
	return 0;
}

/* Does anything answer on SOCKET? */
static bool answers(const struct sockaddr_un *a)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool yes = fd >= 0 && connect(fd, (const struct sockaddr *)a, sizeof(*a)) == 0;

	if (fd >= 0)
		close(fd);
	return yes;
}

int svc_broker_listen(const char *socket_path, struct te_err *err)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	te_autofree char *dir = xstrdup(socket_path);
	char *slash = strrchr(dir, '/');
	struct stat st;
	int fd;

	if (!slash || strlen(socket_path) > SUN_PATH_MAX)
		return te_err_set(err, TE_E_USAGE, "broker socket '%s' is not a usable path", socket_path);
	memcpy(a.sun_path, socket_path, strlen(socket_path) + 1);
	*slash = '\0';
	{
		te_autofree char *base = xstrdup(dir);
		char *s2 = strrchr(base, '/');

		if (s2 && s2 != base) {
			*s2 = '\0';
			if (own_dir(base, 0700, err) < 0)
				return -1;
		}
	}
	/* The base is the host user's alone; the task's directory below it
	 * and the socket let in whoever reaches them: only a container the
	 * directory is bound into (x-taskenv.engine: broker), whatever its
	 * user. */
	if (own_dir(dir, 0711, err) < 0)
		return -1;
	if (lstat(socket_path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			return te_err_set(err, TE_E_CONFLICT, "'%s' exists and is not a socket", socket_path);
		if (answers(&a))
			return te_err_set(err, TE_E_CONFLICT, "a broker already listens on '%s'",
					  socket_path);
		unlink(socket_path); /* stale: its broker died without removing it */
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return te_err_set(err, TE_E_IO, "socket: %s", strerror(errno));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || chmod(socket_path, 0666) < 0 ||
	    listen(fd, 128) < 0) {
		te_err_set(err, TE_E_IO, "broker socket '%s': %s", socket_path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* ---- rows ---- */

static const char *kind(void)
{
	return svc_res_kind_name(SVC_RES_BROKER);
}

/* TASK's rows that are not removed (*rows owned); is_broker picks the broker's. */
static int broker_rows(struct ledger *l, const char *task, struct state_resource **rows, size_t *n,
		       struct te_err *err)
{
	return state_resource_list(l, task, false, rows, n, err);
}

static bool is_broker(const struct state_resource *r)
{
	return strcmp(r->kind, kind()) == 0;
}

void svc_broker_release(struct ledger *l, const char *task)
{
	struct state_resource *rows = NULL;
	struct te_err ignored = {0};
	size_t n = 0;

	if (state_resource_list(l, task, true, &rows, &n, &ignored) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		char *slash = strrchr(rows[i].name, '/');

		if (!is_broker(&rows[i]) || !slash || svc_broker_proc_alive(rows[i].engine_id))
			continue;
		svc_broker_unlink(rows[i].name);
		*slash = '\0';
		rmdir(rows[i].name); /* only when empty */
	}
	state_resources_free(rows, n);
}

int svc_broker_stop(struct ledger *l, const char *task, int *stopped, struct te_err *err)
{
	struct state_resource *rows = NULL;
	size_t n = 0;
	int rc = 0;

	if (stopped)
		*stopped = 0;
	if (broker_rows(l, task, &rows, &n, err) < 0)
		return -1;
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (!is_broker(&rows[i]))
			continue;
		if (stopped && svc_broker_proc_alive(rows[i].engine_id))
			(*stopped)++;
		rc = svc_broker_proc_stop(rows[i].name, rows[i].engine_id, err);
		if (rc == 0)
			rc = state_resource_set_state(l, rows[i].id, STATE_REMOVED, err);
	}
	state_resources_free(rows, n);
	return rc;
}

int svc_broker_status(struct ledger *l, const char *task, struct svc_broker_info *info, struct te_err *err)
{
	struct state_resource *rows = NULL;
	size_t n = 0;

	memset(info, 0, sizeof(*info));
	if (broker_rows(l, task, &rows, &n, err) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		long long pid = 0, start = 0;

		if (!is_broker(&rows[i]))
			continue;
		snprintf(info->socket, sizeof(info->socket), "%s", rows[i].name);
		info->running = svc_broker_proc_alive(rows[i].engine_id);
		if (parse_ref(rows[i].engine_id, &pid, &start) == 0)
			info->pid = pid;
	}
	state_resources_free(rows, n);
	return 0;
}

char *svc_broker_dir_of(struct ledger *l, const char *task)
{
	struct svc_broker_info info;
	struct te_err ignored = {0};
	char *slash;

	if (svc_broker_status(l, task, &info, &ignored) < 0 || !info.socket[0])
		return NULL;
	slash = strrchr(info.socket, '/');
	return slash ? xstrndup(info.socket, (size_t)(slash - info.socket)) : NULL;
}

int svc_broker_env(struct ledger *l, const char *task, char ***v, struct te_err *err)
{
	struct svc_broker_info info;

	if (svc_broker_status(l, task, &info, err) < 0)
		return -1;
	if (info.running)
		*v = te_strv_push(*v, xasprintf("TASKENV_DOCKER_HOST=unix://%s", info.socket));
	return 0;
}

/* `EXE --state L --host unix://ENGINE --broker-serve TASK` in a session of
 * its own, stdio on /dev/null, no descriptor of ours (as svc_pool_spawn). */
static int spawn(struct ledger *l, struct engine *e, const char *task, struct te_err *err)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	te_autofree char *host = NULL;

	if (n < 0)
		return te_err_set(err, TE_E_IO, "readlink /proc/self/exe: %s", strerror(errno));
	exe[n] = '\0';
	host = xasprintf("unix://%s", engine_socket(e));
	{
		char *argv[] = {exe,  "--state",	(char *)state_path(l), "--host",
				host, "--broker-serve", (char *)task,	       NULL};

		return te_spawn_detached(argv, err);
	}
}

/* The row ID as it is now: 1 listening, 0 not yet, -1 failed (*err). */
static int started(struct ledger *l, const char *task, long long id, struct svc_broker_info *info,
		   struct te_err *err)
{
	struct state_resource *rows = NULL;
	size_t n = 0;
	int rc = -1;

	if (state_resource_list(l, task, true, &rows, &n, err) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		long long start = 0;

		if (rows[i].id != id)
			continue;
		if (strcmp(rows[i].state, STATE_CREATED) == 0) {
			parse_ref(rows[i].engine_id, &info->pid, &start);
			rc = 1;
		} else if (strcmp(rows[i].state, STATE_INTENDED) == 0) {
			rc = 0;
		} else {
			te_autojson cJSON *d = rows[i].detail ? cJSON_Parse(rows[i].detail) : NULL;
			const char *m = cJSON_GetStringValue(cJSON_GetObjectItem(d, "error"));

			te_err_set(err, TE_E_FAIL, "broker of task '%s' did not start: %s", task,
				   m ? m : "it stopped");
		}
	}
	state_resources_free(rows, n);
	return rc;
}

int svc_broker_start(struct ledger *l, struct engine *e, const char *task, const char *base,
		     struct svc_broker_info *info, struct te_err *err)
{
	te_autofree char *path = svc_broker_socket_path(base, state_ledger_id(l), task, err);
	struct svc_broker_info now;
	long long id = 0;
	int rc = 0;

	memset(info, 0, sizeof(*info));
	if (!path || svc_broker_status(l, task, &now, err) < 0)
		return -1;
	if (now.running && strcmp(now.socket, path) == 0) {
		*info = now;
		return 0;
	}
	/* A dead broker (crashed, killed) or one at another path: cleared. */
	if (now.socket[0] && svc_broker_stop(l, task, NULL, err) < 0)
		return -1;
	if (state_resource_intend(l, task, kind(), path, NULL, &id, err) < 0 || spawn(l, e, task, err) < 0)
		return -1;
	for (long ms = 0; ms < START_WAIT_MS && rc == 0; ms += 20) {
		sleep_ms(20);
		rc = started(l, task, id, info, err);
	}
	if (rc == 0) {
		te_err_set(err, TE_E_FAIL, "broker of task '%s' did not start listening within %d s", task,
			   START_WAIT_MS / 1000);
		state_resource_set_state(l, id, STATE_REMOVED, NULL);
		return -1;
	}
	if (rc < 0)
		return -1;
	info->running = true;
	snprintf(info->socket, sizeof(info->socket), "%s", path);
	return 0;
}
