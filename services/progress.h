/* How library code reports steps without printing: cmd/ passes a
 * callback that renders each step (plain line, or in place on a TTY). */
#ifndef TASKENV_SERVICES_PROGRESS_H
#define TASKENV_SERVICES_PROGRESS_H

/* One finished or started step, e.g. ("network", "t1_default", "created").
 * KIND and NAME are borrowed for the duration of the call. */
typedef void (*svc_progress_fn)(void *ctx, const char *kind, const char *name, const char *what);

#endif
