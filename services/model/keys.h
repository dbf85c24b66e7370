/* The Compose service keys taskenv loads: one declaration per key that
 * drives the model's member (compose.h), loading, freeing, merging and
 * `config` output. To add a key, see "A new Compose key" in
 * docs/internals/EXTENDING.md.
 *
 * Each row is K(key, ID, member, KIND, MERGE):
 *   key     the Compose key, as written in a file (also the `config` key)
 *   ID      its slot: SVC_K_<ID> indexes svc_service.key_loc (where the key
 *           was written: the policy and the gate point there)
 *   member  the svc_service member(s) it fills; a counted kind also has
 *           n_<member>; `_` for keys that write other members (deploy)
 *   KIND    how a value is read, released, merged and printed (below)
 *   MERGE   the rule for a later file (or an extending service) as the
 *           Compose Specification's merge document names it:
 *     REPLACE   scalar: a value the later file sets replaces the earlier
 *     OVERRIDE  "shell commands": command, entrypoint (healthcheck.test
 *               inside HEALTH) are replaced whole, never appended
 *     MAPPING   merged key by key, the later value winning per key
 *     SEQUENCE  the later items appended, duplicates dropped
 *     UNIQUE    "unique resources": appended, and an item with the same
 *               unique key replaced (ports: {host ip, target, published,
 *               protocol}; volumes, secrets, configs: the target path)
 *     NONE      the key owns no member: what it writes merges by that
 *               member's own rule (deploy's limits and replicas; extends)
 *
 * Why the merge is on the typed model, not on YAML nodes. compose-go
 * merges the files' YAML trees (path-keyed rules) and then decodes once.
 * Here each file is read into its own model first and the models are
 * merged by the rule each row names. Reasons:
 *   - Reading is per file anyway: interpolation uses that file's
 *     variables, relative paths resolve against that file's directory
 *     (extends: the extended file's), env_file is read at its own place,
 *     and every item keeps its own file:line:col. Merged nodes would have
 *     to carry all of that along.
 *   - UNIQUE needs the unique key, which the short syntax hides:
 *     compose-go rewrites "8080:80" and "./d:/data" into long form before
 *     merging so it can compare them. The typed model has parsed them
 *     already (svc_port, svc_mount): the rule compares fields.
 *   - libyaml documents are per document and index-based; merging across
 *     them would mean copying trees into a second YAML model of our own.
 * What is built on this: `extends` loads the base service with the base
 * file's svc_yaml (its directory, its variables), then merges the extending
 * service over it with svc_service_merge, the same rules as -f files, as
 * compose-go does; `include` loads another project and adds its resources
 * (a conflict refused, not merged). The merge tags act per key: the loader
 * sets key_reset[SVC_K_<ID>] for a key written `!reset` (its value not
 * read) or `!override` (its value read), and svc_service_merge empties the
 * earlier member first, so the later value (or nothing) stands whole. A
 * tag on an entry of a mapping (environment: {X: !reset}) leaves a
 * tombstone (svc_service.resets) that removes that entry of the earlier
 * member (the kind's `drop`); `!override` on an entry is a tombstone and
 * the new entry. */
#ifndef TASKENV_SERVICES_MODEL_KEYS_H
#define TASKENV_SERVICES_MODEL_KEYS_H

#include <stdbool.h>
#include <stddef.h>

