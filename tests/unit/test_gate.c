/* The policy gate, fed Engine request bodies directly: a row per rule
 * (allowed as written, opened by an exception, refused outright), fields
 * and routes not in the tables refused, ownership through a stub lookup,
 * host paths resolved (a bind swapped for a symlink to /etc is refused at
 * start), and the Compose file:line the plan recorded for a field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/buf.h"
#include "common/err.h"
#include "common/mem.h"
#include "services/gate/gate.h"
#include "services/model/compose.h"
#include "services/model/load.h"
#include "services/model/plan.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TASK "t1"
#define LEDGER "led0"
#define OURS "\"io.taskenv.task\":\"t1\",\"io.taskenv.ledger\":\"led0\""

static char dir[PATH_MAX]; /* the project boundary */

static int setup(void **state)
{
	char tmpl[] = "/tmp/te-gate-XXXXXX";
	char *cmd;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	assert_non_null(realpath(tmpl, dir));
	cmd = xasprintf("mkdir -p '%s/data' '%s/home/.ssh' && ln -s /etc '%s/etc-link'", dir, dir, dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	setenv("HOME", "/nonexistent-home", 1);
	unsetenv("DOCKER_HOST");
	unsetenv("CONTAINER_HOST");
	unsetenv("XDG_RUNTIME_DIR");
	return 0;
}

static int teardown(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);
	int rc = system(cmd);

	(void)state;
	free(cmd);
	return rc == 0 ? 0 : -1;
}

/* ---- a stub engine: inspect answers by kind and name ---- */

static const struct {
	const char *kind, *name, *json;
} objects[] = {
    {"container", "t1-db-1", "{\"Config\":{\"Labels\":{" OURS "}}}"},
    {"container", "t2-db-1",
     "{\"Config\":{\"Labels\":{\"io.taskenv.task\":\"t2\",\"io.taskenv.ledger\":\"led0\"}}}"},
    {"container", "stranger", "{\"Config\":{\"Labels\":{}}}"},
    {"network", "t2_default", "{\"Labels\":{\"io.taskenv.task\":\"t2\",\"io.taskenv.ledger\":\"led0\"}}"},
    {"network", "corp", "{\"Labels\":{}}"},
    {"network", "t1_default", "{\"Labels\":{" OURS "}}"},
    {"network", "0--taskenv-shared-led0",
     "{\"Labels\":{\"io.taskenv.shared\":\"network\",\"io.taskenv.ledger\":\"led0\"}}"},
    {"image", "t2-app",
     "{\"Config\":{\"Labels\":{\"io.taskenv.task\":\"t2\",\"io.taskenv.ledger\":\"led0\"}}}"},
    {"image", "busybox", "{\"Config\":{\"Labels\":null}}"},
    {"volume", "anon1", "{\"Labels\":{\"com.docker.volume.anonymous\":\"\"}}"},
    {"volume", "anon2", "{\"Labels\":null}"},
    {"volume", "anon3", "{\"Labels\":null}"},
    /* t1's containers as the list answers (a recreate's old one mounts anon2;
     * the entry claiming anon3 carries t2's labels, however it was listed). */
    {"containers-of-task", "t1",
     "[{\"Labels\":{" OURS "},\"Mounts\":[{\"Type\":\"volume\",\"Name\":\"anon2\"}]},"
     "{\"Labels\":{\"io.taskenv.task\":\"t2\",\"io.taskenv.ledger\":\"led0\"},"
     "\"Mounts\":[{\"Type\":\"volume\",\"Name\":\"anon3\"}]}]"},
    {"volume", "t2_data", "{\"Labels\":{\"io.taskenv.task\":\"t2\",\"io.taskenv.ledger\":\"led0\"}}"},
};

static char *swapped; /* the inspect answer of container "c-swap" (a test sets it) */

static int lookup(void *ctx, const char *kind, const char *ref, cJSON **out, struct te_err *err)
{
	(void)ctx;
	if (swapped && strcmp(kind, "container") == 0 && strcmp(ref, "c-swap") == 0) {
		*out = cJSON_Parse(swapped);
		return 0;
	}
	for (size_t i = 0; i < sizeof(objects) / sizeof(objects[0]); i++)
		if (strcmp(objects[i].kind, kind) == 0 && strcmp(objects[i].name, ref) == 0) {
			*out = cJSON_Parse(objects[i].json);
			return 0;
		}
	return te_err_set(err, TE_E_NOTFOUND, "no such %s", kind);
}

