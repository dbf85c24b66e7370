#define TE_WITH_SQLITE
#include "state/ledger.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/err.h"
#include "common/mem.h"
#include "state/events.h"
#include "state/sqlite.h"

/* Migration N (1-based) is migrations[N - 1]; applied in order, each in its
 * own BEGIN IMMEDIATE transaction that also bumps PRAGMA user_version.
 * Never edit a shipped migration: append a new one. */
static const char *const migrations[] = {
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE tasks(name TEXT PRIMARY KEY, project_dir TEXT, compose_files TEXT,"
    " engine TEXT, status TEXT NOT NULL, created INTEGER NOT NULL, updated INTEGER NOT NULL);"
    "CREATE TABLE resources(id INTEGER PRIMARY KEY AUTOINCREMENT, task TEXT NOT NULL,"
    " kind TEXT NOT NULL, name TEXT NOT NULL, engine_id TEXT, service TEXT,"
    " state TEXT NOT NULL"
    "  CHECK(state IN ('intended','created','removing','removed','pending')),"
    " detail TEXT, created INTEGER NOT NULL, updated INTEGER NOT NULL);"
    /* One live owner per engine name; removed rows stay as history. */
    "CREATE UNIQUE INDEX resources_active ON resources(kind, name) WHERE state <> 'removed';"
    "CREATE INDEX resources_task ON resources(task);"
    "CREATE TABLE ports(host_ip TEXT NOT NULL, host_port INTEGER NOT NULL, proto TEXT NOT NULL,"
    " task TEXT NOT NULL, service TEXT NOT NULL, container_port INTEGER NOT NULL,"
    " created INTEGER NOT NULL, PRIMARY KEY(host_ip, host_port, proto),"
    " UNIQUE(task, service, container_port, proto));"
    "CREATE TABLE events(id INTEGER PRIMARY KEY AUTOINCREMENT, ts INTEGER NOT NULL,"
    " task TEXT, verb TEXT, message TEXT);",
    /* 2 (issue 3): the policy exceptions a task was brought up with, a JSON
     * array of names (NULL: none recorded), for `taskenv contract`. */
    "ALTER TABLE tasks ADD COLUMN allow TEXT;",
    /* 3 (issue 5): events name the resource and the outcome of the change. */
    "ALTER TABLE events ADD COLUMN resource TEXT;"
    "ALTER TABLE events ADD COLUMN outcome TEXT;"
    "CREATE INDEX events_task ON events(task, id);",
    /* 4 (issue 5): the source boundary, one git worktree per task. */
    "CREATE TABLE worktrees(task TEXT PRIMARY KEY, repo TEXT NOT NULL, path TEXT NOT NULL,"
    " branch TEXT NOT NULL, base TEXT NOT NULL, initial_status TEXT, created INTEGER NOT NULL);",
    /* 5 (issue 6): who owns a task (host, pid + its start time, user), its lease, and
     * its retention (kept for a post-mortem until a time). */
    "ALTER TABLE tasks ADD COLUMN owner_host TEXT;"
    "ALTER TABLE tasks ADD COLUMN owner_pid INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE tasks ADD COLUMN owner_start INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE tasks ADD COLUMN owner_user TEXT;"
    "ALTER TABLE tasks ADD COLUMN lease_expires INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE tasks ADD COLUMN retain_until INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE tasks ADD COLUMN retain_owner TEXT;"
    "ALTER TABLE tasks ADD COLUMN retain_reason TEXT;",
    /* 6 (issue 6): a subnet per task network from taskenv's pool (state/subnets.c).
     * NET is the first address as an integer (host order) for overlap checks. */
    "CREATE TABLE subnets(network TEXT PRIMARY KEY, task TEXT NOT NULL, net INTEGER NOT NULL,"
    " prefix INTEGER NOT NULL, subnet TEXT NOT NULL UNIQUE, created INTEGER NOT NULL);"
    "CREATE INDEX subnets_task ON subnets(task);",
    /* 7 (issue 19): replicas each hold their own host ports: the key gains
     * the replica number (1 for every row before). */
    "CREATE TABLE ports_new(host_ip TEXT NOT NULL, host_port INTEGER NOT NULL, proto TEXT NOT NULL,"
    " task TEXT NOT NULL, service TEXT NOT NULL, container_port INTEGER NOT NULL,"
    " replica INTEGER NOT NULL DEFAULT 1, created INTEGER NOT NULL,"
    " PRIMARY KEY(host_ip, host_port, proto), UNIQUE(task, service, replica, container_port, proto));"
    "INSERT INTO ports_new(host_ip, host_port, proto, task, service, container_port, replica, created)"
    " SELECT host_ip, host_port, proto, task, service, container_port, 1, created FROM ports;"
    "DROP TABLE ports;"
    "ALTER TABLE ports_new RENAME TO ports;",
    /* 8 (issue 18): the identity of the engine a task was created on
     * (svc_engine_identity), checked by every verb that acts on the task. */
    "ALTER TABLE tasks ADD COLUMN engine_id TEXT;",
};

/* PRAGMA user_version after every migration above has run. */
#define LEDGER_SCHEMA_VERSION ((int)(sizeof(migrations) / sizeof(migrations[0])))

int state_schema_version(void)
{
	return LEDGER_SCHEMA_VERSION;
}

/* ---- paths and files ---- */

static const char *home_dir(void)
{
	const char *h = getenv("HOME");
	const struct passwd *pw;

	if (h && *h)
		return h;
	pw = getpwuid(getuid());
	return pw && pw->pw_dir && *pw->pw_dir ? pw->pw_dir : NULL;
}

/* TASKENV_STATE is a setting (services/settings.c): cmd/ passes it as the
 * path. What is left here is the XDG base directory rule. */
char *state_default_path(void)
{
	const char *s = getenv("XDG_STATE_HOME");
	const char *home;

	if (s && *s == '/')
		return xasprintf("%s/taskenv/state.db", s);
	home = home_dir();
	if (!home)
		return NULL;
	return xasprintf("%s/.local/state/taskenv/state.db", home);
}

/* mkdir -p of PATH's parent; only directories we create get 0700. */
static int make_parents(const char *path, struct te_err *err)
{
	te_autofree char *dir = xstrdup(path);

	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0700) == 0) {
			/* The umask may have left it wider or narrower than asked. */
			chmod(dir, 0700);
		} else if (errno != EEXIST) {
			return te_err_set(err, TE_E_IO, "create ledger directory '%s': %s", dir,
					  strerror(errno));
		}
		*p = '/';
	}
	return 0;
}

