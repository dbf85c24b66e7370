/* The Compose model: what taskenv understands of a Compose file, after
 * interpolation, with the file:line:col of each item so later stages
 * (plan, policy) can point at the source. All strings are owned by the
 * model; svc_project_free releases everything. */
#ifndef TASKENV_SERVICES_COMPOSE_H
#define TASKENV_SERVICES_COMPOSE_H

#include <stdbool.h>
#include <stddef.h>

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

enum svc_mount_type { SVC_MOUNT_VOLUME, SVC_MOUNT_BIND };

/* volumes, short syntax "SOURCE:TARGET[:ro|rw]" or "TARGET" (anonymous volume).
 * A SOURCE starting with '/', '.' or '~' is a bind; otherwise a named volume key. */
struct svc_mount {
	enum svc_mount_type type;
	char *source; /* volume key, or bind path made absolute against the project dir; NULL = anonymous */
	char *target;
	bool read_only;
	struct svc_loc loc;
};

struct svc_service {
	char *name;
	char *image;	   /* may be NULL only if the file is invalid; the loader refuses that */
	char **command;	   /* NULL-terminated argv, NULL if absent (string form is shell-split);
			    * `[]` or "" give an empty argv (non-NULL), which overrides the image's */
	char **entrypoint; /* likewise */
	struct svc_kv *environment;
	size_t n_environment;
	struct svc_port *ports;
	size_t n_ports;
	struct svc_mount *mounts;
	size_t n_mounts;
	char **depends_on; /* NULL-terminated service names, NULL if none */
	char *working_dir;
	char *user;
	struct svc_kv *labels;
	size_t n_labels;
	char *container_name;  /* as written, or NULL; taskenv scopes it (alias only) */
	char **networks;       /* NULL-terminated network keys; NULL means ["default"] */
	struct svc_kv *inject; /* x-taskenv.env: VAR -> "<resource key>.<field>" */
	size_t n_inject;
	struct svc_loc loc;
};

struct svc_volume {
	char *key;
	char *name;   /* the fixed `name:` as written, or NULL */
	char *driver; /* or NULL */
	bool external;
	struct svc_kv *labels;
	size_t n_labels;
	struct svc_loc loc;
};

struct svc_network {
	char *key;
	char *name;
	char *driver;
	bool external;
	bool internal;
	struct svc_kv *labels;
	size_t n_labels;
	struct svc_loc loc;
};

/* A task-scoped server resource, x-taskenv.resources.<key> (README). */
struct svc_resource {
	char *key;	      /* [a-z][a-z0-9_]{0,29} */
	char *driver;	      /* a driver this build has (drivers/driver.h) */
	char *server;	      /* admin URL after interpolation: a secret, never printed */
	char *isolation;      /* postgres: "schema" or "database"; NULL = driver default */
	char *tmpl;	      /* postgres `template:`, or NULL */
	char *container_host; /* host name containers use for the server, or NULL */
	char *image;	      /* no server: the shared server container's image, or NULL (default) */
	char **buckets;	      /* s3 bucket keys, NULL-terminated, or NULL */
	struct svc_loc loc;
};

struct svc_project {
	char *dir;    /* absolute project directory (dir of the first file) */
	char **files; /* NULL-terminated absolute paths of the Compose files */
	struct svc_service *services;
	size_t n_services;
	struct svc_volume *volumes;
	size_t n_volumes;
	struct svc_network *networks; /* declared networks; "default" is implied, not listed */
	size_t n_networks;
	struct svc_resource *resources; /* x-taskenv.resources, in file order */
	size_t n_resources;
};

void svc_project_free(struct svc_project *p);

/* Lookups; return borrowed pointers or NULL. */
const struct svc_service *svc_project_service(const struct svc_project *p, const char *name);
const struct svc_volume *svc_project_volume(const struct svc_project *p, const char *key);
const struct svc_network *svc_project_network(const struct svc_project *p, const char *key);
const struct svc_resource *svc_project_resource(const struct svc_project *p, const char *key);

#endif
