/* The service key table (keys.h): its rows are consistent, it knows every
 * key of the Compose Specification, each merge rule gives the model the
 * merge document says (one small input pair per rule), strict keys at
 * every level the loader reads, the suggestion distance, and the unset
 * variable warning. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/buf.h"
#include "common/err.h"
#include "common/mem.h"
#include "services/model/compose.h"
#include "services/model/keys.h"
#include "services/model/load.h"
#include "services/model/load_service.h"
#include "services/model/suggest.h"
#include "services/model/yaml.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[PATH_MAX];

static int setup(void **state)
{
	char tmpl[] = "/tmp/te-keys-XXXXXX";

	assert_non_null(mkdtemp(tmpl));
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

/* BASE then OVERRIDE as two -f files; the merged project (must load). */
static struct svc_project *merged(const char *base, const char *override)
{
	te_autofree char *a = write_file("base.yaml", base);
	te_autofree char *b = write_file("override.yaml", override);
	char *files[] = {a, b, NULL};
	struct te_err err = {0};
	struct svc_project *p = svc_load(files, &err);

	if (!p)
		fail_msg("load: %s", err.msg);
	return p;
}

static const struct svc_service *web(const struct svc_project *p)
{
	const struct svc_service *s = svc_project_service(p, "web");

	assert_non_null(s);
	return s;
}

static void check_strv(char *const *v, const char *const *want)
{
	size_t n = 0;

	while (want[n])
		n++;
	assert_int_equal(te_strv_len(v), n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(v[i], want[i]);
}

static void check_env(const struct svc_service *s, const char *const *kv)
{
	size_t n = 0;

	while (kv[2 * n])
		n++;
	assert_int_equal(s->n_environment, n);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(s->environment[i].key, kv[2 * i]);
		assert_string_equal(s->environment[i].value, kv[2 * i + 1]);
	}
}

/* ---- the table ---- */

static void test_table_consistent(void **state)
{
	for (size_t i = 0; i < SVC_K_COUNT; i++) {
		const struct svc_key_desc *k = &svc_service_keys[i];

		print_message("%s\n", k->name);
		assert_int_equal(k->id, i);
		assert_ptr_equal(svc_key_find(k->name), k);
		/* The row's rule is one its kind implements. */
		assert_true(svc_kind_merges(k->kind, k->merge));
		/* A member for every rule but NONE, and none for NONE. */
		assert_int_equal(k->size == 0, k->merge == SVC_MERGE_NONE);
	}
	assert_null(svc_key_find("port"));
	assert_string_equal(svc_merge_name(SVC_MERGE_UNIQUE), "unique");
	/* Rules a kind does not implement are refused. */
	assert_false(svc_kind_merges(SVC_KIND_STR, SVC_MERGE_SEQUENCE));
	assert_false(svc_kind_merges(SVC_KIND_PORTS, SVC_MERGE_MAPPING));
}

/* The service keys of compose-spec.json at compose-spec 170098ba07d9. */
static const char *const spec_keys[] = {
    "annotations",
    "attach",
    "blkio_config",
    "build",
    "cap_add",
    "cap_drop",
    "cgroup",
    "cgroup_parent",
    "command",
    "configs",
    "container_name",
    "cpu_count",
    "cpu_percent",
    "cpu_period",
    "cpu_quota",
    "cpu_rt_period",
    "cpu_rt_runtime",
    "cpu_shares",
    "cpus",
    "cpuset",
    "credential_spec",
    "depends_on",
    "deploy",
    "develop",
    "device_cgroup_rules",
    "devices",
    "dns",
    "dns_opt",
    "dns_search",
    "domainname",
    "entrypoint",
    "env_file",
    "environment",
    "expose",
    "extends",
    "external_links",
    "extra_hosts",
    "gpus",
    "group_add",
    "healthcheck",
    "hostname",
    "image",
    "init",
    "ipc",
    "isolation",
    "label_file",
    "labels",
    "links",
    "logging",
    "mac_address",
    "mem_limit",
    "mem_reservation",
    "mem_swappiness",
    "memswap_limit",
    "models",
    "network_mode",
    "networks",
    "oom_kill_disable",
    "oom_score_adj",
    "pid",
    "pids_limit",
    "platform",
    "ports",
    "post_start",
    "pre_stop",
    "privileged",
    "profiles",
    "provider",
    "pull_policy",
    "pull_refresh_after",
    "read_only",
    "restart",
    "runtime",
    "scale",
    "secrets",
    "security_opt",
    "shm_size",
    "stdin_open",
    "stop_grace_period",
    "stop_signal",
    "storage_opt",
    "sysctls",
    "tmpfs",
    "tty",
    "ulimits",
    "use_api_socket",
    "user",
    "userns_mode",
    "uts",
    "volumes",
    "volumes_from",
    "working_dir",
    NULL,
};

