#include "common/fault.h"
#include "common/err.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void te_fault_point(const char *when, const char *kind, const char *name)
{
	/* A test hook read at each crash point, not a setting: it must work in
	 * any process (and costs one getenv when unset). */
	const char *want = getenv("TASKENV_FAULT");
	char step[512];
	size_t n;

	if (!want || !*want)
		return;
	snprintf(step, sizeof(step), "%s:%s:%s", when, kind, name);
	n = strlen(want);
	if (want[n - 1] == '*' ? strncmp(step, want, n - 1) == 0 : strcmp(step, want) == 0) {
		te_last_words("taskenv: fault injection: killed at %s", step);
		kill(getpid(), SIGKILL);
	}
}
