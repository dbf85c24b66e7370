#define TE_WITH_SQLITE
#include "state/ledger.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/err.h"
#include "common/mem.h"
#include "state/events.h"
#include "state/sqlite.h"

/* One reservation request, so helpers take one argument instead of ten. */
struct port_req {
	const char *task;
	const char *service;
	int replica;
	int container_port;
	const char *proto;
	const char *host_ip;
	int hint;
	int lo;
	int hi;
	state_port_probe_fn probe;
	void *probe_ctx;
};

void state_ports_free(struct state_port *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].task);
		free(v[i].service);
		free(v[i].host_ip);
	}
	free(v);
}

static uint32_t fnv1a_add(uint32_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h;
}

/* FNV-1a of "task/service/container_port/proto": stable across runs and
 * builds, so a task tends to get the same port back after down/up. */
static uint32_t port_hash(const struct port_req *r)
{
	char num[16];
	uint32_t h = 2166136261u;

	snprintf(num, sizeof(num), "%d", r->container_port);
	h = fnv1a_add(h, r->task);
	h = fnv1a_add(h, "/");
	h = fnv1a_add(h, r->service);
	h = fnv1a_add(h, "/");
	h = fnv1a_add(h, num);
	h = fnv1a_add(h, "/");
	h = fnv1a_add(h, r->proto);
	/* Replica 1 keeps the hash it had before replicas existed. */
	if (r->replica > 1) {
		snprintf(num, sizeof(num), "#%d", r->replica);
		h = fnv1a_add(h, num);
	}
	return h;
}

static int check_req(const struct port_req *r, struct te_err *err)
{
	if (r->lo < 1 || r->hi > 65535 || r->lo > r->hi)
		return te_err_set(err, TE_E_USAGE, "invalid host port range %d-%d", r->lo, r->hi);
	if (r->container_port < 1 || r->container_port > 65535)
		return te_err_set(err, TE_E_USAGE, "invalid container port %d for service '%s'",
				  r->container_port, r->service);
	if (!r->proto || !*r->proto || strlen(r->proto) >= sizeof(((struct state_port *)0)->proto))
		return te_err_set(err, TE_E_USAGE, "invalid protocol '%s' for service '%s'",
				  r->proto ? r->proto : "", r->service);
	return 0;
}

/* The port this key already holds on r->host_ip (> 0), or 0. A reservation
 * on another address is dropped: the Compose file moved the binding. */
static int find_held(struct ledger *l, const struct port_req *r, struct te_err *err)
{
	static const char sql[] = "SELECT host_ip, host_port FROM ports WHERE task = ?1"
				  " AND service = ?2 AND container_port = ?3 AND proto = ?4 AND replica = ?5";
	static const char drop[] =
	    "DELETE FROM ports WHERE task = ?1"
	    " AND service = ?2 AND container_port = ?3 AND proto = ?4 AND replica = ?5";
	const struct ledger_arg a[] = {LEDGER_S(r->task), LEDGER_S(r->service), LEDGER_I(r->container_port),
				       LEDGER_S(r->proto), LEDGER_I(r->replica)};
	te_autostmt sqlite3_stmt *st = NULL;
	const char *ip;
	int rc;

	if (ledger_prepare(l, sql, a, LEDGER_NARGS(a), &st, err) < 0)
		return -1;
	rc = ledger_step(l, st, err);
	if (rc <= 0)
		return rc;
	ip = (const char *)sqlite3_column_text(st, 0);
	if (ip && strcmp(ip, r->host_ip) == 0)
		return sqlite3_column_int(st, 1);
	return ledger_run(l, drop, a, LEDGER_NARGS(a), NULL, err);
}

/* Mark in TAKEN[port - lo] every port in range that a reservation makes
 * unusable on r->host_ip (same address, or a wildcard on either side);
 * *count gets how many distinct ports that is. */
static int load_taken(struct ledger *l, const struct port_req *r, bool *taken, size_t *count,
		      struct te_err *err)
{
	static const char sql[] =
	    "SELECT host_port FROM ports WHERE proto = ?1 AND host_port BETWEEN ?2 AND ?3"
	    " AND (host_ip = ?4 OR host_ip IN ('0.0.0.0', '::') OR ?4 IN ('0.0.0.0', '::'))";
	const struct ledger_arg a[] = {LEDGER_S(r->proto), LEDGER_I(r->lo), LEDGER_I(r->hi),
				       LEDGER_S(r->host_ip)};
	te_autostmt sqlite3_stmt *st = NULL;
	int rc;

