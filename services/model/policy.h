/* The safe-by-default policy: what `up` refuses unless an exception is
 * granted (x-taskenv.allow in the file, or --allow), and the limits taskenv
 * applies when the file is silent. Pure: reads the model and the host's
 * file system (realpath of bind sources), never the engine.
 *
 * Exception names (README "Policy"):
 *   engine-socket        an engine socket (docker.sock, podman.sock, containerd.sock) or a
 *                        directory above one is bind-mounted
 *   privileged           privileged: true
 *   host-network, host-pid, host-ipc, host-userns, host-uts
 *                        network_mode / pid / ipc / userns_mode / uts: host
 *   devices              devices:
 *   cap:NAME             cap_add of SYS_ADMIN, SYS_PTRACE, NET_ADMIN, SYS_MODULE or ALL
 *   seccomp-unconfined, apparmor-unconfined, label-disable
 *                        the matching security_opt
 *   bind-system          bind of /, /etc, /var, /run, /proc, /sys, /dev, /root (or below)
 *   bind-home            bind of $HOME itself
 *   bind-credentials     bind of ~/.ssh, ~/.aws, ~/.config/gcloud, ~/.kube, ~/.docker, ~/.gnupg,
 *                        ~/.netrc, ~/.git-credentials (or below, or a directory of $HOME above one)
 *   bind-outside-project any other bind source outside the project directory
 *   public-port          a port published on a host ip other than loopback
 *   host-sysctl          a sysctl the kernel does not namespace per container (only
 *                        kernel.msg*, kernel.sem, kernel.shm*, kernel.domainname/hostname,
 *                        fs.mqueue.* and net.* outside host networking are)
 *   mac-address          mac_address: a fixed MAC shared by every task of the project
 *   other-container      volumes_from, network_mode, pid or ipc "container:NAME": a
 *                        container outside the task (its volumes, its namespaces)
 * Secret and config `file:` sources follow the bind rules (bind-system, bind-home,
 * bind-credentials, bind-outside-project, engine-socket). */
#ifndef TASKENV_SERVICES_POLICY_H
#define TASKENV_SERVICES_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "services/model/compose.h"

struct te_err;

struct svc_finding {
	struct svc_loc loc; /* file borrowed from the project */
	char *service;	    /* owned; the service, or the volume key for a volume's driver_opts */
	char *key;	    /* owned; the Compose key: "privileged", "volumes", "cap_add", ... */
	char *reason;	    /* owned */
	char *allow;	    /* owned; the exception name that permits it */
};

/* True when NAME is one of the exception names above. */
bool svc_policy_known(const char *name);

/* Check every exception name of ALLOW (NULL-terminated or NULL) and of
 * p->allow. TE_E_USAGE naming an unknown one (a typo must not pass
 * silently) for ALLOW; TE_E_COMPOSE for the file's list. */
int svc_policy_validate(const struct svc_project *p, char *const *allow, struct te_err *err);

/* Every refusal of P not covered by ALLOW or p->allow, in file order of
 * services. *out owned (svc_findings_free); *n may be 0. Bind sources are
 * judged after realpath (symlinks and ".." resolved; a missing tail is
 * taken lexically). Never fails. */
void svc_policy_check(const struct svc_project *p, char *const *allow, struct svc_finding **out, size_t *n);
void svc_findings_free(struct svc_finding *v, size_t n);

/* "FILE:LINE:COL: SERVICE: KEY: REASON (allow with 'NAME')". Owned. */
char *svc_finding_format(const struct svc_finding *f);

/* Limits applied when the file is silent: the limits.* and
 * no_new_privileges settings (services/settings.h), which cmd/ reads. */
struct svc_policy_defaults {
	long long memory;	/* bytes; 0 = none */
	double cpus;		/* 0 = none */
	long long pids;		/* 0 = none */
	bool no_new_privileges; /* add no-new-privileges:true unless written */
};

/* Fill what each service leaves unset: mem_limit, cpus, pids_limit, and
 * security_opt no-new-privileges:true unless a no-new-privileges entry is
 * written. */
void svc_policy_apply_defaults(struct svc_project *p, const struct svc_policy_defaults *d);

#endif
