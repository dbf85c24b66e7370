/* Compose loading: the model field by field, anchors and merge keys, error
 * messages with file:line:col, compose file discovery, shell splitting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/buf.h"
#include "common/err.h"
#include "common/mem.h"
#include "services/model/compose.h"
#include "services/model/load.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef TEST_DATA_DIR
#define TEST_DATA_DIR "tests/data"
#endif

static char tmpdir[PATH_MAX];

static const char *data_dir(void)
{
	const char *d = getenv("TASKENV_TEST_DATA");

	return d && *d ? d : TEST_DATA_DIR;
}

static int setup(void **state)
{
	char tmpl[] = "/tmp/te-load-XXXXXX";

	assert_non_null(mkdtemp(tmpl));
	/* realpath: the loader reports absolute, resolved file names. */
	assert_non_null(realpath(tmpl, tmpdir));
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static char *write_file(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", tmpdir, name);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static struct svc_project *load_one(const char *path, struct te_err *err)
{
	char *files[] = {(char *)path, NULL};

	return svc_load(files, err);
}

/* ---- the full example ---- */

static void check_kv(const struct svc_kv *kv, size_t n, size_t i, const char *key, const char *value)
{
	assert_true(i < n);
	assert_string_equal(kv[i].key, key);
	assert_string_equal(kv[i].value, value);
}

static void check_port(const struct svc_port *p, const char *ip, int host, int cont, const char *proto,
		       int line)
{
	if (ip)
		assert_string_equal(p->host_ip, ip);
	else
		assert_null(p->host_ip);
	assert_int_equal(p->host_port, host);
	assert_int_equal(p->container_port, cont);
	assert_string_equal(p->proto, proto);
	assert_int_equal(p->loc.line, line);
	assert_int_equal(p->loc.col, 9);
}

static void check_mount(const struct svc_mount *m, enum svc_mount_type type, const char *source,
			const char *target, bool ro)
{
	assert_int_equal(m->type, type);
	if (source)
		assert_string_equal(m->source, source);
	else
		assert_null(m->source);
	assert_string_equal(m->target, target);
	assert_int_equal(m->read_only, ro);
}

static void check_strv(char *const *v, const char *const *want)
{
	size_t n = 0;

	assert_non_null(v);
	while (want[n]) {
		assert_non_null(v[n]);
		assert_string_equal(v[n], want[n]);
		n++;
	}
	assert_null(v[n]);
}

static void check_web(const struct svc_project *p, const char *dir)
{
	const struct svc_service *s = svc_project_service(p, "web");
	te_autofree char *site = xasprintf("%s/site", dir);
	/* "../up/./x/../y" from .../compose/good */
	te_autofree char *up = xasprintf("%.*s/up/y", (int)(strrchr(dir, '/') - dir), dir);

	assert_ptr_equal(s, &p->services[0]);
	assert_string_equal(s->image, "nginx:1.25");
	assert_int_equal(s->loc.line, 8);
	assert_int_equal(s->loc.col, 3);
	assert_ptr_equal(s->loc.file, p->files[0]);
	check_strv(s->command, (const char *const[]){"sh", "-c", "echo \"hi there\"", NULL});
	check_strv(s->entrypoint, (const char *const[]){"/docker-entrypoint.sh", "--flag", NULL});

	assert_int_equal(s->n_environment, 6);
	check_kv(s->environment, s->n_environment, 0, "PLAIN", "value");
	check_kv(s->environment, s->n_environment, 1, "NUM", "5432");
	check_kv(s->environment, s->n_environment, 2, "BOOL", "yes");
	check_kv(s->environment, s->n_environment, 3, "EMPTY", "");
	check_kv(s->environment, s->n_environment, 4, "FROM_DOTENV", "from-dotenv");
	check_kv(s->environment, s->n_environment, 5, "TE_LOAD_PROC_SET", "from-process");
	assert_int_equal(s->environment[0].loc.line, 13);
	assert_int_equal(s->environment[0].loc.col, 7);

	assert_int_equal(s->n_ports, 8);
	check_port(&s->ports[0], NULL, 8080, 80, "tcp", 21);
	check_port(&s->ports[1], NULL, 0, 9090, "tcp", 22);
	check_port(&s->ports[2], "127.0.0.1", 8443, 443, "tcp", 23);
	check_port(&s->ports[3], NULL, 53, 53, "udp", 24);
	check_port(&s->ports[4], "::1", 8081, 81, "tcp", 25);
	check_port(&s->ports[5], NULL, 9000, 9000, "tcp", 26);
	check_port(&s->ports[6], NULL, 9001, 9001, "tcp", 26);
	check_port(&s->ports[7], NULL, 9002, 9002, "tcp", 26);

	assert_int_equal(s->n_mounts, 6);
	check_mount(&s->mounts[0], SVC_MOUNT_VOLUME, "data", "/var/lib/data", false);
	check_mount(&s->mounts[1], SVC_MOUNT_BIND, site, "/usr/share/nginx/html", true);
	check_mount(&s->mounts[2], SVC_MOUNT_BIND, "/etc/hosts", "/etc/hosts", true);
	check_mount(&s->mounts[3], SVC_MOUNT_BIND, "/home/tester/cache", "/cache", false);
	check_mount(&s->mounts[4], SVC_MOUNT_BIND, up, "/y", false);
	check_mount(&s->mounts[5], SVC_MOUNT_VOLUME, NULL, "/anon", false);
	assert_int_equal(s->mounts[1].loc.line, 29);

	check_strv(s->depends_on, (const char *const[]){"db", NULL});
	assert_string_equal(s->working_dir, "/srv");
	assert_string_equal(s->user, "1000");
	assert_int_equal(s->n_labels, 2);
	check_kv(s->labels, s->n_labels, 0, "com.example.role", "frontend");
	check_kv(s->labels, s->n_labels, 1, "com.example.n", "3");
	assert_string_equal(s->container_name, "my-web");
	check_strv(s->networks, (const char *const[]){"front", "default", NULL});
}

static void check_db_worker(const struct svc_project *p)
{
	const struct svc_service *db = svc_project_service(p, "db");
	const struct svc_service *w = svc_project_service(p, "worker");

	assert_ptr_equal(db, &p->services[1]);
	assert_string_equal(db->image, "postgres:16");
	assert_int_equal(db->n_environment, 4);
	check_kv(db->environment, db->n_environment, 0, "POSTGRES_PASSWORD", "secret");
	check_kv(db->environment, db->n_environment, 1, "EQ", "a=b");
	check_kv(db->environment, db->n_environment, 2, "TE_LOAD_PROC_SET", "from-process");
	check_kv(db->environment, db->n_environment, 3, "TE_LOAD_DOTENV", "from-dotenv");
	assert_int_equal(db->n_labels, 2);
	check_kv(db->labels, db->n_labels, 0, "a", "1");
	check_kv(db->labels, db->n_labels, 1, "b", "");
	check_strv(db->networks, (const char *const[]){"back", NULL});
	assert_string_equal(db->user, "postgres:postgres");
	assert_null(db->command);
	assert_null(db->depends_on);
	assert_int_equal(db->n_ports, 0);

	assert_ptr_equal(w, &p->services[2]);
	check_strv(w->depends_on, (const char *const[]){"db", "web", NULL});
	check_strv(w->command, (const char *const[]){NULL});
	check_strv(w->entrypoint, (const char *const[]){"/bin/sh", "-c", NULL});
	check_strv(w->networks, (const char *const[]){"front", "back", NULL});
	assert_null(w->working_dir);
	assert_null(svc_project_service(p, "x-not-a-service"));
}

static void check_top_level(const struct svc_project *p)
{
	const struct svc_volume *cache = svc_project_volume(p, "cache");
	const struct svc_network *back = svc_project_network(p, "back");
	const struct svc_network *out = svc_project_network(p, "outside");

	assert_int_equal(p->n_volumes, 3);
	assert_string_equal(p->volumes[0].key, "data");
	assert_null(p->volumes[0].name);
	assert_false(p->volumes[0].external);
	assert_non_null(cache);
	assert_string_equal(cache->name, "fixed-cache");
	assert_string_equal(cache->driver, "local");
	check_kv(cache->labels, cache->n_labels, 0, "a", "b");
	assert_true(svc_project_volume(p, "ext")->external);
	assert_null(svc_project_volume(p, "nope"));

	assert_int_equal(p->n_networks, 3);
	assert_null(svc_project_network(p, "default"));
	assert_null(svc_project_network(p, "front")->driver);
	assert_string_equal(back->driver, "bridge");
	assert_true(back->internal);
	assert_false(back->external);
	check_kv(back->labels, back->n_labels, 0, "x", "y");
	assert_true(out->external);
	assert_string_equal(out->name, "real-outside");
	assert_int_equal(out->loc.line, 95);
}

static void test_load_good(void **state)
{
	te_autofree char *path = xasprintf("%s/compose/good/compose.yaml", data_dir());
	char dir[PATH_MAX];
	struct te_err err = {0};
	struct svc_project *p;

	assert_non_null(realpath(path, dir));
	*strrchr(dir, '/') = '\0';
	setenv("HOME", "/home/tester", 1);
	setenv("TE_LOAD_PROC_SET", "from-process", 1);
	unsetenv("TE_LOAD_PROC_UNSET");
	unsetenv("TE_LOAD_TAG");
	unsetenv("TE_LOAD_DOTENV");
	p = load_one(path, &err);
	if (!p)
		fail_msg("load: %s", err.msg);
	assert_string_equal(p->dir, dir);
	assert_int_equal(te_strv_len(p->files), 1);
	assert_int_equal(p->files[0][0], '/');
	assert_non_null(strstr(p->files[0], "/compose/good/compose.yaml"));
	assert_int_equal(p->n_services, 3);
	check_web(p, dir);
	check_db_worker(p);
	check_top_level(p);
	svc_project_free(p);
}

/* A relative path is made absolute; the process environment beats .env. */
static void test_load_relative_and_env_precedence(void **state)
{
	te_autofree char *dir = xasprintf("%s/compose/good", data_dir());
	char cwd[PATH_MAX];
	struct te_err err = {0};
	struct svc_project *p;

	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(dir), 0);
	setenv("TE_LOAD_DOTENV", "from-process", 1);
	setenv("TE_LOAD_TAG", "1.27", 1);
	p = load_one("compose.yaml", &err);
	assert_int_equal(chdir(cwd), 0);
	unsetenv("TE_LOAD_DOTENV");
	unsetenv("TE_LOAD_TAG");
	if (!p)
		fail_msg("load: %s", err.msg);
	assert_int_equal(p->files[0][0], '/');
	assert_string_equal(p->services[0].image, "nginx:1.27");
	check_kv(p->services[0].environment, p->services[0].n_environment, 4, "FROM_DOTENV", "from-process");
	svc_project_free(p);
}

