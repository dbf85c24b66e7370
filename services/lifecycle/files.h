/* Secret and config files taskenv writes itself (sources `environment:` and
 * `content:`): one file per declaration under the task's directory next to
 * the ledger, <dir of the ledger>/files/<task>/ (mode 0700), bound
 * read-only into the containers and removed by `down`. Values are read from
 * taskenv's environment at `up` and written only there: never to the
 * ledger, never to an error message. */
#ifndef TASKENV_SERVICES_FILES_H
#define TASKENV_SERVICES_FILES_H

struct te_err;
struct ledger;
struct svc_plan;

/* The directory for TASK's files (not created). Owned. */
char *svc_files_dir(const struct ledger *l, const char *task);

/* Check every secret/config file a service uses: declared files must be
 * regular files (else the engine would create a directory in their place);
 * for environment/content sources, write plan->files_dir/<kind>-<key> with
 * the mode of the first service reference that sets one, else 0444 (Compose's
 * default), inside the 0700 directory. Written to a temporary name and
 * renamed, so a reader never sees half a value.
 * Errors: TE_E_USAGE "secret 'K': environment variable 'V' is not set",
 * TE_E_IO naming the path. */
int svc_files_write(const struct svc_plan *plan, struct te_err *err);

/* Remove DIR and the files in it (no subdirectories are made). A missing
 * DIR is not an error. TE_E_IO otherwise. */
int svc_files_remove(const char *dir, struct te_err *err);

#endif
