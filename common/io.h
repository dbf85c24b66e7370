/* Small POSIX helpers shared by the engine client, the broker and the
 * lifecycle: whole writes on a socket, a detached child process. */
#ifndef TASKENV_COMMON_IO_H
#define TASKENV_COMMON_IO_H

#include <stddef.h>

struct te_err;

/* Send all N bytes of P on socket FD (MSG_NOSIGNAL, EINTR retried):
 * 0, or -1 with errno set when the peer is gone. */
int te_send_all(int fd, const char *p, size_t n);

/* Run ARGV (argv[0] a path) as a grandchild in a session of its own, its
 * stdio on /dev/null and no other descriptor of ours open: the caller
 * returns at once, never waits for it, and no zombie is left behind. 0, or
 * -1 with ERR set when fork fails. */
int te_spawn_detached(char *const argv[], struct te_err *err);

#endif