/* Create the file ourselves so sqlite never creates it with the umask's
 * mode; an existing database keeps whatever mode its owner gave it. */
/* ---- open, migrate, identify ---- */

static int user_version(struct ledger *l, int *v, struct te_err *err)
{
	te_autostmt sqlite3_stmt *st = NULL;
	int rc;

	if (ledger_prepare(l, "PRAGMA user_version", NULL, 0, &st, err) < 0)
		return -1;
	rc = ledger_step(l, st, err);
	if (rc < 0)
		return -1;
	*v = rc == 1 ? sqlite3_column_int(st, 0) : 0;
	return 0;
}

/* Apply migration *V + 1 unless another process did it while we waited for
 * the write lock; *V is the version afterwards. */
static int migrate_step(struct ledger *l, int *v, struct te_err *err)
{
	char bump[64];

	if (ledger_begin(l, err) < 0)
		return -1;
	if (user_version(l, v, err) < 0)
		goto fail;
	if (*v >= LEDGER_SCHEMA_VERSION)
		return ledger_commit(l, err);
	if (ledger_exec(l, migrations[*v], err) < 0)
		goto fail;
	/* PRAGMA takes no bound parameters; the value is our own integer. */
	snprintf(bump, sizeof(bump), "PRAGMA user_version = %d", *v + 1);
	if (ledger_exec(l, bump, err) < 0)
		goto fail;
	if (ledger_commit(l, err) < 0)
		return -1;
	(*v)++;
	return 0;
fail:
	ledger_rollback(l);
	return -1;
}

