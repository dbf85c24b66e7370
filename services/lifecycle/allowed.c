/* What taskenv allowed a container at creation (allowed.h). */
#include "services/lifecycle/allowed.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

const char *const svc_allowed_ns[] = {"NetworkMode", "PidMode",	     "IpcMode", "UTSMode",
				      "UsernsMode",  "CgroupnsMode", NULL};

static void add_strings(cJSON *to, const char *key, const cJSON *from)
{
	cJSON *a = cJSON_AddArrayToObject(to, key);
	const cJSON *it;

	cJSON_ArrayForEach (it, from)
		if (cJSON_IsString(it))
			cJSON_AddItemToArray(a, cJSON_CreateString(it->valuestring));
}

static void add_bind(cJSON *binds, const char *source)
{
	cJSON *o = cJSON_CreateObject();
	char *real = realpath(source, NULL);

	cJSON_AddStringToObject(o, "source", source);
	cJSON_AddStringToObject(o, "real", real ? real : source);
	free(real);
	cJSON_AddItemToArray(binds, o);
}

static bool has(const cJSON *a, const char *s)
{
	const cJSON *it;

	cJSON_ArrayForEach (it, a)
		if (cJSON_IsString(it) && strcmp(it->valuestring, s) == 0)
			return true;
	return false;
}

void svc_allowed_add_networks(cJSON *allowed, char *const *networks)
{
	cJSON *a = cJSON_GetObjectItemCaseSensitive(allowed, "Networks");

	if (!a)
		a = cJSON_AddArrayToObject(allowed, "Networks");
	for (size_t i = 0; networks && networks[i]; i++)
		if (!has(a, networks[i]))
			cJSON_AddItemToArray(a, cJSON_CreateString(networks[i]));
}

/* The networks BODY joins: its endpoints, and a NetworkMode naming one
 * (a network, "host", "none"; not a join). */
static void add_body_networks(cJSON *o, const cJSON *body, const cJSON *hc)
{
	const char *mode = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(hc, "NetworkMode"));
	const cJSON *ep = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(body, "NetworkingConfig"), "EndpointsConfig");
	const cJSON *it;
	char *one[2] = {NULL, NULL};

	svc_allowed_add_networks(o, NULL);
	cJSON_ArrayForEach (it, ep) {
		one[0] = it->string;
		svc_allowed_add_networks(o, one);
	}
	/* "host" too: the engine lists a host-network container on "host" */
	if (mode && *mode && strncmp(mode, "container:", 10) != 0 && strncmp(mode, "ns:", 3) != 0) {
		one[0] = (char *)mode;
		svc_allowed_add_networks(o, one);
	}
}

cJSON *svc_allowed_of(const cJSON *body)
{
	const cJSON *hc = cJSON_GetObjectItemCaseSensitive(body, "HostConfig");
	cJSON *o = cJSON_CreateObject();
	cJSON *binds, *dev;
	const cJSON *it;

	for (size_t i = 0; svc_allowed_ns[i]; i++) {
		const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(hc, svc_allowed_ns[i]));

		cJSON_AddStringToObject(o, svc_allowed_ns[i], v ? v : "");
	}
	cJSON_AddBoolToObject(o, "Privileged",
			      cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(hc, "Privileged")));
	add_strings(o, "CapAdd", cJSON_GetObjectItemCaseSensitive(hc, "CapAdd"));
	add_strings(o, "SecurityOpt", cJSON_GetObjectItemCaseSensitive(hc, "SecurityOpt"));
	dev = cJSON_AddArrayToObject(o, "Devices");
	cJSON_ArrayForEach (it, cJSON_GetObjectItemCaseSensitive(hc, "Devices")) {
		const char *p = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "PathOnHost"));

		if (p)
			cJSON_AddItemToArray(dev, cJSON_CreateString(p));
	}
	binds = cJSON_AddArrayToObject(o, "binds");
	/* "SRC:DST[:OPTS]": SRC is a host path when absolute, else a volume. */
	cJSON_ArrayForEach (it, cJSON_GetObjectItemCaseSensitive(hc, "Binds")) {
		const char *b = cJSON_GetStringValue(it);
		const char *colon = b ? strchr(b, ':') : NULL;

		if (b && b[0] == '/' && colon) {
			te_autofree char *src = xstrndup(b, (size_t)(colon - b));

			add_bind(binds, src);
		}
	}
	cJSON_ArrayForEach (it, cJSON_GetObjectItemCaseSensitive(hc, "Mounts")) {
		const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "Type"));
		const char *src = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "Source"));

		if (type && strcmp(type, "bind") == 0 && src)
			add_bind(binds, src);
	}
	add_body_networks(o, body, hc);
	return o;
}
