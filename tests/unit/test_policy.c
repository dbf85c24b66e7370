/* The policy, now the gate's (services/gate/, judged on the plan's Engine
 * bodies as `taskenv check` does): every refusal, table-driven, with its
 * location and exception name; exceptions only from the caller (the file's
 * x-taskenv.allow names them, never grants); bind sources judged after
 * realpath; the defaults and their variables. Also Compose durations
 * and byte sizes, and the merge of several files (services/merge.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/err.h"
#include "common/mem.h"
#include "services/model/compose.h"
#include "services/model/load.h"
#include "services/model/policy.h"
#include "services/gate/gate.h"
#include "services/model/plan.h"
#include "services/gate/gate.h"
#include "services/lifecycle/guard.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[PATH_MAX];

static int setup(void **state)
{
	char tmpl[] = "/tmp/te-policy-XXXXXX";

	assert_non_null(mkdtemp(tmpl));
	assert_non_null(realpath(tmpl, tmpdir));
	setenv("HOME", tmpdir, 1);
	unsetenv("DOCKER_HOST");
	unsetenv("CONTAINER_HOST");
	unsetenv("XDG_RUNTIME_DIR");
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Write DIR/NAME under tmpdir (DIR created) and return the owned path. */
static char *write_in(const char *dir, const char *name, const char *text)
{
	char *d = xasprintf("%s/%s", tmpdir, dir);
	char *path = xasprintf("%s/%s", d, name);
	char *cmd = xasprintf("mkdir -p '%s'", d);
	FILE *f;

	assert_int_equal(system(cmd), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(cmd);
	free(d);
	return path;
}

static struct svc_project *load_text(const char *dir, const char *text)
{
	te_autofree char *path = write_in(dir, "compose.yaml", text);
	char *files[] = {path, NULL};
	struct te_err err = {0};
	struct svc_project *p = svc_load(files, &err);

	if (!p)
		fail_msg("load: %s", err.msg);
	return p;
}

/* The gate's verdict on P, as `taskenv check` gives it: the plan's bodies
 * and the files' host paths judged, no engine. *OUT owned (findings_free). */
static void policy_check(const struct svc_project *p, char *const *allow, struct gate_finding **out,
			 size_t *n)
{
	struct te_err err = {0};
	struct svc_plan *plan = svc_plan_build(p, "t1", "led0", &err);
	struct gate g = {0};

	if (!plan)
		fail_msg("plan: %s", err.msg);
	g.task = xstrdup("t1");
	g.ledger_id = xstrdup("led0");
	g.granted = te_strv_dup(allow);
	g.boundary = gate_project_boundary(p);
	plan->files_dir = xasprintf("%s/taskenv-files", tmpdir);
	g.own_dirs = te_strv_push(NULL, xstrdup(plan->files_dir));
	plan->public_ports = gate_granted(&g, "public-port");
	svc_guard_plan(&g, NULL, plan);
	*out = g.v;
	*n = g.n;
	g.v = NULL;
	g.n = 0;
	gate_release(&g);
	svc_plan_free(plan);
}

static void findings_free(struct gate_finding *v, size_t n)
{
	struct gate g = {0};

	g.v = v;
	g.n = n;
	gate_findings_clear(&g);
}

/* The marker of a finding no exception opens (allow NULL in the finding). */
static const char REFUSED[] = "(refused)";

struct refusal {
	const char *snippet; /* lines under services.s (4-space indent added), first at line 4 */
	const char *allow;   /* the exception it needs, NULL when it must pass */
	const char *key;
	int line;
};

static const struct refusal refusals[] = {
    {"privileged: true", "privileged", "privileged", 4},
    {"privileged: false", NULL, NULL, 0},
    {"network_mode: host", "host-network", "network_mode", 4},
    {"network_mode: none", NULL, NULL, 0},
    {"pid: host", "host-pid", "pid", 4},
    {"ipc: host", "host-ipc", "ipc", 4},
    {"ipc: shareable", NULL, NULL, 0},
    {"userns_mode: host", "host-userns", "userns_mode", 4},
    {"uts: host", "host-uts", "uts", 4},
    {"devices: [\"/dev/fuse\"]", "devices", "devices", 4},
    {"cap_add: [SYS_ADMIN]", "cap:SYS_ADMIN", "cap_add", 4},
    {"cap_add: [cap_sys_ptrace]", "cap:SYS_PTRACE", "cap_add", 4},
    {"cap_add: [NET_ADMIN]", "cap:NET_ADMIN", "cap_add", 4},
    {"cap_add: [SYS_MODULE]", "cap:SYS_MODULE", "cap_add", 4},
    {"cap_add: [ALL]", "cap:ALL", "cap_add", 4},
    {"cap_add: [NET_BIND_SERVICE, CHOWN]", NULL, NULL, 0},
    {"security_opt: [\"seccomp=unconfined\"]", REFUSED, "security_opt", 4},
    {"security_opt: [\"seccomp:unconfined\"]", REFUSED, "security_opt", 4},
    {"security_opt: [\"apparmor=unconfined\"]", REFUSED, "security_opt", 4},
    {"security_opt: [\"label:disable\"]", REFUSED, "security_opt", 4},
    {"security_opt: [\"label=type:svirt_apache_t\"]", NULL, NULL, 0},
    {"security_opt: [\"seccomp=./profile.json\"]", "seccomp-profile", "security_opt", 4},
    {"volumes: [\"/var/run/docker.sock:/var/run/docker.sock\"]", "engine-socket", "volumes", 4},
    {"volumes:\n  - /run/podman/podman.sock:/s", "engine-socket", "volumes", 5},
    {"volumes: [\"/etc:/host-etc:ro\"]", "bind-system", "volumes", 4},
    {"volumes: [\"/proc/sys:/x\"]", "bind-system", "volumes", 4},
    {"volumes: [\"/dev:/x\"]", "bind-system", "volumes", 4},
    {"volumes: [\"/root/.cache:/x\"]", "bind-system", "volumes", 4},
    {"volumes: [\"~:/home\"]", "bind-home", "volumes", 4},
    {"volumes: [\"~/.ssh:/k\"]", "bind-credentials", "volumes", 4},
    {"volumes: [\"~/.config/gcloud/creds.json:/k\"]", "bind-credentials", "volumes", 4},
    {"volumes: [\"~/.config:/k\"]", "bind-credentials", "volumes", 4},
    {"volumes: [\"~/.git-credentials:/k\"]", "bind-credentials", "volumes", 4},
    {"volumes: [\"../elsewhere:/x\"]", "bind-outside-project", "volumes", 4},
    {"volumes: [\"./sub/../../elsewhere:/x\"]", "bind-outside-project", "volumes", 4},
    {"volumes: [\"./data:/x\", \"./data/../data:/y\", \"named:/z\"]", NULL, NULL, 0},
    /* A public host address is bound to 127.0.0.1 (a warning), not refused. */
    {"ports: [\"0.0.0.0:80:80\"]", NULL, NULL, 0},
    {"ports:\n  - target: 80\n    host_ip: 192.168.1.5", NULL, NULL, 0},
    {"ports: [\"127.0.0.1:80:80\", \"80\", \"[::1]:81:81\"]", NULL, NULL, 0},
    {"sysctls:\n  kernel.panic: 1", "host-sysctl", "sysctls", 5},
    {"sysctls: [\"vm.swappiness=10\"]", "host-sysctl", "sysctls", 4},
    {"sysctls:\n  net.core.somaxconn: 1\n  kernel.shmmax: 1\n  fs.mqueue.msg_max: 1", NULL, NULL, 0},
    {"mac_address: 02:42:ac:11:00:02", "mac-address", "mac_address", 4},
};

static void test_refusals(void **state)
{
	for (size_t i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++) {
		const struct refusal *r = &refusals[i];
		te_autofree char *dir = xasprintf("proj%zu", i);
		te_autofree char *indented = NULL;
		te_autofree char *text = NULL;
		struct svc_project *p;
		struct gate_finding *f = NULL;
		size_t n = 0;
		char *allow[] = {(char *)r->allow, NULL};

		/* indent each snippet line by 4 */
		{
			te_autofree char *copy = xstrdup(r->snippet);
			char *save = NULL;

			indented = xstrdup("");
			for (char *ln = strtok_r(copy, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save)) {
				char *next = xasprintf("%s    %s\n", indented, ln);

				free(indented);
				indented = next;
			}
		}
		text = xasprintf("services:\n  s:\n    image: x\n%svolumes:\n  named:\n", indented);
		p = load_text(dir, text);
		policy_check(p, NULL, &f, &n);
		if (!r->allow && n)
			fail_msg("case %zu (%s): unexpected finding: %s", i, r->snippet, f[0].reason);
		if (r->allow) {
			te_autofree char *line = NULL;

			if (n != 1)
				fail_msg("case %zu (%s): %zu findings", i, r->snippet, n);
			line = gate_finding_format(&f[0]);
			if (r->allow == REFUSED)
				assert_null(f[0].allow);
			else
				assert_string_equal(f[0].allow, r->allow);
			assert_string_equal(f[0].key, r->key);
			assert_string_equal(f[0].service, "s");
			if (f[0].loc.line != r->line)
				fail_msg("case %zu: line %d, want %d: %s", i, f[0].loc.line, r->line, line);
			assert_non_null(strstr(line, "compose.yaml:"));
			findings_free(f, n);
			/* the same file passes once the exception is granted; a
			 * refusal stays whatever is granted */
			policy_check(p, r->allow == REFUSED ? NULL : allow, &f, &n);
			assert_int_equal(n, r->allow == REFUSED);
		}
		findings_free(f, n);
		svc_project_free(p);
	}
}

/* x-taskenv.allow names what the file needs and grants nothing: each
 * name not granted is a finding of its own, and so is what it covers. */
static void test_allow_in_file_and_validate(void **state)
{
	struct svc_project *p = load_text("allowfile", "x-taskenv:\n  allow: [privileged]\n"
						       "services:\n  s:\n    image: x\n    privileged: true\n"
						       "    pid: host\n");
	struct gate_finding *f = NULL;
	size_t n = 0;
	struct te_err err = {0};
	char *bad[] = {(char *)"privilegd", NULL};
	char *granted[] = {(char *)"privileged", NULL};

	policy_check(p, NULL, &f, &n);
	assert_int_equal(n, 3);
	assert_string_equal(f[0].allow, "privileged");
	assert_string_equal(f[0].key, "allow");
	assert_non_null(strstr(f[0].reason, "--allow privileged"));
	assert_string_equal(f[1].allow, "privileged");
	assert_int_equal(f[1].loc.line, 6);
	assert_string_equal(f[2].allow, "host-pid");
	assert_int_equal(f[2].loc.line, 7);
	assert_int_equal(f[2].loc.col, 5);
	findings_free(f, n);
	policy_check(p, granted, &f, &n);
	assert_int_equal(n, 1);
	assert_string_equal(f[0].allow, "host-pid");
	findings_free(f, n);
	assert_int_equal(gate_exceptions_validate(p->allow, "x-taskenv.allow", &err), 0);
	assert_int_equal(gate_exceptions_validate(bad, "--allow", &err), -1);
	assert_int_equal(err.code, TE_E_USAGE);
	assert_non_null(strstr(err.msg, "privilegd"));
	svc_project_free(p);
	p = load_text("allowbad", "x-taskenv:\n  allow: [everything]\nservices:\n  s:\n    image: x\n");
	assert_int_equal(gate_exceptions_validate(p->allow, "x-taskenv.allow", &err), -1);
	assert_non_null(strstr(err.msg, "'everything' in x-taskenv.allow"));
	svc_project_free(p);
	/* template:NAME is a name with a parameter (lifecycle/pgtpl.h grants it). */
	assert_true(gate_exception_known("template:app_tpl"));
	assert_false(gate_exception_known("template:"));
	assert_false(gate_exception_known("template:a b"));
	assert_false(gate_exception_known("template:a;drop"));
}

/* A symlink inside the project pointing out of it is judged by its target;
 * several exposures of one bind are several findings. */
static void test_symlink_and_multiple(void **state)
{
	te_autofree char *outside = xasprintf("%s/outside", tmpdir);
	te_autofree char *link = xasprintf("%s/symproj/data", tmpdir);
	te_autofree char *ssh = xasprintf("%s/.ssh", tmpdir);
	struct svc_project *p = load_text("symproj", "services:\n  s:\n    image: x\n    volumes:\n"
						     "      - ./data/sub:/d\n      - /:/host\n");
	struct gate_finding *f = NULL;
	size_t n = 0;
	char *some[] = {(char *)"bind-system", NULL};

	assert_int_equal(mkdir(outside, 0700), 0);
	assert_int_equal(mkdir(ssh, 0700), 0);
	assert_int_equal(symlink(outside, link), 0);
	policy_check(p, NULL, &f, &n);
	/* ./data/sub -> outside/sub; / -> engine-socket? (no socket here), system */
	assert_true(n >= 2);
	assert_string_equal(f[0].allow, "bind-outside-project");
	assert_non_null(strstr(f[0].reason, outside));
	assert_int_equal(f[0].loc.line, 5);
	findings_free(f, n);
	policy_check(p, some, &f, &n);
	for (size_t i = 0; i < n; i++)
		assert_string_not_equal(f[i].allow, "bind-system");
	findings_free(f, n);
	svc_project_free(p);
}

/* Secret and config file sources are binds: the same rules apply. */
static void test_secret_files(void **state)
{
	struct svc_project *p = load_text("secproj", "services:\n  s:\n    image: x\n"
						     "    secrets: [inside, outside, creds, fromenv]\n"
						     "    configs: [sys]\n"
						     "secrets:\n  inside:\n    file: ./token\n"
						     "  outside:\n    file: ../elsewhere/token\n"
						     "  creds:\n    file: ~/.ssh/id_ed25519\n"
						     "  fromenv:\n    environment: TOKEN\n"
						     "configs:\n  sys:\n    file: /etc/hostname\n");
	struct gate_finding *f = NULL;
	size_t n = 0;

	policy_check(p, NULL, &f, &n);
	assert_int_equal(n, 3);
	assert_string_equal(f[0].allow, "bind-outside-project");
	assert_string_equal(f[0].key, "secrets");
	assert_int_equal(f[0].loc.line, 9); /* the declaration */
	assert_string_equal(f[1].allow, "bind-credentials");
	assert_string_equal(f[2].allow, "bind-system");
	assert_string_equal(f[2].key, "configs");
	findings_free(f, n);
	svc_project_free(p);
}

/* The socket named by DOCKER_HOST, and a directory holding one. */
static void test_engine_socket_from_env(void **state)
{
	te_autofree char *sockdir = xasprintf("%s/engine", tmpdir);
	te_autofree char *sock = xasprintf("unix://%s/engine/custom.sock", tmpdir);
	te_autofree char *text =
	    xasprintf("services:\n  s:\n    image: x\n    volumes: [\"%s:/e\"]\n", sockdir);
	struct svc_project *p;
	struct gate_finding *f = NULL;
	size_t n = 0;

	assert_int_equal(mkdir(sockdir, 0700), 0);
	p = load_text("sockproj", text);
	policy_check(p, NULL, &f, &n);
	assert_int_equal(n, 1);
	assert_string_equal(f[0].allow, "bind-outside-project");
	findings_free(f, n);
	setenv("DOCKER_HOST", sock, 1);
	policy_check(p, NULL, &f, &n);
	unsetenv("DOCKER_HOST");
	assert_int_equal(n, 1);
	assert_string_equal(f[0].allow, "engine-socket");
	findings_free(f, n);
	svc_project_free(p);
}

static void test_defaults(void **state)
{
	struct svc_project *p = load_text("dflt", "services:\n  a:\n    image: x\n  b:\n    image: x\n"
						  "    mem_limit: 1g\n    cpus: 0.5\n    pids_limit: 10\n"
						  "    security_opt: [\"no-new-privileges:false\"]\n");
	/* the settings' defaults (test_settings checks those come from the table) */
	struct svc_policy_defaults d = {2LL << 30, 2, 1024, true};

	svc_policy_apply_defaults(p, &d);
	assert_int_equal(p->services[0].mem_limit, 2LL << 30);
	assert_true(p->services[0].cpus == 2);
	assert_int_equal(p->services[0].pids_limit, 1024);
	assert_string_equal(p->services[0].security_opt[0], "no-new-privileges:true");
	assert_int_equal(p->services[1].mem_limit, 1LL << 30);
	assert_true(p->services[1].cpus == 0.5);
	assert_int_equal(p->services[1].pids_limit, 10);
	assert_null(p->services[1].security_opt[1]);
	svc_project_free(p);
	/* 0 turns a limit off, and no-new-privileges can be left out */
	p = load_text("dflt0", "services:\n  a:\n    image: x\n");
	d = (struct svc_policy_defaults){0, 0, 0, false};
	svc_policy_apply_defaults(p, &d);
	assert_int_equal(p->services[0].mem_limit, 0);
	assert_true(p->services[0].cpus == 0);
	assert_int_equal(p->services[0].pids_limit, 0);
	assert_null(p->services[0].security_opt);
	svc_project_free(p);
}

static void test_durations_and_sizes(void **state)
{
	static const struct {
		const char *s;
		long long ns;
		bool ok;
	} durs[] = {{"1m30s", 90000000000LL, true},
		    {"1.5s", 1500000000LL, true},
		    {"500ms", 500000000LL, true},
		    {"10", 10000000000LL, true},
		    {"1h", 3600000000000LL, true},
		    {"2us", 2000, true},
		    {"", 0, false},
		    {"5 s", 0, false},
		    {"-1s", 0, false},
		    {"1x", 0, false}};
	static const struct {
		const char *s;
		long long b;
		bool ok;
	} sizes[] = {{"1024", 1024, true},	{"512m", 512LL << 20, true},
		     {"2g", 2LL << 30, true},	{"1gb", 1LL << 30, true},
		     {"100K", 100 << 10, true}, {"1.5g", 3LL << 29, true},
		     {"10b", 10, true},		{"", 0, false},
		     {"2x", 0, false},		{"1bb", 0, false}};
	long long v;

	for (size_t i = 0; i < sizeof(durs) / sizeof(durs[0]); i++) {
		v = 0;
		if (svc_parse_duration(durs[i].s, &v) != durs[i].ok || (durs[i].ok && v != durs[i].ns))
			fail_msg("duration '%s': got %lld", durs[i].s, v);
	}
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		v = 0;
		if (svc_parse_bytes(sizes[i].s, &v) != sizes[i].ok || (sizes[i].ok && v != sizes[i].b))
			fail_msg("size '%s': got %lld", sizes[i].s, v);
	}
}

