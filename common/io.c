#include "common/io.h"
#include "common/err.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

int te_send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int te_spawn_detached(char *const argv[], struct te_err *err)
{
	pid_t pid = fork();

	if (pid < 0)
		return te_err_set(err, TE_E_IO, "fork: %s", strerror(errno));
	if (pid == 0) {
		int fd;

		if (setsid() < 0 || fork() != 0)
			_exit(0);
		fd = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		/* No lock or session of the caller's may stay held by the child. */
		close_range(3, ~0U, 0);
		execv(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return 0;
}