static bool listed(const char *const *v, const char *s)
{
	for (size_t i = 0; v[i]; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

/* Every key of the spec is loaded, accepted, ignored or refused; the loader
 * knows no key the spec does not have. */
static void test_spec_keys_known(void **state)
{
	const char *const *known = svc_service_key_names();

	for (size_t i = 0; spec_keys[i]; i++)
		if (!listed(known, spec_keys[i]))
			fail_msg("spec key '%s' unknown to the loader", spec_keys[i]);
	for (size_t i = 0; known[i]; i++)
		if (!listed(spec_keys, known[i]))
			fail_msg("loader key '%s' not in the spec", known[i]);
	for (size_t i = 0; i < SVC_K_COUNT; i++)
		assert_true(listed(spec_keys, svc_service_keys[i].name));
	/* Once each: a key moved into the table must leave the unloaded list. */
	for (size_t i = 0; known[i]; i++)
		for (size_t j = i + 1; known[j]; j++)
			if (strcmp(known[i], known[j]) == 0)
				fail_msg("key '%s' listed twice", known[i]);
}

/* docs/compose-keys.md names every key of the specification's schema once
 * per level with what taskenv does, and says the same as the loader: an
 * "implemented" key is loaded, an "error" refused, an "ignored" warned. */
static void docs_table_level(const char *doc, const char *section, const struct svc_yaml_key *keys)
{
	const char *at = strstr(doc, section), *end;
	size_t rows = 0, n = 0;

	assert_non_null(at);
	end = strstr(at + 1, "\n## ");
	end = end ? end : at + strlen(at);
	while (keys[n].name)
		n++;
	for (const char *l = strstr(at, "\n| `"); l && l < end; l = strstr(l + 1, "\n| `")) {
		char key[64] = "", status[32] = "";
		const struct svc_yaml_key *k = NULL;
		const char *want;

		assert_int_equal(sscanf(l, "\n| `%63[^`]` | %31[a-z]", key, status), 2);
		for (size_t i = 0; i < n && !k; i++)
			if (strcmp(keys[i].name, key) == 0)
				k = &keys[i];
		if (!k)
			fail_msg("%s: docs key '%s' unknown to the loader", section, key);
		want = k->use == SVC_USE_LOAD	  ? "implemented"
		       : k->use == SVC_USE_REFUSE ? "error"
						  : "ignored";
		if (strcmp(status, want) != 0)
			fail_msg("%s: '%s' is '%s' in the docs, '%s' in the loader", section, key, status,
				 want);
		rows++;
	}
	/* x-taskenv is taskenv's own extension, not a key of the schema. */
	assert_int_equal(rows, n);
}

static void test_docs_key_table(void **state)
{
	te_autofree char *path = xasprintf("%s/compose-keys.md", DOCS_DIR);
	te_autobuf struct te_buf doc = TE_BUF_INIT(0);
	FILE *f = fopen(path, "r");
	char chunk[4096];
	size_t got;

	assert_non_null(f);
	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0)
		te_buf_add(&doc, chunk, got);
	fclose(f);
	assert_non_null(strstr(doc.data, "170098ba07d9f53c383a41bfd4c5166b0a4529a6"));
	docs_table_level(doc.data, "## Top level", svc_top_key_table());
	docs_table_level(doc.data, "## Services", svc_service_key_table());
}

/* ---- merge rules, one input pair each ---- */

static void test_merge_replace(void **state)
{
	struct svc_project *p =
	    merged("services:\n  web:\n    image: a:1\n    privileged: true\n"
		   "    mem_limit: 1g\n    user: root\n    read_only: true\n",
		   "services:\n  web:\n    image: b:2\n    privileged: false\n    cpus: 0.5\n");
	const struct svc_service *s = web(p);

	assert_string_equal(s->image, "b:2");
	assert_int_equal(s->privileged, 0);	       /* written false beats true */
	assert_int_equal(s->read_only, 1);	       /* not written later: kept */
	assert_int_equal(s->mem_limit, 1LL << 30);     /* kept */
	assert_true(s->cpus > 0.49 && s->cpus < 0.51); /* added */
	assert_string_equal(s->user, "root");
	/* The later file's key, for the policy and the gate to point at. */
	assert_int_equal(s->key_loc[SVC_K_IMAGE].line, 3);
	assert_non_null(strstr(s->key_loc[SVC_K_IMAGE].file, "override.yaml"));
	assert_non_null(strstr(s->key_loc[SVC_K_MEM_LIMIT].file, "base.yaml"));
	svc_project_free(p);
}

static void test_merge_override(void **state)
{
	struct svc_project *p = merged(
	    "services:\n  web:\n    image: a\n    command: [echo, foo]\n    entrypoint: [/bin/sh, -c]\n"
	    "    healthcheck:\n      test: [CMD, a]\n      interval: 5s\n",
	    "services:\n  web:\n    command: [echo, bar]\n    healthcheck:\n      test: b\n");
	const struct svc_service *s = web(p);

	check_strv(s->command, (const char *[]){"echo", "bar", NULL});
	check_strv(s->entrypoint, (const char *[]){"/bin/sh", "-c", NULL});
	check_strv(s->health.test, (const char *[]){"CMD-SHELL", "b", NULL});
	assert_int_equal(s->health.interval_ns, 5000000000LL); /* the mapping around test merges */
	svc_project_free(p);
}

static void test_merge_mapping(void **state)
{
	struct svc_project *p = merged(
	    "services:\n  web:\n    image: a\n    environment: {A: \"1\", B: \"2\"}\n    labels: [x=1]\n"
	    "    depends_on: {db: {condition: service_started}}\n"
	    "    networks: {front: {aliases: [w1], ipv4_address: 10.1.0.5}}\n"
	    "    build: {context: ./app, args: {V: \"1\", W: \"1\"}}\n"
	    "    ulimits: {nofile: 1024, nproc: 64}\n"
	    "  db:\n    image: pg\nnetworks:\n  front: {}\n",
	    "services:\n  web:\n    environment: [B=3, C=4]\n    labels: {y: \"2\"}\n"
	    "    depends_on: {db: {condition: service_healthy}}\n"
	    "    networks: {front: {aliases: [w2, w1], ipv4_address: 10.1.0.6}}\n"
	    "    build: {dockerfile: Dockerfile.dev, args: {W: \"2\"}}\n"
	    "    ulimits: {nofile: {soft: 10, hard: 20}}\n");
	const struct svc_service *s = web(p);

	check_env(s, (const char *[]){"A", "1", "B", "3", "C", "4", NULL});
	assert_int_equal(s->n_labels, 2);
	assert_int_equal(s->n_deps, 1);
	assert_string_equal(s->deps[0].condition, "service_healthy");
	assert_int_equal(s->n_net_attach, 1);
	check_strv(s->net_attach[0].aliases, (const char *[]){"w1", "w2", NULL});
	assert_string_equal(s->net_attach[0].ipv4_address, "10.1.0.6");
	/* build: key by key; the later file has no context and keeps the earlier one. */
	assert_non_null(strstr(s->build.context, "/app"));
	assert_string_equal(s->build.dockerfile, "Dockerfile.dev");
	assert_int_equal(s->build.n_args, 2);
	assert_string_equal(s->build.args[1].key, "W");
	assert_string_equal(s->build.args[1].value, "2");
	check_strv(s->ulimits, (const char *[]){"nofile=10:20", "nproc=64:64", NULL});
	svc_project_free(p);
}

static void test_merge_sequence(void **state)
{
	struct svc_project *p =
	    merged("services:\n  web:\n    image: a\n    cap_add: [CHOWN, KILL]\n    dns: 1.1.1.1\n"
		   "    extra_hosts: [\"a:10.0.0.1\"]\n",
		   "services:\n  web:\n    cap_add: [KILL, NET_ADMIN]\n    dns: [8.8.8.8, 1.1.1.1]\n"
		   "    extra_hosts: {b: 10.0.0.2, a: 10.0.0.1}\n");
	const struct svc_service *s = web(p);

	check_strv(s->cap_add, (const char *[]){"CHOWN", "KILL", "NET_ADMIN", NULL});
	check_strv(s->dns, (const char *[]){"1.1.1.1", "8.8.8.8", NULL});
	check_strv(s->extra_hosts, (const char *[]){"a:10.0.0.1", "b:10.0.0.2", NULL});
	svc_project_free(p);
}

static void test_merge_unique(void **state)
{
	struct svc_project *p =
	    merged("services:\n  web:\n    image: a\n    ports: [\"8080:80\", \"127.0.0.1:9000:90\"]\n"
		   "    volumes: [\"./a:/data\", \"cache:/cache\"]\n"
		   "    secrets: [token, {source: cert, target: /etc/cert.pem}]\n"
		   "volumes:\n  cache: {}\nsecrets:\n  token: {file: ./t}\n  cert: {file: ./c}\n  other: "
		   "{file: ./o}\n",
		   "services:\n  web:\n    ports: [\"8080:80\", \"8081:80\", \"9000:90\"]\n"
		   "    volumes: [\"./b:/data\"]\n"
		   "    secrets: [{source: other, target: /etc/cert.pem}, token]\n");
	const struct svc_service *s = web(p);

	/* {ip, target, published, protocol}: 8080:80 once; 8081:80 and 9000:90 (no ip) are new. */
	assert_int_equal(s->n_ports, 4);
	assert_int_equal(s->ports[0].host_port, 8080);
	assert_int_equal(s->ports[2].host_port, 8081);
	assert_null(s->ports[3].host_ip);
	/* volumes by target: ./b replaces ./a at /data, in its place. */
	assert_int_equal(s->n_mounts, 2);
	assert_string_equal(s->mounts[0].target, "/data");
	assert_non_null(strstr(s->mounts[0].source, "/b"));
	/* secrets by target: other replaces cert at /etc/cert.pem; token once. */
	assert_int_equal(s->n_secrets, 2);
	assert_string_equal(s->secrets[0].source, "token");
	assert_string_equal(s->secrets[1].source, "other");
	svc_project_free(p);
}

/* A value of each kind, for test_merge_everything. */
static const char *const samples[SVC_KIND_COUNT] = {
    [SVC_KIND_STR] = "x",
    [SVC_KIND_CNAME] = "cn",
    [SVC_KIND_IMAGE] = "a",
    [SVC_KIND_STRV] = "[s]",
    [SVC_KIND_ARGV] = "x y",
    [SVC_KIND_HOSTS] = "[\"h:1.2.3.4\"]",
    [SVC_KIND_ULIMITS] = "{nofile: 1}",
    [SVC_KIND_TRI] = "true",
    [SVC_KIND_BYTES] = "1m",
    [SVC_KIND_DURATION] = "1s",
    [SVC_KIND_INT] = "5",
    [SVC_KIND_DOUBLE] = "1",
    [SVC_KIND_ENV] = "[A=1]",
    [SVC_KIND_KV] = "[a.b=1]",
    [SVC_KIND_PORTS] = "[\"80\"]",
    [SVC_KIND_MOUNTS] = "[\"/x\"]",
    [SVC_KIND_DEPS] = "[db]",
    [SVC_KIND_NETS] = "[default]",
    [SVC_KIND_REFS] = "[s]",
    [SVC_KIND_HEALTH] = "{test: t}",
    [SVC_KIND_BUILD] = ".",
    [SVC_KIND_DEPLOY] = "{replicas: 1}",
    [SVC_KIND_ENV_FILE] = "[]",
    [SVC_KIND_SCALE] = "1",
    [SVC_KIND_EXTENDS] = "db",
};

/* Keys whose value must name something that exists, or be one of a few words. */
static const char *sample_of(const struct svc_key_desc *k)
{
	switch (k->id) {
	case SVC_K_PULL_POLICY: return "missing";
	case SVC_K_LINKS:
	case SVC_K_VOLUMES_FROM: return "[db]";
	default: return samples[k->kind];
	}
}

/* Every key of the table (a sample value of its kind) in both files: each
 * is loaded, located and merged, and ASan (the unit tests run under it)
 * sees the generic merge and release neither leak nor free twice. A new
 * plain key is covered without touching this test. */
static void test_merge_everything(void **state)
{
	te_autobuf struct te_buf svc = TE_BUF_INIT(0);
	te_autofree char *a = NULL;
	te_autofree char *b = NULL;
	struct svc_project *p;
	const struct svc_service *s;

	for (size_t i = 0; i < SVC_K_COUNT; i++) {
		const struct svc_key_desc *k = &svc_service_keys[i];

		assert_non_null(samples[k->kind]);
		/* profiles: would make the service inactive */
		if (k->id != SVC_K_PROFILES)
			te_buf_addf(&svc, "    %s: %s\n", k->name, sample_of(k));
	}
	a = xasprintf("services:\n  web:\n%s  db:\n    image: pg\nsecrets:\n  s: {file: ./s}\n"
		      "configs:\n  s: {file: ./s}\n",
		      svc.data);
	b = xasprintf("services:\n  web:\n%s  db:\n    image: pg\n", svc.data);
	p = merged(a, b);
	s = web(p);
	for (size_t i = 0; i < SVC_K_COUNT; i++)
		if (!s->key_loc[i].line && i != SVC_K_PROFILES)
			fail_msg("key %s has no location", svc_service_keys[i].name);
	assert_int_equal(s->n_ports, 1);
	assert_int_equal(te_strv_len(s->cap_add), 1);
	check_strv(s->command, (const char *[]){"x", "y", NULL});
	svc_project_free(p);
}

/* ---- suggestions ---- */

static void test_edit_distance(void **state)
{
	static const struct {
		const char *a, *b;
		size_t d;
	} cases[] = {
	    {"port", "ports", 1},
	    {"imgae", "image", 1},
	    {"enviroment", "environment", 1},
	    {"", "a", 1},
	    {"abc", "abc", 0},
	    {"ca", "abc", 3},
	    {"volums", "volumes", 1},
	    {"dependson", "depends_on", 1},
	    {"netwroks", "networks", 1},
	    {"frobnicate", "profiles", 7},
	    {"abcd", "badc", 2},
	    {"Ports", "ports", 1},
	};
	char big[SVC_SUGGEST_MAX_LEN + 2];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		print_message("%s %s\n", cases[i].a, cases[i].b);
		assert_int_equal(svc_edit_distance(cases[i].a, cases[i].b), cases[i].d);
		assert_int_equal(svc_edit_distance(cases[i].b, cases[i].a), cases[i].d);
	}
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(svc_edit_distance(big, "a"), SIZE_MAX);
}

