/* The HTTP client the rabbitmq and s3 drivers share: one libcurl easy
 * request, response body into a capped buffer. Never prints. */
#ifndef TASKENV_DRIVERS_HTTP_H
#define TASKENV_DRIVERS_HTTP_H

#include <stdbool.h>
#include <stddef.h>

struct te_err;
struct te_buf;
struct curl_slist;

struct drv_http_req {
	const char *method;	    /* "GET", "PUT", "DELETE", "POST" */
	const char *url;	    /* full URL, already escaped; may carry user:password@ */
	const char *body;	    /* or NULL */
	size_t body_len;	    /* bytes of BODY */
	const char *content_type;   /* or NULL */
	const char *aws_sigv4;	    /* CURLOPT_AWS_SIGV4 provider string, or NULL */
	const char *userpwd;	    /* "user:password" (basic, or the sigv4 keys), or NULL */
	struct curl_slist *headers; /* extra headers (borrowed), or NULL */
	const char *where;	    /* "host:port" for messages */
};

/* Perform REQ; *STATUS gets the HTTP status, OUT (capped, see buf.h) the
 * body. A transport failure (refused, timeout: 10 s) is TE_E_FAIL naming
 * WHERE and curl's message; any HTTP status is success here. */
int drv_http(const struct drv_http_req *req, long *status, struct te_buf *out, struct te_err *err);

/* An admin URL taken apart by libcurl's URL API (CURLU):
 * http(s)://[USER[:PASSWORD]@]HOST[:PORT]. Every string owned. */
struct drv_http_server {
	char *base;	 /* "scheme://host:port", without credentials */
	char *host;	 /* as in the URL (an IPv6 address keeps its brackets) */
	char *port;	 /* the scheme's default when the URL has none */
	char *user;	 /* URL-decoded, NULL when the URL has none */
	char *password;	 /* URL-decoded (a secret), NULL when the URL has none */
	char where[256]; /* WHAT + " host:port" for messages (never credentials) */
};

/* Parse URL for the server called WHAT in messages ("rabbitmq server").
 * With NEED_CREDENTIALS a URL without user or password is refused too.
 * On failure: TE_E_USAGE with the message USAGE as given (the URL is a
 * secret: never quoted), OUT left empty. */
int drv_http_server_parse(const char *url, const char *what, bool need_credentials, const char *usage,
			  struct drv_http_server *out, struct te_err *err);
void drv_http_server_release(struct drv_http_server *s);

/* Percent-encode S for a URL path segment. Owned. */
char *drv_http_escape(const char *s);

#endif
