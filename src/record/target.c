// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "procfs.h"
#include "target.h"

pid_t target_spawn(char *const argv[], int *go_fd, int *status_fd)
{
	int go[2], status[2];
	pid_t pid;
	char c;
	int err;

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	/* Tells the parent whether exec worked: EOF on success, errno otherwise. */
	if (pipe2(status, O_CLOEXEC)) {
		err = -errno;
		close(go[0]);
		close(go[1]);
		return err;
	}
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(go[0]);
		close(go[1]);
		close(status[0]);
		close(status[1]);
		return err;
	}
	if (pid == 0) {
		close(go[1]);
		close(status[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);	/* the recorder gave up before starting */
		execvp(argv[0], argv);
		err = errno;
		if (write(status[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(status[1]);
	*go_fd = go[1];
	*status_fd = status[0];
	return pid;
}

int target_release(int go_fd, int status_fd)
{
	char c = 'g';
	int err = 0, child_err;
	ssize_t n;

	if (write(go_fd, &c, 1) != 1)
		err = -errno;
	close(go_fd);
	do
		n = read(status_fd, &child_err, sizeof(child_err));
	while (n < 0 && errno == EINTR);
	if (!err && n == sizeof(child_err))
		err = -child_err;
	close(status_fd);
	return err;
}

int target_resolve(const uint32_t *ids, size_t n, uint32_t *tgids, size_t *ntgids,
		   uint32_t *bad_id)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t tgid;
		bool dup = false;
		int err = procfs_tgid_of(ids[i], &tgid);

		if (err) {
			*bad_id = ids[i];
			return err;
		}
		for (size_t j = 0; j < k; j++)
			dup |= tgids[j] == tgid;
		if (!dup)
			tgids[k++] = tgid;
	}
	*ntgids = k;
	return 0;
}