static void gate_init(struct gate *g, const char *granted, bool engine)
{
	memset(g, 0, sizeof(*g));
	g->task = xstrdup(TASK);
	g->ledger_id = xstrdup(LEDGER);
	g->boundary = xstrdup(dir);
	if (granted)
		g->granted = te_strv_push(NULL, xstrdup(granted));
	g->shared_images = te_strv_push(NULL, xstrdup("postgres:16-alpine"));
	if (engine)
		g->lookup = lookup;
}

/* ---- the table ---- */

struct row {
	const char *what;
	const char *method, *path, *query;
	const char *body;    /* @D@ is the project directory */
	const char *granted; /* one exception, or NULL */
	const char *want;    /* NULL: allowed; else a substring of the first finding */
	const char *allow;   /* the finding's exception, NULL: refused outright */
};

#define CREATE "POST", "/containers/create", "name=t1-web-1"
#define HC(x) "{\"Image\":\"busybox\",\"HostConfig\":{" x "}}"

static const struct row rows[] = {
    {"plain", CREATE, HC("\"NetworkMode\":\"t1_default\""), NULL, NULL, NULL},
    /* docker run -it --rm through the broker, its zero values dropped */
    {"docker run", CREATE,
     "{\"AttachStdin\":true,\"AttachStdout\":true,\"AttachStderr\":true,\"Tty\":true,\"OpenStdin\":true,"
     "\"StdinOnce\":true,\"Cmd\":[\"sh\"],\"Image\":\"busybox\",\"HostConfig\":{\"AutoRemove\":true,"
     "\"ConsoleSize\":[24,80],\"NetworkMode\":\"t1_default\",\"RestartPolicy\":{\"Name\":\"no\"}},"
     "\"NetworkingConfig\":{\"EndpointsConfig\":{\"t1_default\":{}}}}",
     NULL, NULL, NULL},
    {"unknown field", CREATE, HC("\"OomKillDisable\":true"), NULL, "HostConfig.OomKillDisable", NULL},
    {"unknown config field", CREATE, "{\"Image\":\"x\",\"Shell\":[\"sh\"]}", NULL, "Config.Shell", NULL},
    {"privileged", CREATE, HC("\"Privileged\":true"), NULL, "privileged", "privileged"},
    {"privileged granted", CREATE, HC("\"Privileged\":true"), "privileged", NULL, NULL},
    {"default cap", CREATE, HC("\"CapAdd\":[\"NET_BIND_SERVICE\",\"CAP_CHOWN\"]"), NULL, NULL, NULL},
    {"other cap", CREATE, HC("\"CapAdd\":[\"NET_ADMIN\"]"), NULL, "NET_ADMIN", "cap:NET_ADMIN"},
    {"cap ALL", CREATE, HC("\"CapAdd\":[\"ALL\"]"), NULL, "ALL", "cap:ALL"},
    {"cap granted", CREATE, HC("\"CapAdd\":[\"sys_ptrace\"]"), "cap:SYS_PTRACE", NULL, NULL},
    {"host pid", CREATE, HC("\"PidMode\":\"host\""), NULL, "pid", "host-pid"},
    {"host cgroupns", CREATE, HC("\"CgroupnsMode\":\"host\""), NULL, "cgroup", "host-cgroupns"},
    {"host userns", CREATE, HC("\"UsernsMode\":\"host\""), NULL, "userns_mode", "host-userns"},
    {"host network", CREATE, HC("\"NetworkMode\":\"host\""), NULL, "host", "host-network"},
    {"default bridge", CREATE, HC("\"NetworkMode\":\"bridge\""), NULL, "shared default network", NULL},
    {"podman network", CREATE, HC("\"NetworkMode\":\"podman\""), NULL, "shared default network", NULL},
    {"join own", CREATE, HC("\"PidMode\":\"container:t1-db-1\""), NULL, NULL, NULL},
    {"join other task", CREATE, HC("\"PidMode\":\"container:t2-db-1\""), NULL, "not a container of this task",
     NULL},
    {"join stranger net", CREATE, HC("\"NetworkMode\":\"container:stranger\""), NULL, "not a container",
     NULL},
    {"volumes_from other", CREATE, HC("\"VolumesFrom\":[\"t2-db-1:ro\"]"), NULL, "not a container", NULL},
    {"volumes_from own", CREATE, HC("\"VolumesFrom\":[\"t1-db-1:ro\"]"), NULL, NULL, NULL},
    {"links other", CREATE, HC("\"Links\":[\"stranger:db\"]"), NULL, "not a container", NULL},
    {"external network", CREATE, HC("\"NetworkMode\":\"corp\""), NULL, "external", "external-network"},
    {"external granted", CREATE, HC("\"NetworkMode\":\"corp\""), "external-network", NULL, NULL},
    {"other task's network", CREATE, HC("\"NetworkMode\":\"t2_default\""), "external-network",
     "belongs to another task", NULL},
    {"endpoint other task", CREATE,
     "{\"Image\":\"x\",\"NetworkingConfig\":{\"EndpointsConfig\":{\"t2_default\":{}}}}", NULL, "another task",
     NULL},
    {"endpoint ipam", CREATE,
     "{\"Image\":\"x\",\"NetworkingConfig\":{\"EndpointsConfig\":{\"t1_default\":{\"IPAMConfig\":{}}}}}",
     NULL, "IPAMConfig", NULL},
    {"bind inside", CREATE, HC("\"Binds\":[\"@D@/data:/d\"]"), NULL, NULL, NULL},
    {"bind etc", CREATE, HC("\"Binds\":[\"/etc:/host-etc\"]"), NULL, "system path", "bind-system"},
    {"bind via symlink", CREATE, HC("\"Binds\":[\"@D@/etc-link:/e\"]"), NULL, "'/etc' is a system path",
     "bind-system"},
    {"bind dotdot", CREATE, HC("\"Binds\":[\"@D@/data/../../..:/up\"]"), NULL, "engine's socket",
     "engine-socket"},
    {"anonymous volume of this task's", CREATE, HC("\"Binds\":[\"anon2:/x\"]"), NULL, NULL, NULL},
    {"anonymous volume of another's", CREATE, HC("\"Binds\":[\"anon3:/x\"]"), NULL, "is not this task's",
     "external-volume"},
    {"bind root", CREATE, HC("\"Binds\":[\"/:/host\"]"), NULL, "'/' is a system path", "bind-system"},
    {"localtime ro", CREATE, HC("\"Binds\":[\"/etc/localtime:/etc/localtime:ro\"]"), NULL, NULL, NULL},
    {"localtime rw", CREATE, HC("\"Binds\":[\"/etc/localtime:/etc/localtime\"]"), NULL, "system path",
     "bind-system"},
    {"docker socket", CREATE, HC("\"Binds\":[\"/var/run/docker.sock:/s\"]"), NULL, "engine's socket",
     "engine-socket"},
    {"dir above socket", CREATE, HC("\"Binds\":[\"/run:/r\"]"), "bind-system", "engine's socket",
     "engine-socket"},
    {"bind propagation", CREATE, HC("\"Binds\":[\"@D@/data:/d:rshared\"]"), NULL, "bind option", NULL},
    {"trusted path", CREATE, HC("\"Binds\":[\"/usr/share:/s:ro\"]"), "path:/usr/share", NULL, NULL},
    {"mount bind etc", CREATE,
     HC("\"Mounts\":[{\"Type\":\"bind\",\"Source\":\"/etc\",\"Target\":\"/e\",\"ReadOnly\":true}]"), NULL,
     "system path", "bind-system"},
    {"mount volume type", CREATE, HC("\"Mounts\":[{\"Type\":\"volume\",\"Source\":\"x\",\"Target\":\"/e\"}]"),
     NULL, "not a bind", NULL},
    {"mount bind options", CREATE,
     HC("\"Mounts\":[{\"Type\":\"bind\",\"Source\":\"@D@\",\"Target\":\"/e\",\"BindOptions\":{}}]"), NULL,
     "BindOptions", NULL},
    {"other task volume", CREATE, HC("\"Binds\":[\"t2_data:/d\"]"), "external-volume", "another task", NULL},
    {"public port", CREATE,
     HC("\"PortBindings\":{\"80/tcp\":[{\"HostIp\":\"0.0.0.0\",\"HostPort\":\"8080\"}]}"), NULL,
     "not on loopback", "public-port"},
    {"loopback port", CREATE,
     HC("\"PortBindings\":{\"80/tcp\":[{\"HostIp\":\"127.0.0.1\",\"HostPort\":\"8080\"}]}"), NULL, NULL,
     NULL},
    {"seccomp off", CREATE, HC("\"SecurityOpt\":[\"seccomp=unconfined\"]"), NULL, "seccomp", NULL},
    {"seccomp file", CREATE, HC("\"SecurityOpt\":[\"seccomp=/p.json\"]"), NULL, "profile", "seccomp-profile"},
    {"seccomp inline", CREATE, HC("\"SecurityOpt\":[\"seccomp={}\"]"), NULL, "security option", NULL},
    {"apparmor off", CREATE, HC("\"SecurityOpt\":[\"apparmor:unconfined\"]"), NULL, "AppArmor", NULL},
    {"label disable", CREATE, HC("\"SecurityOpt\":[\"label=disable\"]"), NULL, "SELinux", NULL},
    {"systempaths", CREATE, HC("\"SecurityOpt\":[\"systempaths=unconfined\"]"), NULL, "security option",
     NULL},
    {"fine opts", CREATE,
     HC("\"SecurityOpt\":[\"no-new-privileges:true\",\"label=type:svirt_t\",\"apparmor=p\"]"), NULL, NULL,
     NULL},
    {"device", CREATE, HC("\"Devices\":[{\"PathOnHost\":\"/dev/kvm\"}]"), NULL, "/dev/kvm", "devices"},
    {"host sysctl", CREATE, HC("\"Sysctls\":{\"kernel.core_pattern\":\"x\"}"), NULL, "not namespaced",
     "host-sysctl"},
    {"net sysctl", CREATE, HC("\"Sysctls\":{\"net.ipv4.ip_forward\":\"0\"}"), NULL, NULL, NULL},
    {"runtime", CREATE, HC("\"Runtime\":\"nvidia\""), NULL, "runtime", "runtime"},
    {"log driver", CREATE, HC("\"LogConfig\":{\"Type\":\"syslog\"}"), NULL, "log driver", "log-driver"},
    {"mac", CREATE, "{\"Image\":\"x\",\"MacAddress\":\"02:42:ac:11:00:02\"}", NULL, "fixed", "mac-address"},
    {"reserved label", CREATE, "{\"Image\":\"x\",\"Labels\":{\"io.taskenv.shared\":\"postgres\"}}", NULL,
     "io.taskenv.", NULL},
    {"forged task label", CREATE, "{\"Image\":\"x\",\"Labels\":{\"io.taskenv.task\":\"t2\"}}", NULL,
     "another owner", NULL},
    {"our labels", CREATE, "{\"Image\":\"x\",\"Labels\":{" OURS ",\"io.taskenv.version\":\"1\"}}", NULL, NULL,
     NULL},
    {"shared untrusted image", CREATE,
     "{\"Image\":\"evil/pg\",\"Labels\":{\"io.taskenv.shared\":\"postgres\",\"io.taskenv.ledger\":\"led0\"},"
     "\"HostConfig\":{\"NetworkMode\":\"0--taskenv-shared-led0\"}}",
     NULL, "trusted table", NULL},
    {"shared trusted image", CREATE,
     "{\"Image\":\"postgres:16-alpine\",\"Labels\":{\"io.taskenv.shared\":\"postgres\",\"io.taskenv.ledger\":"
     "\"led0\"},\"HostConfig\":{\"NetworkMode\":\"0--taskenv-shared-led0\"}}",
     NULL, NULL, NULL},
    {"network bridge", "POST", "/networks/create", "", "{\"Name\":\"t1_default\",\"Driver\":\"bridge\"}",
     NULL, NULL, NULL},
    {"network macvlan", "POST", "/networks/create", "", "{\"Name\":\"t1_lan\",\"Driver\":\"macvlan\"}", NULL,
     "bridge only", "network-driver"},
    {"network bridge name", "POST", "/networks/create", "",
     "{\"Name\":\"t1_x\",\"Driver\":\"bridge\",\"Options\":{\"com.docker.network.bridge.name\":\"docker0\"}}",
     NULL, "bridge.name", "network-driver"},
    {"network ours bridge name", "POST", "/networks/create", "",
     "{\"Name\":\"t1_x\",\"Driver\":\"bridge\",\"Options\":{\"com.docker.network.bridge.name\":\"te-"
     "0a000000\"},"
     "\"IPAM\":{\"Driver\":\"default\",\"Config\":[{\"Subnet\":\"10.0.0.0/28\"}]}}",
     NULL, NULL, NULL},
    {"network other name", "POST", "/networks/create", "", "{\"Name\":\"t2_default\",\"Driver\":\"bridge\"}",
     NULL, "not a name of this task", NULL},
    {"volume local", "POST", "/volumes/create", "", "{\"Name\":\"t1_data\",\"Driver\":\"local\"}", NULL, NULL,
     NULL},
    {"volume bind etc", "POST", "/volumes/create", "",
     "{\"Name\":\"t1_x\",\"Driver\":\"local\",\"DriverOpts\":{\"type\":\"none\",\"o\":\"bind\",\"device\":\"/"
     "etc\"}}",
     NULL, "system path", "bind-system"},
    {"volume bind relative", "POST", "/volumes/create", "",
     "{\"Name\":\"t1_x\",\"Driver\":\"local\",\"DriverOpts\":{\"type\":\"none\",\"o\":\"bind\",\"device\":\"."
     "./../"
     "etc\"}}",
     NULL, "absolute", NULL},
    {"volume nfs", "POST", "/volumes/create", "",
     "{\"Name\":\"t1_x\",\"Driver\":\"local\",\"DriverOpts\":{\"type\":\"nfs\",\"o\":\"addr=1.2.3.4\","
     "\"device\":\":/"
     "x\"}}",
     NULL, "mounts what the host has", "volume-driver"},
    {"volume tmpfs", "POST", "/volumes/create", "",
     "{\"Name\":\"t1_x\",\"Driver\":\"local\",\"DriverOpts\":{\"type\":\"tmpfs\",\"device\":\"tmpfs\"}}",
     NULL, NULL, NULL},
    {"volume driver", "POST", "/volumes/create", "", "{\"Name\":\"t1_x\",\"Driver\":\"rexray\"}", NULL,
     "local only", "volume-driver"},
    {"build plain", "POST", "/build", "t=t1-app&dockerfile=Dockerfile&rm=1&forcerm=1", NULL, NULL, NULL,
     NULL},
    {"build host network", "POST", "/build", "t=t1-app&networkmode=host", NULL, NULL, "host", "host-network"},
    {"build odd network", "POST", "/build", "t=t1-app&networkmode=corp", NULL, NULL, "only the default",
     NULL},
    {"build other task's tag", "POST", "/build", "t=t2-app", NULL, NULL, "another task built", NULL},
    {"build untagged image", "POST", "/build", "t=busybox", NULL, NULL, "did not build", NULL},
    {"build unknown param", "POST", "/build", "t=t1-app&remote=http%3A%2F%2Fx", NULL, NULL, "never sends",
     NULL},
    {"exec", "POST", "/containers/t1-db-1/exec", "", "{\"Cmd\":[\"sh\"],\"Tty\":false}", NULL, NULL, NULL},
    {"docker exec -it", "POST", "/containers/t1-db-1/exec", "",
     "{\"User\":\"\",\"Privileged\":false,\"Tty\":true,\"ConsoleSize\":[24,80],\"AttachStdin\":true,"
     "\"AttachStderr\":true,\"AttachStdout\":true,\"Detach\":false,\"DetachKeys\":\"\",\"Env\":null,"
     "\"WorkingDir\":\"\",\"Cmd\":[\"sh\"]}",
     NULL, NULL, NULL},
    {"exec privileged", "POST", "/containers/t1-db-1/exec", "", "{\"Cmd\":[\"sh\"],\"Privileged\":true}",
     NULL, "exec --privileged", "privileged"},
    {"exec other task", "POST", "/containers/t2-db-1/exec", "", "{\"Cmd\":[\"sh\"]}", NULL, "another task",
     NULL},
    {"connect own", "POST", "/networks/t1_default/connect", "", "{\"Container\":\"t1-db-1\"}", NULL, NULL,
     NULL},
    {"connect stranger", "POST", "/networks/t1_default/connect", "", "{\"Container\":\"stranger\"}", NULL,
     "not this task's", NULL},
    {"connect other net", "POST", "/networks/t2_default/connect", "", "{\"Container\":\"t1-db-1\"}", NULL,
     "another task", NULL},
    {"start own", "POST", "/containers/t1-db-1/start", "", NULL, NULL, NULL, NULL},
    {"stop other", "POST", "/containers/t2-db-1/stop", "t=10", NULL, NULL, "another task's", NULL},
    {"rename own", "POST", "/containers/t1-db-1/rename", "name=t1-db-1", NULL, NULL, NULL, NULL},
    {"rename to other task's", "POST", "/containers/t1-db-1/rename", "name=t2-db-1", NULL, NULL,
     "only to a name of this task's", NULL},
    {"rename escaped out", "POST", "/containers/t1-db-1/rename", "name=t1-x%2F..%2Fy", NULL, NULL,
     "only to a name of this task's", NULL},
    {"rename other's", "POST", "/containers/t2-db-1/rename", "name=t1-db-1", NULL, NULL, "another task's",
     NULL},
    {"kill stranger", "POST", "/containers/stranger/kill", "", NULL, NULL, "not taskenv's", NULL},
    {"delete own", "DELETE", "/containers/t1-db-1", "v=0&force=1", NULL, NULL, NULL, NULL},
    {"delete other", "DELETE", "/containers/t2-db-1", "v=1&force=1", NULL, NULL, "another task's", NULL},
    {"delete gone", "DELETE", "/containers/nothing-here", "", NULL, NULL, NULL, NULL},
    {"delete anon volume", "DELETE", "/volumes/anon1", "force=0", NULL, NULL, NULL, NULL},
    {"force anon volume", "DELETE", "/volumes/anon1", "force=1", NULL, NULL, "not taskenv's", NULL},
    {"delete other volume", "DELETE", "/volumes/t2_data", "force=0", NULL, NULL, "another task's", NULL},
    {"delete other image", "DELETE", "/images/t2-app", "force=0", NULL, NULL, "another task's", NULL},
    {"disconnect own net", "POST", "/networks/t1_default/disconnect", "",
     "{\"Container\":\"x\",\"Force\":true}", NULL, NULL, NULL},
    {"disconnect other net", "POST", "/networks/t2_default/disconnect", "", "{\"Container\":\"x\"}", NULL,
     "another task's", NULL},
    {"pull", "POST", "/images/create", "fromImage=busybox&tag=1", NULL, NULL, NULL, NULL},
    {"unknown route", "POST", "/containers/prune", "", NULL, NULL, "no rule", NULL},
    {"unknown method", "PUT", "/containers/t1-db-1/json", "", NULL, NULL, "no rule", NULL},
    {"cp into own", "PUT", "/containers/t1-db-1/archive", "path=/", NULL, NULL, NULL, NULL},
    {"cp into other", "PUT", "/containers/t2-db-1/archive", "path=/", NULL, NULL, "another task's", NULL},
    {"update", "POST", "/containers/t1-db-1/update", "", "{\"Memory\":1}", NULL, "no rule", NULL},
    {"plugins", "POST", "/plugins/pull", "remote=x", NULL, NULL, "no rule", NULL},
};

