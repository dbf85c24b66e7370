/* The s3 driver: the S3 API through libcurl's CURLOPT_AWS_SIGV4
 * ("aws:amz:us-east-1:s3", always the full provider string), path-style
 * URLs, server given as "http://ACCESS_KEY:SECRET_KEY@HOST:PORT".
 *
 * Buckets: one per entry of `buckets:`, named
 *   "te-<task>-<bucket>-<8 hex>"  ('_' -> '-', at most 63 chars, DNS-safe)
 * where the hex is an FNV-1a hash of "<ledger id>/<task>/<key>/<bucket>":
 * unique per task, per resource and per ledger, so two tasks (or two
 * ledgers) never share a bucket name even when '_' and '-' map together.
 *   provision: GET / (reachability, keys), PUT /<bucket> (a 409
 *              BucketAlreadyOwnedByYou / BucketAlreadyExists counts as ours:
 *              nobody else makes a name with our ledger's hash)
 *   every request carries x-amz-content-sha256 (the payload's SHA-256),
 *   which S3 requires and libcurl signs
 *   teardown:  GET /<bucket>?uploads -> DELETE /<bucket>/<key>?uploadId=
 *              for each incomplete multipart upload (servers without
 *              multipart listing, like s3rver, answer non-200: skipped);
 *              GET /<bucket>?list-type=2[&continuation-token=] ->
 *              POST /<bucket>?delete (DeleteObjects, Content-MD5) per page;
 *              DELETE /<bucket>; 404 NoSuchBucket counts as gone.
 *
 * Identity: an emulator such as s3rver has ONE credential for everyone
 * (S3RVER/S3RVER), so the task gets the server's keys: the boundary between
 * tasks is the bucket name, not identity. describe() says so in its
 * "credentials" field ("shared").
 *
 * Ledger kind: "s3-bucket"; detail JSON {"endpoint","region","access_key",
 * "buckets":{bucket key: name}} (the secret key is kept in the task's
 * secrets file as its password). describe(): endpoint, region, access_key,
 * secret_key, credentials, bucket_<key> per bucket. */
#ifndef TASKENV_DRIVERS_S3_H
#define TASKENV_DRIVERS_S3_H

#include "drivers/driver.h"

extern const struct drv_ops drv_s3;

#endif
