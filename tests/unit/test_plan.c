/* services/plan.c: names, order, labels and Engine API bodies. The
 * project is built by hand so the planner is tested alone. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"
#include "services/model/compose.h"
#include "services/model/plan.h"
#include "services/model/load.h"
#include "services/model/config_hash.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define TE_WITH_CJSON
#include "common/cleanup.h"

static char *files[] = {"/p/compose.yaml", NULL};

static struct svc_port app_ports[] = {
    {NULL, 8080, 3000, "tcp", {"/p/compose.yaml", 5, 9}},
    {NULL, 0, 53, "udp", {"/p/compose.yaml", 6, 9}},
};
static struct svc_kv app_labels[] = {
    {"team", "core", {0}},
    {"io.taskenv.task", "forged", {0}},
};
static struct svc_kv app_env[] = {{"DATABASE_HOST", "database", {0}}};
static char *app_deps[] = {"database", NULL};
static char *worker_deps[] = {"app", NULL};
static char *app_cmd[] = {"httpd", "-f", NULL};
static struct svc_mount db_mounts[] = {
    {.type = SVC_MOUNT_VOLUME, .source = "dbdata", .target = "/var/lib/postgresql/data", .read_only = false},
    {.type = SVC_MOUNT_BIND, .source = "/p/init", .target = "/docker-entrypoint-initdb.d", .read_only = true},
    {.type = SVC_MOUNT_VOLUME, .source = NULL, .target = "/scratch", .read_only = false},
};
static struct svc_volume volumes[] = {
    {.key = "dbdata"},
    {.key = "unused"},
};

static void project_init(struct svc_project *p, struct svc_service *s)
{
	memset(p, 0, sizeof(*p));
	memset(s, 0, 3 * sizeof(*s));
	for (int i = 0; i < 3; i++)
		s[i].replicas = SVC_UNSET;
	/* Declared out of dependency order on purpose. */
	s[0].name = "worker";
	s[0].image = "busybox";
	s[0].depends_on = worker_deps;
	s[1].name = "app";
	s[1].image = "app:1";
	s[1].ports = app_ports;
	s[1].n_ports = 2;
	s[1].labels = app_labels;
	s[1].n_labels = 2;
	s[1].environment = app_env;
	s[1].n_environment = 1;
	s[1].depends_on = app_deps;
	s[1].command = app_cmd;
	s[1].container_name = "web";
	s[2].name = "database";
	s[2].image = "pg:15";
	s[2].mounts = db_mounts;
	s[2].n_mounts = 3;
	p->dir = "/p";
	p->files = files;
	p->services = s;
	p->n_services = 3;
	p->volumes = volumes;
	p->n_volumes = 2;
}

static void test_names_and_order(void **state)
{
	struct svc_project p;
	struct svc_service s[3];
	struct te_err err = {0};
	struct svc_plan *plan;

	project_init(&p, s);
	plan = svc_plan_build(&p, "t1", "abcd", &err);
	assert_non_null(plan);
	assert_int_equal(plan->n_containers, 3);
	assert_string_equal(plan->containers[0].name, "t1-database-1");
	assert_string_equal(plan->containers[1].name, "t1-app-1");
	assert_string_equal(plan->containers[2].name, "t1-worker-1");
	assert_int_equal(plan->n_networks, 1);
	assert_string_equal(plan->networks[0].name, "t1_default");
	assert_int_equal(plan->n_volumes, 1); /* "unused" is not planned */
	assert_string_equal(plan->volumes[0].name, "t1_dbdata");
	assert_string_equal(plan->containers[1].aliases[0], "app");
	assert_string_equal(plan->containers[1].aliases[1], "web");
	assert_null(plan->containers[1].aliases[2]);
	svc_plan_free(plan);
}

static const char *jstr(const cJSON *o, const char *k)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
}

