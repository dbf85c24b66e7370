/* One typed cleanup per dependency (crun utils.h). Include only the ones
 * whose library the including file already uses. */
#ifndef TASKENV_COMMON_CLEANUP_H
#define TASKENV_COMMON_CLEANUP_H

#ifdef TE_WITH_CJSON
#include <cjson/cJSON.h>
static inline void te_cjson_freep(cJSON **p)
{
	cJSON_Delete(*p);
}
#define te_autojson __attribute__((cleanup(te_cjson_freep)))
#endif

#ifdef TE_WITH_CURL
#include <curl/curl.h>
static inline void te_curl_freep(CURL **p)
{
	if (*p)
		curl_easy_cleanup(*p);
}
static inline void te_slist_freep(struct curl_slist **p)
{
	curl_slist_free_all(*p);
}
#define te_autocurl __attribute__((cleanup(te_curl_freep)))
#define te_autoslist __attribute__((cleanup(te_slist_freep)))
#endif

#ifdef TE_WITH_SQLITE
#include <sqlite3.h>
static inline void te_stmt_freep(sqlite3_stmt **p)
{
	sqlite3_finalize(*p);
}
#define te_autostmt __attribute__((cleanup(te_stmt_freep)))
#endif

#ifdef TE_WITH_PQ
#include <libpq-fe.h>
static inline void te_pgres_freep(PGresult **p)
{
	PQclear(*p);
}
#define te_autopgres __attribute__((cleanup(te_pgres_freep)))
#endif

#ifdef TE_WITH_YAML
#include <yaml.h>
static inline void te_yaml_doc_freep(yaml_document_t **p)
{
	if (*p)
		yaml_document_delete(*p);
}
#define te_autoyamldoc __attribute__((cleanup(te_yaml_doc_freep)))
#endif

#endif