/* Rows in the order `config` prints them (Compose's order where it has one). */
#define SVC_SERVICE_KEYS(K)                                                                                  \
	/* as written, or NULL; taskenv scopes it: a network alias only */                                   \
	K(container_name, CONTAINER_NAME, container_name, CNAME, REPLACE)                                    \
	/* as written; NULL only with build: (finalize refuses a service with neither) */                    \
	K(image, IMAGE, image, IMAGE, REPLACE)                                                               \
	/* NULL-terminated argv, NULL if absent (a string is shell-split); `[]` or "" give an                \
	 * empty argv (non-NULL), which overrides the image's */                                             \
	K(command, COMMAND, command, ARGV, OVERRIDE)                                                         \
	K(entrypoint, ENTRYPOINT, entrypoint, ARGV, OVERRIDE)                                                \
	K(environment, ENVIRONMENT, environment, ENV, MAPPING)                                               \
	/* the files' variables, by name; finalize puts them under environment (which wins) */               \
	K(env_file, ENV_FILE, env_files, ENV_FILE, MAPPING)                                                  \
	/* resolved by the loader before the service's own keys (load_service.c, extends.c) */               \
	K(extends, EXTENDS, _, EXTENDS, NONE)                                                                \
	K(labels, LABELS, labels, KV, MAPPING)                                                               \
	K(sysctls, SYSCTLS, sysctls, KV, MAPPING)                                                            \
	K(ports, PORTS, ports, PORTS, UNIQUE)                                                                \
	K(volumes, VOLUMES, mounts, MOUNTS, UNIQUE)                                                          \
	/* depends_on in full; svc_service.depends_on holds the names after finalize */                      \
	K(depends_on, DEPENDS_ON, deps, DEPS, MAPPING)                                                       \
	K(healthcheck, HEALTHCHECK, health, HEALTH, MAPPING)                                                 \
	/* svc_service.networks holds the keys after finalize */                                             \
	K(networks, NETWORKS, net_attach, NETS, MAPPING)                                                     \
	K(working_dir, WORKING_DIR, working_dir, STR, REPLACE)                                               \
	K(user, USER, user, STR, REPLACE)                                                                    \
	K(hostname, HOSTNAME, hostname, STR, REPLACE)                                                        \
	K(domainname, DOMAINNAME, domainname, STR, REPLACE)                                                  \
	K(platform, PLATFORM, platform, STR, REPLACE)                                                        \
	/* no | always | on-failure[:N] | unless-stopped */                                                  \
	K(restart, RESTART, restart, STR, REPLACE)                                                           \
	K(stop_signal, STOP_SIGNAL, stop_signal, STR, REPLACE)                                               \
	K(pull_policy, PULL_POLICY, pull_policy, STR, REPLACE)                                               \
	K(network_mode, NETWORK_MODE, network_mode, STR, REPLACE)                                            \
	K(pid, PID, pid, STR, REPLACE)                                                                       \
	K(ipc, IPC, ipc, STR, REPLACE)                                                                       \
	K(userns_mode, USERNS, userns_mode, STR, REPLACE)                                                    \
	K(uts, UTS, uts, STR, REPLACE)                                                                       \
	K(cgroup, CGROUP, cgroup, STR, REPLACE)                                                              \
	/* TRI: SVC_UNSET until a file says, else 0 or 1 */                                                  \
	K(read_only, READ_ONLY, read_only, TRI, REPLACE)                                                     \
	K(init, INIT, init, TRI, REPLACE)                                                                    \
	K(privileged, PRIVILEGED, privileged, TRI, REPLACE)                                                  \
	K(tty, TTY, tty, TRI, REPLACE)                                                                       \
	K(stdin_open, STDIN_OPEN, stdin_open, TRI, REPLACE)                                                  \
	/* bytes, 0 = unset; also deploy.resources.limits.memory */                                          \
	K(mem_limit, MEM_LIMIT, mem_limit, BYTES, REPLACE)                                                   \
	/* bytes; also deploy.resources.reservations.memory */                                               \
	K(mem_reservation, MEM_RESERVATION, mem_reservation, BYTES, REPLACE)                                 \
	K(shm_size, SHM_SIZE, shm_size, BYTES, REPLACE)                                                      \
	/* 0 = unset, -1 = unlimited; also deploy.resources.limits.pids */                                   \
	K(pids_limit, PIDS_LIMIT, pids_limit, INT, REPLACE)                                                  \
	/* 0 = unset; also deploy.resources.limits.cpus */                                                   \
	K(cpus, CPUS, cpus, DOUBLE, REPLACE)                                                                 \
	/* nanoseconds, 0 = unset */                                                                         \
	K(stop_grace_period, STOP_GRACE_PERIOD, stop_grace_ns, DURATION, REPLACE)                            \
	/* resources.limits / .reservations into the members above, replicas into replicas */                \
	K(deploy, DEPLOY, _, DEPLOY, NONE)                                                                   \
	/* containers of the service, SVC_UNSET = 1; also deploy.replicas (they must agree) */               \
	K(scale, SCALE, replicas, SCALE, REPLACE)                                                            \
	/* as written, upper case, without a CAP_ prefix */                                                  \
	K(cap_add, CAP_ADD, cap_add, STRV, SEQUENCE)                                                         \
	K(cap_drop, CAP_DROP, cap_drop, STRV, SEQUENCE)                                                      \
	/* "no-new-privileges:true", "seccomp=unconfined", ... */                                            \
	K(security_opt, SECURITY_OPT, security_opt, STRV, SEQUENCE)                                          \
	/* "HOST:IP" */                                                                                      \
	K(extra_hosts, EXTRA_HOSTS, extra_hosts, HOSTS, SEQUENCE)                                            \
	/* "TARGET[:OPTS]" */                                                                                \
	K(tmpfs, TMPFS, tmpfs, STRV, SEQUENCE)                                                               \
	K(devices, DEVICES, devices, STRV, SEQUENCE)                                                         \
	K(dns, DNS, dns, STRV, SEQUENCE)                                                                     \
	K(dns_search, DNS_SEARCH, dns_search, STRV, SEQUENCE)                                                \
	K(expose, EXPOSE, expose, STRV, SEQUENCE)                                                            \
	K(group_add, GROUP_ADD, group_add, STRV, SEQUENCE)                                                   \
	K(profiles, PROFILES, profiles, STRV, SEQUENCE)                                                      \
	/* "SERVICE[:ALIAS]": an alias of SERVICE's containers on the task's networks */                     \
	K(links, LINKS, links, STRV, SEQUENCE)                                                               \
	/* "SERVICE[:ro|rw]" of this task, or "container:NAME[:ro|rw]" (the policy judges it) */             \
	K(volumes_from, VOLUMES_FROM, volumes_from, STRV, SEQUENCE)                                          \
	K(build, BUILD, build, BUILD, MAPPING)                                                               \
	K(secrets, SECRETS, secrets, REFS, UNIQUE)                                                           \
	K(configs, CONFIGS, configs, REFS, UNIQUE)                                                           \
	K(runtime, RUNTIME, runtime, STR, REPLACE)                                                           \
	/* refused by the policy */                                                                          \
	K(mac_address, MAC_ADDRESS, mac_address, STR, REPLACE)                                               \
	/* "NAME=SOFT:HARD", one per name */                                                                 \
	K(ulimits, ULIMITS, ulimits, ULIMITS, MAPPING)