static char *with_dir(const char *s)
{
	te_autobuf struct te_buf b = TE_BUF_INIT(0);
	const char *at;

	while ((at = strstr(s, "@D@"))) {
		te_buf_add(&b, s, (size_t)(at - s));
		te_buf_adds(&b, dir);
		s = at + 3;
	}
	te_buf_adds(&b, s);
	return te_buf_detach(&b);
}

/* Some finding of G names R->want, opened by R->allow (or refused outright). */
static void want_finding(const struct gate *g, const struct row *r)
{
	for (size_t k = 0; k < g->n; k++) {
		te_autofree char *line = gate_finding_format(&g->v[k]);

		if (!strstr(line, r->want))
			continue;
		if (r->allow && (!g->v[k].allow || strcmp(g->v[k].allow, r->allow) != 0))
			fail_msg("row '%s': '%s': exception %s, want %s", r->what, line,
				 g->v[k].allow ? g->v[k].allow : "none", r->allow);
		if (!r->allow && g->v[k].allow)
			fail_msg("row '%s': '%s' opened by %s, want refused outright", r->what, line,
				 g->v[k].allow);
		assert_non_null(strstr(line, r->allow ? "(needs --allow " : "(refused)"));
		return;
	}
	fail_msg("row '%s': no finding names '%s' (first: %s)", r->what, r->want, g->v[0].reason);
}

