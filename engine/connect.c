#include "engine/connect.h"
#include "engine/engine.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

int engine_network_connect(struct engine *e, const char *network, const char *container, char *const *aliases,
			   struct te_err *err)
{
	te_autojson cJSON *body = cJSON_CreateObject();
	te_autofree char *net = engine_escape(e, network);
	te_autofree char *path = xasprintf("/networks/%s/connect", net);
	cJSON *ep = cJSON_AddObjectToObject(body, "EndpointConfig");
	cJSON *al = cJSON_AddArrayToObject(ep, "Aliases");

	cJSON_AddStringToObject(body, "Container", container);
	for (size_t i = 0; aliases && aliases[i]; i++)
		cJSON_AddItemToArray(al, cJSON_CreateString(aliases[i]));
	if (engine_call(e, "POST", path, body, NULL, NULL, err) < 0)
		return te_err_prefix(err, "connect '%s' to network '%s': ", container, network);
	return 0;
}

int engine_network_disconnect(struct engine *e, const char *network, const char *container, bool force,
			      struct te_err *err)
{
	te_autojson cJSON *body = cJSON_CreateObject();
	te_autofree char *net = engine_escape(e, network);
	te_autofree char *path = xasprintf("/networks/%s/disconnect", net);

	cJSON_AddStringToObject(body, "Container", container);
	cJSON_AddBoolToObject(body, "Force", force);
	if (engine_call(e, "POST", path, body, NULL, NULL, err) < 0)
		return te_err_prefix(err, "disconnect '%s' from network '%s': ", container, network);
	return 0;
}
