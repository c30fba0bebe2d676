/*
 * httpd.c - a tiny HTTP server for the guard's stop-URL tests. Listens on
 * 127.0.0.1 (a free port, written to PORTFILE), logs every request to
 * LOGFILE (request line, headers, body) and answers the n-th request with
 * the n-th STATUS given (the last one repeats; 200 when none). STATUS 0:
 * read the request, then never answer (and never close).
 *
 *   httpd PORTFILE LOGFILE [STATUS...]
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_in a = {0};
	socklen_t len = sizeof(a);
	int s, one = 1, n = 0;
	FILE *pf, *log;
	char tmp[4096];

	if (argc < 3) {
		fprintf(stderr, "usage: httpd PORTFILE LOGFILE [STATUS...]\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	if ((s = socket(AF_INET, SOCK_STREAM, 0)) < 0)
		return perror("socket"), 1;
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(s, 16) < 0 ||
	    getsockname(s, (struct sockaddr *)&a, &len) < 0)
		return perror("bind"), 1;
	snprintf(tmp, sizeof(tmp), "%s.tmp", argv[1]);
	if (!(pf = fopen(tmp, "w")))
		return perror(tmp), 1;
	fprintf(pf, "%d\n", ntohs(a.sin_port));
	fclose(pf);
	rename(tmp, argv[1]);
	for (;;) {
		char req[16384], resp[256];
		size_t got = 0;
		long clen = -1;
		char *hend = NULL;
		int c = accept(s, NULL, NULL), code;

		if (c < 0)
			continue;
		while (got < sizeof(req) - 1) {
			ssize_t r = read(c, req + got, sizeof(req) - 1 - got);
			if (r <= 0)
				break;
			got += (size_t)r;
			req[got] = '\0';
			if (!hend && (hend = strstr(req, "\r\n\r\n"))) {
				clen = 0;
				for (char *l = strstr(req, "\r\n"); l && l < hend; l = strstr(l + 2, "\r\n"))
					if (!strncasecmp(l + 2, "content-length:", 15))
						clen = strtol(l + 17, NULL, 10);
			}
			if (hend && (long)(got - (size_t)(hend + 4 - req)) >= clen)
				break;
		}
		req[got] = '\0';
		code = 3 + n < argc ? atoi(argv[3 + n]) : argc > 3 ? atoi(argv[argc - 1]) : 200;
		n++;
		if ((log = fopen(argv[2], "a"))) {
			char *w = req;
			for (char *r = req; *r; r++)   /* log lines without their \r */
				if (*r != '\r')
					*w++ = *r;
			*w = '\0';
			fprintf(log, "REQUEST %d answered %d\n%s\nEND\n", n, code, req);
			fclose(log);
		}
		if (code == 0)
			continue;   /* a server that hangs: the connection stays open, unanswered */
		snprintf(resp, sizeof(resp), "HTTP/1.1 %d X\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok", code);
		if (write(c, resp, strlen(resp)) < 0)
			perror("write");
		close(c);
	}
}