	*count = 0;
	if (ledger_prepare(l, sql, a, LEDGER_NARGS(a), &st, err) < 0)
		return -1;
	for (;;) {
		int p;

		rc = ledger_step(l, st, err);
		if (rc != 1)
			break;
		p = sqlite3_column_int(st, 0);
		if (!taken[p - r->lo])
			(*count)++;
		taken[p - r->lo] = true;
	}
	return rc;
}

static bool port_free(const struct port_req *r, const bool *taken, int port)
{
	if (taken[port - r->lo])
		return false;
	return !r->probe || r->probe(r->host_ip, port, r->proto, r->probe_ctx) == 0;
}

/* The hint if usable, else the first usable port scanning from the hash;
 * 0 when none is. Each candidate is probed at most once. */
static int pick_port(const struct port_req *r, const bool *taken)
{
	int size = r->hi - r->lo + 1;
	int start;

	if (r->hint >= r->lo && r->hint <= r->hi && port_free(r, taken, r->hint))
		return r->hint;
	start = (int)(port_hash(r) % (uint32_t)size);
	for (int i = 0; i < size; i++) {
		int p = r->lo + (start + i) % size;

		if (p != r->hint && port_free(r, taken, p))
			return p;
	}
	return 0;
}

static int insert_port(struct ledger *l, const struct port_req *r, int port, struct te_err *err)
{
	static const char sql[] = "INSERT INTO ports(host_ip, host_port, proto, task, service,"
				  " container_port, created, replica) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";
	const struct ledger_arg a[] = {LEDGER_S(r->host_ip),   LEDGER_I(port),
				       LEDGER_S(r->proto),     LEDGER_S(r->task),
				       LEDGER_S(r->service),   LEDGER_I(r->container_port),
				       LEDGER_I(ledger_now()), LEDGER_I(r->replica)};
	char what[128];

	if (ledger_run(l, sql, a, LEDGER_NARGS(a), NULL, err) < 0)
		return -1;
	snprintf(what, sizeof(what), "port %s:%d->%d/%s", r->host_ip, port, r->container_port, r->proto);
	return ledger_event(l, r->task, what, "reserved", r->service, err);
}

static int reserve_locked(struct ledger *l, const struct port_req *r, int *port_out, struct te_err *err)
{
	te_autofree bool *taken = NULL;
	size_t reserved;
	int port = find_held(l, r, err);

	if (port != 0) {
		*port_out = port;
		return port < 0 ? -1 : 0;
	}
	taken = xcalloc((size_t)(r->hi - r->lo + 1), sizeof(*taken));
	if (load_taken(l, r, taken, &reserved, err) < 0)
		return -1;
	port = pick_port(r, taken);
	if (port == 0)
		return te_err_set(err, TE_E_PORTS,
				  "no free host port in %d-%d for service '%s' port %d (%zu reserved "
				  "in the ledger); widen the range or bring a task down",
				  r->lo, r->hi, r->service, r->container_port, reserved);
	if (insert_port(l, r, port, err) < 0)
		return -1;
	*port_out = port;
	return 0;
}

int state_port_reserve(struct ledger *l, const char *task, const char *service, int container_port,
		       const char *proto, const char *host_ip, int hint, int lo, int hi,
		       state_port_probe_fn probe, void *probe_ctx, int *port_out, struct te_err *err)
{
	return state_port_reserve_replica(l, task, service, 1, container_port, proto, host_ip, hint, lo, hi,
					  probe, probe_ctx, port_out, err);
}

int state_port_reserve_replica(struct ledger *l, const char *task, const char *service, int replica,
			       int container_port, const char *proto, const char *host_ip, int hint, int lo,
			       int hi, state_port_probe_fn probe, void *probe_ctx, int *port_out,
			       struct te_err *err)
{
	const struct port_req r = {
	    .task = task,
	    .service = service,
	    .replica = replica < 1 ? 1 : replica,
	    .container_port = container_port,
	    .proto = proto,
	    .host_ip = host_ip ? host_ip : "127.0.0.1",
	    .hint = hint,
	    .lo = lo,
	    .hi = hi,
	    .probe = probe,
	    .probe_ctx = probe_ctx,
	};
	int port = 0;

	if (check_req(&r, err) < 0)
		return -1;
	if (ledger_begin(l, err) < 0)
		return -1;
	if (reserve_locked(l, &r, &port, err) < 0) {
		ledger_rollback(l);
		return -1;
	}
	if (ledger_commit(l, err) < 0)
		return -1;
	*port_out = port;
	return 0;
}