static void test_suggest(void **state)
{
	static const char *const keys[] = {"image", "ports", "expose", NULL, "profiles", "port_s"};
	size_t n = sizeof(keys) / sizeof(keys[0]);

	assert_string_equal(svc_suggest("port", keys, n), "ports"); /* the first of two at 1 */
	assert_string_equal(svc_suggest("imgae", keys, n), "image");
	assert_string_equal(svc_suggest("expos", keys, n), "expose");
	assert_null(svc_suggest("frobnicate", keys, n));
	assert_null(svc_suggest("ports", (const char *const[]){"ports"}, 1)); /* itself is no suggestion */
	assert_null(svc_suggest("pxrtsyz", keys, n));			      /* 3 away */
}

/* ---- strict keys at every level ---- */

struct strict_case {
	const char *yaml; /* a whole file */
	const char *want; /* in the error after "FILE:", or NULL: loads */
};

static const struct strict_case strict_cases[] = {
    {"services:\n  web:\n    image: x\n    port: [\"80\"]\n",
     "4:5: unknown key 'port' in services.web; did you mean 'ports'?"},
    {"services:\n  web:\n    imgae: x\n", "3:5: unknown key 'imgae' in services.web; did you mean 'image'?"},
    {"services:\n  web:\n    image: x\n    post_start: [{command: x}]\n",
     "4:5: services.web.post_start is not supported by taskenv"},
    {"services:\n  web:\n    image: x\n    x-anything: {a: 1}\n", NULL},
    {"services:\n  web:\n    image: x\n    ports: [{target: 80, protocl: udp}]\n",
     "4:26: unknown key 'protocl' in services.web.ports; did you mean 'protocol'?"},
    {"services:\n  web:\n    image: x\n    ports: [{target: 80, mode: host, x-a: 1}]\n", NULL},
    {"services:\n  web:\n    image: x\n    volumes: [{type: bind, source: /a, target: /b, bnd: {}}]\n",
     "4:52: unknown key 'bnd' in services.web.volumes; did you mean 'bind'?"},
    {"services:\n  web:\n    image: x\n    volumes: [{type: volume, source: v, target: /b, volume: {subpath: "
     "s}}]\nvolumes:\n  v: {}\n",
     "4:62: services.web.volumes.volume.subpath is not supported by taskenv"},
    {"services:\n  web:\n    image: x\n    healthcheck: {test: t, intervl: 1s}\n",
     "4:28: unknown key 'intervl' in services.web.healthcheck; did you mean 'interval'?"},
    {"services:\n  web:\n    image: x\n    depends_on: {db: {condtion: service_started}}\n  db:\n    image: "
     "y\n",
     "4:23: unknown key 'condtion' in services.web.depends_on.db; did you mean 'condition'?"},
    {"services:\n  web:\n    image: x\n    networks: {n: {ipv6_address: \"::1\"}}\nnetworks:\n  n: {}\n",
     "4:20: services.web.networks.n.ipv6_address is not supported by taskenv"},
    {"services:\n  web:\n    image: x\n    deploy: {resources: {limits: {memry: 1g}}}\n",
     "4:35: unknown key 'memry' in services.web.deploy.resources.limits; did you mean 'memory'?"},
    {"services:\n  web:\n    image: x\n    deploy: {resources: {reservations: {devices: []}}}\n",
     "4:41: services.web.deploy.resources.reservations.devices is not supported by taskenv"},
    {"services:\n  web:\n    image: x\n    scale: 101\n", "4:12: services.web.scale must be from 0 to 100"},
    {"services:\n  web:\n    image: x\n    scale: 2\n    deploy: {replicas: 3}\n",
     "5:24: services.web.deploy.replicas: 3, but 2 is written too (scale and deploy.replicas must agree)"},
    {"services:\n  web:\n    build: {context: ., dockerfil: D}\n",
     "3:25: unknown key 'dockerfil' in services.web.build; did you mean 'dockerfile'?"},
    {"services:\n  web:\n    image: x\n    env_file: [{path: ./e, x-a: 1}]\n",
     "4:28: unknown key 'x-a' in services.web.env_file"},
    {"services:\n  web:\n    image: x\n    ulimits: {nofile: {soft: 1, hrad: 2}}\n",
     "4:33: unknown key 'hrad' in services.web.ulimits.nofile; did you mean 'hard'?"},
    {"services:\n  web:\n    image: x\nvolumes:\n  v: {drivr: local}\n",
     "5:7: unknown key 'drivr' in volumes.v; did you mean 'driver'?"},
    {"services:\n  web:\n    image: x\nnetworks:\n  n: {ipam: {config: [{subnet: 10.0.0.0/24, gatway: "
     "10.0.0.1}]}}\n",
     "5:45: unknown key 'gatway' in networks.n.ipam.config; did you mean 'gateway'?"},
    {"services:\n  web:\n    image: x\nnetworks:\n  n: {enable_ipv4: false}\n",
     "5:7: networks.n.enable_ipv4 is not supported by taskenv"},
    {"services:\n  web:\n    image: x\nsecrets:\n  s: {file: ./s, template_driver: golang}\n",
     "5:18: secrets.s.template_driver is not supported by taskenv"},
    {"services:\n  web:\n    image: x\nconfigs:\n  c: {contnt: x}\n",
     "5:7: unknown key 'contnt' in configs.c; did you mean 'content'?"},
    {"services:\n  web:\n    image: x\nservice:\n  a: {}\n",
     "4:1: unknown key 'service' at the top level; did you mean 'services'?"},
    {"services:\n  web:\n    image: x\nx-taskenv:\n  resouces: {}\n",
     "5:3: unknown key 'resouces' in x-taskenv; did you mean 'resources'?"},
    {"services:\n  web:\n    image: x\nx-anything: 1\n", NULL},
};

