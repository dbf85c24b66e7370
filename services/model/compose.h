/* The Compose model: what taskenv understands of a Compose file, after
 * interpolation, with the file:line:col of each item so later stages
 * (plan, policy) can point at the source. All strings are owned by the
 * model; svc_project_free releases everything. */
#ifndef TASKENV_SERVICES_COMPOSE_H
#define TASKENV_SERVICES_COMPOSE_H

#include <stdbool.h>
#include <stddef.h>

#include "services/model/keys.h"

/* Where an item came from. FILE is borrowed from svc_project.files. */
struct svc_loc {
	const char *file;
	int line; /* 1-based */
	int col;  /* 1-based */
};

/* A KEY=VALUE pair (environment, labels). VALUE is NULL for a value-less
 * environment entry ("- FOO" / "FOO:"), which Compose takes from the process
 * environment, or else the .env file, at load time: the loader resolves it,
 * and drops the key if neither has such a variable. Labels written without a
 * value get "". */
struct svc_kv {
	char *key;
	char *value;
	struct svc_loc loc;
};

/* ports, short syntax "[HOST_IP:][HOST[-HOST]:]CONTAINER[-CONTAINER][/PROTO]". */
struct svc_port {
	char *host_ip; /* as written, or NULL */
	int host_port; /* the hint written in the file, 0 if none */
	int container_port;
	char proto[8]; /* "tcp" or "udp" */
	struct svc_loc loc;
};

enum svc_mount_type { SVC_MOUNT_VOLUME, SVC_MOUNT_BIND, SVC_MOUNT_TMPFS };

/* volumes, short syntax "SOURCE:TARGET[:ro|rw]" or "TARGET" (anonymous volume).
 * A SOURCE starting with '/', '.' or '~' is a bind; otherwise a named volume key. */
struct svc_mount {
	enum svc_mount_type type;
	char *source; /* volume key, or bind path made absolute against the project dir; NULL = anonymous */
	char *target;
	bool read_only;
	bool nocopy;		  /* volume.nocopy */
	bool no_create_host_path; /* bind.create_host_path: false */
	long long tmpfs_size;	  /* tmpfs.size in bytes, 0 = engine default */
	struct svc_loc loc;
};

/* healthcheck. Durations in nanoseconds (the Engine API's unit), 0 = unset. */
struct svc_health {
	bool set;
	bool disable; /* disable: true, or test: ["NONE"] */
	char **test;  /* ["CMD", ...] / ["CMD-SHELL", "..."] / ["NONE"], NULL = image's */
	long long interval_ns, timeout_ns, start_period_ns, start_interval_ns;
	int retries; /* 0 = unset */
	struct svc_loc loc;
};

/* One depends_on entry (short forms give service_started, required). */
struct svc_dep {
	char *service;
	char *condition; /* service_started | service_healthy | service_completed_successfully */
	bool required;
	bool restart;
	struct svc_loc loc;
};

/* One entry of a service's networks (list or mapping form). */
struct svc_net_attach {
	char *key;
	char **aliases; /* NULL-terminated or NULL */
	char *ipv4_address;
	struct svc_loc loc;
};

/* build: (short form = context only). Paths are absolute. */
struct svc_build {
	bool set;
	char *context;		 /* absolute directory */
	char *dockerfile;	 /* relative to context as written, NULL = "Dockerfile" */
	char *dockerfile_inline; /* Dockerfile text, or NULL */
	struct svc_kv *args;	 /* interpolated; VALUE NULL = taken from the environment, else dropped */
	size_t n_args;
	char *target;
	struct svc_kv *labels;
	size_t n_labels;
	char *network; /* networkmode= */
	long long shm_size;
	char **extra_hosts; /* "HOST:IP" */
	char **cache_from;
	int pull; /* SVC_UNSET, 0 or 1 */
	struct svc_loc loc;
};

/* A service's use of a top-level secret or config (short form: source only). */
struct svc_file_ref {
	char *source;
	char *target; /* as written, or NULL: /run/secrets/<source> or /<source> */
	char *uid, *gid;
	int mode; /* -1 = unset */
	struct svc_loc loc;
};

