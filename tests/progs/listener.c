/*
 * listener.c - a socket that only listens, for `gpurent env`'s security
 * tests: binds ADDR (0.0.0.0, 127.0.0.1, ::, ::1) on a free port, writes
 * the port to PORTFILE (whole, by rename), accepts and closes whatever
 * connects, and exits when its parent (the test) goes away. The test
 * copies it under a telling name (jupyter-lab, tensorboard, sshd) and may
 * add words the scan reads from its command line; they are ignored here.
 *
 *   listener ADDR PORTFILE [WORD...]
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_storage ss = {0};
	socklen_t len;
	int s, one = 1, port;
	pid_t parent = getppid();
	char tmp[4096];
	FILE *pf;

	if (argc < 3) {
		fprintf(stderr, "usage: listener ADDR PORTFILE [WORD...]\n");
		return 2;
	}
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (strchr(argv[1], ':')) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		a->sin6_family = AF_INET6;
		if (inet_pton(AF_INET6, argv[1], &a->sin6_addr) != 1)
			return 2;
		len = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		a->sin_family = AF_INET;
		if (inet_pton(AF_INET, argv[1], &a->sin_addr) != 1)
			return 2;
		len = sizeof(*a);
	}
	if ((s = socket(ss.ss_family, SOCK_STREAM, 0)) < 0) {
		perror("socket");
		return 1;
	}
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ss.ss_family == AF_INET6)
		setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(s, (struct sockaddr *)&ss, len) || listen(s, 8)) {
		perror("bind");
		return 1;
	}
	len = sizeof(ss);
	if (getsockname(s, (struct sockaddr *)&ss, &len))
		return 1;
	port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
					      : ((struct sockaddr_in *)&ss)->sin_port);
	snprintf(tmp, sizeof(tmp), "%s.tmp", argv[2]);
	if (!(pf = fopen(tmp, "w")))
		return 1;
	fprintf(pf, "%d\n", port);
	if (fclose(pf) || rename(tmp, argv[2]))
		return 1;
	while (getppid() == parent) {
		struct pollfd p = {.fd = s, .events = POLLIN};
		if (poll(&p, 1, 500) > 0) {
			int c = accept(s, NULL, NULL);
			if (c >= 0)
				close(c);
		}
	}
	return 0;
}
