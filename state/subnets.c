#define TE_WITH_SQLITE
#include "state/subnets.h"
#include "state/ledger.h"

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/err.h"
#include "common/mem.h"
#include "state/sqlite.h"

static uint32_t mask_of(int prefix)
{
	return prefix == 0 ? 0 : 0xffffffffu << (32 - prefix);
}

static bool overlaps(uint32_t a, int pa, uint32_t b, int pb)
{
	uint32_t m = mask_of(pa < pb ? pa : pb);

	return (a & m) == (b & m);
}

static void cidr_text(uint32_t net, int prefix, char *out, size_t n)
{
	snprintf(out, n, "%u.%u.%u.%u/%d", net >> 24, (net >> 16) & 255, (net >> 8) & 255, net & 255, prefix);
}

int state_subnet_pool_parse(const char *pool, int sub, struct state_subnet_pool *out, struct te_err *err)
{
	char addr[32];
	const char *slash;
	char *end;
	struct in_addr in;
	long p;

	if (!pool || !*pool)
		pool = STATE_SUBNET_POOL_DEFAULT;
	if (!sub)
		sub = STATE_SUBNET_PREFIX_DEFAULT;
	slash = strchr(pool, '/');
	if (!slash || (size_t)(slash - pool) >= sizeof(addr))
		goto bad;
	memcpy(addr, pool, (size_t)(slash - pool));
	addr[slash - pool] = '\0';
	p = strtol(slash + 1, &end, 10);
	if (inet_pton(AF_INET, addr, &in) != 1 || *end || end == slash + 1 || p < 8 || p > 30)
		goto bad;
	out->net = ntohl(in.s_addr);
	out->prefix = (int)p;
	out->sub = sub;
	if ((out->net & ~mask_of(out->prefix)) != 0 || sub < out->prefix || sub > 30 ||
	    sub - out->prefix > 16)
		goto bad;
	return 0;
bad:
	return te_err_set(err, TE_E_USAGE,
			  "invalid subnet pool '%s' with prefix /%d (TASKENV_SUBNET_POOL, "
			  "TASKENV_SUBNET_PREFIX): expected an IPv4 CIDR a.b.c.d/N with zero host bits, "
			  "8 <= N <= prefix <= 30, at most 2^16 subnets",
			  pool, sub);
}

int state_subnet_probe_routes(uint32_t net, int prefix, void *ctx)
{
	FILE *f = fopen("/proc/net/route", "re");
	char line[512];
	int rc = 0;

	(void)ctx;
	if (!f)
		return 0;
	while (rc == 0 && fgets(line, sizeof(line), f)) {
		char iface[64];
		unsigned dst, mask;

		/* Destination and Mask are in network byte order, printed as hex words. */
		if (sscanf(line, "%63s %x %*x %*x %*d %*d %*d %x", iface, &dst, &mask) != 3 || mask == 0)
			continue;
		if (overlaps(net, prefix, ntohl(dst), __builtin_popcount(mask)))
			rc = -1;
	}
	fclose(f);
	return rc;
}

/* 1 with the held subnet in SUBNET when NETWORK has one, 0 if not. */
static int find_held(struct ledger *l, const char *network, uint32_t *net, int *prefix, struct te_err *err)
{
	const struct ledger_arg a[] = {LEDGER_S(network)};
	te_autostmt sqlite3_stmt *st = NULL;
	int rc;

	if (ledger_prepare(l, "SELECT net, prefix FROM subnets WHERE network = ?1", a, LEDGER_NARGS(a), &st,
			   err) < 0)
		return -1;
	rc = ledger_step(l, st, err);
	if (rc == 1) {
		*net = (uint32_t)sqlite3_column_int64(st, 0);
		*prefix = sqlite3_column_int(st, 1);
	}
	return rc;
}

/* Mark in TAKEN every candidate of POOL that a reservation overlaps. */
static int load_taken(struct ledger *l, const struct state_subnet_pool *pool, bool *taken, size_t n,
		      size_t *count, struct te_err *err)
{
	te_autostmt sqlite3_stmt *st = NULL;
	int rc;

	*count = 0;
	if (ledger_prepare(l, "SELECT net, prefix FROM subnets", NULL, 0, &st, err) < 0)
		return -1;
	for (;;) {
		uint32_t net;
		int prefix;

		rc = ledger_step(l, st, err);
		if (rc != 1)
			break;
		net = (uint32_t)sqlite3_column_int64(st, 0);
		prefix = sqlite3_column_int(st, 1);

		if (!overlaps(net, prefix, pool->net, pool->prefix))
			continue;
		(*count)++;
		for (size_t i = 0; i < n; i++)
			if (overlaps(net, prefix, pool->net + ((uint32_t)i << (32 - pool->sub)), pool->sub))
				taken[i] = true;
	}
	return rc;
}

