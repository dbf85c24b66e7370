/* Compose files as larger projects write them (issue 19): the merge tags
 * (!reset, !override) on services, keys and mapping entries, extends
 * (merged by each key's rule, paths against the extended file, cycles and
 * files outside the project refused), include (conflicts, the same file
 * reached twice, variables), the project's variables (COMPOSE_FILE,
 * COMPOSE_PROFILES, --env-file, COMPOSE_PROJECT_NAME), replicas, and the
 * loader's caps. Each case a small input and the model it must give. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/buf.h"
#include "common/err.h"
#include "common/mem.h"
#include "services/model/compose.h"
#include "services/model/index.h"
#include "services/model/load.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[PATH_MAX];

static int setup(void **state)
{
	char tmpl[] = "/tmp/te-project-XXXXXX";

	assert_non_null(mkdtemp(tmpl));
	assert_non_null(realpath(tmpl, tmpdir));
	unsetenv("COMPOSE_FILE");
	unsetenv("COMPOSE_PROFILES");
	unsetenv("COMPOSE_PATH_SEPARATOR");
	unsetenv("COMPOSE_PROJECT_NAME");
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* NAME (may hold directories) under the test directory, written. Owned path. */
static char *put(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", tmpdir, name);
	te_autofree char *dir = xstrdup(path);
	FILE *f;

	*strrchr(dir, '/') = '\0';
	for (char *p = dir + strlen(tmpdir) + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(dir, 0700);
			*p = '/';
		}
	mkdir(dir, 0700);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* Load O (files relative to the test directory when not absolute). */
static struct svc_project *load_opts(struct svc_load_opts *o, struct te_err *err)
{
	te_autostrv char **warnings = NULL;

	return svc_load_project(o, &warnings, err);
}

static struct svc_project *load2(const char *a, const char *b, struct te_err *err)
{
	te_autofree char *pa = put("a.yaml", a);
	te_autofree char *pb = b ? put("b.yaml", b) : NULL;
	char *files[] = {pa, pb, NULL};
	struct svc_load_opts o = {.files = files};

	return load_opts(&o, err);
}

static struct svc_project *must(struct svc_project *p, const struct te_err *err)
{
	if (!p)
		fail_msg("load: %s", err->msg);
	return p;
}

static void refused(struct svc_project *p, const struct te_err *err, const char *want)
{
	if (p)
		fail_msg("loaded, expected '%s'", want);
	if (!strstr(err->msg, want))
		fail_msg("got '%s', expected '%s'", err->msg, want);
}

static const struct svc_service *svc(const struct svc_project *p, const char *name)
{
	const struct svc_service *s = svc_project_service(p, name);

	if (!s)
		fail_msg("no service '%s'", name);
	return s;
}

static const char *env_of(const struct svc_service *s, const char *key)
{
	for (size_t i = 0; i < s->n_environment; i++)
		if (strcmp(s->environment[i].key, key) == 0)
			return s->environment[i].value;
	return NULL;
}

static const char *label_of(const struct svc_service *s, const char *key)
{
	for (size_t i = 0; i < s->n_labels; i++)
		if (strcmp(s->labels[i].key, key) == 0)
			return s->labels[i].value;
	return NULL;
}

/* ---- !reset and !override ---- */

static void test_reset_key_entry_service(void **state)
{
	struct te_err err = {0};
	struct svc_project *p =
	    must(load2("services:\n  web:\n    image: a\n    ports: [\"80\"]\n    command: [x]\n"
		       "    environment: {A: \"1\", B: \"2\"}\n    labels: {l: \"1\", m: \"2\"}\n"
		       "    depends_on: [db, cache]\n    networks: [front, back]\n"
		       "    ulimits: {nofile: 10, nproc: 20}\n    sysctls: {net.core.somaxconn: \"1\"}\n"
		       "  db: {image: d}\n  cache: {image: c}\n  gone: {image: g}\nnetworks:\n  front: {}\n  "
		       "back: {}\n",
		       "services:\n  web:\n    ports: !reset []\n    command: !reset null\n"
		       "    environment: {A: !reset null, C: \"3\"}\n    labels: {m: !reset null}\n"
		       "    depends_on: {cache: !reset null}\n    networks: {back: !reset null}\n"
		       "    ulimits: {nproc: !reset null}\n    sysctls: !reset {}\n  gone: !reset\n",
		       &err),
		 &err);
	const struct svc_service *s = svc(p, "web");

	assert_int_equal(s->n_ports, 0);
	assert_null(s->command);
	assert_null(env_of(s, "A"));
	assert_string_equal(env_of(s, "B"), "2");
	assert_string_equal(env_of(s, "C"), "3");
	assert_string_equal(label_of(s, "l"), "1");
	assert_null(label_of(s, "m"));
	assert_int_equal(s->n_deps, 1);
	assert_string_equal(s->deps[0].service, "db");
	assert_int_equal(s->n_net_attach, 1);
	assert_string_equal(s->net_attach[0].key, "front");
	assert_string_equal(s->ulimits[0], "nofile=10:10");
	assert_null(s->ulimits[1]);
	assert_int_equal(s->n_sysctls, 0);
	assert_null(svc_project_service(p, "gone"));
	/* An emptied key points at the later file's !reset, not the earlier value. */
	assert_int_equal(s->key_loc[SVC_K_PORTS].line, 3);
	assert_non_null(strstr(s->key_loc[SVC_K_PORTS].file, "b.yaml"));
	svc_project_free(p);
}

static void test_override_key_entry_service(void **state)
{
	struct te_err err = {0};
	struct svc_project *p = must(
	    load2("services:\n  web:\n    image: a\n    ports: [\"80\"]\n    cap_add: [CHOWN]\n"
		  "    environment: {A: \"1\", B: \"2\"}\n    networks: {front: {aliases: [one]}}\n"
		  "  worker:\n    image: w:1\n    environment: {X: \"1\"}\n    cap_add: [KILL]\nnetworks:\n  "
		  "front: {}\n",
		  "services:\n  web:\n    ports: !override [\"443\"]\n    cap_add: !override [NET_RAW]\n"
		  "    environment: !override {C: \"3\"}\n    networks: {front: !override {aliases: [two]}}\n"
		  "  worker: !override\n    image: w:2\n",
		  &err),
	    &err);
	const struct svc_service *s = svc(p, "web"), *w = svc(p, "worker");

	assert_int_equal(s->n_ports, 1);
	assert_int_equal(s->ports[0].container_port, 443);
	assert_string_equal(s->cap_add[0], "NET_RAW");
	assert_null(s->cap_add[1]);
	assert_int_equal(s->n_environment, 1);
	assert_string_equal(env_of(s, "C"), "3");
	assert_string_equal(s->net_attach[0].aliases[0], "two");
	assert_null(s->net_attach[0].aliases[1]);
	/* The service replaced whole, in its place. */
	assert_string_equal(w->image, "w:2");
	assert_int_equal(w->n_environment, 0);
	assert_null(w->cap_add);
	assert_string_equal(p->services[1].name, "worker");
	svc_project_free(p);
}

/* A tag where taskenv does not take one is refused, never ignored. */
static void test_tags_elsewhere_refused(void **state)
{
	static const struct {
		const char *yaml, *want;
	} cases[] = {
	    {"services:\n  web:\n    image: a\n    healthcheck: {test: x, interval: !reset 5s}\n",
	     "!reset is not supported by taskenv here"},
	    {"services:\n  web:\n    image: a\n    build: {context: ., args: {A: !reset null}}\n",
	     "services.web.build.args.A: !reset is not supported by taskenv here"},
	    {"services:\n  web:\n    image: a\n    deploy: !reset {}\n",
	     "services.web.deploy: !reset is not supported by taskenv on deploy"},
	    {"services:\n  web:\n    image: a\n    extends: !reset web\n",
	     "!reset is not supported by taskenv here"},
	    {"services:\n  web:\n    image: a\nnetworks:\n  n: !reset {}\n",
	     "!reset is not supported by taskenv here"},
	    {"services:\n  web:\n    image: a\n    cap_add: [!reset KILL]\n",
	     "!reset is not supported by taskenv here"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct te_err err = {0};

		print_message("case %zu\n", i);
		refused(load2(cases[i].yaml, NULL, &err), &err, cases[i].want);
	}
}

/* ---- extends ---- */

static void test_extends_merges_by_rule(void **state)
{
	struct te_err err = {0};
	struct svc_project *p =
	    must(load2("services:\n  base:\n    image: b\n    command: [a, b]\n    environment: {X: \"1\", "
		       "Y: \"1\"}\n"
		       "    ports: [\"8080:80\"]\n    cap_add: [CHOWN]\n    user: root\n"
		       "  web:\n    extends: base\n    command: c\n    environment: {Y: \"2\"}\n"
		       "    ports: [\"8080:80\", \"443\"]\n    cap_add: [KILL, CHOWN]\n",
		       NULL, &err),
		 &err);
	const struct svc_service *s = svc(p, "web");

	assert_string_equal(s->image, "b");
	assert_string_equal(s->command[0], "c"); /* replaced whole */
	assert_null(s->command[1]);
	assert_string_equal(env_of(s, "X"), "1");
	assert_string_equal(env_of(s, "Y"), "2");
	assert_int_equal(s->n_ports, 2); /* unique: 8080:80 once */
	assert_int_equal(s->ports[1].container_port, 443);
	assert_string_equal(s->cap_add[0], "CHOWN");
	assert_string_equal(s->cap_add[1], "KILL");
	assert_null(s->cap_add[2]);
	assert_string_equal(s->user, "root");
	assert_int_equal(s->key_loc[SVC_K_EXTENDS].line, 10);
	svc_project_free(p);
}

/* The base's relative paths hang off its own file's directory; a later -f
 * file's !reset still applies over what extends gave. */
static void test_extends_other_file_paths(void **state)
{
	struct te_err err = {0};
	te_autofree char *base =
	    put("lib/base.yaml", "services:\n  srv:\n    image: x\n    build: .\n"
				 "    volumes: [\"./conf:/conf\"]\n    labels: {a: \"1\"}\n");
	struct svc_project *p =
	    must(load2("services:\n  web:\n    extends: {file: lib/base.yaml, service: srv}\n",
		       "services:\n  web:\n    labels: !reset {}\n", &err),
		 &err);
	const struct svc_service *s = svc(p, "web");
	te_autofree char *conf = xasprintf("%s/lib/conf", tmpdir);
	te_autofree char *ctx = xasprintf("%s/lib", tmpdir);

	assert_string_equal(s->mounts[0].source, conf);
	assert_string_equal(s->build.context, ctx);
	assert_int_equal(s->n_labels, 0);
	assert_string_equal(s->key_loc[SVC_K_IMAGE].file, base); /* where it was written */
	svc_project_free(p);
}

static void test_extends_refused(void **state)
{
	te_autobuf struct te_buf chain = TE_BUF_INIT(0);
	static const struct {
		const char *yaml, *want;
	} cases[] = {
	    {"services:\n  a: {extends: b, image: x}\n  b: {extends: a}\n",
	     "extends cycle: a (%s/a.yaml) -> b (%s/a.yaml) -> a"},
	    {"services:\n  a: {extends: a, image: x}\n", "extends cycle: a (%s/a.yaml) -> a"},
	    {"services:\n  a: {extends: nope, image: x}\n",
	     "services.a.extends: service 'nope' not found in %s/a.yaml"},
	    {"services:\n  a: {extends: {file: /etc/passwd, service: root}}\n",
	     "services.a.extends.file: '/etc/passwd' is outside the project directory '%s'"},
	    {"services:\n  a: {extends: {file: missing.yaml, service: s}}\n",
	     "services.a.extends.file: '%s/missing.yaml'"},
	    {"services:\n  a: {extends: {servce: s}}\n",
	     "unknown key 'servce' in services.a.extends; did you mean 'service'?"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct te_err err = {0};
		te_autofree char *want = NULL;
		te_autobuf struct te_buf w = TE_BUF_INIT(0);

		/* "%s" in a case stands for the test directory. */
		for (const char *c = cases[i].want; *c; c++)
			if (c[0] == '%' && c[1] == 's')
				te_buf_adds(&w, tmpdir), c++;
			else
				te_buf_add(&w, c, 1);
		want = te_buf_detach(&w);

		print_message("case %zu\n", i);
		refused(load2(cases[i].yaml, NULL, &err), &err, want);
	}
	/* A chain of 40 (each a recursion) stops at the cap, naming it. */
	te_buf_adds(&chain, "services:\n  s0: {image: x}\n");
	for (int i = 1; i < 40; i++)
		te_buf_addf(&chain, "  s%d: {extends: s%d}\n", i, i - 1);
	{
		struct te_err err = {0};

		refused(load2(chain.data, NULL, &err), &err, "extends chain longer than 32");
	}
}

/* ---- include ---- */

static void test_include_conflicts_and_twice(void **state)
{
	struct te_err err = {0};
	struct svc_project *p;

	/* d.yaml reached through b and c: the same definition, kept once. */
	free(put("d.yaml", "services:\n  d: {image: d}\nvolumes:\n  shared: {}\n"));
	free(put("b.yaml", "include: [d.yaml]\nservices:\n  b: {image: b, depends_on: [d]}\n"));
	free(put("c.yaml", "include: [d.yaml]\nservices:\n  c: {image: c}\n"));
	p = must(load2("include: [b.yaml, c.yaml]\nservices:\n  a: {image: a}\n", NULL, &err), &err);
	assert_int_equal(p->n_services, 4);
	assert_int_equal(p->n_volumes, 1);
	assert_non_null(svc_project_service(p, "d"));
	svc_project_free(p);
	/* Two definitions of one name: refused, naming both. */
	free(put("other.yaml", "services:\n  a: {image: other}\n"));
	p = load2("include: [other.yaml]\nservices:\n  a: {image: a}\n", NULL, &err);
	refused(p, &err, "service 'a' of");
	assert_non_null(strstr(err.msg, "other.yaml:2 is also defined at"));
	/* A later -f file may override an included service. */
	p = must(load2("include: [other.yaml]\nservices:\n  z: {image: z}\n",
		       "services:\n  a: {image: mine}\n", &err),
		 &err);
	assert_string_equal(svc(p, "a")->image, "mine");
	svc_project_free(p);
}

/* The included project's variables: its env_file under the including
 * project's, which win; the included file's .env by default. */
static void test_include_variables(void **state)
{
	struct te_err err = {0};
	te_autofree char *dotenv = xasprintf("%s/.env", tmpdir);
	struct svc_project *p;

	free(put("inc/compose.yaml", "services:\n  i: {image: \"i:${TAG}-${SHARED}\"}\n"));
	free(put("inc/.env", "TAG=dotenv\nSHARED=inc\n"));
	free(put(".env", "SHARED=top\n"));
	p = must(load2("include: [inc/compose.yaml]\nservices:\n  a: {image: a}\n", NULL, &err), &err);
	assert_string_equal(svc(p, "i")->image, "i:dotenv-top");
	svc_project_free(p);
	free(put("inc.env", "TAG=envfile\n"));
	p = must(
	    load2("include:\n  - {path: inc/compose.yaml, env_file: inc.env}\nservices:\n  a: {image: a}\n",
		  NULL, &err),
	    &err);
	assert_string_equal(svc(p, "i")->image, "i:envfile-top");
	svc_project_free(p);
	assert_int_equal(unlink(dotenv), 0);
}

/* ---- the project's variables ---- */

static void test_project_variables(void **state)
{
	struct te_err err = {0};
	te_autofree char *dir = xasprintf("%s/vars", tmpdir);
	te_autofree char *e1 = put("vars/one.env", "TAG=one\nOTHER=one\n");
	te_autofree char *e2 = put("vars/two.env", "TAG=two\n");
	char *envs[] = {e1, e2, NULL};
	struct svc_load_opts o = {.dir = dir, .env_files = envs, .project_name = "t1"};
	struct svc_project *p;

	free(put("vars/compose.yaml", "services:\n  a:\n    image: \"a:${TAG}-${OTHER}\"\n"
				      "    environment: {P: \"${COMPOSE_PROJECT_NAME}\"}\n"
				      "  b: {image: b, profiles: [extra]}\n"));
	free(put("vars/compose.override.yml", "services:\n  a: {labels: {from: override}}\n"));
	free(put("vars/.env", "TAG=dotenv\nCOMPOSE_PROJECT_NAME=dotenv\nCOMPOSE_PROFILES=extra\n"));
	/* --env-file instead of the .env, later winning; the default override file. */
	p = must(load_opts(&o, &err), &err);
	assert_string_equal(svc(p, "a")->image, "a:two-one");
	assert_string_equal(env_of(svc(p, "a"), "P"), "t1");
	assert_string_equal(label_of(svc(p, "a"), "from"), "override");
	assert_null(svc_project_service(p, "b"));
	svc_project_free(p);
	/* The .env: its COMPOSE_PROFILES; COMPOSE_PROJECT_NAME stays the task. */
	o.env_files = NULL;
	p = must(load_opts(&o, &err), &err);
	assert_string_equal(svc(p, "a")->image, "a:dotenv-");
	assert_string_equal(env_of(svc(p, "a"), "P"), "t1");
	assert_non_null(svc_project_service(p, "b"));
	svc_project_free(p);
	/* The process environment wins over the .env. */
	setenv("COMPOSE_PROFILES", "none", 1);
	setenv("TAG", "process", 1);
	p = must(load_opts(&o, &err), &err);
	assert_string_equal(svc(p, "a")->image, "a:process-");
	assert_null(svc_project_service(p, "b"));
	svc_project_free(p);
	unsetenv("COMPOSE_PROFILES");
	unsetenv("TAG");
}

static void test_compose_file_from_dotenv(void **state)
{
	struct te_err err = {0};
	te_autofree char *dir = xasprintf("%s/cf", tmpdir);
	struct svc_load_opts o = {.dir = dir};
	struct svc_project *p;

	free(put("cf/deploy/one.yaml", "services:\n  a: {image: one}\n"));
	free(put("cf/deploy/two.yaml", "services:\n  a: {image: two}\n"));
	free(put("cf/.env", "COMPOSE_FILE=deploy/one.yaml|deploy/two.yaml\nCOMPOSE_PATH_SEPARATOR=|\n"));
	p = must(load_opts(&o, &err), &err);
	assert_string_equal(svc(p, "a")->image, "two");
	assert_int_equal(te_strv_len(p->files), 2);
	svc_project_free(p);
	/* Named in the .env, a file outside the project is refused... */
	free(put("outside.yaml", "services:\n  a: {image: outside}\n"));
	free(put("cf/.env", "COMPOSE_FILE=../outside.yaml\n"));
	refused(load_opts(&o, &err), &err, "COMPOSE_FILE names");
	/* ...but the process environment is trusted. */
	setenv("COMPOSE_FILE", "../outside.yaml", 1);
	assert_int_equal(chdir(dir), 0);
	p = must(load_opts(&o, &err), &err);
	assert_string_equal(svc(p, "a")->image, "outside");
	svc_project_free(p);
	unsetenv("COMPOSE_FILE");
	/* A .env that is a directory is skipped. */
	free(put("dd/compose.yaml", "services:\n  a: {image: \"a:${NOPE:-ok}\"}\n"));
	{
		te_autofree char *dd = xasprintf("%s/dd", tmpdir);
		te_autofree char *dotenv = xasprintf("%s/dd/.env", tmpdir);

		assert_int_equal(mkdir(dotenv, 0700), 0);
		o.dir = dd;
		p = must(load_opts(&o, &err), &err);
		assert_string_equal(svc(p, "a")->image, "a:ok");
		svc_project_free(p);
	}
}

/* ---- replicas ---- */

static void test_replicas(void **state)
{
	struct te_err err = {0};
	struct svc_project *p = must(load2("services:\n  a: {image: a, scale: 3}\n  b: {image: b, deploy: "
					   "{replicas: 0}}\n  c: {image: c}\n",
					   "services:\n  a: {scale: 2}\n", &err),
				     &err);

	assert_int_equal(svc(p, "a")->replicas, 2);
	assert_int_equal(svc(p, "b")->replicas, 0);
	assert_int_equal(svc(p, "c")->replicas, SVC_UNSET);
	assert_int_equal(svc_project_scale(p, "c", 5, &err), 0);
	assert_int_equal(svc(p, "c")->replicas, 5);
	assert_int_equal(svc_project_scale(p, "nope", 1, &err), -1);
	assert_int_equal(svc_project_scale(p, "a", SVC_MAX_REPLICAS + 1, &err), -1);
	svc_project_free(p);
	refused(load2("services:\n  a: {image: a, scale: 2, container_name: x}\n", NULL, &err), &err,
		"container_name with 2 replicas");
}

/* ---- the caps ---- */

static void test_caps(void **state)
{
	te_autobuf struct te_buf laughs = TE_BUF_INIT(0);
	te_autofree char *path = NULL;
	struct svc_load_opts o = {.limits = {.max_bytes = 64}};
	char *files[] = {NULL, NULL};
	struct te_err err = {0};

	path = put("big.yaml", "services:\n  a:\n    image: a\n    labels: {a: "
			       "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}\n");
	files[0] = path;
	o.files = files;
	refused(load_opts(&o, &err), &err,
		"larger than the cap of 64 bytes (compose.max_bytes, TASKENV_COMPOSE_MAX_BYTES)");
	/* Flow nesting far past the cap stops at the first level too deep. */
	{
		te_autobuf struct te_buf b = TE_BUF_INIT(0);
		te_autofree char *p2 = NULL;
		char *f2[] = {NULL, NULL};
		struct svc_load_opts o2 = {.files = f2};

		te_buf_adds(&b, "services:\n  a:\n    image: a\n    labels: ");
		for (int i = 0; i < 100000; i++)
			te_buf_adds(&b, "[");
		p2 = put("deep.yaml", b.data);
		f2[0] = p2;
		refused(load_opts(&o2, &err), &err,
			"deep.yaml:4:110: mappings and lists nested deeper than the cap of 100 "
			"(compose.max_depth");
	}
	/* Aliases count as what they repeat: a billion laughs stops at the node cap. */
	te_buf_adds(&laughs, "x-a: &a [l, l, l, l, l, l, l, l, l, l]\n");
	for (char c = 'b'; c <= 'j'; c++)
		te_buf_addf(&laughs, "x-%c: &%c [*%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c]\n", c, c,
			    c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1);
	te_buf_adds(&laughs, "services:\n  a: {image: a}\n");
	free(path);
	path = put("laughs.yaml", laughs.data);
	files[0] = path;
	o.limits.max_bytes = 0;
	refused(load_opts(&o, &err), &err,
		"more YAML nodes (aliases counted as what they repeat) than the cap of 4000000");
}

static void test_index(void **state)
{
	struct item {
		int n;
		char *name;
	} items[3000];
	struct svc_index x = SVC_INDEX(struct item, name);

	for (int i = 0; i < 3000; i++)
		items[i] = (struct item){i, xasprintf("k%d", i)};
	svc_index_build(&x, items, 10);
	for (size_t i = 10; i < 3000; i++)
		svc_index_added(&x, items, i + 1);
	for (int i = 0; i < 3000; i++) {
		char k[16];

		snprintf(k, sizeof(k), "k%d", i);
		assert_int_equal(svc_index_find(&x, items, k), i);
	}
	assert_int_equal(svc_index_find(&x, items, "k3000"), SIZE_MAX);
	svc_index_release(&x);
	for (int i = 0; i < 3000; i++)
		free(items[i].name);
}

static void test_pull_policy(void **state)
{
	static const struct {
		const char *v;
		int rc;
		enum svc_pull p;
		long long ns;
	} cases[] = {
	    {NULL, 0, SVC_PULL_MISSING, 0},
	    {"missing", 0, SVC_PULL_MISSING, 0},
	    {"if_not_present", 0, SVC_PULL_MISSING, 0},
	    {"always", 0, SVC_PULL_ALWAYS, 0},
	    {"never", 0, SVC_PULL_NEVER, 0},
	    {"build", 0, SVC_PULL_BUILD, 0},
	    {"daily", 0, SVC_PULL_REFRESH, 86400LL * 1000000000LL},
	    {"weekly", 0, SVC_PULL_REFRESH, 7 * 86400LL * 1000000000LL},
	    {"every_12h", 0, SVC_PULL_REFRESH, 12 * 3600LL * 1000000000LL},
	    {"every_2d", 0, SVC_PULL_REFRESH, 2 * 86400LL * 1000000000LL},
	    {"every_1w", 0, SVC_PULL_REFRESH, 7 * 86400LL * 1000000000LL},
	    {"every_", -1, SVC_PULL_REFRESH, 0},
	    {"sometimes", -1, SVC_PULL_MISSING, 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum svc_pull p;
		long long ns;

		print_message("case %s\n", cases[i].v ? cases[i].v : "(null)");
		assert_int_equal(svc_pull_policy(cases[i].v, &p, &ns), cases[i].rc);
		if (cases[i].rc == 0) {
			assert_int_equal(p, cases[i].p);
			assert_int_equal(ns, cases[i].ns);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reset_key_entry_service),
	    cmocka_unit_test(test_override_key_entry_service),
	    cmocka_unit_test(test_tags_elsewhere_refused),
	    cmocka_unit_test(test_extends_merges_by_rule),
	    cmocka_unit_test(test_extends_other_file_paths),
	    cmocka_unit_test(test_extends_refused),
	    cmocka_unit_test(test_include_conflicts_and_twice),
	    cmocka_unit_test(test_include_variables),
	    cmocka_unit_test(test_project_variables),
	    cmocka_unit_test(test_compose_file_from_dotenv),
	    cmocka_unit_test(test_replicas),
	    cmocka_unit_test(test_caps),
	    cmocka_unit_test(test_index),
	    cmocka_unit_test(test_pull_policy),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
