/* Durations on the command line: "30s", "5m", "2h", "1d" (a bare number
 * is seconds). Used by `up --lease`, `up --retain-on-failure`, `retain --for`. */
#ifndef TASKENV_COMMON_DURATION_H
#define TASKENV_COMMON_DURATION_H

struct te_err;

/* Parse S into whole seconds (1 to 10 years). TE_E_USAGE naming S and the
 * accepted forms otherwise. */
int te_duration_parse(const char *s, long long *secs, struct te_err *err);

#endif