static int migrate(struct ledger *l, struct te_err *err)
{
	int v;

	if (user_version(l, &v, err) < 0)
		return -1;
	while (v < LEDGER_SCHEMA_VERSION) {
		if (migrate_step(l, &v, err) < 0)
			return -1;
	}
	if (v > LEDGER_SCHEMA_VERSION)
		return te_err_set(
		    err, TE_E_STATE,
		    "ledger '%s': schema version %d is newer than this taskenv (%d): use the "
		    "taskenv that wrote it, or a ledger of your own (--state FILE or TASKENV_STATE)",
		    l->path, v, LEDGER_SCHEMA_VERSION);
	return 0;
}

/* 1 and l->id filled when the ledger has an id, 0 when not yet. */
static int read_id(struct ledger *l, struct te_err *err)
{
	static const char sql[] = "SELECT value FROM meta WHERE key = 'ledger_id'";
	te_autostmt sqlite3_stmt *st = NULL;
	const unsigned char *v;
	int rc;

	if (ledger_prepare(l, sql, NULL, 0, &st, err) < 0)
		return -1;
	rc = ledger_step(l, st, err);
	if (rc <= 0)
		return rc;
	v = sqlite3_column_text(st, 0);
	if (!v || strlen((const char *)v) != sizeof(l->id) - 1)
		return te_err_set(err, TE_E_STATE, "ledger '%s': malformed ledger id", l->path);
	memcpy(l->id, v, sizeof(l->id));
	return 1;
}

static int random_hex(char *out, size_t nbytes, struct te_err *err)
{
	unsigned char raw[32];
	size_t got = 0;

	if (nbytes > sizeof(raw))
		TE_BUG("random_hex: too many bytes");
	while (got < nbytes) {
		ssize_t r = getrandom(raw + got, nbytes - got, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return te_err_set(err, TE_E_IO, "getrandom: %s", strerror(errno));
		got += (size_t)r;
	}
	for (size_t i = 0; i < nbytes; i++)
		snprintf(out + 2 * i, 3, "%02x", raw[i]);
	return 0;
}

/* Another process may be creating the id right now: INSERT OR IGNORE keeps
 * whichever came first, and everyone reads that one back. */
static int load_id(struct ledger *l, struct te_err *err)
{
	char fresh[sizeof(l->id)];
	const struct ledger_arg a[] = {LEDGER_S(fresh)};
	int rc = read_id(l, err);

	if (rc != 0)
		return rc < 0 ? -1 : 0;
	if (random_hex(fresh, (sizeof(fresh) - 1) / 2, err) < 0)
		return -1;
	if (ledger_run(l, "INSERT OR IGNORE INTO meta(key, value) VALUES('ledger_id', ?1)", a,
		       LEDGER_NARGS(a), NULL, err) < 0)
		return -1;
	rc = read_id(l, err);
	if (rc == 0)
		return te_err_set(err, TE_E_STATE, "ledger '%s': ledger id missing", l->path);
	return rc < 0 ? -1 : 0;
}

/* A new ledger is made whole under a temporary name and linked into place
 * (link fails when another process got there first: then theirs is used),
 * so no process ever sees a ledger file that is empty yet legitimate. An
 * empty one is then damage (truncated, or replaced by hand): refused, as a
 * fresh ledger id over it would leave every object labelled with the old
 * id unowned (`gc --orphans` finds those). */
static int ensure_file(const char *path, struct te_err *err)
{
	te_autofree char *tmp = NULL;
	struct ledger *l;
	struct stat st;
	int fd, rc;

	if (stat(path, &st) == 0) {
		if (S_ISREG(st.st_mode) && st.st_size == 0)
			return te_err_set(
			    err, TE_E_STATE,
			    "ledger '%s' is empty (0 bytes): refusing to start a new ledger over "
			    "it; restore it from a copy, or remove it and list what the old one "
			    "left with `taskenv gc --orphans`",
			    path);
		return 0;
	}
	if (errno != ENOENT)
		return te_err_set(err, TE_E_IO, "ledger '%s': %s", path, strerror(errno));
	tmp = xasprintf("%s.new-XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0)
		return te_err_set(err, TE_E_IO, "create ledger '%s': %s", tmp, strerror(errno));
	close(fd);
	l = xcalloc(1, sizeof(*l));
	l->path = xstrdup(tmp);
	rc = ledger_connect(l, err) < 0 || migrate(l, err) < 0 || load_id(l, err) < 0 ? -1 : 0;
	state_close(l);
	if (rc == 0 && link(tmp, path) < 0 && errno != EEXIST)
		rc = te_err_set(err, TE_E_IO, "create ledger '%s': %s", path, strerror(errno));
	unlink(tmp);
	return rc;
}

int state_ledger_id_of_file(const char *path, char **id_out, struct te_err *err)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	char head[16] = {0};
	FILE *f = fopen(path, "rb");
	int rc = 0;

	*id_out = NULL;
	if (!f)
		return te_err_set(err, TE_E_IO, "'%s': %s", path, strerror(errno));
	rc = fread(head, 1, sizeof(head), f) == sizeof(head) && memcmp(head, "SQLite format 3", 16) == 0;
	fclose(f);
	if (!rc)
		return 0;
	rc = 0;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'ledger_id'", -1, &st, NULL) ==
		SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
		*id_out = xstrdup((const char *)sqlite3_column_text(st, 0));
		rc = 1;
	}
	sqlite3_finalize(st);
	sqlite3_close_v2(db);
	return rc;
}

