#include "drivers/http.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CURL
#include "common/cleanup.h"

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