/* Two files merged; profiles; references checked after the merge. */
static void test_merge_and_profiles(void **state)
{
	te_autofree char *a = write_in("merge", "a.yaml",
				       "services:\n  web:\n    image: w:1\n    ports: [\"80:80\"]\n"
				       "    environment: {A: \"1\", B: \"2\"}\n    volumes: [\"./x:/x:ro\"]\n"
				       "    cap_add: [CHOWN]\n  dbg:\n    image: d\n    profiles: [debug]\n");
	te_autofree char *b =
	    write_in("merge", "b.yaml",
		     "services:\n  web:\n    image: w:2\n    ports: [\"80:80\", \"81:81\"]\n"
		     "    environment: [B=3, C=4]\n    volumes: [\"./y:/x\"]\n    cap_add: [CHOWN, KILL]\n"
		     "    depends_on: [db]\n    networks: [back]\n  db:\n    image: pg\n"
		     "networks:\n  back: {}\n");
	char *files[] = {a, b, NULL};
	char *prof[] = {(char *)"debug", NULL};
	struct te_err err = {0};
	struct svc_project *p = svc_load(files, &err);
	const struct svc_service *w;

	if (!p)
		fail_msg("%s", err.msg);
	assert_int_equal(p->n_services, 2); /* dbg's profile is inactive */
	w = svc_project_service(p, "web");
	assert_string_equal(w->image, "w:2");
	assert_int_equal(w->n_ports, 2);
	assert_int_equal(w->n_environment, 3);
	assert_string_equal(w->environment[1].value, "3");
	assert_int_equal(w->n_mounts, 1);
	assert_false(w->mounts[0].read_only);
	assert_non_null(strstr(w->mounts[0].source, "/merge/y"));
	assert_int_equal(te_strv_len(w->cap_add), 2);
	assert_string_equal(w->depends_on[0], "db");
	assert_string_equal(w->networks[0], "back");
	svc_project_free(p);
	p = svc_load_profiles(files, prof, &err);
	assert_non_null(p);
	assert_int_equal(p->n_services, 3);
	svc_project_free(p);
}