static void test_container_body(void **state)
{
	struct svc_project p;
	struct svc_service s[3];
	struct te_err err = {0};
	struct svc_plan *plan;
	int ports[] = {20005, 20006};
	te_autojson cJSON *b = NULL;
	cJSON *hc, *pb, *labels;

	project_init(&p, s);
	plan = svc_plan_build(&p, "t1", "abcd", &err);
	assert_non_null(plan);
	b = svc_plan_container_body(plan, &plan->containers[1], ports);
	hc = cJSON_GetObjectItem(b, "HostConfig");
	pb = cJSON_GetObjectItem(hc, "PortBindings");
	assert_string_equal(jstr(cJSON_GetArrayItem(cJSON_GetObjectItem(pb, "3000/tcp"), 0), "HostIp"),
			    "127.0.0.1");
	assert_string_equal(jstr(cJSON_GetArrayItem(cJSON_GetObjectItem(pb, "3000/tcp"), 0), "HostPort"),
			    "20005");
	assert_string_equal(jstr(cJSON_GetArrayItem(cJSON_GetObjectItem(pb, "53/udp"), 0), "HostPort"),
			    "20006");
	assert_non_null(cJSON_GetObjectItem(cJSON_GetObjectItem(b, "ExposedPorts"), "3000/tcp"));
	assert_string_equal(jstr(hc, "NetworkMode"), "t1_default");
	assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(b, "Cmd"), 1)->valuestring, "-f");
	assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(b, "Env"), 0)->valuestring,
			    "DATABASE_HOST=database");
	labels = cJSON_GetObjectItem(b, "Labels");
	assert_string_equal(jstr(labels, "io.taskenv.task"), "t1"); /* never the file's forgery */
	assert_string_equal(jstr(labels, "io.taskenv.ledger"), "abcd");
	assert_string_equal(jstr(labels, "team"), "core");
	assert_string_equal(jstr(labels, "com.docker.compose.project"), "t1");
	assert_string_equal(jstr(labels, "com.docker.compose.service"), "app");
	assert_string_equal(jstr(labels, "com.docker.compose.oneoff"), "False");
	assert_string_equal(jstr(labels, "com.docker.compose.project.config_files"), "/p/compose.yaml");
	{
		cJSON *eps =
		    cJSON_GetObjectItem(cJSON_GetObjectItem(b, "NetworkingConfig"), "EndpointsConfig");
		cJSON *al = cJSON_GetObjectItem(cJSON_GetObjectItem(eps, "t1_default"), "Aliases");

		assert_int_equal(cJSON_GetArraySize(al), 2);
		assert_string_equal(cJSON_GetArrayItem(al, 1)->valuestring, "web");
	}
	svc_plan_free(plan);
}

static void test_mounts_body(void **state)
{
	struct svc_project p;
	struct svc_service s[3];
	struct te_err err = {0};
	struct svc_plan *plan;
	te_autojson cJSON *b = NULL;
	cJSON *binds;

	project_init(&p, s);
	plan = svc_plan_build(&p, "t1", "abcd", &err);
	b = svc_plan_container_body(plan, &plan->containers[0], NULL);
	binds = cJSON_GetObjectItem(cJSON_GetObjectItem(b, "HostConfig"), "Binds");
	assert_int_equal(cJSON_GetArraySize(binds), 2);
	assert_string_equal(cJSON_GetArrayItem(binds, 0)->valuestring, "t1_dbdata:/var/lib/postgresql/data");
	assert_string_equal(cJSON_GetArrayItem(binds, 1)->valuestring,
			    "/p/init:/docker-entrypoint-initdb.d:ro");
	assert_non_null(cJSON_GetObjectItem(cJSON_GetObjectItem(b, "Volumes"), "/scratch"));
	svc_plan_free(plan);
}

static void test_network_volume_bodies(void **state)
{
	struct svc_project p;
	struct svc_service s[3];
	struct te_err err = {0};
	struct svc_plan *plan;
	te_autojson cJSON *n = NULL;
	te_autojson cJSON *v = NULL;

	project_init(&p, s);
	plan = svc_plan_build(&p, "t1", "abcd", &err);
	n = svc_plan_network_body(plan, &plan->networks[0]);
	v = svc_plan_volume_body(plan, &plan->volumes[0]);
	assert_string_equal(jstr(n, "Name"), "t1_default");
	assert_string_equal(jstr(n, "Driver"), "bridge");
	assert_string_equal(jstr(cJSON_GetObjectItem(n, "Labels"), "com.docker.compose.network"), "default");
	assert_string_equal(jstr(cJSON_GetObjectItem(n, "Labels"), "io.taskenv.task"), "t1");
	assert_string_equal(jstr(v, "Name"), "t1_dbdata");
	assert_string_equal(jstr(cJSON_GetObjectItem(v, "Labels"), "com.docker.compose.volume"), "dbdata");
	svc_plan_free(plan);
}