static void test_rows(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		te_autofree char *text = r->body ? with_dir(r->body) : NULL;
		te_autojson cJSON *body = text ? cJSON_Parse(text) : NULL;
		struct gate g;
		struct te_err err = {0};
		int rc;

		if (text && !body)
			fail_msg("row '%s': bad JSON", r->what);
		gate_init(&g, r->granted, true);
		rc = gate_judge(&g, r->method, r->path, r->query, body, &err);
		if (!r->want && rc != 0)
			fail_msg("row '%s': refused: %s", r->what, err.msg);
		if (r->want && rc == 0)
			fail_msg("row '%s': allowed, want a refusal naming '%s'", r->what, r->want);
		if (r->want)
			assert_int_equal(err.code, TE_E_POLICY);
		if (r->want)
			want_finding(&g, r);
		gate_release(&g);
	}
}

/* x-taskenv.engine: broker: exactly the task's broker directory (a
 * docker.sock inside, outside the project) is trusted; another task's,
 * the directory above them and the engine's socket are not. */
static void test_broker_dir(void **state)
{
	te_autofree char *base = xasprintf("%s-brk", dir);
	te_autofree char *mk =
	    xasprintf("mkdir -p '%s/b1' '%s/b2' && touch '%s/b1/docker.sock' '%s/b2/docker.sock'", base, base,
		      base, base);
	const struct {
		const char *src, *want;
	} cases[] = {
	    {"b1", NULL},
	    {"b1/.", NULL},
	    {"b2", "engine-socket"},
	    {"", "bind-outside-project"},
	    {"/var/run/docker.sock", "engine-socket"},
	};

	(void)state;
	assert_int_equal(system(mk), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		te_autofree char *src =
		    cases[i].src[0] == '/' ? xstrdup(cases[i].src) : xasprintf("%s/%s", base, cases[i].src);
		te_autofree char *text = xasprintf(HC("\"Binds\":[\"%s:/run/taskenv:ro\"]"), src);
		te_autojson cJSON *body = cJSON_Parse(text);
		struct gate g;
		struct te_err err = {0};
		int rc;

		gate_init(&g, NULL, true);
		g.broker_dir = xasprintf("%s/b1", base);
		rc = gate_judge(&g, CREATE, body, &err);
		if (!cases[i].want && rc != 0)
			fail_msg("broker dir '%s': refused: %s", src, err.msg);
		if (cases[i].want &&
		    (rc == 0 || !g.n || !g.v[0].allow || strcmp(g.v[0].allow, cases[i].want) != 0))
			fail_msg("broker dir '%s': want %s, got rc %d (%s)", src, cases[i].want, rc, err.msg);
		gate_release(&g);
	}
	free(mk);
	mk = xasprintf("rm -rf '%s'", base);
	assert_int_equal(system(mk), 0);
}

