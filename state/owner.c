#define TE_WITH_SQLITE
#include "state/owner.h"
#include "state/ledger.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/err.h"
#include "common/mem.h"
#include "state/sqlite.h"

long long state_proc_start(long long pid)
{
	char path[64], buf[1024];
	const char *p;
	long long v = -1;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%lld/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* The command name may hold spaces and ')': fields restart after the last ')'. */
	p = strrchr(buf, ')');
	if (!p)
		return -1;
	/* After ") " come fields 3..; the start time is field 22. */
	for (int field = 2; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (p && sscanf(p + 1, "%lld", &v) != 1)
		return -1;
	return v;
}

int state_owner_of(long long pid, struct state_owner *o, struct te_err *err)
{
	const struct passwd *pw = getpwuid(getuid());

	memset(o, 0, sizeof(*o));
	o->pid = pid ? pid : (long long)getpid();
	o->start = state_proc_start(o->pid);
	if (o->start < 0)
		return te_err_set(err, TE_E_IO, "owner pid %lld: cannot read /proc/%lld/stat", o->pid,
				  o->pid);
	if (gethostname(o->host, sizeof(o->host) - 1) < 0)
		return te_err_set(err, TE_E_IO, "gethostname: %s", strerror(errno));
	if (pw && pw->pw_name)
		snprintf(o->user, sizeof(o->user), "%s", pw->pw_name);
	else
		snprintf(o->user, sizeof(o->user), "%u", (unsigned)getuid());
	return 0;
}

bool state_task_owner_live(const struct state_task *t)
{
	char host[256] = {0};

	if (!t->owner_host || t->owner_pid <= 0)
		return false;
	if (gethostname(host, sizeof(host) - 1) < 0 || strcmp(host, t->owner_host) != 0)
		return true;
	if (kill((pid_t)t->owner_pid, 0) < 0 && errno == ESRCH)
		return false;
	return state_proc_start(t->owner_pid) == t->owner_start;
}

static int update_task(struct ledger *l, const char *name, const char *sql, const struct ledger_arg *a,
		       size_t n, struct te_err *err)
{
	int changes;

	if (ledger_run(l, sql, a, n, &changes, err) < 0)
		return -1;
	if (changes == 0)
		return te_err_set(err, TE_E_NOTFOUND, "task '%s' is not in the ledger", name);
	return 0;
}

int state_task_set_owner(struct ledger *l, const char *name, const struct state_owner *o,
			 long long lease_expires, struct te_err *err)
{
	static const char sql[] = "UPDATE tasks SET owner_host = ?2, owner_pid = ?3, owner_start = ?4,"
				  " owner_user = ?5, lease_expires = ?6, updated = ?7 WHERE name = ?1";
	const struct ledger_arg a[] = {LEDGER_S(name),	      LEDGER_S(o->host), LEDGER_I(o->pid),
				       LEDGER_I(o->start),    LEDGER_S(o->user), LEDGER_I(lease_expires),
				       LEDGER_I(ledger_now())};

	return update_task(l, name, sql, a, LEDGER_NARGS(a), err);
}

int state_task_set_retention(struct ledger *l, const char *name, long long until, const char *who,
			     const char *reason, struct te_err *err)
{
	static const char sql[] = "UPDATE tasks SET retain_until = ?2, retain_owner = ?3,"
				  " retain_reason = ?4, updated = ?5 WHERE name = ?1";
	const struct ledger_arg a[] = {LEDGER_S(name), LEDGER_I(until), LEDGER_S(who), LEDGER_S(reason),
				       LEDGER_I(ledger_now())};

	return update_task(l, name, sql, a, LEDGER_NARGS(a), err);
}

long long state_task_deadline(const struct state_task *t)
{
	return t->retain_until ? t->retain_until : t->lease_expires;
}

static int lock_open(struct ledger *l, const char *task, char **path_out, struct te_err *err)
{
	te_autofree char *dir = xasprintf("%s.locks", state_path(l));
	char *path = xasprintf("%s/%s.lock", dir, task);
	int fd;

	*path_out = path;
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return te_err_set(err, TE_E_IO, "create lock directory '%s': %s", dir, strerror(errno));
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return te_err_set(err, TE_E_IO, "open lock '%s': %s", path, strerror(errno));
	return fd;
}

/* The holder writes who it is into the lock file, for a waiter to say. */
static void lock_sign(struct ledger *l, int fd)
{
	char line[96];
	int n = snprintf(line, sizeof(line), "%lld %s\n", (long long)getpid(), l->verb ? l->verb : "?");

	if (ftruncate(fd, 0) == 0 && n > 0 && pwrite(fd, line, (size_t)n, 0) < 0)
		return; /* only a courtesy to a waiter */
}

/* 0 locked, 1 held by another process, -1 error (FD closed unless locked). */
static int lock_try(int fd, bool wait, const char *path, struct te_err *err)
{
	while (flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) < 0) {
		int e = errno;

		if (e == EINTR)
			continue;
		if (e == EWOULDBLOCK)
			return 1;
		close(fd);
		return te_err_set(err, TE_E_IO, "lock '%s': %s", path, strerror(e));
	}
	return 0;
}

int state_task_lock(struct ledger *l, const char *task, bool wait, int *fd_out, struct te_err *err)
{
	te_autofree char *path = NULL;
	int fd = lock_open(l, task, &path, err), rc;

	*fd_out = -1;
	if (fd < 0)
		return -1;
	rc = lock_try(fd, wait, path, err);
	if (rc < 0)
		return -1;
	if (rc == 1) {
		close(fd);
		return 1;
	}
	lock_sign(l, fd);
	*fd_out = fd;
	return 0;
}

static void lock_holder(int fd, long long *pid, char *verb, size_t verbn)
{
	char buf[96] = "";
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	char *end = NULL;

	*pid = 0;
	snprintf(verb, verbn, "?");
	if (n <= 0)
		return;
	buf[n] = '\0';
	*pid = strtoll(buf, &end, 10);
	if (end && *end == ' ')
		snprintf(verb, verbn, "%.*s", (int)strcspn(end + 1, "\n"), end + 1);
}

int state_task_lock_wait(struct ledger *l, const char *task, state_lock_wait_fn waiting, void *ctx,
			 int *fd_out, struct te_err *err)
{
	te_autofree char *path = NULL;
	const struct timespec nap = {0, 200 * 1000 * 1000};
	int fd = lock_open(l, task, &path, err), rc;
	time_t start = time(NULL), said = 0;

	*fd_out = -1;
	if (fd < 0)
		return -1;
	for (;;) {
		time_t now = time(NULL);

		rc = lock_try(fd, !waiting, path, err);
		if (rc != 1)
			break;
		/* Said at once, then every 5 s while it lasts. */
		if (!said || now - said >= 5) {
			long long pid;
			char verb[32];

			lock_holder(fd, &pid, verb, sizeof(verb));
			waiting(ctx, pid, verb, (long long)(now - start));
			said = now;
		}
		nanosleep(&nap, NULL);
	}
	if (rc < 0)
		return -1;
	lock_sign(l, fd);
	*fd_out = fd;
	return 0;
}

void state_task_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}