static void test_cycle(void **state)
{
	struct svc_project p;
	struct svc_service s[3];
	struct te_err err = {0};
	char *db_deps[] = {"worker", NULL};

	project_init(&p, s);
	s[2].depends_on = db_deps; /* database -> worker -> app -> database */
	s[2].loc = (struct svc_loc){"/p/compose.yaml", 12, 3};
	assert_null(svc_plan_build(&p, "t1", "abcd", &err));
	assert_int_equal(err.code, TE_E_COMPOSE);
	assert_non_null(strstr(err.msg, "dependency cycle: "));
	assert_non_null(strstr(err.msg, "worker -> app -> database -> worker"));
}

static void test_external_and_custom_networks(void **state)
{
	struct svc_project p;
	struct svc_service s[3];
	struct te_err err = {0};
	struct svc_network nets[] = {
	    {.key = "shared", .name = "corp-net", .external = true},
	    {.key = "back", .internal = true},
	};
	char *app_nets[] = {"back", "shared", NULL};
	struct svc_plan *plan;
	te_autojson cJSON *body = NULL;

	project_init(&p, s);
	p.networks = nets;
	p.n_networks = 2;
	s[1].networks = app_nets;
	plan = svc_plan_build(&p, "t1", "abcd", &err);
	assert_non_null(plan);
	assert_int_equal(plan->n_networks, 3);
	assert_string_equal(svc_plan_network_by_key(plan, "shared")->name, "corp-net");
	assert_true(svc_plan_network_by_key(plan, "shared")->external);
	assert_string_equal(svc_plan_network_by_key(plan, "back")->name, "t1_back");
	body = svc_plan_network_body(plan, svc_plan_network_by_key(plan, "back"));
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(body, "Internal")));
	/* app is on back first (primary), then shared (connected after create) */
	assert_string_equal(plan->containers[1].networks[0], "t1_back");
	assert_string_equal(plan->containers[1].networks[1], "corp-net");
	svc_plan_free(plan);
}

static void test_labels_match(void **state)
{
	te_autojson cJSON *net =
	    cJSON_Parse("{\"Labels\":{\"io.taskenv.task\":\"t1\",\"io.taskenv.ledger\":\"abcd\"}}");
	te_autojson cJSON *ctr = cJSON_Parse(
	    "{\"Config\":{\"Labels\":{\"io.taskenv.task\":\"t1\",\"io.taskenv.ledger\":\"abcd\"}}}");
	te_autojson cJSON *none = cJSON_Parse("{\"Labels\":null}");

	assert_true(svc_labels_match(net, "t1", "abcd"));
	assert_true(svc_labels_match(ctr, "t1", "abcd"));
	assert_false(svc_labels_match(net, "t2", "abcd"));  /* another task */
	assert_false(svc_labels_match(ctr, "t1", "ffff"));  /* another ledger */
	assert_false(svc_labels_match(none, "t1", "abcd")); /* nobody's */
}

/* Compose keys of issue 3 as the Engine API names them (nanoseconds for
 * healthcheck durations, bytes, NanoCpus), and the original-name label. */
