/* Fault injection for crash tests: when TASKENV_FAULT names STEP, the
 * process kills itself with SIGKILL right there, as a cancelled agent or a
 * closed laptop would. Steps are "<when>:<kind>:<name>" strings, e.g.
 * "after-create:container:t1-app-1". `up` has, before and after each
 * engine call: {before,after}-inspect:image:IMAGE, -create:network:NAME,
 * -create:volume:NAME, -create:container:NAME, -connect:container:NAME
 * (each extra network), -start:container:NAME; a recreate (docs/up.md) adds
 * -create:container:<id:12>_NAME (the temporary name), -stop:container:NAME,
 * -remove:container:NAME, -rename:container:NAME, and a changed network
 * -remove:network:NAME. TASKENV_FAULT may hold a prefix
 * ending in '*' ("after-create:*"). Costs one getenv when unset. */
#ifndef TASKENV_COMMON_FAULT_H
#define TASKENV_COMMON_FAULT_H

void te_fault_point(const char *when, const char *kind, const char *name);

#endif