static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h;
}

static int insert(struct ledger *l, const char *task, const char *network, uint32_t net, int prefix,
		  struct te_err *err)
{
	static const char sql[] = "INSERT INTO subnets(network, task, net, prefix, subnet, created)"
				  " VALUES(?1, ?2, ?3, ?4, ?5, ?6)";
	char text[32];
	struct ledger_arg a[] = {LEDGER_S(network), LEDGER_S(task), LEDGER_I(net),
				 LEDGER_I(prefix),  LEDGER_S(text), LEDGER_I(ledger_now())};

	cidr_text(net, prefix, text, sizeof(text));
	return ledger_run(l, sql, a, LEDGER_NARGS(a), NULL, err);
}

struct pick {
	const struct state_subnet_pool *pool;
	state_subnet_probe_fn probe;
	void *probe_ctx;
};

static int reserve_locked(struct ledger *l, const char *task, const char *network, const struct pick *pk,
			  uint32_t *net, int *prefix, struct te_err *err)
{
	const struct state_subnet_pool *pool = pk->pool;
	size_t n = (size_t)1 << (pool->sub - pool->prefix), reserved, start;
	te_autofree bool *taken = NULL;
	char text[32];
	int rc = find_held(l, network, net, prefix, err);

	if (rc != 0)
		return rc < 0 ? -1 : 0;
	taken = xcalloc(n, sizeof(*taken));
	if (load_taken(l, pool, taken, n, &reserved, err) < 0)
		return -1;
	start = fnv1a(network) % n;
	for (size_t i = 0; i < n; i++) {
		size_t k = (start + i) % n;
		uint32_t cand = pool->net + ((uint32_t)k << (32 - pool->sub));

		if (taken[k] || (pk->probe && pk->probe(cand, pool->sub, pk->probe_ctx) < 0))
			continue;
		*net = cand;
		*prefix = pool->sub;
		return insert(l, task, network, cand, pool->sub, err);
	}
	cidr_text(pool->net, pool->prefix, text, sizeof(text));
	return te_err_set(err, TE_E_FAIL,
			  "no free /%d subnet in %s for network '%s' (%zu reserved in the ledger); set "
			  "TASKENV_SUBNET_POOL to a larger pool or bring a task down",
			  pool->sub, text, network, reserved);
}

int state_subnet_reserve(struct ledger *l, const char *task, const char *network,
			 const struct state_subnet_pool *pool, state_subnet_probe_fn probe, void *probe_ctx,
			 char *subnet, char *gateway, struct te_err *err)
{
	const struct pick pk = {pool, probe, probe_ctx};
	uint32_t net = 0;
	int prefix = 0;

	if (ledger_begin(l, err) < 0)
		return -1;
	if (reserve_locked(l, task, network, &pk, &net, &prefix, err) < 0) {
		ledger_rollback(l);
		return -1;
	}
	if (ledger_commit(l, err) < 0)
		return -1;
	cidr_text(net, prefix, subnet, 19);
	snprintf(gateway, 16, "%u.%u.%u.%u", (net + 1) >> 24, ((net + 1) >> 16) & 255, ((net + 1) >> 8) & 255,
		 (net + 1) & 255);
	return 0;
}

int state_subnet_release_network(struct ledger *l, const char *network, struct te_err *err)
{
	const struct ledger_arg a[] = {LEDGER_S(network)};

	return ledger_run(l, "DELETE FROM subnets WHERE network = ?1", a, LEDGER_NARGS(a), NULL, err);
}

int state_subnet_release_task(struct ledger *l, const char *task, struct te_err *err)
{
	const struct ledger_arg a[] = {LEDGER_S(task)};

	return ledger_run(l, "DELETE FROM subnets WHERE task = ?1", a, LEDGER_NARGS(a), NULL, err);
}