static void test_engine_mapping(void **state)
{
	char dir[] = "/tmp/te-plan-XXXXXX";
	te_autofree char *path = NULL;
	char *cfiles[2] = {NULL, NULL};
	struct te_err err = {0};
	struct svc_project *p;
	struct svc_plan *plan;
	te_autojson cJSON *body = NULL;
	te_autojson cJSON *vol = NULL;
	te_autojson cJSON *net = NULL;
	te_autofree char *text = NULL;
	te_autofree char *rm = NULL;
	FILE *f;
	int ports[4] = {20001, 0, 0, 0};

	assert_non_null(mkdtemp(dir));
	path = xasprintf("%s/compose.yaml", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(
	    "services:\n  app:\n    image: x\n    mem_limit: 256m\n    cpus: 1.5\n    pids_limit: 64\n"
	    "    shm_size: 64m\n    cap_add: [CHOWN]\n    cap_drop: [ALL]\n    read_only: true\n"
	    "    security_opt: [\"no-new-privileges:true\"]\n    init: true\n    restart: on-failure:3\n"
	    "    stop_signal: SIGINT\n    stop_grace_period: 1m30s\n    extra_hosts: [\"h:10.0.0.1\"]\n"
	    "    tmpfs: [\"/run:size=1m\"]\n    ports: [\"80\"]\n    volumes:\n      - type: tmpfs\n"
	    "        target: /t\n        tmpfs: {size: 1k}\n      - d:/d:nocopy\n"
	    "    healthcheck:\n      test: [\"CMD\", \"true\"]\n      interval: 1m30s\n      timeout: 500ms\n"
	    "      retries: 4\n      start_period: 2s\n"
	    "    networks:\n      n:\n        aliases: [a1]\nvolumes:\n  d:\n    name: fixed-d\n"
	    "    driver_opts: {type: tmpfs}\nnetworks:\n  n:\n    name: fixed-n\n    internal: true\n"
	    "    ipam:\n      config:\n        - subnet: 10.9.0.0/24\n",
	    f);
	fclose(f);
	cfiles[0] = path;
	p = svc_load(cfiles, &err);
	if (!p)
		fail_msg("%s", err.msg);
	plan = svc_plan_build(p, "t1", "abcd", &err);
	assert_non_null(plan);
	body = svc_plan_container_body(plan, &plan->containers[0], ports);
	text = cJSON_PrintUnformatted(body);
	assert_non_null(strstr(text, "\"Memory\":268435456"));
	assert_non_null(strstr(text, "\"NanoCpus\":1500000000"));
	assert_non_null(strstr(text, "\"PidsLimit\":64"));
	assert_non_null(strstr(text, "\"ShmSize\":67108864"));
	assert_non_null(strstr(text, "\"CapAdd\":[\"CHOWN\"],\"CapDrop\":[\"ALL\"]"));
	assert_non_null(strstr(text, "\"SecurityOpt\":[\"no-new-privileges:true\"]"));
	assert_non_null(strstr(text, "\"ReadonlyRootfs\":true"));
	assert_non_null(strstr(text, "\"Init\":true"));
	assert_non_null(strstr(text, "\"RestartPolicy\":{\"Name\":\"on-failure\",\"MaximumRetryCount\":3}"));
	assert_non_null(strstr(text, "\"StopSignal\":\"SIGINT\",\"StopTimeout\":90"));
	assert_non_null(strstr(text, "\"ExtraHosts\":[\"h:10.0.0.1\"]"));
	assert_non_null(strstr(text, "\"Tmpfs\":{\"/run\":\"size=1m\",\"/t\":\"size=1024\"}"));
	assert_non_null(strstr(text, "\"t1_d:/d:nocopy\""));
	assert_non_null(strstr(text, "\"Healthcheck\":{\"Test\":[\"CMD\",\"true\"],\"Interval\":90000000000,"
				     "\"Timeout\":500000000,\"StartPeriod\":2000000000,\"Retries\":4}"));
	assert_non_null(strstr(text, "\"Aliases\":[\"app\",\"a1\"]"));
	assert_non_null(strstr(text, "\"HostIp\":\"127.0.0.1\""));
	vol = svc_plan_volume_body(plan, svc_plan_volume_by_key(plan, "d"));
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(vol, "Name")), "t1_d");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(vol, "Labels"),
								     "io.taskenv.original-name")),
			    "fixed-d");
	assert_string_equal(
	    cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(vol, "DriverOpts"), "type")),
	    "tmpfs");
	net = svc_plan_network_body(plan, svc_plan_network_by_key(plan, "n"));
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(net, "Name")), "t1_n");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(net, "Internal")));
	assert_string_equal(
	    cJSON_GetStringValue(cJSON_GetObjectItem(
		cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(net, "IPAM"), "Config"), 0),
		"Subnet")),
	    "10.9.0.0/24");
	svc_plan_free(plan);
	svc_project_free(p);
	rm = xasprintf("rm -rf '%s'", dir);
	assert_int_equal(system(rm), 0);
}