enum svc_file_kind { SVC_FILE_FILE, SVC_FILE_ENV, SVC_FILE_CONTENT };

/* Top-level secrets: / configs: entry. Values are never stored here for
 * secrets: ENV names the variable, read at `up` time. */
struct svc_file_decl {
	char *key;
	enum svc_file_kind kind;
	char *file;    /* absolute path (SVC_FILE_FILE) */
	char *env;     /* variable name (SVC_FILE_ENV) */
	char *content; /* configs only (SVC_FILE_CONTENT), interpolated */
	bool external; /* refused: swarm-only */
	struct svc_loc loc;
};

/* Tri-state booleans: SVC_UNSET until a file says. */
#define SVC_UNSET (-1)

/* scale / deploy.replicas / up --scale at most this: each replica takes
 * host ports from the task's range, and a file must not exhaust it. */
#define SVC_MAX_REPLICAS 100

/* A `!reset` (or `!override`) on entry ENTRY of a service key's mapping
 * (environment, labels, sysctls, depends_on, networks, ulimits): the
 * earlier file's (or base service's) entry is dropped at merge. */
struct svc_reset {
	enum svc_key key;
	char *entry;
};

/* Where x-taskenv.engine: broker puts the task's broker directory in the
 * container, and the socket's name in it (DOCKER_HOST=unix://TARGET/SOCKET). */
#define SVC_BROKER_TARGET "/run/taskenv"
#define SVC_BROKER_SOCKET "docker.sock"

/* One service. Its Compose keys are the members keys.h declares (one row
 * each: image, command, environment/n_environment, ports/n_ports, ...);
 * the members here are the ones no key fills directly. */
struct svc_service {
	char *name;
	SVC_SERVICE_KEYS(SVC_KEY_MEMBER)
	char **depends_on; /* NULL-terminated service names, NULL if none (from deps, by finalize) */
	char **networks;   /* NULL-terminated network keys; NULL means ["default"]
			    * (from net_attach, by finalize) */
	struct svc_loc key_loc[SVC_K_COUNT]; /* where each key was written (line 0 = not written) */
	/* Written `!reset` or `!override`: the earlier member is emptied before
	 * this one is merged in (keys.h). Meaningful only in a later file's or
	 * an extending service's model. */
	bool key_reset[SVC_K_COUNT];
	struct svc_reset *resets; /* entry tombstones, applied the same way */
	size_t n_resets;
	/* services.NAME itself written !override (replaces the earlier service
	 * whole) or !reset (drops it; nothing else is read). */
	enum { SVC_SERVICE_MERGE, SVC_SERVICE_REPLACE, SVC_SERVICE_DROP } replace;
	struct svc_kv *inject; /* x-taskenv.env: VAR -> "<resource key>.<field>" */
	size_t n_inject;
	/* x-taskenv.engine: broker: the task's broker directory is bound at
	 * SVC_BROKER_TARGET and DOCKER_HOST names its socket (docs/broker.md). */
	bool engine_broker;
	struct svc_loc engine_loc; /* where engine: was written (line 0: not written) */
	/* Every env_file read for the service: KEY the path as the loader
	 * opened it, VALUE NULL (the gate judges the host paths taskenv reads). */
	struct svc_kv *env_paths;
	size_t n_env_paths;
	struct svc_loc loc;
};

struct svc_volume {
	char *key;
	char *name;   /* the fixed `name:` as written, or NULL */
	char *driver; /* or NULL */
	bool external;
	struct svc_kv *driver_opts;
	size_t n_driver_opts;
	struct svc_kv *labels;
	size_t n_labels;
	struct svc_loc loc;
};

/* networks.*.ipam.config[] */
struct svc_ipam_pool {
	char *subnet, *ip_range, *gateway; /* each may be NULL */
};

struct svc_network {
	char *key;
	char *name;
	char *driver;
	bool external;
	bool internal;
	bool attachable;
	bool enable_ipv6;
	struct svc_kv *driver_opts;
	size_t n_driver_opts;
	char *ipam_driver;
	struct svc_ipam_pool *ipam;
	size_t n_ipam;
	struct svc_kv *labels;
	size_t n_labels;
	struct svc_loc loc;
};