/* The Compose Specification's other service keys (its schema at
 * compose-spec 170098ba07d9, which test_keys checks against): known, not
 * loaded. Moving a key from here into SVC_SERVICE_KEYS implements it.
 *
 * IGNORED(key, why), the only keys ignored, with a warning giving WHY:
 * ignoring them cannot change what runs.
 *   attach   decides whether `compose up` streams the service's output;
 *            taskenv up never streams any
 *   logging  where the engine keeps the output; taskenv leaves the engine's
 *            default driver: the processes and their output are the same
 * REFUSED(key, hint), each an error naming the key (with HINT, or NULL):
 * each changes what runs (limits, devices, namespaces, hooks, DNS, other
 * containers, the engine socket, hooks) and taskenv does not implement it. */
#define SVC_SERVICE_KEYS_UNLOADED(IGNORED, REFUSED)                                                          \
	IGNORED(attach, "taskenv up never attaches to a service's output (taskenv logs reads it)")           \
	IGNORED(logging, "the engine's default log driver keeps the output, which taskenv logs reads; "      \
			 "what runs is the same")                                                            \
	REFUSED(annotations, NULL)                                                                           \
	REFUSED(blkio_config, NULL)                                                                          \
	REFUSED(cgroup_parent, NULL)                                                                         \
	REFUSED(cpu_count, "limit CPUs with cpus:")                                                          \
	REFUSED(cpu_percent, "limit CPUs with cpus:")                                                        \
	REFUSED(cpu_period, "limit CPUs with cpus:")                                                         \
	REFUSED(cpu_quota, "limit CPUs with cpus:")                                                          \
	REFUSED(cpu_rt_period, NULL)                                                                         \
	REFUSED(cpu_rt_runtime, NULL)                                                                        \
	REFUSED(cpu_shares, "limit CPUs with cpus:")                                                         \
	REFUSED(cpuset, NULL)                                                                                \
	REFUSED(credential_spec, NULL)                                                                       \
	REFUSED(develop, "taskenv has no watch mode (taskenv watch is not built)")                           \
	REFUSED(device_cgroup_rules, NULL)                                                                   \
	REFUSED(dns_opt, NULL)                                                                               \
	REFUSED(external_links, NULL)                                                                        \
	REFUSED(gpus, "taskenv does not reserve GPUs")                                                       \
	REFUSED(isolation, NULL)                                                                             \
	REFUSED(label_file, "write the labels under labels:")                                                \
	REFUSED(mem_swappiness, NULL)                                                                        \
	REFUSED(memswap_limit, NULL)                                                                         \
	REFUSED(models, NULL)                                                                                \
	REFUSED(oom_kill_disable, NULL)                                                                      \
	REFUSED(oom_score_adj, NULL)                                                                         \
	REFUSED(post_start, "taskenv runs no lifecycle hooks; run the command in the service's entrypoint")  \
	REFUSED(pre_stop, "taskenv runs no lifecycle hooks")                                                 \
	REFUSED(provider, NULL)                                                                              \
	REFUSED(pull_refresh_after, NULL)                                                                    \
	REFUSED(storage_opt, NULL)                                                                           \
	REFUSED(use_api_socket, "taskenv never hands the engine's socket to a container")

