/* taskenv's own settings: built-in defaults, then the config file
 * ($TASKENV_CONFIG, else $XDG_CONFIG_HOME/taskenv/config.yaml, else
 * ~/.config/taskenv/config.yaml; a missing file is fine), then TASKENV_*
 * variables (the environment wins). Each setting remembers where its value
 * came from, for `taskenv settings` (`config --show-settings` at merge).
 *
 * The file is YAML (libyaml), a mapping of the keys below; limits nest:
 *   port_range: 21000-21999
 *   subnet_pool: 10.200.0.0/16
 *   engine: unix:///run/user/1000/podman/podman.sock
 *   worktree_prefix: ../wt-
 *   limits: {cpus: "2", memory: 2g, pids: "512"}
 *   pool_size: 2
 *   template_gc_age: 7d
 * Unknown keys and non-scalar values are errors (TE_E_USAGE, "FILE:LINE:COL:
 * ..."), so a typo never silently does nothing. Values are carried as
 * strings; the module that consumes a setting validates it. */
#ifndef TASKENV_SERVICES_SETTINGS_H
#define TASKENV_SERVICES_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

struct te_err;

struct svc_setting {
	const char *key;    /* "port_range", "limits.memory", ... (static) */
	const char *env;    /* the TASKENV_* variable (static) */
	const char *help;   /* one line (static) */
	char *value;	    /* owned; "" when unset and without default */
	const char *source; /* "default", "config file" or "environment" (static) */
};

#define SVC_SETTINGS_N 9

struct svc_settings {
	char *file;	  /* owned: the config file path consulted */
	bool file_exists; /* whether it was there and read */
	struct svc_setting items[SVC_SETTINGS_N];
};

/* Fill S (caller-owned, released with svc_settings_release even on
 * failure). Errors: TE_E_USAGE (bad file content), TE_E_IO (unreadable). */
int svc_settings_load(struct svc_settings *s, struct te_err *err);
void svc_settings_release(struct svc_settings *s);
/* Borrowed value of KEY ("" when unset); NULL for an unknown key. */
const char *svc_settings_get(const struct svc_settings *s, const char *key);
/* Source of KEY's value, as above; NULL for an unknown key. */
const char *svc_settings_source(const struct svc_settings *s, const char *key);

#endif