/* ---- anchors and merge keys ---- */

static void test_load_anchors(void **state)
{
	te_autofree char *path = xasprintf("%s/compose/anchors/compose.yaml", data_dir());
	struct te_err err = {0};
	struct svc_project *p = load_one(path, &err);
	const struct svc_service *one, *two, *three, *four;

	if (!p)
		fail_msg("load: %s", err.msg);
	assert_int_equal(p->n_services, 5);
	one = svc_project_service(p, "one");
	two = svc_project_service(p, "two");
	three = svc_project_service(p, "three");
	four = svc_project_service(p, "four");
	assert_string_equal(one->image, "alpine:3");
	check_strv(one->command, (const char *const[]){"echo", "one", NULL});
	check_kv(one->environment, one->n_environment, 1, "B", "2");
	check_kv(one->labels, one->n_labels, 0, "from", "base");
	/* Keys written in the mapping override merged ones. */
	assert_string_equal(two->image, "busybox");
	assert_string_equal(two->working_dir, "/two");
	assert_string_equal(two->user, "nobody");
	assert_int_equal(two->n_environment, 2);
	/* A whole service by alias, located at its own key. */
	assert_string_equal(three->image, "alpine:3");
	check_strv(three->command, (const char *const[]){"echo", "one", NULL});
	assert_int_equal(three->loc.line, 24);
	/* In a merged list the earlier mapping wins. */
	assert_string_equal(four->working_dir, "/extra");
	assert_string_equal(four->container_name, "other");
	assert_string_equal(four->image, "alpine:3");
	/* A mapping merging itself terminates. */
	assert_string_equal(svc_project_service(p, "self")->image, "self");
	svc_project_free(p);
}