/* The C member(s) of each KIND; compose.h expands the table with these. */
#define SVC_DECL_STR(m) char *m;
#define SVC_DECL_CNAME(m) char *m;
#define SVC_DECL_IMAGE(m) char *m;
#define SVC_DECL_STRV(m) char **m;
#define SVC_DECL_ARGV(m) char **m;
#define SVC_DECL_HOSTS(m) char **m;
#define SVC_DECL_ULIMITS(m) char **m;
#define SVC_DECL_TRI(m) int m;
#define SVC_DECL_BYTES(m) long long m;
#define SVC_DECL_DURATION(m) long long m;
#define SVC_DECL_INT(m) long long m;
#define SVC_DECL_DOUBLE(m) double m;
#define SVC_DECL_ENV(m)                                                                                      \
	struct svc_kv *m;                                                                                    \
	size_t n_##m;
#define SVC_DECL_KV(m)                                                                                       \
	struct svc_kv *m;                                                                                    \
	size_t n_##m;
#define SVC_DECL_PORTS(m)                                                                                    \
	struct svc_port *m;                                                                                  \
	size_t n_##m;
#define SVC_DECL_MOUNTS(m)                                                                                   \
	struct svc_mount *m;                                                                                 \
	size_t n_##m;
#define SVC_DECL_DEPS(m)                                                                                     \
	struct svc_dep *m;                                                                                   \
	size_t n_##m;
#define SVC_DECL_NETS(m)                                                                                     \
	struct svc_net_attach *m;                                                                            \
	size_t n_##m;
#define SVC_DECL_REFS(m)                                                                                     \
	struct svc_file_ref *m;                                                                              \
	size_t n_##m;
#define SVC_DECL_HEALTH(m) struct svc_health m;
#define SVC_DECL_BUILD(m) struct svc_build m;
#define SVC_DECL_ENV_FILE(m)                                                                                 \
	struct svc_kv *m;                                                                                    \
	size_t n_##m;
#define SVC_DECL_SCALE(m) long long m;
#define SVC_DECL_DEPLOY(m)
#define SVC_DECL_EXTENDS(m)
#define SVC_KEY_MEMBER(key, id, member, kind, merge) SVC_DECL_##kind(member)

