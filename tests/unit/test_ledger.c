/* Unit tests for state/ledger.c on a temporary sqlite file. */
#define TE_WITH_SQLITE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/err.h"
#include "common/mem.h"
#include "state/ledger.h"
#include "state/owner.h"
#include "state/subnets.h"
#include "state/sqlite.h" /* the handle, to write PRAGMA user_version */

struct fx {
	char *dir;  /* the mkdtemp directory, removed in teardown */
	char *path; /* DIR/sub/dir/state.db: two parents to create */
};

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	return remove(p);
}

static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR");
	struct fx *f = xcalloc(1, sizeof(*f));

	f->dir = xasprintf("%s/te-ledger-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(f->dir))
		return -1;
	f->path = xasprintf("%s/sub/dir/state.db", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	nftw(f->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(f->dir);
	free(f->path);
	free(f);
	return 0;
}

static struct ledger *open_ok(const char *path)
{
	struct te_err err = {0};
	struct ledger *l = state_open(path, &err);

	if (!l)
		fail_msg("state_open: %s", err.msg);
	return l;
}

/* First column of the first row of SQL, read through a separate read-only
 * connection so we see what is on disk, not what the handle caches. */
static char *raw_text(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	char *out = NULL;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		out = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return out;
}

static long long raw_int(const char *path, const char *sql)
{
	te_autofree char *s = raw_text(path, sql);

	assert_non_null(s);
	return strtoll(s, NULL, 10);
}

static void test_open_creates_private_wal_db(void **state)
{
	struct fx *f = *state;
	struct ledger *l = open_ok(f->path);
	te_autofree char *parent = xasprintf("%s/sub/dir", f->dir);
	te_autofree char *mode = NULL;
	struct stat sb;
	const char *id = state_ledger_id(l);

	assert_int_equal(stat(f->path, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0600);
	assert_int_equal(stat(parent, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0700);
	assert_string_equal(state_path(l), f->path);
	assert_int_equal(strlen(id), 16);
	assert_int_equal(strspn(id, "0123456789abcdef"), 16);
	mode = raw_text(f->path, "PRAGMA journal_mode");
	assert_string_equal(mode, "wal");
	assert_int_equal(raw_int(f->path, "PRAGMA user_version"), state_schema_version());
	state_close(l);
}

/* An existing ledger keeps the mode its owner gave it. (An existing empty
 * file is no ledger: test_empty_file_refused.) */
static void test_existing_file_mode_kept(void **state)
{
	struct fx *f = *state;
	te_autofree char *path = xasprintf("%s/mine.db", f->dir);
	struct ledger *l = open_ok(path);
	struct stat sb;

	state_close(l);
	assert_int_equal(chmod(path, 0640), 0);
	l = open_ok(path);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0640);
	state_close(l);
}

/* A zero-length ledger file (truncated, or replaced) is refused, not
 * initialised over with a new id; the file is left as it was. A new
 * ledger is made under a temporary name first, so none is left beside it. */
static void test_empty_file_refused(void **state)
{
	struct fx *f = *state;
	te_autofree char *path = xasprintf("%s/empty.db", f->dir);
	te_autofree char *id = NULL;
	te_autofree char *file = NULL;
	te_autofree char *own = xasprintf("%s/own.db", f->dir);
	FILE *fp = fopen(path, "w");
	struct te_err err = {0};
	struct ledger *l;
	struct stat sb;

	assert_non_null(fp);
	fclose(fp);
	assert_null(state_open(path, &err));
	assert_int_equal(err.code, TE_E_STATE);
	assert_non_null(strstr(err.msg, "is empty (0 bytes)"));
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_size, 0);
	/* The ids of the ledger files in a directory. */
	assert_int_equal(state_ledger_id_of_file(path, &id, &err), 0);
	l = open_ok(own);
	assert_int_equal(state_ledger_find_id(f->dir, state_ledger_id(l), &file, &err), 1);
	assert_string_equal(file, own);
	free(TE_STEAL(file));
	assert_int_equal(state_ledger_find_id(f->dir, "0000000000000000", &file, &err), 0);
	assert_null(file);
	state_close(l);
}

static void test_open_errors(void **state)
{
	struct fx *f = *state;
	te_autofree char *blocker = xasprintf("%s/file", f->dir);
	te_autofree char *below = xasprintf("%s/file/state.db", f->dir);
	struct te_err err = {0};
	FILE *fp = fopen(blocker, "w");

	assert_non_null(fp);
	fputs("not a directory", fp);
	fclose(fp);
	assert_null(state_open(below, &err));
	assert_int_equal(err.code, TE_E_IO);
	/* A file that is not a database: sqlite's message, under TE_E_STATE. */
	assert_null(state_open(blocker, &err));
	assert_int_equal(err.code, TE_E_STATE);
	assert_non_null(strstr(err.msg, "ledger '"));
	assert_non_null(strstr(err.msg, "not a database"));
}

static void test_reopen_keeps_id(void **state)
{
	struct fx *f = *state;
	struct ledger *l = open_ok(f->path);
	char id[17];

	snprintf(id, sizeof(id), "%s", state_ledger_id(l));
	state_close(l);
	l = open_ok(f->path);
	assert_string_equal(state_ledger_id(l), id);
	state_close(l);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM meta"), 1);
	assert_int_equal(raw_int(f->path, "PRAGMA user_version"), state_schema_version());
}

static void test_newer_schema_refused(void **state)
{
	struct fx *f = *state;
	struct ledger *l = open_ok(f->path);
	struct te_err err = {0};
	char sql[64];

	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", state_schema_version() + 1);
	assert_int_equal(sqlite3_exec(l->db, sql, NULL, NULL, NULL), SQLITE_OK);
	state_close(l);
	assert_null(state_open(f->path, &err));
	assert_int_equal(err.code, TE_E_STATE);
	assert_non_null(strstr(err.msg, "is newer than this taskenv"));
}

/* Migration 7: a ledger of version 6 keeps its port rows, now replica 1. */
static void test_ports_gain_replica(void **state)
{
	struct fx *f = *state;
	struct ledger *l = open_ok(f->path);
	struct te_err err = {0};
	struct state_port *ports = NULL;
	size_t n = 0;
	int port = 0;

	assert_int_equal(
	    sqlite3_exec(
		l->db,
		"DROP TABLE ports;"
		"CREATE TABLE ports(host_ip TEXT NOT NULL, host_port INTEGER NOT NULL, proto TEXT NOT NULL,"
		" task TEXT NOT NULL, service TEXT NOT NULL, container_port INTEGER NOT NULL,"
		" created INTEGER NOT NULL, PRIMARY KEY(host_ip, host_port, proto),"
		" UNIQUE(task, service, container_port, proto));"
		"INSERT INTO ports VALUES('127.0.0.1', 21005, 'tcp', 'old', 'web', 80, 1);"
		/* The columns of later migrations go too: a version 6 ledger had none. */
		"ALTER TABLE tasks DROP COLUMN engine_id;"
		"PRAGMA user_version = 6;",
		NULL, NULL, NULL),
	    SQLITE_OK);
	state_close(l);
	l = open_ok(f->path);
	assert_int_equal(raw_int(f->path, "PRAGMA user_version"), state_schema_version());
	assert_int_equal(state_port_list(l, "old", &ports, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(ports[0].replica, 1);
	assert_int_equal(ports[0].host_port, 21005);
	state_ports_free(ports, n);
	/* The old row is replica 1's: the same port comes back for it. */
	assert_int_equal(
	    state_port_reserve(l, "old", "web", 80, "tcp", NULL, 0, 21000, 21009, NULL, NULL, &port, &err),
	    0);
	assert_int_equal(port, 21005);
	state_close(l);
}

static void test_tasks(void **state)
{
	struct fx *f = *state;
	struct ledger *l = open_ok(f->path);
	struct te_err err = {0};
	struct state_task t, *v = NULL;
	long long created;
	size_t n = 0;

	assert_int_equal(state_task_upsert(l, "beta", "/p/b", "[\"/p/b/c.yml\"]", "/run/d.sock", "up", &err),
			 0);
	assert_int_equal(state_task_upsert(l, "alpha", NULL, NULL, NULL, "partial", &err), 0);
	assert_int_equal(state_task_get(l, "beta", &t, &err), 0);
	assert_string_equal(t.project_dir, "/p/b");
	assert_string_equal(t.compose_files, "[\"/p/b/c.yml\"]");
	assert_string_equal(t.engine, "/run/d.sock");
	assert_string_equal(t.status, "up");
	assert_true(t.created > 0 && t.updated >= t.created);
	created = t.created;
	state_task_release(&t);

	/* Upsert updates every field but keeps created. */
	assert_int_equal(state_task_upsert(l, "beta", "/q", NULL, "/x.sock", "down", &err), 0);
	assert_int_equal(state_task_get(l, "beta", &t, &err), 0);
	assert_string_equal(t.project_dir, "/q");
	assert_null(t.compose_files);
	assert_string_equal(t.status, "down");
	assert_int_equal(t.created, created);
	state_task_release(&t);

	assert_int_equal(state_task_set_status(l, "alpha", "up", &err), 0);
	assert_int_equal(state_task_list(l, &v, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].name, "alpha");
	assert_string_equal(v[0].status, "up");
	assert_null(v[0].project_dir);
	assert_string_equal(v[1].name, "beta");
	state_tasks_free(v, n);

	assert_int_equal(state_task_get(l, "gamma", &t, &err), -1);
	assert_int_equal(err.code, TE_E_NOTFOUND);
	assert_string_equal(err.msg, "task 'gamma' is not in the ledger");
	assert_int_equal(state_task_set_status(l, "gamma", "up", &err), -1);
	assert_int_equal(err.code, TE_E_NOTFOUND);
	state_close(l);
}

static void test_task_delete_refused_while_owning(void **state)
{
	struct fx *f = *state;
	struct ledger *l = open_ok(f->path);
	struct te_err err = {0};
	struct state_resource *v = NULL;
	struct state_task t;
	size_t n = 0;
	long long id;
	int port;

	assert_int_equal(state_task_upsert(l, "t1", "/p", NULL, NULL, "up", &err), 0);
	assert_int_equal(state_resource_intend(l, "t1", "network", "t1_default", NULL, &id, &err), 0);
	assert_int_equal(state_task_delete(l, "t1", &err), -1);
	assert_int_equal(err.code, TE_E_CONFLICT);
	assert_string_equal(err.msg, "task 't1' still owns 1 resources and 0 port reservations "
				     "in the ledger");
	assert_int_equal(state_task_get(l, "t1", &t, &err), 0);
	state_task_release(&t);

	/* Pending still counts as owned. */
	assert_int_equal(state_resource_set_state(l, id, STATE_PENDING, &err), 0);
	assert_int_equal(state_task_delete(l, "t1", &err), -1);
	assert_int_equal(err.code, TE_E_CONFLICT);

	assert_int_equal(state_resource_set_state(l, id, STATE_REMOVED, &err), 0);
	assert_int_equal(
	    state_port_reserve(l, "t1", "web", 80, "tcp", NULL, 0, 41000, 41009, NULL, NULL, &port, &err), 0);
	assert_int_equal(state_task_delete(l, "t1", &err), -1);
	assert_int_equal(err.code, TE_E_CONFLICT);
	assert_non_null(strstr(err.msg, "0 resources and 1 port reservations"));

	assert_int_equal(state_port_release_task(l, "t1", &err), 0);
	assert_int_equal(state_task_delete(l, "t1", &err), 0);
	assert_int_equal(state_task_get(l, "t1", &t, &err), -1);
	assert_int_equal(err.code, TE_E_NOTFOUND);
	/* Removed rows go with the task. */
	assert_int_equal(state_resource_list(l, "t1", true, &v, &n, &err), 0);
	assert_int_equal(n, 0);
	state_resources_free(v, n);

	assert_int_equal(state_task_delete(l, "t1", &err), -1);
	assert_int_equal(err.code, TE_E_NOTFOUND);
	state_close(l);
}

static void test_resource_lifecycle(void **state)
{
	static const struct {
		const char *state;
		size_t active; /* rows listed without removed */
	} steps[] = {
	    {STATE_CREATED, 1},	 {STATE_REMOVING, 1}, {STATE_PENDING, 1},
	    {STATE_REMOVING, 1}, {STATE_REMOVED, 0},
	};
	struct fx *f = *state;
	struct ledger *l = open_ok(f->path);
	struct te_err err = {0};
	struct state_resource *v = NULL;
	size_t n = 0;
	long long id;

	assert_int_equal(state_resource_intend(l, "t1", "container", "t1-app-1", "app", &id, &err), 0);
	assert_int_equal(state_resource_list(l, "t1", false, &v, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(v[0].id, id);
	assert_string_equal(v[0].task, "t1");
	assert_string_equal(v[0].kind, "container");
	assert_string_equal(v[0].name, "t1-app-1");
	assert_string_equal(v[0].service, "app");
	assert_string_equal(v[0].state, STATE_INTENDED);
	assert_null(v[0].engine_id);
	assert_null(v[0].detail);
	state_resources_free(v, n);

	assert_int_equal(state_resource_set_detail(l, id, "{\"image\":\"x\"}", &err), 0);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		if (strcmp(steps[i].state, STATE_CREATED) == 0)
			assert_int_equal(state_resource_created(l, id, "abc123", &err), 0);
		else
			assert_int_equal(state_resource_set_state(l, id, steps[i].state, &err), 0);
		assert_int_equal(state_resource_list(l, "t1", false, &v, &n, &err), 0);
		assert_int_equal(n, steps[i].active);
		state_resources_free(v, n);
		assert_int_equal(state_resource_list(l, "t1", true, &v, &n, &err), 0);
		assert_int_equal(n, 1);
		assert_string_equal(v[0].state, steps[i].state);
		assert_string_equal(v[0].engine_id, "abc123");
		assert_string_equal(v[0].detail, "{\"image\":\"x\"}");
		state_resources_free(v, n);
	}
	assert_int_equal(state_resource_set_detail(l, id, NULL, &err), 0);
	assert_int_equal(state_resource_list(l, "t1", true, &v, &n, &err), 0);
	assert_null(v[0].detail);
	state_resources_free(v, n);
	state_close(l);
}

static void test_resource_errors(void **state)
{
	struct fx *f = *state;
	struct ledger *l = open_ok(f->path);
	struct te_err err = {0};
	long long id;

	assert_int_equal(state_resource_intend(l, "t1", "volume", "t1_data", NULL, &id, &err), 0);
	assert_int_equal(state_resource_set_state(l, id, "gone", &err), -1);
	assert_int_equal(err.code, TE_E_STATE);
	assert_non_null(strstr(err.msg, "unknown resource state 'gone'"));
	assert_int_equal(state_resource_created(l, id + 100, "x", &err), -1);
	assert_int_equal(err.code, TE_E_NOTFOUND);
	assert_int_equal(state_resource_set_state(l, id + 100, STATE_REMOVED, &err), -1);
	assert_int_equal(err.code, TE_E_NOTFOUND);
	assert_int_equal(state_resource_set_detail(l, id + 100, "{}", &err), -1);
	assert_int_equal(err.code, TE_E_NOTFOUND);
	state_close(l);
}

static void test_intend_idempotent_conflict_reintend(void **state)
{
	struct fx *f = *state;
	struct ledger *l = open_ok(f->path);
	struct te_err err = {0};
	struct state_resource *v = NULL;
	size_t n = 0;
	long long id1, id2, id3 = -7;

	assert_int_equal(state_resource_intend(l, "t1", "network", "shared", NULL, &id1, &err), 0);
	assert_int_equal(state_resource_created(l, id1, "net1", &err), 0);
	assert_int_equal(state_resource_intend(l, "t1", "network", "shared", NULL, &id2, &err), 0);
	assert_int_equal(id2, id1);

	assert_int_equal(state_resource_intend(l, "t2", "network", "shared", NULL, &id3, &err), -1);
	assert_int_equal(err.code, TE_E_CONFLICT);
	assert_string_equal(err.msg, "network 'shared' is already owned by task 't1' in this ledger");
	assert_int_equal(id3, -7);
	/* Same name, another kind: no clash. */
	assert_int_equal(state_resource_intend(l, "t2", "volume", "shared", NULL, &id3, &err), 0);
	assert_true(id3 != id1);

	assert_int_equal(state_resource_set_state(l, id1, STATE_REMOVED, &err), 0);
	assert_int_equal(state_resource_intend(l, "t2", "network", "shared", NULL, &id2, &err), 0);
	assert_true(id2 != id1 && id2 != id3);
	assert_int_equal(state_resource_list(l, "t1", true, &v, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].state, STATE_REMOVED);
	state_resources_free(v, n);
	assert_int_equal(state_resource_list(l, "t2", false, &v, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[0].id, id3); /* insertion order */
	assert_int_equal(v[1].id, id2);
	assert_string_equal(v[1].state, STATE_INTENDED);
	state_resources_free(v, n);
	state_close(l);
}

static int wait_child(pid_t pid)
{
	int st = 0;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void test_crash_leaves_intended_row(void **state)
{
	struct fx *f = *state;
	struct te_err err = {0};
	struct state_resource *v = NULL;
	struct ledger *l;
	size_t n = 0;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		struct ledger *cl = state_open(f->path, &err);
		long long id;

		if (!cl || state_resource_intend(cl, "t1", "container", "t1-app-1", "app", &id, &err) < 0)
			_exit(1);
		/* No created, no close: killed as common/fault.c would (and
		 * unlike _exit, valgrind does no leak pass over the open handle). */
		kill(getpid(), SIGKILL);
		_exit(3);
	}
	assert_int_equal(wait_child(pid), 128 + SIGKILL);
	l = open_ok(f->path);
	assert_int_equal(state_resource_list(l, "t1", false, &v, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].state, STATE_INTENDED);
	assert_string_equal(v[0].name, "t1-app-1");
	assert_null(v[0].engine_id);
	state_resources_free(v, n);
	state_close(l);
}

/* Child of the concurrent-open test: wait for the start signal (EOF on
 * GO), open, write the ledger id and a newline to OUT. */
static void concurrent_child(const char *path, int go, int out)
{
	struct te_err err = {0};
	struct ledger *l;
	char c, line[18];

	while (read(go, &c, 1) > 0)
		;
	l = state_open(path, &err);
	if (!l) {
		fprintf(stderr, "child %d: %s\n", (int)getpid(), err.msg);
		_exit(1);
	}
	snprintf(line, sizeof(line), "%s\n", state_ledger_id(l));
	if (write(out, line, 17) != 17)
		_exit(2);
	state_close(l);
	_exit(0);
}

static void concurrent_round(const char *path)
{
	enum { NCHILD = 4 };
	pid_t pids[NCHILD];
	int go[2], ids[2];
	char buf[NCHILD * 17 + 1];
	size_t got = 0;
	ssize_t r;
	struct ledger *l;

	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(ids), 0);
	for (int i = 0; i < NCHILD; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0) {
			close(go[1]);
			close(ids[0]);
			concurrent_child(path, go[0], ids[1]);
		}
	}
	close(go[0]);
	close(ids[1]);
	close(go[1]); /* start them all at once */
	for (int i = 0; i < NCHILD; i++)
		assert_int_equal(wait_child(pids[i]), 0);
	while (got < sizeof(buf) - 1) {
		r = read(ids[0], buf + got, sizeof(buf) - 1 - got);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(ids[0]);
	buf[got] = '\0';
	assert_int_equal(got, NCHILD * 17);
	l = open_ok(path);
	for (int i = 0; i < NCHILD; i++)
		assert_memory_equal(buf + 17 * i, state_ledger_id(l), 16);
	state_close(l);
	assert_int_equal(raw_int(path, "PRAGMA user_version"), state_schema_version());
}

static void test_concurrent_fresh_open(void **state)
{
	struct fx *f = *state;

	for (int round = 0; round < 8; round++) {
		te_autofree char *path = xasprintf("%s/r%d/state.db", f->dir, round);

		concurrent_round(path);
	}
}

static void test_event_add(void **state)
{
	struct fx *f = *state;
	struct ledger *l = open_ok(f->path);
	struct te_err err = {0};
	te_autofree char *msg = NULL;

	assert_int_equal(state_event_add(l, "t1", "up", "created 3 containers", &err), 0);
	assert_int_equal(state_event_add(l, NULL, "gc", NULL, &err), 0);
	state_close(l);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM events"), 2);
	assert_true(raw_int(f->path, "SELECT min(ts) FROM events") > 0);
	msg = raw_text(f->path, "SELECT task || ':' || verb || ':' || message FROM events"
				" WHERE id = 1");
	assert_string_equal(msg, "t1:up:created 3 containers");
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM events WHERE task IS NULL"
					  " AND verb = 'gc' AND message IS NULL"),
			 1);
}

/* Every ledger change is an event with its verb, resource and outcome, in
 * the order made; the list filters by task. */
static void test_audit_trail(void **state)
{
	static const char *const want[] = {
	    "t1|up|task|starting",
	    "t1|up|port 127.0.0.1:20001->80/tcp|reserved",
	    "t1|up|container t1-web-1|intended",
	    "t1|up|container t1-web-1|created",
	    "t1|up|container t1-web-1|detail recorded",
	    "t1|down|container t1-web-1|removing",
	    "t1|down|container t1-web-1|removed",
	    "t1|down|ports|released",
	    "t1|down|task|deleted",
	};
	struct fx *f = *state;
	struct ledger *l = open_ok(f->path);
	struct te_err err = {0};
	struct state_event *ev = NULL;
	size_t n = 0;
	long long id;
	int port;

	state_set_verb(l, "up");
	assert_int_equal(state_task_upsert(l, "t1", "/p", "[]", "/s", "starting", &err), 0);
	assert_int_equal(state_task_upsert(l, "t2", "/p", "[]", "/s", "starting", &err), 0);
	assert_int_equal(
	    state_port_reserve(l, "t1", "web", 80, "tcp", NULL, 20001, 20000, 20010, NULL, NULL, &port, &err),
	    0);
	assert_int_equal(state_resource_intend(l, "t1", "container", "t1-web-1", "web", &id, &err), 0);
	assert_int_equal(state_resource_created(l, id, "abc", &err), 0);
	assert_int_equal(state_resource_set_detail(l, id, "{}", &err), 0);
	state_set_verb(l, "down");
	assert_int_equal(state_resource_set_state(l, id, STATE_REMOVING, &err), 0);
	assert_int_equal(state_resource_set_state(l, id, STATE_REMOVED, &err), 0);
	assert_int_equal(state_port_release_task(l, "t1", &err), 0);
	assert_int_equal(state_task_delete(l, "t1", &err), 0);
	assert_int_equal(state_event_list(l, "t1", &ev, &n, &err), 0);
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < n; i++) {
		te_autofree char *got =
		    xasprintf("%s|%s|%s|%s", ev[i].task, ev[i].verb, ev[i].resource, ev[i].outcome);

		assert_string_equal(got, want[i]);
		assert_true(ev[i].ts > 0);
	}
	state_events_free(ev, n);
	/* A failed change leaves no event. */
	assert_int_equal(state_resource_set_state(l, 999, STATE_REMOVED, &err), -1);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM events WHERE resource LIKE '%#999%'"), 0);
	state_close(l);
}

static void test_worktrees(void **state)
{
	struct fx *f = *state;
	struct ledger *l = open_ok(f->path);
	struct te_err err = {0};
	struct state_worktree w = {"t1", "/r/.git", "/w/t1", "task/t1", "0123abcd", "", 0}, got;

	assert_int_equal(state_worktree_add(l, &w, &err), 0);
	assert_int_equal(state_worktree_add(l, &w, &err), -1);
	assert_int_equal(err.code, TE_E_CONFLICT);
	assert_int_equal(state_worktree_get(l, "t1", &got, &err), 0);
	assert_string_equal(got.branch, "task/t1");
	assert_string_equal(got.base, "0123abcd");
	state_worktree_release(&got);
	assert_int_equal(state_worktree_find_path(l, "/w/t1/sub/dir", &got, &err), 0);
	assert_string_equal(got.task, "t1");
	state_worktree_release(&got);
	assert_int_equal(state_worktree_find_path(l, "/w/t10", &got, &err), -1);
	assert_int_equal(err.code, TE_E_NOTFOUND);
	assert_int_equal(state_worktree_delete(l, "t1", &err), 0);
	assert_int_equal(state_worktree_get(l, "t1", &got, &err), -1);
	assert_int_equal(err.code, TE_E_NOTFOUND);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM events WHERE resource = 'worktree'"), 2);
	state_close(l);
}

static void set_or_unset(const char *name, const char *value)
{
	if (value)
		setenv(name, value, 1);
	else
		unsetenv(name);
}

static void test_default_path(void **state)
{
	static const struct {
		const char *te, *xdg, *home, *want;
	} cases[] = {
	    /* TASKENV_STATE is a setting that cmd/ passes as the path: not read here */
	    {"/s/x.db", "/xdg", "/h", "/xdg/taskenv/state.db"},
	    {"", "/xdg", "/h", "/xdg/taskenv/state.db"},
	    {NULL, "/xdg", "/h", "/xdg/taskenv/state.db"},
	    {NULL, "rel", "/h", "/h/.local/state/taskenv/state.db"},
	    {NULL, "", "/h", "/h/.local/state/taskenv/state.db"},
	    {NULL, NULL, "/h", "/h/.local/state/taskenv/state.db"},
	};
	static const char *const vars[] = {"TASKENV_STATE", "XDG_STATE_HOME", "HOME"};
	char *saved[3];

	for (int i = 0; i < 3; i++)
		saved[i] = xstrdup(getenv(vars[i]));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		te_autofree char *got = NULL;

		set_or_unset("TASKENV_STATE", cases[i].te);
		set_or_unset("XDG_STATE_HOME", cases[i].xdg);
		set_or_unset("HOME", cases[i].home);
		got = state_default_path();
		assert_non_null(got);
		assert_string_equal(got, cases[i].want);
	}
	for (int i = 0; i < 3; i++) {
		set_or_unset(vars[i], saved[i]);
		free(saved[i]);
	}
}

static void test_open_default_path(void **state)
{
	char dir[] = "/tmp/te-xdg-XXXXXX";
	te_autofree char *saved = xstrdup(getenv("XDG_STATE_HOME"));
	te_autofree char *want = NULL;
	te_autofree char *rm = NULL;
	struct ledger *l;

	assert_non_null(mkdtemp(dir));
	want = xasprintf("%s/taskenv/state.db", dir);
	setenv("XDG_STATE_HOME", dir, 1);
	l = open_ok(NULL);
	set_or_unset("XDG_STATE_HOME", saved);
	assert_string_equal(state_path(l), want);
	state_close(l);
	state_close(NULL);
	rm = xasprintf("rm -rf '%s'", dir);
	assert_int_equal(system(rm), 0);
}

static void test_owner_lease_retention(void **state)
{
	struct fx *f = *state;
	struct ledger *l = open_ok(f->path);
	struct te_err err = {0};
	struct state_owner o;
	struct state_task t;
	pid_t child;
	int status;

	assert_int_equal(state_task_upsert(l, "t1", NULL, NULL, NULL, "up", &err), 0);
	assert_int_equal(state_task_get(l, "t1", &t, &err), 0);
	assert_false(state_task_owner_live(&t)); /* never recorded */
	assert_int_equal(state_task_deadline(&t), 0);
	state_task_release(&t);

	assert_int_equal(state_owner_of(0, &o, &err), 0);
	assert_int_equal(o.pid, getpid());
	assert_true(o.start > 0);
	assert_int_equal(state_task_set_owner(l, "t1", &o, 1000, &err), 0);
	assert_int_equal(state_task_get(l, "t1", &t, &err), 0);
	assert_true(state_task_owner_live(&t));
	assert_int_equal(t.lease_expires, 1000);
	assert_int_equal(state_task_deadline(&t), 1000);
	/* The same pid with another start time is a recycled pid: not live. */
	t.owner_start++;
	assert_false(state_task_owner_live(&t));
	state_task_release(&t);

	/* A process that exited is not live. */
	child = fork();
	if (child == 0)
		_exit(0);
	assert_int_equal(state_owner_of(child, &o, &err), 0);
	waitpid(child, &status, 0);
	assert_int_equal(state_task_set_owner(l, "t1", &o, 0, &err), 0);
	assert_int_equal(state_task_get(l, "t1", &t, &err), 0);
	assert_false(state_task_owner_live(&t));
	state_task_release(&t);
	assert_int_equal(state_owner_of(child, &o, &err), -1);
	assert_int_equal(err.code, TE_E_IO);

	assert_int_equal(state_task_set_retention(l, "t1", 2000, "alice", "flaky test", &err), 0);
	assert_int_equal(state_task_get(l, "t1", &t, &err), 0);
	assert_int_equal(state_task_deadline(&t), 2000);
	assert_string_equal(t.retain_owner, "alice");
	assert_string_equal(t.retain_reason, "flaky test");
	state_task_release(&t);
	assert_int_equal(state_task_set_retention(l, "nope", 1, NULL, NULL, &err), -1);
	assert_int_equal(err.code, TE_E_NOTFOUND);
	state_close(l);
}

static void test_task_lock(void **state)
{
	struct fx *f = *state;
	struct ledger *l = open_ok(f->path);
	struct te_err err = {0};
	int fd = -1, fd2 = -1, status;
	pid_t child;

	assert_int_equal(state_task_lock(l, "t1", false, &fd, &err), 0);
	assert_true(fd >= 0);
	/* Another process sees it held, and another task's lock is free. */
	child = fork();
	if (child == 0) {
		int c = -1, rc = state_task_lock(l, "t1", false, &c, &err);
		int rc2 = state_task_lock(l, "t2", false, &c, &err);

		_exit(rc == 1 && rc2 == 0 ? 0 : 1);
	}
	waitpid(child, &status, 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	state_task_unlock(fd);
	/* A holder killed by SIGKILL leaves no stale lock. */
	child = fork();
	if (child == 0) {
		int c = -1;

		state_task_lock(l, "t1", true, &c, &err);
		kill(getpid(), SIGKILL);
		_exit(1);
	}
	waitpid(child, &status, 0);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(state_task_lock(l, "t1", false, &fd2, &err), 0);
	state_task_unlock(fd2);
	state_close(l);
}

static int busy_first(uint32_t net, int prefix, void *ctx)
{
	return net == *(uint32_t *)ctx ? -1 : 0;
}

static void test_subnet_pool(void **state)
{
	static const char *const bad[] = {"10.0.0.1/16", "10.0.0.0",	 "10.0.0.0/7",
					  "x/16",	 "10.0.0.0/16x", ""};
	struct fx *f = *state;
	struct ledger *l = open_ok(f->path);
	struct te_err err = {0};
	struct state_subnet_pool pool;
	char s1[20], s2[20], s3[20], g[16];
	uint32_t busy;

	assert_int_equal(state_subnet_pool_parse(NULL, 0, &pool, &err), 0);
	assert_int_equal(pool.prefix, 16);
	assert_int_equal(pool.sub, 26);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]) - 1; i++) {
		assert_int_equal(state_subnet_pool_parse(bad[i], 26, &pool, &err), -1);
		assert_int_equal(err.code, TE_E_USAGE);
	}
	assert_int_equal(state_subnet_pool_parse("10.0.0.0/8", 30, &pool, &err), -1); /* 2^22 subnets */
	assert_int_equal(state_subnet_pool_parse("10.9.0.0/24", 23, &pool, &err), -1);

	/* A /24 pool of /26: four subnets, distinct, reused by network name. */
	assert_int_equal(state_subnet_pool_parse("10.9.0.0/24", 26, &pool, &err), 0);
	busy = pool.net; /* the probe says 10.9.0.0/26 is in use on the host */
	assert_int_equal(state_subnet_reserve(l, "a", "a_default", &pool, busy_first, &busy, s1, g, &err), 0);
	assert_string_not_equal(s1, "10.9.0.0/26");
	assert_int_equal(state_subnet_reserve(l, "b", "b_default", &pool, busy_first, &busy, s2, g, &err), 0);
	assert_string_not_equal(s1, s2);
	assert_int_equal(state_subnet_reserve(l, "a", "a_default", &pool, NULL, NULL, s3, g, &err), 0);
	assert_string_equal(s1, s3);
	assert_int_equal(state_subnet_reserve(l, "c", "c_default", &pool, busy_first, &busy, s3, g, &err), 0);
	assert_int_equal(strncmp(g, "10.9.0.", 7), 0);
	assert_int_equal(state_subnet_reserve(l, "d", "d_default", &pool, busy_first, &busy, s3, g, &err),
			 -1);
	assert_non_null(
	    strstr(err.msg, "no free /26 subnet in 10.9.0.0/24 for network 'd_default' (3 reserved"));
	/* A released subnet can be taken again. */
	assert_int_equal(state_subnet_release_task(l, "b", &err), 0);
	assert_int_equal(state_subnet_reserve(l, "d", "d_default", &pool, busy_first, &busy, s3, g, &err), 0);
	assert_string_equal(s3, s2);
	assert_int_equal(state_subnet_release_network(l, "d_default", &err), 0);
	state_close(l);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
	    T(test_open_creates_private_wal_db),
	    T(test_existing_file_mode_kept),
	    T(test_empty_file_refused),
	    T(test_open_errors),
	    T(test_reopen_keeps_id),
	    T(test_newer_schema_refused),
	    T(test_ports_gain_replica),
	    T(test_tasks),
	    T(test_task_delete_refused_while_owning),
	    T(test_resource_lifecycle),
	    T(test_resource_errors),
	    T(test_intend_idempotent_conflict_reintend),
	    T(test_crash_leaves_intended_row),
	    T(test_concurrent_fresh_open),
	    T(test_event_add),
	    T(test_audit_trail),
	    T(test_worktrees),
	    T(test_default_path),
	    T(test_open_default_path),
	    T(test_owner_lease_retention),
	    T(test_task_lock),
	    T(test_subnet_pool),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