/* A long chain of mappings each merging the next is refused, not recursed. */
static void test_load_merge_depth_cap(void **state)
{
	te_autofree char *path = NULL;
	struct te_buf b = TE_BUF_INIT(0);
	struct te_err err = {0};

	te_buf_adds(&b, "x-m0: &m0\n  image: deep\n");
	for (int i = 1; i < 100; i++)
		te_buf_addf(&b, "x-m%d: &m%d\n  <<: *m%d\n", i, i, i - 1);
	te_buf_adds(&b, "services:\n  a:\n    <<: *m99\n");
	path = write_file("chain.yaml", b.data);
	te_buf_release(&b);
	assert_null(load_one(path, &err));
	assert_int_equal(err.code, TE_E_COMPOSE);
	assert_non_null(strstr(err.msg, "merge keys nested more than 64 deep"));
}

/* ---- errors ---- */

struct err_case {
	const char *yaml;
	const char *msg; /* expected message after "FILE:" */
};

static const struct err_case err_cases[] = {
    /* YAML syntax: libyaml's problem and context at problem_mark. */
    {"services:\n  web:\n    @x: y\n",
     "3:5: found character that cannot start any token while scanning for the next token"},
    {"services:\n  web:\n    image: a\n   bad: x\n",
     "4:4: did not find expected key while parsing a block mapping"},
    {"services:\n  web:\n    image: ${X:?need X}\n", "3:12: required variable X is missing a value: need X"},
    {"services:\n  web:\n    image: \"a ${ b\"\n",
     "3:12: invalid interpolation format for \"a ${ b\": you may need to escape any $ with "
     "another $"},
    {"services:\n  web:\n    image: x\n    volumes:\n      - cache:/c\n",
     "5:9: service 'web' refers to undefined volume 'cache'"},
    {"services:\n  web:\n    ports: [\"80\"]\n", "2:3: service 'web' has no image"},
    {"services:\n  web:\n    build:\n      dockerfile: a\n      dockerfile_inline: b\n",
     "4:7: services.web.build: dockerfile and dockerfile_inline are mutually exclusive"},
    {"services:\n  web:\n    build: https://example.com/repo.git\n",
     "3:12: services.web.build: remote build contexts ('https://example.com/repo.git') are not supported: "
     "clone it and give a directory"},
    {"services:\n  web:\n    image: a\n    secrets: [nope]\n",
     "4:15: service 'web' refers to undefined secret 'nope'"},
    {"services:\n  web:\n    image: a\nsecrets:\n  s:\n    external: true\n",
     "6:5: secrets.s: external secrets exist only in Swarm; taskenv cannot use them"},
    {"services:\n  web:\n    image: a\nsecrets:\n  s:\n    file: a\n    environment: B\n",
     "6:5: secrets.s: exactly one of file, environment is required"},
    {"services:\n  web:\n    image: x\n    ports: \"80:80\"\n", "4:12: services.web.ports must be a list"},
    {"services:\n  web:\n    image: [x]\n", "3:12: services.web.image must be a string"},
    {"services:\n  web: x\n", "2:8: services.web must be a mapping"},
    {"services: [a]\n", "1:11: services must be a mapping"},
    {"version: '3'\n", "1:1: no services defined"},
    {"services:\n", "1:1: no services defined"},
    {"services:\n  x-only: {}\n", "1:1: no services defined"},
    {"", "1:1: no services defined"},
    {"- a\n", "1:1: the top level must be a mapping"},
    {"services:\n  a: {image: x}\n---\nservices: {}\n", "3:1: more than one YAML document in a compose file"},
    {"services:\n  a: {image: x}\n  a: {image: y}\n", "3:3: mapping key 'a' already defined at line 2"},
    {"services:\n  web:\n    image: x\n    depends_on: [db]\n",
     "4:18: service 'web' depends on undefined service 'db'"},
    {"services:\n  web:\n    image: x\n    depends_on:\n      db: {condition: service_started}\n",
     "5:7: service 'web' depends on undefined service 'db'"},
    {"services:\n  web:\n    image: x\n    networks: [back]\n",
     "4:16: service 'web' refers to undefined network 'back'"},
    {"services:\n  web:\n    image: x\n    ports: [\"8000-8002:80\"]\n",
     "4:13: services.web.ports: invalid port '8000-8002:80': a host port range with a single "
     "container port is not supported"},
    {"services:\n  web:\n    image: x\n    ports: [\"80:80-81\"]\n",
     "4:13: services.web.ports: invalid port '80:80-81': host and container port ranges must "
     "have the same size"},
    {"services:\n  web:\n    image: x\n    ports: [\"99999\"]\n",
     "4:13: services.web.ports: invalid port '99999': container port must be a number from 1 "
     "to 65535, or a range N-M"},
    {"services:\n  web:\n    image: x\n    ports: [\"80/sctp\"]\n",
     "4:13: services.web.ports: invalid port '80/sctp': protocol must be tcp or udp"},
    {"services:\n  web:\n    image: x\n    ports: [\"1.2.3:80:80\"]\n",
     "4:13: services.web.ports: invalid port '1.2.3:80:80': host ip is not an IPv4 or IPv6 "
     "address"},
    {"services:\n  web:\n    image: x\n    volumes: [\"./a:rel\"]\n",
     "4:15: services.web.volumes: invalid volume './a:rel': target must be an absolute path"},
    {"services:\n  web:\n    image: x\n    volumes: [\"./a:/b:rx\"]\n",
     "4:15: services.web.volumes: invalid volume './a:/b:rx': mode must be ro or rw"},
    {"services:\n  web:\n    image: x\n    command: \"echo 'oops\"\n",
     "4:14: services.web.command: unterminated single quote in \"echo 'oops\""},
    {"services:\n  web:\n    image: x\n    environment: 3\n",
     "4:18: services.web.environment must be a mapping or a list"},
    {"services:\n  web:\n    image: x\n    environment:\n      A: [1]\n",
     "5:10: services.web.environment.A must be a string, number, boolean or null"},
    {"services:\n  web:\n    image: x\nnetworks:\n  n:\n    internal: maybe\n",
     "6:15: networks.n.internal must be a boolean"},
    {"services:\n  \"a b\":\n    image: x\n", "2:3: invalid service name 'a b': must match [a-zA-Z0-9._-]+"},
    {"services:\n  a:\n    <<: 3\n    image: x\n",
     "3:9: merge key '<<' needs a mapping or a list of mappings"},
};

