/* Unit tests for state/ports.c: host port reservations in the ledger. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <ftw.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/err.h"
#include "common/mem.h"
#include "state/ledger.h"

struct fx {
	char *dir;
	char *path;
	struct ledger *l;
};

/* A fake probe: ports listed in busy[] are taken; counts its calls. */
struct fake_probe {
	int busy[8];
	size_t nbusy;
	int calls;
};

static int fake_probe(const char *host_ip, int port, const char *proto, void *ctx)
{
	struct fake_probe *p = ctx;

	p->calls++;
	for (size_t i = 0; i < p->nbusy; i++) {
		if (p->busy[i] == port)
			return -1;
	}
	return 0;
}

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	return remove(p);
}

static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR");
	struct te_err err = {0};
	struct fx *f = xcalloc(1, sizeof(*f));

	f->dir = xasprintf("%s/te-ports-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(f->dir))
		return -1;
	f->path = xasprintf("%s/state.db", f->dir);
	f->l = state_open(f->path, &err);
	if (!f->l) {
		fprintf(stderr, "state_open: %s\n", err.msg);
		return -1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	state_close(f->l);
	nftw(f->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(f->dir);
	free(f->path);
	free(f);
	return 0;
}

/* Reserve with the common defaults (tcp on 127.0.0.1); returns the port
 * or fails the test. */
static int reserve(struct ledger *l, const char *task, const char *svc, int cport, int hint, int lo, int hi,
		   struct fake_probe *probe)
{
	struct te_err err = {0};
	int port = -1;

	if (state_port_reserve(l, task, svc, cport, "tcp", "127.0.0.1", hint, lo, hi,
			       probe ? fake_probe : NULL, probe, &port, &err) < 0)
		fail_msg("reserve %s/%s/%d: %s", task, svc, cport, err.msg);
	assert_in_range(port, lo, hi);
	return port;
}

static void test_reuse_same_key(void **state)
{
	struct fx *f = *state;
	struct fake_probe probe = {.busy = {0}};
	int p1 = reserve(f->l, "t1", "web", 80, 0, 30000, 30099, &probe);
	int calls = probe.calls;
	int p2;

	assert_true(calls >= 1);
	/* The probe would now say busy (our container holds it): not asked. */
	probe.busy[0] = p1;
	probe.nbusy = 1;
	p2 = reserve(f->l, "t1", "web", 80, 0, 30000, 30099, &probe);
	assert_int_equal(p2, p1);
	assert_int_equal(probe.calls, calls);
	/* Another proto or container port is another key. */
	assert_int_not_equal(reserve(f->l, "t1", "web", 443, 0, 30000, 30099, NULL), p1);
}

/* Replicas each hold their own port; replica 1 is the plain reservation;
 * a replica's ports go when it is scaled away, the others stay. */
static void test_replicas_own_ports(void **state)
{
	struct fx *f = *state;
	struct te_err err = {0};
	struct state_port *ports = NULL;
	size_t n = 0;
	int p[4] = {0};

	p[1] = reserve(f->l, "rep", "web", 80, 0, 33000, 33099, NULL);
	for (int r = 2; r <= 3; r++)
		assert_int_equal(state_port_reserve_replica(f->l, "rep", "web", r, 80, "tcp", NULL, 0, 33000,
							    33099, NULL, NULL, &p[r], &err),
				 0);
	assert_int_not_equal(p[1], p[2]);
	assert_int_not_equal(p[2], p[3]);
	assert_int_not_equal(p[1], p[3]);
	assert_int_equal(state_port_reserve_replica(f->l, "rep", "web", 1, 80, "tcp", NULL, 0, 33000, 33099,
						    NULL, NULL, &p[0], &err),
			 0);
	assert_int_equal(p[0], p[1]);
	assert_int_equal(state_port_release_replica(f->l, "rep", "web", 2, &err), 0);
	assert_int_equal(state_port_list(f->l, "rep", &ports, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(ports[0].replica, 1);
	assert_int_equal(ports[1].replica, 3);
	assert_int_equal(ports[1].host_port, p[3]);
	state_ports_free(ports, n);
}

static void test_same_start_is_stable(void **state)
{
	struct fx *f = *state;
	struct te_err err = {0};
	int p1 = reserve(f->l, "stable", "db", 5432, 0, 31000, 31999, NULL);

	assert_int_equal(state_port_release_task(f->l, "stable", &err), 0);
	assert_int_equal(reserve(f->l, "stable", "db", 5432, 0, 31000, 31999, NULL), p1);
}

static void test_different_tasks_different_ports(void **state)
{
	static const char *const tasks[] = {"t1", "t2", "t3", "t4", "t5", "t6"};
	struct fx *f = *state;
	int ports[6];

	for (size_t i = 0; i < 6; i++) {
		ports[i] = reserve(f->l, tasks[i], "web", 80, 0, 30000, 30005, NULL);
		for (size_t j = 0; j < i; j++)
			assert_int_not_equal(ports[i], ports[j]);
	}
}

static void test_hint(void **state)
{
	static const struct {
		int hint, lo, hi;
		bool used;
	} cases[] = {
	    {30005, 30000, 30009, true}, {30000, 30000, 30009, true},  {30009, 30000, 30009, true},
	    {80, 30000, 30009, false},	 {30010, 30000, 30009, false},
	};
	struct fx *f = *state;
	struct te_err err = {0};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int p = reserve(f->l, "t1", "web", 80, cases[i].hint, cases[i].lo, cases[i].hi, NULL);

		if (cases[i].used)
			assert_int_equal(p, cases[i].hint);
		else
			assert_int_not_equal(p, cases[i].hint);
		assert_int_equal(state_port_release_task(f->l, "t1", &err), 0);
	}
	/* A hint another task holds is skipped. */
	assert_int_equal(reserve(f->l, "t1", "web", 80, 30005, 30000, 30009, NULL), 30005);
	assert_int_not_equal(reserve(f->l, "t2", "web", 80, 30005, 30000, 30009, NULL), 30005);
}

static void test_probe_busy_skips(void **state)
{
	struct fx *f = *state;
	struct fake_probe probe = {.busy = {30005}, .nbusy = 1};
	struct fake_probe two = {.busy = {32000, 32002}, .nbusy = 2};

	assert_int_not_equal(reserve(f->l, "t1", "web", 80, 30005, 30000, 30009, &probe), 30005);
	/* Only one port of three is free on the machine: that one. */
	assert_int_equal(reserve(f->l, "t2", "web", 80, 0, 32000, 32002, &two), 32001);
	/* Each candidate probed at most once, however the scan started. */
	assert_in_range(two.calls, 1, 3);
}

static void test_exhaustion(void **state)
{
	struct fx *f = *state;
	struct fake_probe all = {.busy = {21000, 21001}, .nbusy = 2};
	struct te_err err = {0};
	int port = -1;

	reserve(f->l, "t1", "svc1", 80, 0, 20000, 20002, NULL);
	reserve(f->l, "t1", "svc2", 80, 0, 20000, 20002, NULL);
	reserve(f->l, "t2", "svc3", 80, 0, 20000, 20002, NULL);
	assert_int_equal(state_port_reserve(f->l, "t2", "svc4", 80, "tcp", "127.0.0.1", 0, 20000, 20002, NULL,
					    NULL, &port, &err),
			 -1);
	assert_int_equal(err.code, TE_E_PORTS);
	assert_string_equal(err.msg, "no free host port in 20000-20002 for service 'svc4' port 80 "
				     "(3 reserved in the ledger); widen the range or bring a task down");
	assert_int_equal(port, -1);

	/* Free in the ledger but all busy on the machine: exhausted too. */
	assert_int_equal(state_port_reserve(f->l, "t3", "svc", 53, "udp", NULL, 0, 21000, 21001, fake_probe,
					    &all, &port, &err),
			 -1);
	assert_int_equal(err.code, TE_E_PORTS);
	assert_non_null(strstr(err.msg, "(0 reserved in the ledger)"));
}

static void test_release_task(void **state)
{
	struct fx *f = *state;
	struct te_err err = {0};
	struct state_port *v = NULL;
	size_t n = 0;
	int port = -1;

	assert_int_equal(reserve(f->l, "t1", "web", 80, 0, 25000, 25000, NULL), 25000);
	assert_int_equal(
	    state_port_reserve(f->l, "t2", "web", 80, "tcp", NULL, 0, 25000, 25000, NULL, NULL, &port, &err),
	    -1);
	assert_int_equal(err.code, TE_E_PORTS);
	assert_int_equal(state_port_release_task(f->l, "t1", &err), 0);
	assert_int_equal(state_port_list(f->l, "t1", &v, &n, &err), 0);
	assert_int_equal(n, 0);
	state_ports_free(v, n);
	assert_int_equal(reserve(f->l, "t2", "web", 80, 0, 25000, 25000, NULL), 25000);
}

static void test_list(void **state)
{
	struct fx *f = *state;
	struct te_err err = {0};
	struct state_port *v = NULL;
	size_t n = 0;
	int port;

	reserve(f->l, "t2", "web", 80, 26000, 26000, 26099, NULL);
	reserve(f->l, "t1", "web", 443, 26001, 26000, 26099, NULL);
	reserve(f->l, "t1", "db", 5432, 26002, 26000, 26099, NULL);
	assert_int_equal(state_port_reserve(f->l, "t1", "web", 80, "udp", "::1", 26003, 26000, 26099, NULL,
					    NULL, &port, &err),
			 0);
	assert_int_equal(state_port_list(f->l, NULL, &v, &n, &err), 0);
	assert_int_equal(n, 4);
	assert_string_equal(v[0].task, "t1");
	assert_string_equal(v[0].service, "db");
	assert_int_equal(v[0].host_port, 26002);
	assert_string_equal(v[1].service, "web");
	assert_int_equal(v[1].container_port, 80);
	assert_string_equal(v[1].proto, "udp");
	assert_string_equal(v[1].host_ip, "::1");
	assert_int_equal(v[1].host_port, 26003);
	assert_int_equal(v[2].container_port, 443);
	assert_string_equal(v[2].proto, "tcp");
	assert_string_equal(v[2].host_ip, "127.0.0.1");
	assert_string_equal(v[3].task, "t2");
	state_ports_free(v, n);
	assert_int_equal(state_port_list(f->l, "t2", &v, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(v[0].host_port, 26000);
	state_ports_free(v, n);
}

static void test_host_ip_rules(void **state)
{
	struct fx *f = *state;
	struct te_err err = {0};
	struct state_port *v = NULL;
	size_t n = 0;
	int port = -1;

	/* Same port on two specific addresses: no clash. */
	assert_int_equal(state_port_reserve(f->l, "t1", "a", 80, "tcp", "127.0.0.1", 0, 27000, 27000, NULL,
					    NULL, &port, &err),
			 0);
	assert_int_equal(state_port_reserve(f->l, "t2", "a", 80, "tcp", "127.0.0.2", 0, 27000, 27000, NULL,
					    NULL, &port, &err),
			 0);
	/* A wildcard clashes with both, either way round. */
	assert_int_equal(state_port_reserve(f->l, "t3", "a", 80, "tcp", "0.0.0.0", 0, 27000, 27000, NULL,
					    NULL, &port, &err),
			 -1);
	assert_int_equal(err.code, TE_E_PORTS);
	assert_non_null(strstr(err.msg, "(1 reserved in the ledger)"));
	assert_int_equal(state_port_reserve(f->l, "t3", "a", 80, "tcp", "0.0.0.0", 0, 27001, 27001, NULL,
					    NULL, &port, &err),
			 0);
	assert_int_equal(state_port_reserve(f->l, "t4", "a", 80, "tcp", "127.0.0.1", 0, 27001, 27001, NULL,
					    NULL, &port, &err),
			 -1);
	/* The same key on a new address moves its reservation. */
	assert_int_equal(state_port_reserve(f->l, "t1", "a", 80, "tcp", "127.0.0.3", 0, 27002, 27002, NULL,
					    NULL, &port, &err),
			 0);
	assert_int_equal(port, 27002);
	assert_int_equal(state_port_list(f->l, "t1", &v, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].host_ip, "127.0.0.3");
	state_ports_free(v, n);
}

static void test_invalid_args(void **state)
{
	static const struct {
		int cport, lo, hi;
		const char *proto;
	} cases[] = {
	    {80, 0, 10, "tcp"},	    {80, 100, 99, "tcp"},	  {80, 65000, 65536, "tcp"},
	    {0, 1000, 2000, "tcp"}, {70000, 1000, 2000, "tcp"},	  {80, 1000, 2000, ""},
	    {80, 1000, 2000, NULL}, {80, 1000, 2000, "tcpudp12"},
	};
	struct fx *f = *state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct te_err err = {0};
		int port = -1;

		assert_int_equal(state_port_reserve(f->l, "t1", "web", cases[i].cport, cases[i].proto, NULL,
						    0, cases[i].lo, cases[i].hi, NULL, NULL, &port, &err),
				 -1);
		assert_int_equal(err.code, TE_E_USAGE);
		assert_int_equal(port, -1);
	}
}

/* Child of the concurrency test: its own connection, 5 ports for TASK. */
static int reserve_five(const char *path, int go, int idx)
{
	struct te_err err = {0};
	struct ledger *l;
	char task[16], svc[16], c;
	int port;

	while (read(go, &c, 1) > 0)
		;
	l = state_open(path, &err);
	if (!l)
		return 1;
	snprintf(task, sizeof(task), "task%d", idx);
	for (int i = 0; i < 5; i++) {
		snprintf(svc, sizeof(svc), "svc%d", i);
		if (state_port_reserve(l, task, svc, 8000 + i, "tcp", NULL, 0, 40000, 40039, NULL, NULL,
				       &port, &err) < 0) {
			fprintf(stderr, "%s/%s: %s\n", task, svc, err.msg);
			return 2;
		}
	}
	state_close(l);
	return 0;
}

static void test_concurrent_reservations(void **state)
{
	enum { NCHILD = 8 };
	struct fx *f = *state;
	struct te_err err = {0};
	struct state_port *v = NULL;
	bool seen[40] = {false};
	pid_t pids[NCHILD];
	size_t n = 0;
	int go[2];

	/* sqlite connections must not cross fork(): the children open their
	 * own, and ours is reopened afterwards. */
	state_close(f->l);
	f->l = NULL;
	assert_int_equal(pipe(go), 0);
	for (int i = 0; i < NCHILD; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0) {
			close(go[1]);
			_exit(reserve_five(f->path, go[0], i));
		}
	}
	close(go[0]);
	close(go[1]);
	for (int i = 0; i < NCHILD; i++) {
		int st = 0;

		assert_int_equal(waitpid(pids[i], &st, 0), pids[i]);
		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), 0);
	}
	f->l = state_open(f->path, &err);
	assert_non_null(f->l);
	assert_int_equal(state_port_list(f->l, NULL, &v, &n, &err), 0);
	assert_int_equal(n, 40);
	for (size_t i = 0; i < n; i++) {
		assert_in_range(v[i].host_port, 40000, 40039);
		assert_false(seen[v[i].host_port - 40000]);
		seen[v[i].host_port - 40000] = true;
	}
	state_ports_free(v, n);
}

/* Bind a socket of TYPE to 127.0.0.1 on an ephemeral port; returns the fd
 * and sets *port. */
static int bound_socket(int type, int *port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, type, 0);

	assert_true(fd >= 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	*port = ntohs(sa.sin_port);
	return fd;
}

static void test_probe_bind(void **state)
{
	int port;
	int fd = bound_socket(SOCK_STREAM, &port);

	assert_int_equal(listen(fd, 1), 0);
	assert_int_equal(state_port_probe_bind("127.0.0.1", port, "tcp", NULL), -1);
	close(fd);
	assert_int_equal(state_port_probe_bind("127.0.0.1", port, "tcp", NULL), 0);

	fd = bound_socket(SOCK_DGRAM, &port);
	assert_int_equal(state_port_probe_bind("127.0.0.1", port, "udp", NULL), -1);
	close(fd);
	assert_int_equal(state_port_probe_bind("127.0.0.1", port, "udp", NULL), 0);

	/* Held on loopback: the wildcard address clashes too. */
	fd = bound_socket(SOCK_STREAM, &port);
	assert_int_equal(state_port_probe_bind("0.0.0.0", port, "tcp", NULL), -1);
	close(fd);

	assert_int_equal(state_port_probe_bind("not-an-ip", 30000, "tcp", NULL), -1);
	assert_int_equal(state_port_probe_bind("127.0.0.1", 0, "tcp", NULL), -1);
	assert_int_equal(state_port_probe_bind("127.0.0.1", 70000, "tcp", NULL), -1);
	assert_int_equal(state_port_probe_bind("192.0.2.1", 30000, "tcp", NULL), -1);
	assert_int_equal(state_port_probe_bind("127.0.0.1", 30000, "quic", NULL), 0);
}

static void test_probe_bind_as_probe(void **state)
{
	struct fx *f = *state;
	struct te_err err = {0};
	int held, port = -1;
	int fd = bound_socket(SOCK_STREAM, &held);

	assert_int_equal(listen(fd, 1), 0);
	assert_int_equal(state_port_reserve(f->l, "t1", "web", 80, "tcp", "127.0.0.1", held, held, held,
					    state_port_probe_bind, NULL, &port, &err),
			 -1);
	assert_int_equal(err.code, TE_E_PORTS);
	close(fd);
	assert_int_equal(state_port_reserve(f->l, "t1", "web", 80, "tcp", "127.0.0.1", held, held, held,
					    state_port_probe_bind, NULL, &port, &err),
			 0);
	assert_int_equal(port, held);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
	    T(test_reuse_same_key),
	    T(test_replicas_own_ports),
	    T(test_same_start_is_stable),
	    T(test_different_tasks_different_ports),
	    T(test_hint),
	    T(test_probe_busy_skips),
	    T(test_exhaustion),
	    T(test_release_task),
	    T(test_list),
	    T(test_host_ip_rules),
	    T(test_invalid_args),
	    T(test_concurrent_reservations),
	    T(test_probe_bind),
	    T(test_probe_bind_as_probe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