/* Without an engine (check), the rules that need one are left to up. */
static void test_no_engine(void **state)
{
	te_autojson cJSON *b = cJSON_Parse(HC("\"PidMode\":\"container:t1-db-1\""));
	struct gate g;

	(void)state;
	gate_init(&g, NULL, false);
	/* Not in a plan either: refused, nothing vouches for it. */
	assert_int_equal(gate_judge_add(&g, "POST", "/containers/create", "", b), -1);
	gate_release(&g);
	gate_init(&g, NULL, false);
	assert_int_equal(gate_judge_add(&g, "POST", "/build", "t=t2-app", NULL), 0);
	gate_release(&g);
}

/* ./data swapped for a symlink to /etc after up: the start is refused. */
static void test_start_after_swap(void **state)
{
	te_autofree char *data = xasprintf("%s/data", dir);
	te_autofree char *cmd = xasprintf("rmdir '%s' && ln -s /etc '%s'", data, data);
	te_autofree char *undo = xasprintf("rm '%s' && mkdir '%s'", data, data);
	struct gate g;
	struct te_err err = {0};

	(void)state;
	/* Podman's inspect adds its own options to each bind. */
	swapped = xasprintf("{\"Name\":\"/t1-web-1\",\"Config\":{\"Labels\":{" OURS "}},"
			    "\"HostConfig\":{\"Binds\":[\"%s:/d:rw,rprivate,nosuid,nodev,rbind\","
			    "\"t1_data:/v:rw,rprivate,nosuid,nodev,rbind\"]}}",
			    data);
	gate_init(&g, NULL, true);
	assert_int_equal(gate_judge(&g, "POST", "/containers/c-swap/start", "", NULL, &err), 0);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(gate_judge(&g, "POST", "/containers/c-swap/restart", "t=10", NULL, &err), -1);
	assert_non_null(strstr(err.msg, "'/etc' is a system path"));
	assert_int_equal(system(undo), 0);
	gate_release(&g);
	free(swapped);
	swapped = NULL;
}