static void test_load_errors(void **state)
{
	unsetenv("X");
	for (size_t i = 0; i < sizeof(err_cases) / sizeof(err_cases[0]); i++) {
		te_autofree char *path = write_file("bad.yaml", err_cases[i].yaml);
		te_autofree char *want = xasprintf("%s:%s", path, err_cases[i].msg);
		struct te_err err = {0};

		print_message("case %zu\n", i);
		assert_null(load_one(path, &err));
		assert_int_equal(err.code, TE_E_COMPOSE);
		assert_string_equal(err.msg, want);
	}
}

/* The .env beside the first file is read, and its errors are reported. */
static void test_load_dotenv_beside_file(void **state)
{
	te_autofree char *sub = xasprintf("%s/withenv", tmpdir);
	te_autofree char *envp = NULL;
	te_autofree char *yaml = NULL;
	struct te_err err = {0};
	struct svc_project *p;

	assert_int_equal(mkdir(sub, 0700), 0);
	envp = write_file("withenv/.env", "TE_LOAD_IMG=from-env-file:1\n");
	yaml = write_file("withenv/compose.yaml", "services:\n  a:\n    image: ${TE_LOAD_IMG}\n");
	unsetenv("TE_LOAD_IMG");
	p = load_one(yaml, &err);
	if (!p)
		fail_msg("load: %s", err.msg);
	assert_string_equal(p->services[0].image, "from-env-file:1");
	svc_project_free(p);

	free(write_file("withenv/.env", "TE_LOAD_IMG='open\n"));
	assert_null(load_one(yaml, &err));
	assert_int_equal(err.code, TE_E_COMPOSE);
	assert_non_null(strstr(err.msg, "/withenv/.env:1: unterminated"));
}

