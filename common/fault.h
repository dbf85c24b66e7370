/* Fault injection for crash tests: when TASKENV_FAULT names STEP, the
 * process kills itself with SIGKILL right there, as a cancelled agent or a
 * closed laptop would. Steps are "<when>:<kind>:<name>" strings, e.g.
 * "after-create:container:t1-app-1". `up` has, before and after each
 * engine call: {before,after}-inspect:image:IMAGE, -create:network:NAME,
 * -create:volume:NAME, -create:container:NAME, -connect:container:NAME
 * (each extra network), -start:container:NAME, and during-create:container:NAME
 * (te_fault_soon); a recreate (docs/up.md) adds -create:container:<id:12>_NAME
 * (the temporary name), -stop:container:NAME, -remove:container:NAME,
 * -rename:container:NAME, and a changed network -remove:network:NAME.
 * TASKENV_FAULT may hold a prefix
 * ending in '*' ("after-create:*"). Costs one getenv when unset. */
#ifndef TASKENV_COMMON_FAULT_H
#define TASKENV_COMMON_FAULT_H

void te_fault_point(const char *when, const char *kind, const char *name);
/* The same match, for a step that is a request in flight ("during-create"):
 * the process is killed TASKENV_FAULT_DELAY_MS milliseconds later (default
 * 5) by a thread of its own, while the caller goes on into the request, as
 * a kill that lands inside an engine create does. */
void te_fault_soon(const char *when, const char *kind, const char *name);

#endif
