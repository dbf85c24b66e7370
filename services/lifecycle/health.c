#include "services/lifecycle/health.h"
#include "engine/engine.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <string.h>
#include <time.h>

#define POLL_NS 250000000L

/* The output of the newest health probe, trimmed to one short line. Owned. */
static char *last_output(const cJSON *health)
{
	const cJSON *log = cJSON_GetObjectItemCaseSensitive(health, "Log");
	int n = cJSON_GetArraySize(log);
	const char *out =
	    n > 0 ? cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(log, n - 1), "Output"))
		  : NULL;
	char *s;
	size_t len;

	if (!out || !*out)
		return xstrdup("(no output)");
	s = xstrndup(out, 300);
	len = strlen(s);
	while (len && (s[len - 1] == '\n' || s[len - 1] == '\r' || s[len - 1] == ' '))
		s[--len] = '\0';
	for (char *c = s; *c; c++)
		if (*c == '\n')
			*c = ' ';
	return s;
}

/* 1 done, 0 keep waiting, -1 failed (err set). *why gets the last status. */
static int probe(const cJSON *obj, const char *service, const char *cond, char *why, size_t whyn,
		 struct te_err *err)
{
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(obj, "State");
	const char *status = cJSON_GetStringValue(cJSON_GetObjectItem(st, "Status"));
	const cJSON *health = cJSON_GetObjectItemCaseSensitive(st, "Health");
	const char *hs = cJSON_GetStringValue(cJSON_GetObjectItem(health, "Status"));
	int code = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(st, "ExitCode"));
	te_autofree char *out = health ? last_output(health) : NULL;

	snprintf(why, whyn, "status %s%s%s%s%s", status ? status : "?", hs ? ", health " : "", hs ? hs : "",
		 out ? "; last health output: " : "", out ? out : "");
	if (strcmp(cond, "service_completed_successfully") == 0) {
		if (!status || strcmp(status, "exited") != 0)
			return 0;
		if (code == 0)
			return 1;
		return te_err_set(err, TE_E_UNHEALTHY,
				  "service '%s' did not complete successfully: exited with code %d", service,
				  code);
	}
	if (hs && strcmp(hs, "healthy") == 0)
		return 1;
	if (hs && strcmp(hs, "unhealthy") == 0)
		return te_err_set(err, TE_E_UNHEALTHY, "service '%s' is unhealthy; last health output: %s",
				  service, out ? out : "(none)");
	if (status && (strcmp(status, "exited") == 0 || strcmp(status, "dead") == 0))
		return te_err_set(err, TE_E_UNHEALTHY,
				  "service '%s' exited (code %d) before it became healthy%s%s", service, code,
				  out ? "; last health output: " : "", out ? out : "");
	if (!health || !hs || strcmp(hs, "none") == 0 || !*hs)
		return te_err_set(err, TE_E_UNHEALTHY, "service '%s' has no healthcheck to wait for",
				  service);
	return 0;
}

static double elapsed(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* Podman runs healthchecks from systemd timers; where there is no systemd
 * (a container, a CI runner) nothing runs them and the status stays
 * "starting". Its own API runs one on request (GET
 * /libpod/containers/{name}/healthcheck), so on Podman we run it at the
 * container's interval while we wait, as the timer would. */
static void podman_tick(struct engine *e, const char *name, const cJSON *obj, struct timespec *last)
{
	const cJSON *hc = cJSON_GetObjectItem(cJSON_GetObjectItem(obj, "Config"), "Healthcheck");
	double interval = cJSON_GetNumberValue(cJSON_GetObjectItem(hc, "Interval")) / 1e9;
	te_autofree char *esc = NULL;
	te_autofree char *path = NULL;
	te_autojson cJSON *out = NULL;
	struct te_err ignored;
	struct timespec now;

	if (strcmp(engine_flavor(e), "podman") != 0 || !hc)
		return;
	if (!(interval > 0))
		interval = 30;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (last->tv_sec && elapsed(last, &now) < interval)
		return;
	*last = now;
	esc = engine_escape(e, name);
	path = xasprintf("/libpod/containers/%s/healthcheck", esc);
	engine_call(e, "GET", path, NULL, NULL, &out, &ignored);
}

int svc_wait_condition(struct engine *e, const char *name, const char *service, const char *condition,
		       int timeout_s, struct te_err *err)
{
	struct timespec start, now, nap = {0, POLL_NS}, kicked = {0, 0};
	char why[512] = "not inspected yet";

	if (strcmp(condition, "service_started") == 0)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		te_autojson cJSON *obj = NULL;
		int rc;

		if (engine_container_inspect(e, name, &obj, err) < 0)
			return te_err_prefix(err, "service '%s': ", service);
		rc = probe(obj, service, condition, why, sizeof(why), err);
		if (rc != 0)
			return rc > 0 ? 0 : -1;
		if (strcmp(condition, "service_healthy") == 0)
			podman_tick(e, name, obj, &kicked);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec >= timeout_s)
			return te_err_set(err, TE_E_UNHEALTHY,
					  "service '%s' did not become %s within %d s (%s)", service,
					  strcmp(condition, "service_healthy") == 0 ? "healthy" : "complete",
					  timeout_s, why);
		nanosleep(&nap, NULL);
	}
}
