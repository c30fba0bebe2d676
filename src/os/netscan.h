/*
 * netscan.h - the listening TCP sockets of this box and the processes
 * behind them, for `gpurent env`'s security findings: /proc/net/tcp and
 * tcp6 (parsed by src/core/box/secscan.c), each socket's inode found among
 * /proc/PID/fd, the owner's command line, and for Jupyter its config
 * files, for sshd `sshd -T` (as root) or its sshd_config. The /proc root
 * is $GPURENT_PROC_ROOT when set (the tests give a private one), like
 * $GPURENT_CGROUP_ROOT in sys.c.
 */
#ifndef GPURENT_NETSCAN_H
#define GPURENT_NETSCAN_H

#include <stddef.h>

#include "core/box/secscan.h"

/* $GPURENT_PROC_ROOT, or "/proc". Static or borrowed from the environment. */
const char *netscan_proc_root(void);

/*
 * Fill f->listeners (every socket in state LISTEN, at most
 * SEC_MAX_LISTENERS) and f->net_read. A socket no readable /proc/PID/fd
 * holds gets pid -1. 0, or -1 with "FILE:LINE: field: expected ..." in
 * err when a /proc/net file does not parse (f->net_read false).
 */
int netscan_listeners(struct sec_facts *f, char *err, size_t errlen);

#endif