/* How a value is read, released, merged and printed (kinds.h has the operations). */
enum svc_kind {
	SVC_KIND_STR,	   /* char *: a string */
	SVC_KIND_CNAME,	   /* char *: container_name; `config` prints the planned name */
	SVC_KIND_IMAGE,	   /* char *: image; `config` prints the planned image */
	SVC_KIND_STRV,	   /* char **: a string or a list of strings */
	SVC_KIND_ARGV,	   /* char **: a list, or a string split as the shell would */
	SVC_KIND_HOSTS,	   /* char **: extra_hosts, list "HOST:IP"/"HOST=IP" or mapping */
	SVC_KIND_ULIMITS,  /* char **: ulimits, NAME: N or {soft, hard} */
	SVC_KIND_TRI,	   /* int: a boolean, SVC_UNSET until written */
	SVC_KIND_BYTES,	   /* long long: a byte size ("512m") */
	SVC_KIND_DURATION, /* long long: a duration in ns ("1m30s") */
	SVC_KIND_INT,	   /* long long */
	SVC_KIND_DOUBLE,   /* double, non-negative */
	SVC_KIND_ENV,	   /* svc_kv + n: environment (value-less keys from the variables) */
	SVC_KIND_KV,	   /* svc_kv + n: labels and the like (value-less keys give "") */
	SVC_KIND_PORTS,	   /* svc_port + n */
	SVC_KIND_MOUNTS,   /* svc_mount + n */
	SVC_KIND_DEPS,	   /* svc_dep + n */
	SVC_KIND_NETS,	   /* svc_net_attach + n */
	SVC_KIND_REFS,	   /* svc_file_ref + n: secrets, configs */
	SVC_KIND_HEALTH,   /* struct svc_health */
	SVC_KIND_BUILD,	   /* struct svc_build */
	SVC_KIND_DEPLOY,   /* no member: deploy.resources into mem_limit, cpus, ..., replicas */
	SVC_KIND_ENV_FILE, /* svc_kv + n: the env files' variables */
	SVC_KIND_SCALE,	   /* long long: a count of containers, SVC_UNSET until written */
	SVC_KIND_EXTENDS,  /* no member: the loader resolves it first */
	SVC_KIND_COUNT
};

enum svc_merge {
	SVC_MERGE_NONE,
	SVC_MERGE_REPLACE,
	SVC_MERGE_OVERRIDE,
	SVC_MERGE_MAPPING,
	SVC_MERGE_SEQUENCE,
	SVC_MERGE_UNIQUE,
	SVC_MERGE_COUNT
};

#define SVC_KEY_ENUM(key, id, member, kind, merge) SVC_K_##id,
enum svc_key { SVC_SERVICE_KEYS(SVC_KEY_ENUM) SVC_K_COUNT };

/* No n_<member>: svc_key_desc.n_off of an uncounted kind. */
#define SVC_NO_COUNT ((size_t)-1)

/* One row of the table, as data. */
struct svc_key_desc {
	const char *name;
	enum svc_key id;
	enum svc_kind kind;
	enum svc_merge merge;
	size_t off;   /* offsetof the member in struct svc_service (0 without one) */
	size_t size;  /* its size (0 without one) */
	size_t n_off; /* offsetof n_<member>, or SVC_NO_COUNT */
};

/* The table, indexed by enum svc_key (= table order). */
extern const struct svc_key_desc svc_service_keys[SVC_K_COUNT];

struct svc_service;
struct svc_plan_container;
struct cJSON;

/* The row for Compose key NAME, or NULL. */
const struct svc_key_desc *svc_key_find(const char *name);
/* "replace", "override", "mapping", "sequence", "unique" or "none". */
const char *svc_merge_name(enum svc_merge m);
/* Does KIND implement rule M? (REPLACE and OVERRIDE: every kind with a member.) */
bool svc_kind_merges(enum svc_kind kind, enum svc_merge m);

/* Every key member of S to its unwritten state (SVC_UNSET for TRI, else zero). */
void svc_service_keys_init(struct svc_service *s);
/* Free what S's key members own (S's other members are the caller's). */
void svc_service_keys_release(struct svc_service *s);
/* Merge SRC (a later file's service of the same name) into DST key by key,
 * each by its row's rule, and take SRC's key_loc where SRC wrote the key.
 * Moves what it takes out of SRC; SRC must still be released. */
void svc_service_merge(struct svc_service *dst, struct svc_service *src);
/* `config` output of the service of planned container C (borrowed): one
 * member per key it has, in table order. Owned cJSON object. */
struct cJSON *svc_service_json(const struct svc_plan_container *c);

#endif
