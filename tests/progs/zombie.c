/*
 * zombie.c - a CMD whose process group cannot empty: it starts a process A
 * in a group of its own (same session) that ignores SIGTERM and becomes
 * `sleep SECONDS`; A's child joins CMD's group and exits, a zombie that A
 * never reaps, so CMD's group keeps a member after any SIGKILL (as a
 * process stuck in a driver call would). Then CMD's leader exits 0.
 *
 *   zombie SECONDS
 */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	pid_t group = getpgrp(), a;

	if (argc != 2) {
		fprintf(stderr, "usage: zombie SECONDS\n");
		return 2;
	}
	if ((a = fork()) < 0)
		return perror("fork"), 1;
	if (a == 0) {
		pid_t z;

		setpgid(0, 0);
		signal(SIGTERM, SIG_IGN);
		if ((z = fork()) == 0) {
			setpgid(0, group);
			_exit(0);
		}
		execlp("sleep", "sleep", argv[1], (char *)NULL);
		_exit(127);
	}
	usleep(500000);
	return 0;
}
