#include "common/fault.h"
#include "common/err.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The step TASKENV_FAULT names, or NULL: STEP is filled either way. */
static bool wanted(const char *when, const char *kind, const char *name, char *step, size_t size)
{
	/* A test hook read at each crash point, not a setting: it must work in
	 * any process (and costs one getenv when unset). */
	const char *want = getenv("TASKENV_FAULT");
	size_t n;

	if (!want || !*want)
		return false;
	snprintf(step, size, "%s:%s:%s", when, kind, name);
	n = strlen(want);
	return want[n - 1] == '*' ? strncmp(step, want, n - 1) == 0 : strcmp(step, want) == 0;
}

void te_fault_point(const char *when, const char *kind, const char *name)
{
	char step[512];

	if (wanted(when, kind, name, step, sizeof(step))) {
		te_last_words("taskenv: fault injection: killed at %s", step);
		kill(getpid(), SIGKILL);
	}
}

static char soon_step[512];

static void *kill_soon(void *arg)
{
	long ms = (long)(intptr_t)arg;
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
	te_last_words("taskenv: fault injection: killed during %s", soon_step);
	kill(getpid(), SIGKILL);
	return NULL;
}

void te_fault_soon(const char *when, const char *kind, const char *name)
{
	const char *delay = getenv("TASKENV_FAULT_DELAY_MS");
	long ms = delay && *delay ? strtol(delay, NULL, 10) : 5;
	pthread_t t;

	if (!wanted(when, kind, name, soon_step, sizeof(soon_step)))
		return;
	if (ms < 0 || ms > 60000)
		ms = 5;
	if (pthread_create(&t, NULL, kill_soon, (void *)(intptr_t)ms) != 0) {
		te_last_words("taskenv: fault injection: killed at %s", soon_step);
		kill(getpid(), SIGKILL);
	}
	pthread_detach(t);
}
