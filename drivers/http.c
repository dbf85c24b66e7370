#include "drivers/http.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CURL
#include "common/cleanup.h"

#include <stdio.h>
#include <string.h>

static size_t on_body(char *p, size_t size, size_t n, void *ctx)
{
	if (te_buf_add(ctx, p, size * n) < 0)
		return 0; /* over the cap: curl stops with CURLE_WRITE_ERROR */
	return size * n;
}

int drv_http(const struct drv_http_req *req, long *status, struct te_buf *out, struct te_err *err)
{
	te_autocurl CURL *c = curl_easy_init();
	te_autoslist struct curl_slist *h = NULL;
	char cerr[CURL_ERROR_SIZE] = "";
	CURLcode rc;

	if (!c)
		TE_BUG("curl_easy_init failed");
	for (struct curl_slist *s = req->headers; s; s = s->next)
		h = curl_slist_append(h, s->data);
	if (req->content_type) {
		te_autofree char *ct = xasprintf("Content-Type: %s", req->content_type);

		h = curl_slist_append(h, ct);
	}
	curl_easy_setopt(c, CURLOPT_URL, req->url);
	/* A server: URL is the file's (or its variables'): http(s) only, never
	 * file://, dict://, gopher:// ..., and no redirect elsewhere. */
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	if (strcmp(req->method, "HEAD") == 0)
		curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
	else
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, req->method);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, cerr);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	if (req->userpwd)
		curl_easy_setopt(c, CURLOPT_USERPWD, req->userpwd);
	if (req->aws_sigv4)
		curl_easy_setopt(c, CURLOPT_AWS_SIGV4, req->aws_sigv4);
	if (req->body) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, req->body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)req->body_len);
	} else if (strcmp(req->method, "PUT") == 0 || strcmp(req->method, "POST") == 0) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, "");
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, 0L);
	}
	rc = curl_easy_perform(c);
	if (rc != CURLE_OK)
		return te_err_set(err, TE_E_FAIL, "%s: %s", req->where,
				  *cerr ? cerr : curl_easy_strerror(rc));
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
	return 0;
}

char *drv_http_escape(const char *s)
{
	char *e = curl_easy_escape(NULL, s, 0);
	char *out;

	if (!e)
		TE_BUG("curl_easy_escape failed");
	out = xstrdup(e);
	curl_free(e);
	return out;
}

static char *curl_dup(char *s)
{
	char *out = s ? xstrdup(s) : NULL;

	curl_free(s);
	return out;
}

int drv_http_server_parse(const char *url, const char *what, bool need_credentials, const char *usage,
			  struct drv_http_server *out, struct te_err *err)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL, *port = NULL, *user = NULL, *pw = NULL;
	bool ok;

	memset(out, 0, sizeof(*out));
	if (!u)
		TE_BUG("curl_url failed");
	ok = curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
	     curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
	     (strcmp(scheme, "http") == 0 || strcmp(scheme, "https") == 0) &&
	     curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
	     curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK;
	/* No user or password in the URL: CURLUE_NO_USER / _NO_PASSWORD. */
	if (curl_url_get(u, CURLUPART_USER, &user, CURLU_URLDECODE) != CURLUE_OK && need_credentials)
		ok = false;
	if (curl_url_get(u, CURLUPART_PASSWORD, &pw, CURLU_URLDECODE) != CURLUE_OK && need_credentials)
		ok = false;
	curl_url_cleanup(u);
	if (ok) {
		snprintf(out->where, sizeof(out->where), "%s %s:%s", what, host, port);
		out->base = xasprintf("%s://%s:%s", scheme, host, port);
	}
	curl_free(scheme);
	out->host = curl_dup(host), out->port = curl_dup(port);
	out->user = curl_dup(user), out->password = curl_dup(pw);
	if (ok)
		return 0;
	drv_http_server_release(out);
	return te_err_set(err, TE_E_USAGE, "%s", usage);
}

void drv_http_server_release(struct drv_http_server *s)
{
	free(s->base), free(s->host), free(s->port), free(s->user), free(s->password);
	memset(s, 0, sizeof(*s));
}