static void test_load_io_errors(void **state)
{
	te_autofree char *missing = xasprintf("%s/nope.yaml", tmpdir);
	char *none[] = {NULL};
	char *two[] = {(char *)"a.yaml", (char *)"b.yaml", NULL};
	struct te_err err = {0};

	assert_null(load_one(missing, &err));
	assert_int_equal(err.code, TE_E_IO);
	assert_non_null(strstr(err.msg, "nope.yaml"));
	assert_null(load_one(tmpdir, &err));
	assert_int_equal(err.code, TE_E_IO);
	assert_non_null(strstr(err.msg, "not a regular file"));
	assert_null(svc_load(none, &err));
	assert_int_equal(err.code, TE_E_USAGE);
	/* Several files merge now; a missing one is an I/O error naming it. */
	assert_null(svc_load(two, &err));
	assert_int_equal(err.code, TE_E_IO);
	assert_non_null(strstr(err.msg, "a.yaml"));
}

/* Long syntax ports and volumes, and a few short-syntax corners. */
static void test_load_long_syntax(void **state)
{
	te_autofree char *path = write_file("long.yaml", "services:\n"
							 "  a:\n"
							 "    image: x\n"
							 "    ports:\n"
							 "      - target: 80\n"
							 "        published: \"8080\"\n"
							 "        host_ip: 127.0.0.1\n"
							 "        protocol: udp\n"
							 "      - \"127.0.0.1::81\"\n"
							 "      - \"6000-6001/udp\"\n"
							 "    volumes:\n"
							 "      - type: bind\n"
							 "        source: rel/dir\n"
							 "        target: /t\n"
							 "        read_only: true\n"
							 "      - type: volume\n"
							 "        source: v\n"
							 "        target: /v\n"
							 "      - \"/:/root-of-host:ro,delegated\"\n"
							 "volumes:\n"
							 "  v: {}\n");
	te_autofree char *rel = xasprintf("%s/rel/dir", tmpdir);
	struct te_err err = {0};
	struct svc_project *p = load_one(path, &err);
	const struct svc_service *s;

	if (!p)
		fail_msg("load: %s", err.msg);
	s = &p->services[0];
	assert_int_equal(s->n_ports, 4);
	check_port(&s->ports[0], "127.0.0.1", 8080, 80, "udp", 5);
	check_port(&s->ports[1], "127.0.0.1", 0, 81, "tcp", 9);
	check_port(&s->ports[2], NULL, 0, 6000, "udp", 10);
	check_port(&s->ports[3], NULL, 0, 6001, "udp", 10);
	assert_int_equal(s->n_mounts, 3);
	check_mount(&s->mounts[0], SVC_MOUNT_BIND, rel, "/t", true);
	check_mount(&s->mounts[1], SVC_MOUNT_VOLUME, "v", "/v", false);
	check_mount(&s->mounts[2], SVC_MOUNT_BIND, "/", "/root-of-host", true);
	svc_project_free(p);
}