int state_ledger_find_id(const char *dir, const char *id, char **file_out, struct te_err *err)
{
	DIR *d = opendir(dir);
	struct dirent *ent;
	int found = 0;

	*file_out = NULL;
	if (!d)
		return te_err_set(err, TE_E_IO, "state directory '%s': %s", dir, strerror(errno));
	while (!found && (ent = readdir(d)) != NULL) {
		te_autofree char *p = xasprintf("%s/%s", dir, ent->d_name);
		te_autofree char *have = NULL;
		struct stat st;

		if (ent->d_name[0] == '.' || stat(p, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (state_ledger_id_of_file(p, &have, NULL) == 1 && strcmp(have, id) == 0) {
			*file_out = TE_STEAL(p);
			found = 1;
		}
	}
	closedir(d);
	return found;
}

struct ledger *state_open(const char *path, struct te_err *err)
{
	te_autofree char *def = NULL;
	struct ledger *l;

	if (!path) {
		def = state_default_path();
		if (!def) {
			te_err_set(err, TE_E_IO, "no ledger path: set --state, $TASKENV_STATE or $HOME");
			return NULL;
		}
		path = def;
	}
	if (make_parents(path, err) < 0 || ensure_file(path, err) < 0)
		return NULL;
	l = xcalloc(1, sizeof(*l));
	l->path = xstrdup(path);
	if (ledger_connect(l, err) < 0 || migrate(l, err) < 0 || load_id(l, err) < 0) {
		state_close(l);
		return NULL;
	}
	return l;
}

void state_close(struct ledger *l)
{
	if (!l)
		return;
	sqlite3_close_v2(l->db);
	free(l->path);
	free(l->verb);
	free(l);
}

const char *state_ledger_id(const struct ledger *l)
{
	return l->id;
}

const char *state_path(const struct ledger *l)
{
	return l->path;
}

void state_set_verb(struct ledger *l, const char *verb)
{
	free(l->verb);
	l->verb = xstrdup(verb);
}

/* ---- tasks ---- */

void state_task_release(struct state_task *t)
{
	if (!t)
		return;
	free(t->name);
	free(t->project_dir);
	free(t->compose_files);
	free(t->engine);
	free(t->status);
	free(t->owner_host);
	free(t->owner_user);
	free(t->retain_owner);
	free(t->retain_reason);
	free(t->engine_id);
	memset(t, 0, sizeof(*t));
}

void state_tasks_free(struct state_task *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		state_task_release(&v[i]);
	free(v);
}

#define TASK_COLS "name, project_dir, compose_files, engine, status, created, updated"
#define TASK_COLS_OWNER                                                                                      \
	", owner_host, owner_pid, owner_start, owner_user, lease_expires, retain_until, retain_owner,"       \
	" retain_reason, engine_id"

static void task_from_row(sqlite3_stmt *st, struct state_task *t)
{
	t->name = ledger_col_text(st, 0);
	t->project_dir = ledger_col_text(st, 1);
	t->compose_files = ledger_col_text(st, 2);
	t->engine = ledger_col_text(st, 3);
	t->status = ledger_col_text(st, 4);
	t->created = sqlite3_column_int64(st, 5);
	t->updated = sqlite3_column_int64(st, 6);
	t->owner_host = ledger_col_text(st, 7);
	t->owner_pid = sqlite3_column_int64(st, 8);
	t->owner_start = sqlite3_column_int64(st, 9);
	t->owner_user = ledger_col_text(st, 10);
	t->lease_expires = sqlite3_column_int64(st, 11);
	t->retain_until = sqlite3_column_int64(st, 12);
	t->retain_owner = ledger_col_text(st, 13);
	t->retain_reason = ledger_col_text(st, 14);
	t->engine_id = ledger_col_text(st, 15);
}

/* Untyped adapters for ledger_collect. */
static void task_from_row_v(sqlite3_stmt *st, void *e)
{
	task_from_row(st, e);
}
static void state_tasks_free_v(void *v, size_t n)
{
	state_tasks_free(v, n);
}

int state_task_upsert(struct ledger *l, const char *name, const char *project_dir, const char *compose_files,
		      const char *engine, const char *status, struct te_err *err)
{
	static const char sql[] = "INSERT INTO tasks(" TASK_COLS ") VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?6)"
				  " ON CONFLICT(name) DO UPDATE SET project_dir = excluded.project_dir,"
				  " compose_files = excluded.compose_files, engine = excluded.engine,"
				  " status = excluded.status, updated = excluded.updated";
	const struct ledger_arg a[] = {LEDGER_S(name),	 LEDGER_S(project_dir), LEDGER_S(compose_files),
				       LEDGER_S(engine), LEDGER_S(status),	LEDGER_I(ledger_now())};

	if (ledger_run(l, sql, a, LEDGER_NARGS(a), NULL, err) < 0)
		return -1;
	return ledger_event(l, name, "task", status, project_dir, err);
}

int state_task_set_status(struct ledger *l, const char *name, const char *status, struct te_err *err)
{
	static const char sql[] = "UPDATE tasks SET status = ?2, updated = ?3 WHERE name = ?1";
	const struct ledger_arg a[] = {LEDGER_S(name), LEDGER_S(status), LEDGER_I(ledger_now())};
	int changes;

	if (ledger_run(l, sql, a, LEDGER_NARGS(a), &changes, err) < 0)
		return -1;
	if (changes == 0)
		return te_err_set(err, TE_E_NOTFOUND, "task '%s' is not in the ledger", name);
	return ledger_event(l, name, "task", status, NULL, err);
}

int state_task_set_allow(struct ledger *l, const char *name, const char *allow_json, struct te_err *err)
{
	static const char sql[] = "UPDATE tasks SET allow = ?2, updated = ?3 WHERE name = ?1";
	const struct ledger_arg a[] = {LEDGER_S(name), LEDGER_S(allow_json), LEDGER_I(ledger_now())};
	int changes;

	if (ledger_run(l, sql, a, LEDGER_NARGS(a), &changes, err) < 0)
		return -1;
	if (changes == 0)
		return te_err_set(err, TE_E_NOTFOUND, "task '%s' is not in the ledger", name);
	return 0;
}

int state_task_set_engine_id(struct ledger *l, const char *name, const char *engine_id, struct te_err *err)
{
	static const char sql[] = "UPDATE tasks SET engine_id = ?2, updated = ?3 WHERE name = ?1";
	const struct ledger_arg a[] = {LEDGER_S(name), LEDGER_S(engine_id), LEDGER_I(ledger_now())};
	int changes;

	if (ledger_run(l, sql, a, LEDGER_NARGS(a), &changes, err) < 0)
		return -1;
	if (changes == 0)
		return te_err_set(err, TE_E_NOTFOUND, "task '%s' is not in the ledger", name);
	return ledger_event(l, name, "task", "engine", engine_id, err);
}

int state_task_get_allow(struct ledger *l, const char *name, char **allow_json, struct te_err *err)
{
	static const char sql[] = "SELECT allow FROM tasks WHERE name = ?1";
	const struct ledger_arg a[] = {LEDGER_S(name)};
	te_autostmt sqlite3_stmt *st = NULL;
	int rc;

	*allow_json = NULL;
	if (ledger_prepare(l, sql, a, LEDGER_NARGS(a), &st, err) < 0)
		return -1;
	rc = ledger_step(l, st, err);
	if (rc < 0)
		return -1;
	if (rc == 0)
		return te_err_set(err, TE_E_NOTFOUND, "task '%s' is not in the ledger", name);
	*allow_json = xstrdup((const char *)sqlite3_column_text(st, 0));
	return 0;
}

int state_task_get(struct ledger *l, const char *name, struct state_task *out, struct te_err *err)
{
	static const char sql[] = "SELECT " TASK_COLS TASK_COLS_OWNER " FROM tasks WHERE name = ?1";
	const struct ledger_arg a[] = {LEDGER_S(name)};
	te_autostmt sqlite3_stmt *st = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if (ledger_prepare(l, sql, a, LEDGER_NARGS(a), &st, err) < 0)
		return -1;
	rc = ledger_step(l, st, err);
	if (rc < 0)
		return -1;
	if (rc == 0)
		return te_err_set(err, TE_E_NOTFOUND, "task '%s' is not in the ledger", name);
	task_from_row(st, out);
	return 0;
}

int state_task_list(struct ledger *l, struct state_task **out, size_t *n, struct te_err *err)
{
	static const char sql[] = "SELECT " TASK_COLS TASK_COLS_OWNER " FROM tasks ORDER BY name";
	te_autostmt sqlite3_stmt *st = NULL;

	*out = NULL;
	*n = 0;
	if (ledger_prepare(l, sql, NULL, 0, &st, err) < 0)
		return -1;
	return ledger_collect(l, st, sizeof(**out), task_from_row_v, state_tasks_free_v, (void **)out, n,
			      err);
}

/* Count rows for the delete check; SQL yields one integer. */
static int count_rows(struct ledger *l, const char *sql, const char *task, long long *count,
		      struct te_err *err)
{
	const struct ledger_arg a[] = {LEDGER_S(task)};
	te_autostmt sqlite3_stmt *st = NULL;
	int rc;

	if (ledger_prepare(l, sql, a, LEDGER_NARGS(a), &st, err) < 0)
		return -1;
	rc = ledger_step(l, st, err);
	if (rc < 0)
		return -1;
	*count = rc == 1 ? sqlite3_column_int64(st, 0) : 0;
	return 0;
}

static int task_delete_locked(struct ledger *l, const char *name, struct te_err *err)
{
	const struct ledger_arg a[] = {LEDGER_S(name)};
	long long res, ports;
	int changes;

	if (count_rows(l, "SELECT count(*) FROM resources WHERE task = ?1 AND state <> 'removed'", name, &res,
		       err) < 0 ||
	    count_rows(l, "SELECT count(*) FROM ports WHERE task = ?1", name, &ports, err) < 0)
		return -1;
	if (res > 0 || ports > 0)
		return te_err_set(err, TE_E_CONFLICT,
				  "task '%s' still owns %lld resources and %lld port reservations "
				  "in the ledger",
				  name, res, ports);
	if (ledger_run(l, "DELETE FROM tasks WHERE name = ?1", a, LEDGER_NARGS(a), &changes, err) < 0)
		return -1;
	if (changes == 0)
		return te_err_set(err, TE_E_NOTFOUND, "task '%s' is not in the ledger", name);
	if (ledger_run(l, "DELETE FROM resources WHERE task = ?1", a, LEDGER_NARGS(a), NULL, err) < 0)
		return -1;
	return ledger_event(l, name, "task", "deleted", NULL, err);
}

int state_task_delete(struct ledger *l, const char *name, struct te_err *err)
{
	if (ledger_begin(l, err) < 0)
		return -1;
	if (task_delete_locked(l, name, err) < 0) {
		ledger_rollback(l);
		return -1;
	}
	return ledger_commit(l, err);
}