/* Replicas: one container per number, in dependency order, each labelled
 * with its number; volumes_from names the task's first container of the
 * service; a link's alias goes on the linked service's containers. */
static void test_replicas_links_volumes_from(void **state)
{
	static char *vf[] = {"database:ro", "container:other", NULL};
	static char *links[] = {"app:backend", NULL};
	struct svc_project p;
	struct svc_service s[3];
	struct te_err err = {0};
	struct svc_plan *plan;
	te_autojson cJSON *b = NULL;
	int ports[3] = {20001, 20002, 0};

	project_init(&p, s);
	s[1].replicas = 3;
	s[1].container_name = NULL; /* a fixed name cannot be replicated */
	s[1].volumes_from = vf;
	s[0].links = links;
	s[2].replicas = 0;
	plan = svc_plan_build(&p, "t1", "abcd", &err);
	assert_non_null(plan);
	assert_int_equal(plan->n_containers, 4); /* database scaled to 0 */
	assert_string_equal(plan->containers[0].name, "t1-app-1");
	assert_string_equal(plan->containers[2].name, "t1-app-3");
	assert_int_equal(plan->containers[2].number, 3);
	assert_string_equal(plan->containers[3].name, "t1-worker-1");
	for (size_t i = 0; i < 3; i++)
		assert_string_equal(plan->containers[i].aliases[1], "backend");
	b = svc_plan_container_body(plan, &plan->containers[1], ports);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(b, "Labels"),
								     "com.docker.compose.container-number")),
			    "2");
	{
		te_autofree char *vfrom = cJSON_PrintUnformatted(
		    cJSON_GetObjectItem(cJSON_GetObjectItem(b, "HostConfig"), "VolumesFrom"));

		assert_string_equal(vfrom, "[\"t1-database-1:ro\",\"other\"]");
	}
	svc_plan_free(plan);
}

/* Dependency levels: a chain is three levels; independent services share
 * one; a service scaled to 0 still passes its level on; replicas share
 * their service's level. */
static void test_levels(void **state)
{
	struct svc_project p;
	struct svc_service s[3];
	struct te_err err = {0};
	struct svc_plan *plan;

	(void)state;
	project_init(&p, s);
	plan = svc_plan_build(&p, "t1", "abcd", &err);
	assert_non_null(plan);
	assert_int_equal(plan->n_levels, 3);
	assert_int_equal(plan->containers[0].level, 0); /* database */
	assert_int_equal(plan->containers[1].level, 1); /* app */
	assert_int_equal(plan->containers[2].level, 2); /* worker */
	svc_plan_free(plan);

	project_init(&p, s);
	s[0].depends_on = NULL; /* worker alone: level 0 beside database */
	s[1].replicas = 2;
	plan = svc_plan_build(&p, "t1", "abcd", &err);
	assert_non_null(plan);
	assert_int_equal(plan->n_levels, 2);
	for (size_t i = 0; i < plan->n_containers; i++)
		assert_int_equal(plan->containers[i].level,
				 strncmp(plan->containers[i].name, "t1-app-", 7) == 0 ? 1 : 0);
	svc_plan_free(plan);

	project_init(&p, s);
	s[2].replicas = 0; /* database: no container, app still after it */
	plan = svc_plan_build(&p, "t1", "abcd", &err);
	assert_non_null(plan);
	assert_int_equal(plan->n_containers, 2);
	assert_int_equal(plan->containers[0].level, 1);
	assert_int_equal(plan->containers[1].level, 2);
	assert_int_equal(plan->n_levels, 3);
	svc_plan_free(plan);
}

/* The hash and parts of the body of APP (replica 1) in P planned as TASK in
 * LEDGER, with HOST_PORT for its first port and IMAGE_ID; *PARTS owned. */
static char *app_hash(const struct svc_project *p, const char *task, const char *ledger, int host_port,
		      const char *image_id, char *const *extra, char **parts)
{
	struct te_err err = {0};
	struct svc_plan *plan = svc_plan_build(p, task, ledger, &err);
	int ports[3] = {host_port, 20001, 0};
	const struct svc_plan_container *c = NULL;
	char *h;
	cJSON *b;

	assert_non_null(plan);
	for (size_t i = 0; i < plan->n_containers; i++)
		if (strcmp(plan->containers[i].svc->name, "app") == 0)
			c = &plan->containers[i];
	assert_non_null(c);
	b = svc_plan_container_body(plan, c, ports);
	h = svc_config_hash(b, image_id, extra, parts);
	cJSON_Delete(b);
	svc_plan_free(plan);
	return h;
}

