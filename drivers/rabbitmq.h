/* The rabbitmq driver: RabbitMQ's management HTTP API (libcurl + cJSON),
 * server given as "http://ADMIN:PASSWORD@HOST:MGMT_PORT".
 *
 * Provision (names: vhost = user = "te_<task>_<key>", see drv_object_name):
 *   GET  /api/overview                     reachability, admin credentials,
 *                                          the AMQP listener's port
 *   PUT  /api/users/{user}                 {"password": random, "tags": ""}
 *   PUT  /api/vhosts/{vhost}               {"description": "taskenv ledger=<id> task=<task>"}
 *   PUT  /api/vhost-limits/{vhost}/max-connections {"value": 64}
 *   PUT  /api/permissions/{vhost}/{user}   {"configure": ".*", "write": ".*", "read": ".*"}
 * The user is recorded (and created) before the vhost, so that teardown,
 * newest first, runs in the order that leaves no survivor:
 *   vhost row: DELETE /api/permissions/{vhost}/{user}, DELETE each of
 *              GET /api/vhosts/{vhost}/connections, DELETE /api/vhosts/{vhost}
 *   user row:  DELETE /api/users/{user}
 * Ownership: a vhost is ours when its description is our mark; a user when
 * its password_hash (rabbit_password_hashing_sha256: base64(salt[4] ||
 * SHA-256(salt || password))) matches the task's stored password, which
 * nobody else knows. Anything else by that name is left alone.
 *
 * Ledger kinds: "rabbitmq-user", "rabbitmq-vhost"; detail JSON
 * {"host","port" (AMQP),"vhost","user"}. describe(): url
 * (amqp://user:password@host:port/vhost), host, port, user, password, vhost. */
#ifndef TASKENV_DRIVERS_RABBITMQ_H
#define TASKENV_DRIVERS_RABBITMQ_H

#include "drivers/driver.h"

extern const struct drv_ops drv_rabbitmq;

#endif