/* ---- discovery ---- */

static void test_find_compose_file_order(void **state)
{
	/* compose-go's order (cli.DefaultFileNames) */
	static const char *const order[] = {"docker-compose.yaml", "docker-compose.yml", "compose.yml",
					    "compose.yaml"};
	te_autofree char *dir = xasprintf("%s/find", tmpdir);
	te_autofree char *want_err =
	    xasprintf("no compose file in '%s' (looked for compose.yaml, compose.yml, "
		      "docker-compose.yml, docker-compose.yaml); pass -f FILE",
		      dir);
	struct te_err err = {0};

	assert_int_equal(mkdir(dir, 0700), 0);
	assert_null(svc_find_compose_file(dir, &err));
	assert_int_equal(err.code, TE_E_USAGE);
	assert_string_equal(err.msg, want_err);
	/* Each file added outranks the ones already there. */
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		te_autofree char *name = xasprintf("find/%s", order[i]);
		te_autofree char *want = write_file(name, "services: {}\n");
		te_autofree char *got = svc_find_compose_file(dir, &err);

		assert_non_null(got);
		assert_string_equal(got, want);
	}
}

static void test_find_compose_file_relative_and_dirs(void **state)
{
	te_autofree char *dir = xasprintf("%s/find2", tmpdir);
	te_autofree char *sub = xasprintf("%s/compose.yaml", dir);
	te_autofree char *want = NULL;
	te_autofree char *got = NULL;
	char cwd[PATH_MAX];
	struct te_err err = {0};

	assert_int_equal(mkdir(dir, 0700), 0);
	/* A directory named compose.yaml is not a compose file. */
	assert_int_equal(mkdir(sub, 0700), 0);
	want = write_file("find2/compose.yml", "services: {}\n");
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(dir), 0);
	got = svc_find_compose_file(".", &err);
	assert_int_equal(chdir(cwd), 0);
	assert_non_null(got);
	assert_string_equal(got, want);
}