static void test_strict_levels(void **state)
{
	for (size_t i = 0; i < sizeof(strict_cases) / sizeof(strict_cases[0]); i++) {
		te_autofree char *path = write_file("strict.yaml", strict_cases[i].yaml);
		char *files[] = {path, NULL};
		struct te_err err = {0};
		struct svc_project *p;

		print_message("case %zu\n", i);
		p = svc_load(files, &err);
		if (!strict_cases[i].want) {
			if (!p)
				fail_msg("case %zu: %s", i, err.msg);
			svc_project_free(p);
			continue;
		}
		assert_null(p);
		assert_int_equal(err.code, TE_E_COMPOSE);
		if (!strstr(err.msg, strict_cases[i].want))
			fail_msg("case %zu: got '%s'", i, err.msg);
	}
}

/* ---- warnings ---- */

static void test_unset_variable_warns_once(void **state)
{
	te_autofree char *path =
	    write_file("unset.yaml", "services:\n  web:\n    image: \"x:${TE_KEYS_UNSET}\"\n"
				     "    environment:\n      A: $TE_KEYS_UNSET\n"
				     "      B: ${TE_KEYS_UNSET:-d}\n      C: ${TE_KEYS_OTHER-}\n");
	char *files[] = {path, NULL};
	struct svc_load_opts o = {.files = files};
	te_autostrv char **warnings = NULL;
	struct te_err err = {0};
	struct svc_project *p;

	unsetenv("TE_KEYS_UNSET");
	unsetenv("TE_KEYS_OTHER");
	p = svc_load_project(&o, &warnings, &err);
	assert_non_null(p);
	assert_null(p->warnings);
	assert_int_equal(te_strv_len(warnings), 1);
	assert_non_null(strstr(
	    warnings[0],
	    "unset.yaml:3:12: the \"TE_KEYS_UNSET\" variable is not set, defaulting to a blank string"));
	assert_string_equal(web(p)->image, "x:");
	svc_project_free(p);
}