static void port_from_row(sqlite3_stmt *st, struct state_port *p)
{
	const unsigned char *proto = sqlite3_column_text(st, 3);

	p->task = ledger_col_text(st, 0);
	p->service = ledger_col_text(st, 1);
	p->container_port = sqlite3_column_int(st, 2);
	snprintf(p->proto, sizeof(p->proto), "%s", proto ? (const char *)proto : "");
	p->host_ip = ledger_col_text(st, 4);
	p->host_port = sqlite3_column_int(st, 5);
	p->replica = sqlite3_column_int(st, 6);
}

/* Untyped adapters for ledger_collect. */
static void port_from_row_v(sqlite3_stmt *st, void *e)
{
	port_from_row(st, e);
}
static void state_ports_free_v(void *v, size_t n)
{
	state_ports_free(v, n);
}

int state_port_list(struct ledger *l, const char *task, struct state_port **out, size_t *n,
		    struct te_err *err)
{
	static const char sql[] =
	    "SELECT task, service, container_port, proto, host_ip, host_port, replica FROM ports"
	    " WHERE ?1 IS NULL OR task = ?1 ORDER BY task, service, replica, container_port, proto";
	const struct ledger_arg a[] = {LEDGER_S(task)};
	te_autostmt sqlite3_stmt *st = NULL;

	*out = NULL;
	*n = 0;
	if (ledger_prepare(l, sql, a, LEDGER_NARGS(a), &st, err) < 0)
		return -1;
	return ledger_collect(l, st, sizeof(**out), port_from_row_v, state_ports_free_v, (void **)out, n,
			      err);
}

int state_port_release_task(struct ledger *l, const char *task, struct te_err *err)
{
	const struct ledger_arg a[] = {LEDGER_S(task)};

	int changes;

	if (ledger_run(l, "DELETE FROM ports WHERE task = ?1", a, LEDGER_NARGS(a), &changes, err) < 0)
		return -1;
	return changes ? ledger_event(l, task, "ports", "released", NULL, err) : 0;
}

int state_port_release_replica(struct ledger *l, const char *task, const char *service, int replica,
			       struct te_err *err)
{
	const struct ledger_arg a[] = {LEDGER_S(task), LEDGER_S(service), LEDGER_I(replica)};
	char what[160];
	int changes;

	if (ledger_run(l, "DELETE FROM ports WHERE task = ?1 AND service = ?2 AND replica = ?3", a,
		       LEDGER_NARGS(a), &changes, err) < 0)
		return -1;
	snprintf(what, sizeof(what), "ports of %s replica %d", service, replica);
	return changes ? ledger_event(l, task, what, "released", service, err) : 0;
}

/* ---- the bind(2) probe ---- */

static int probe_socket_type(const char *proto, int *type, int *protocol)
{
	*protocol = 0;
	if (strcmp(proto, "tcp") == 0) {
		*type = SOCK_STREAM;
	} else if (strcmp(proto, "udp") == 0) {
		*type = SOCK_DGRAM;
	} else if (strcmp(proto, "sctp") == 0) {
		*type = SOCK_STREAM;
		*protocol = IPPROTO_SCTP;
	} else {
		return -1;
	}
	return 0;
}

static int probe_addr(const char *host_ip, int port, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (strchr(host_ip, ':')) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*s6);
		return inet_pton(AF_INET6, host_ip, &s6->sin6_addr) == 1 ? 0 : -1;
	}
	s4->sin_family = AF_INET;
	s4->sin_port = htons((uint16_t)port);
	*len = sizeof(*s4);
	return inet_pton(AF_INET, host_ip, &s4->sin_addr) == 1 ? 0 : -1;
}

static int probe(const char *host_ip, int port, const char *proto, int reuse)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int type, protocol, fd, rc;

	if (!proto || probe_socket_type(proto, &type, &protocol) < 0)
		return 0;
	if (!host_ip || port < 1 || port > 65535 || probe_addr(host_ip, port, &ss, &len) < 0)
		return -1;
	fd = socket(ss.ss_family, type | SOCK_CLOEXEC, protocol);
	if (fd < 0)
		return 0;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, sizeof(reuse));
	rc = bind(fd, (struct sockaddr *)&ss, len);
	close(fd);
	return rc == 0 ? 0 : -1;
}

int state_port_probe_bind(const char *host_ip, int port, const char *proto, void *ctx)
{
	(void)ctx;
	/* Off is the default; say so, since with it on a TIME_WAIT or
	 * (on some systems) a live UDP socket would not count as busy. */
	return probe(host_ip, port, proto, 0);
}

int state_port_probe_listen(const char *host_ip, int port, const char *proto)
{
	/* On: a TIME_WAIT left by a client of the task's own container does
	 * not count (the engine binds with SO_REUSEADDR too), a listener does. */
	return probe(host_ip, port, proto, 1);
}