/* postgres `template: {migrate: {service, command}, inputs: [...]}`: a
 * template taskenv builds by running COMMAND once in a one-off container
 * of SERVICE (README "Templates built from migrations"). */
struct svc_tmpl_build {
	char *service;	    /* an active service of the project (checked at finalize) */
	char **command;	    /* NULL-terminated, or NULL: the service's own command */
	char **inputs;	    /* paths as written, relative to the project directory; NULL-terminated or NULL */
	struct svc_loc loc; /* of the template: key */
};

/* A task-scoped server resource, x-taskenv.resources.<key> (README). */
struct svc_resource {
	char *key;		      /* [a-z][a-z0-9_]{0,29} */
	char *driver;		      /* a driver this build has (drivers/driver.h) */
	char *server;		      /* admin URL after interpolation: a secret, never printed */
	char *isolation;	      /* postgres: "schema" or "database"; NULL = driver default */
	char *tmpl;		      /* postgres `template: NAME`, or NULL */
	struct svc_tmpl_build *build; /* postgres `template: {migrate: ...}`, or NULL */
	char *container_host;	      /* host name containers use for the server, or NULL */
	char *image;		      /* no server: the shared server container's image, or NULL (default) */
	char *amqp_port;	      /* rabbitmq with server:: host-side AMQP port ("1".."65535"), or NULL */
	char **buckets;		      /* s3 bucket keys, NULL-terminated, or NULL */
	struct svc_loc loc;
	struct svc_loc tmpl_loc;   /* of `template: NAME`, line 0 when none */
	struct svc_loc server_loc; /* of `server:`, line 0 when none */
};

struct svc_project {
	char *dir;	/* absolute project directory (dir of the first file) */
	char **files;	/* NULL-terminated absolute paths of the Compose files */
	char **sources; /* every other file read (extends, include), NULL-terminated or NULL:
			 * the svc_loc.file of what came from them points here */
	struct svc_service *services;
	size_t n_services;
	struct svc_volume *volumes;
	size_t n_volumes;
	struct svc_network *networks; /* declared networks; "default" is implied, not listed */
	size_t n_networks;
	struct svc_file_decl *secrets;
	size_t n_secrets;
	struct svc_file_decl *configs;
	size_t n_configs;
	char *name;	 /* top-level name: as written (recorded; the task name names resources) */
	char *version;	 /* obsolete top-level version: as written */
	char **allow;	 /* x-taskenv.allow: policy exceptions the files grant, NULL-terminated or NULL */
	char **warnings; /* "FILE:LINE:COL: message" for keys taskenv ignores; cmd/ prints them */
	struct svc_resource *resources; /* x-taskenv.resources, in file order */
	size_t n_resources;
};

void svc_project_free(struct svc_project *p);

/* pull_policy values (Compose Specification, services): missing and
 * if_not_present pull an image that is absent, always pulls each `up`,
 * never only uses a present one, build builds it, daily / weekly /
 * every_<duration> pull when the image is older than that. */
enum svc_pull { SVC_PULL_MISSING, SVC_PULL_ALWAYS, SVC_PULL_NEVER, SVC_PULL_BUILD, SVC_PULL_REFRESH };
/* The policy V (NULL: missing); *EVERY_NS the interval for REFRESH. -1 when
 * V is none of them. */
int svc_pull_policy(const char *v, enum svc_pull *out, long long *every_ns);
/* Free N key/value pairs and the array. */
void svc_kv_free(struct svc_kv *kv, size_t n);
/* Free what S owns and zero it (S itself is not freed). */
void svc_service_release(struct svc_service *s);

/* Lookups; return borrowed pointers or NULL. */
const struct svc_service *svc_project_service(const struct svc_project *p, const char *name);
const struct svc_volume *svc_project_volume(const struct svc_project *p, const char *key);
const struct svc_network *svc_project_network(const struct svc_project *p, const char *key);
const struct svc_resource *svc_project_resource(const struct svc_project *p, const char *key);

#endif