/* A hostile file cannot grow the warnings (or the time to dedup them)
 * without bound: the first SVC_YAML_MAX_WARNINGS, then a count. */
static void test_warnings_capped(void **state)
{
	te_autobuf struct te_buf text = TE_BUF_INIT(0);
	te_autofree char *path = NULL;
	char *files[] = {NULL, NULL};
	struct svc_load_opts o = {.files = files};
	te_autostrv char **warnings = NULL;
	struct te_err err = {0};
	struct svc_project *p;

	te_buf_adds(&text, "services:\n  web:\n    image: x\n    environment:\n");
	for (int i = 0; i < 5000; i++)
		te_buf_addf(&text, "      V%d: ${TE_KEYS_CAP_%d}\n", i, i);
	path = write_file("cap.yaml", text.data);
	files[0] = path;
	p = svc_load_project(&o, &warnings, &err);
	assert_non_null(p);
	assert_int_equal(te_strv_len(warnings), 201);
	assert_string_equal(warnings[200], "4800 more warnings not shown");
	svc_project_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_table_consistent),
	    cmocka_unit_test(test_spec_keys_known),
	    cmocka_unit_test(test_docs_key_table),
	    cmocka_unit_test(test_merge_replace),
	    cmocka_unit_test(test_merge_override),
	    cmocka_unit_test(test_merge_mapping),
	    cmocka_unit_test(test_merge_sequence),
	    cmocka_unit_test(test_merge_unique),
	    cmocka_unit_test(test_merge_everything),
	    cmocka_unit_test(test_edit_distance),
	    cmocka_unit_test(test_suggest),
	    cmocka_unit_test(test_strict_levels),
	    cmocka_unit_test(test_unset_variable_warns_once),
	    cmocka_unit_test(test_warnings_capped),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
