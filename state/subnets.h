/* A subnet per task network, allocated in the ledger from taskenv's pool,
 * so a machine holds far more task networks than an engine's default
 * pools allow (dockerd's default gives about 31 bridge networks), and two
 * tasks never get overlapping subnets. The engine gets it as
 * IPAM.Config[0].Subnet/Gateway in POST /networks/create (dockerd and
 * Podman's compat API both take it). */
#ifndef TASKENV_STATE_SUBNETS_H
#define TASKENV_STATE_SUBNETS_H

#include <stdint.h>

struct te_err;
struct ledger;

#define STATE_SUBNET_POOL_DEFAULT "10.224.0.0/16"
#define STATE_SUBNET_PREFIX_DEFAULT 26

struct state_subnet_pool {
	uint32_t net; /* first address, host byte order */
	int prefix;   /* of the pool, 8..30 */
	int sub;      /* prefix of each task subnet, pool prefix..30, at most 16 more */
};

/* Parse POOL ("10.224.0.0/16"; NULL: the default) and SUB (0: the
 * default). TE_E_USAGE naming the value and the rule when malformed: an
 * IPv4 CIDR with the host bits zero, 8 <= pool prefix <= SUB <= 30,
 * SUB - pool prefix <= 16. */
int state_subnet_pool_parse(const char *pool, int sub, struct state_subnet_pool *out, struct te_err *err);

/* Is NET/PREFIX (host order) free on this machine? 0 free, -1 in use. */
typedef int (*state_subnet_probe_fn)(uint32_t net, int prefix, void *ctx);

/* The default probe: -1 when a route of /proc/net/route other than the
 * default route overlaps NET/PREFIX (a bridge of an engine or a VPN holds
 * it), else 0 (also when the file cannot be read). CTX unused. */
int state_subnet_probe_routes(uint32_t net, int prefix, void *ctx);

/* Reserve a subnet of POOL for NETWORK (the engine's network name) of
 * TASK inside one BEGIN IMMEDIATE transaction: the subnet NETWORK already
 * holds if any (no probe; it may be our own bridge's route), else the first
 * one, scanning from a hash of NETWORK, that overlaps no reservation of the
 * ledger and that PROBE (may be NULL) says is free. SUBNET (>= 19 bytes)
 * gets "a.b.c.d/n" and GATEWAY (>= 16 bytes) the first host address.
 * Exhausted: TE_E_FAIL "no free /N subnet in POOL for network 'X' (K
 * reserved in the ledger); set TASKENV_SUBNET_POOL to a larger pool or bring
 * a task down". */
int state_subnet_reserve(struct ledger *l, const char *task, const char *network,
			 const struct state_subnet_pool *pool, state_subnet_probe_fn probe, void *probe_ctx,
			 char *subnet, char *gateway, struct te_err *err);

/* Drop NETWORK's reservation (none is fine). */
int state_subnet_release_network(struct ledger *l, const char *network, struct te_err *err);
/* Drop every reservation of TASK. */
int state_subnet_release_task(struct ledger *l, const char *task, struct te_err *err);

#endif