/* What changes the configuration hash, and what does not; the parts name
 * what changed. */
static void test_config_hash(void **state)
{
	struct svc_project p;
	struct svc_service s[3];
	static char *other_files[] = {"/p/compose.yaml", "/p/other.yaml", NULL};
	static struct svc_kv env2[] = {{"DATABASE_HOST", "elsewhere", {0}}};
	static struct svc_kv labels2[] = {{"team", "edge", {0}}, {"io.taskenv.task", "forged", {0}}};
	static char *cmd2[] = {"httpd", "-v", NULL};
	static char *nets[] = {"t1_extra", NULL};
	te_autofree char *p0 = NULL;
	te_autofree char *p1 = NULL;
	te_autofree char *pc = NULL;
	te_autofree char *h0 = NULL;
	te_autofree char *h1 = NULL;
	te_autofree char *h2 = NULL;
	te_autofree char *h3 = NULL;
	te_autofree char *changed = NULL;

	project_init(&p, s);
	h0 = app_hash(&p, "t1", "L1", 20000, "sha256:aa", NULL, &p0);
	assert_int_equal(strlen(h0), 64);
	/* The same file: the same hash, whatever the ledger or the file list (labels taskenv writes). */
	h1 = app_hash(&p, "t1", "L1", 20000, "sha256:aa", NULL, &p1);
	assert_string_equal(h1, h0);
	assert_string_equal(p1, p0);
	assert_null(svc_config_changes(p0, p1));
	free(h1);
	h1 = app_hash(&p, "t1", "OTHER-LEDGER", 20000, "sha256:aa", NULL, NULL);
	assert_string_equal(h1, h0);
	p.files = other_files;
	free(h1);
	h1 = app_hash(&p, "t1", "L1", 20000, "sha256:aa", NULL, NULL);
	assert_string_equal(h1, h0);
	p.files = files;

	/* Each of these changes it, and is named. */
	struct {
		const char *what;
		int port;
		const char *image;
		char *const *extra;
	} cases[] = {
	    {"ports", 20002, "sha256:aa", NULL},
	    {"image", 20000, "sha256:bb", NULL},
	    {"networks", 20000, "sha256:aa", nets},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		free(h2);
		free(pc);
		free(changed);
		h2 = app_hash(&p, "t1", "L1", cases[i].port, cases[i].image, cases[i].extra, &pc);
		assert_string_not_equal(h2, h0);
		changed = svc_config_changes(p0, pc);
		assert_string_equal(changed, cases[i].what);
	}
	s[1].environment = env2;
	s[1].command = cmd2;
	s[1].labels = labels2;
	free(pc);
	free(changed);
	h3 = app_hash(&p, "t1", "L1", 20000, "sha256:aa", NULL, &pc);
	assert_string_not_equal(h3, h0);
	changed = svc_config_changes(p0, pc);
	assert_string_equal(changed, "command, env, labels");
	/* A container from before the label: "configuration". */
	free(changed);
	changed = svc_config_changes(NULL, pc);
	assert_string_equal(changed, "configuration");
	/* A part only the old one had is named too. */
	free(changed);
	changed = svc_config_changes("env=00000000,gone=11111111", "env=00000000");
	assert_string_equal(changed, "gone");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names_and_order),
	    cmocka_unit_test(test_container_body),
	    cmocka_unit_test(test_mounts_body),
	    cmocka_unit_test(test_network_volume_bodies),
	    cmocka_unit_test(test_cycle),
	    cmocka_unit_test(test_external_and_custom_networks),
	    cmocka_unit_test(test_labels_match),
	    cmocka_unit_test(test_engine_mapping),
	    cmocka_unit_test(test_replicas_links_volumes_from),
	    cmocka_unit_test(test_levels),
	    cmocka_unit_test(test_config_hash),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