/* Warnings carry file:line:col and reach the caller also when loading then
 * fails; an unknown key is an error, never a warning. */
static void test_warnings(void **state)
{
	struct svc_project *p = load_text("warn", "services:\n  s:\n    image: x\n    logging: {}\n"
						  "    x-mine: ok\nversion: \"3\"\n");
	te_autofree char *bad = write_in("warn-bad", "compose.yaml",
					 "services:\n  s:\n    image: x\n    logging: {}\n    bogus: 1\n");
	char *files[] = {bad, NULL};
	struct svc_load_opts o = {.files = files};
	te_autostrv char **warnings = NULL;
	struct te_err err = {0};

	assert_int_equal(te_strv_len(p->warnings), 2);
	assert_non_null(strstr(p->warnings[0], "compose.yaml:6:1: version is obsolete"));
	assert_non_null(
	    strstr(p->warnings[1], "compose.yaml:4:5: services.s.logging is ignored by taskenv: "));
	svc_project_free(p);
	assert_null(svc_load_project(&o, &warnings, &err));
	assert_int_equal(err.code, TE_E_COMPOSE);
	assert_non_null(strstr(err.msg, "compose.yaml:5:5: unknown key 'bogus' in services.s"));
	assert_int_equal(te_strv_len(warnings), 1);
	assert_non_null(strstr(warnings[0], "compose.yaml:4:5: services.s.logging is ignored by taskenv"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_refusals),
	    cmocka_unit_test(test_allow_in_file_and_validate),
	    cmocka_unit_test(test_symlink_and_multiple),
	    cmocka_unit_test(test_engine_socket_from_env),
	    cmocka_unit_test(test_secret_files),
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_durations_and_sizes),
	    cmocka_unit_test(test_merge_and_profiles),
	    cmocka_unit_test(test_warnings),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