/* A finding carries the file:line:col the plan recorded for the field. */
static void test_locations(void **state)
{
	te_autofree char *file = xasprintf("%s/compose.yaml", dir);
	FILE *f = fopen(file, "w");
	struct svc_load_opts o = {0};
	char *files[] = {file, NULL};
	char **warnings = NULL;
	struct te_err err = {0};
	struct svc_project *p;
	struct svc_plan *plan;
	struct gate g;
	te_autojson cJSON *body = NULL;
	int ports[2] = {0, 0};

	(void)state;
	assert_non_null(f);
	fputs("services:\n"
	      "  web:\n"
	      "    image: busybox\n"
	      "    ports:\n"
	      "      - \"0.0.0.0:8080:80\"\n"
	      "    cap_add: [SYS_ADMIN]\n"
	      "    volumes:\n"
	      "      - ./data:/d\n"
	      "      - /etc:/host-etc\n",
	      f);
	fclose(f);
	o.files = files;
	o.project_name = TASK;
	p = svc_load_project(&o, &warnings, &err);
	assert_non_null(p);
	plan = svc_plan_build(p, TASK, LEDGER, &err);
	assert_non_null(plan);
	gate_init(&g, NULL, false);
	g.plan = plan;
	plan->public_ports = true; /* as if granted: the body then carries 0.0.0.0 */
	body = svc_plan_container_body(plan, &plan->containers[0], ports);
	assert_int_equal(gate_judge_add(&g, "POST", "/containers/create", "name=t1-web-1", body), -1);
	gate_findings_sort(&g);
	assert_int_equal(g.n, 3);
	assert_int_equal(g.v[0].loc.line, 5);
	assert_string_equal(g.v[0].key, "ports");
	assert_int_equal(g.v[1].loc.line, 6);
	assert_string_equal(g.v[1].allow, "cap:SYS_ADMIN");
	assert_int_equal(g.v[2].loc.line, 9);
	assert_string_equal(g.v[2].allow, "bind-system");
	assert_string_equal(g.v[2].service, "web");
	assert_ptr_equal(g.v[2].loc.file, p->files[0]);
	gate_release(&g);
	svc_plan_free(plan);
	svc_project_free(p);
	te_strv_free(warnings);
}

static void test_exception_names(void **state)
{
	static const char *const good[] = {
	    "privileged",     "host-cgroupns",	"seccomp-profile", "external-network", "external-volume",
	    "network-driver", "volume-driver",	"runtime",	   "log-driver",       "host-credentials",
	    "template:base",  "path:/srv/data", "cap:SYS_ADMIN",   "public-port"};
	static const char *const bad[] = {"other-container", "privilegd", "cap:",	  "path:rel",
					  "template:",	     "cap:A B",	  "template:a b", "template:a;drop"};
	char *list[] = {(char *)"privileged", (char *)"nope", NULL};
	struct te_err err = {0};

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_true(gate_exception_known(good[i]));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(gate_exception_known(bad[i]));
	assert_int_equal(gate_exceptions_validate(list, "--allow", &err), -1);
	assert_non_null(strstr(err.msg, "'nope' in --allow"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rows),      cmocka_unit_test(test_broker_dir),
	    cmocka_unit_test(test_no_engine), cmocka_unit_test(test_start_after_swap),
	    cmocka_unit_test(test_locations), cmocka_unit_test(test_exception_names),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