/* ---- shell splitting ---- */

struct split_case {
	const char *in;
	const char *const *out; /* NULL: error expected */
	const char *msg;
};

#define W(...) ((const char *const[]){__VA_ARGS__, NULL})

static const struct split_case split_cases[] = {
    {"a b  c", W("a", "b", "c"), NULL},
    {"", W(NULL), NULL},
    {"   \t ", W(NULL), NULL},
    {"  lead trail  ", W("lead", "trail"), NULL},
    {"'a b' c", W("a b", "c"), NULL},
    {"\"a \\\"b\\\" c\"", W("a \"b\" c"), NULL},
    {"a\\ b", W("a b"), NULL},
    {"''", W(""), NULL},
    {"a '' b", W("a", "", "b"), NULL},
    {"a''b", W("ab"), NULL},
    {"\"$HOME\" `x`", W("$HOME", "`x`"), NULL},
    {"'it'\\''s'", W("it's"), NULL},
    {"\"a\\nb\"", W("a\\nb"), NULL},
    {"'a\\nb'", W("a\\nb"), NULL},
    {"\"a\\\\b\"", W("a\\b"), NULL},
    {"sh -c 'echo \"x y\"'", W("sh", "-c", "echo \"x y\""), NULL},
    {"a\tb\nc", W("a", "b", "c"), NULL},
    {"*.c ~ $X", W("*.c", "~", "$X"), NULL},
    {"line\\\ncont", W("linecont"), NULL},
    {"'abc", NULL, "unterminated single quote in \"'abc\""},
    {"x \"abc", NULL, "unterminated double quote in \"x \"abc\""},
    {"abc\\", NULL, "trailing backslash in \"abc\\\""},
};

static void test_shell_split(void **state)
{
	for (size_t i = 0; i < sizeof(split_cases) / sizeof(split_cases[0]); i++) {
		const struct split_case *c = &split_cases[i];
		struct te_err err = {0};
		char **argv = svc_shell_split(c->in, &err);

		print_message("case %zu: %s\n", i, c->in);
		if (c->out) {
			check_strv(argv, c->out);
			te_strv_free(argv);
		} else {
			assert_null(argv);
			assert_int_equal(err.code, TE_E_COMPOSE);
			assert_string_equal(err.msg, c->msg);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_load_good),
	    cmocka_unit_test(test_load_relative_and_env_precedence),
	    cmocka_unit_test(test_load_anchors),
	    cmocka_unit_test(test_load_merge_depth_cap),
	    cmocka_unit_test(test_load_errors),
	    cmocka_unit_test(test_load_dotenv_beside_file),
	    cmocka_unit_test(test_load_io_errors),
	    cmocka_unit_test(test_load_long_syntax),
	    cmocka_unit_test(test_find_compose_file_order),
	    cmocka_unit_test(test_find_compose_file_relative_and_dirs),
	    cmocka_unit_test(test_shell_split),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
