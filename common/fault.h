/* Fault injection for crash tests: when TASKENV_FAULT names STEP, the
 * process kills itself with SIGKILL right there, as a cancelled agent or a
 * closed laptop would. Steps are "<when>:<kind>:<name>" strings, e.g.
 * "after-create:container:t1-app-1"; TASKENV_FAULT may hold a prefix
 * ending in '*' ("after-create:*"). Costs one getenv when unset. */
#ifndef TASKENV_COMMON_FAULT_H
#define TASKENV_COMMON_FAULT_H

void te_fault_point(const char *when, const char *kind, const char *name);

#endif
