// SPDX-License-Identifier: GPL-2.0-only
/*
 * uso-send: a cheap load generator for tools/onesided.  It sends UDP
 * super-datagrams of SEGMENTS x SIZE bytes with UDP_SEGMENT (UDP GSO,
 * Linux >= 4.18) to ADDRESS for SECONDS.  Routed into a TUN device that
 * offers UDP segmentation offload (TUN_F_USO4/6, Linux >= 6.2), each send
 * reaches the device's reader as one super-packet: the generator pays one
 * system call and one copy per 64 KB, and the reader does the cutting.
 *
 * A reader that cannot keep up fills the device's queue; with the device's
 * qdisc set to noqueue the drop comes back to this socket as ENOBUFS
 * (IP_RECVERR / IPV6_RECVERR), and the generator sleeps BACKOFF
 * microseconds before it tries again, instead of spinning on sends that
 * are dropped.  A queue of 500 super-packets (the TUN default) takes tens
 * of milliseconds to drain, so the default 2 ms keeps it full while
 * wasting about one send in twenty.
 *
 * At the end (SECONDS, or SIGTERM / SIGINT) it prints one line: sends,
 * bytes accepted by the kernel, ENOBUFS refusals, seconds, and its own
 * user and system CPU seconds.
 *
 * Usage: uso-send [-s SIZE] [-n SEGMENTS] [-t SECONDS] [-p PORT] [-w BACKOFF] ADDRESS
 * (defaults: -s 1392, the UDP payload of a 1420-byte IPv4 packet; -n 47,
 * the most that fit an IP packet's 65,535 bytes; -t 10; -p 9; -w 2000)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103		/* include/uapi/linux/udp.h */
#endif

#define USO_MAX_PAYLOAD 65507	/* 65,535 minus the IPv4 and UDP headers */

struct opts {
	unsigned long size, segments, seconds, port, backoff_us;
	const char *addr;
};

struct totals {
	unsigned long long sends, bytes, refused;
	double seconds;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(void)
{
	fprintf(stderr, "usage: uso-send [-s SIZE] [-n SEGMENTS] [-t SECONDS] [-p PORT] [-w BACKOFF-US] ADDRESS\n");
	exit(2);
}

static unsigned long number(const char *s, unsigned long lo, unsigned long hi)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "uso-send: '%s': not a number from %lu to %lu\n", s, lo, hi);
		exit(2);
	}
	return v;
}

static void parse(int argc, char **argv, struct opts *o)
{
	int c;

	*o = (struct opts){ .size = 1392, .segments = 47, .seconds = 10, .port = 9, .backoff_us = 2000 };
	while ((c = getopt(argc, argv, "s:n:t:p:w:")) != -1) {
		switch (c) {
		case 's': o->size = number(optarg, 1, 65507); break;
		case 'n': o->segments = number(optarg, 1, 128); break;
		case 't': o->seconds = number(optarg, 1, 86400); break;
		case 'p': o->port = number(optarg, 1, 65535); break;
		case 'w': o->backoff_us = number(optarg, 1, 1000000); break;
		default: usage();
		}
	}
	if (optind != argc - 1)
		usage();
	o->addr = argv[optind];
	if (o->size * o->segments > USO_MAX_PAYLOAD) {
		fprintf(stderr, "uso-send: %lu x %lu bytes is more than a UDP datagram's %d\n", o->segments,
			o->size, USO_MAX_PAYLOAD);
		exit(2);
	}
}

/* A UDP socket connected to ADDRESS:PORT, segmenting, reporting drops. */
static int open_socket(const struct opts *o)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons((uint16_t)o->port) };
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons((uint16_t)o->port) };
	int seg = (int)o->size, one = 1, fd, v6;

	if (inet_pton(AF_INET, o->addr, &a4.sin_addr) == 1)
		v6 = 0;
	else if (inet_pton(AF_INET6, o->addr, &a6.sin6_addr) == 1)
		v6 = 1;
	else {
		fprintf(stderr, "uso-send: '%s' is not an IPv4 or IPv6 address\n", o->addr);
		exit(2);
	}
	fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 ||
	    setsockopt(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP, v6 ? IPV6_RECVERR : IP_RECVERR, &one, sizeof(one)) ||
	    (v6 ? connect(fd, (struct sockaddr *)&a6, sizeof(a6)) : connect(fd, (struct sockaddr *)&a4, sizeof(a4)))) {
		perror("uso-send: socket");
		exit(1);
	}
	if (o->segments > 1 && setsockopt(fd, SOL_UDP, UDP_SEGMENT, &seg, sizeof(seg))) {
		perror("uso-send: UDP_SEGMENT (Linux >= 4.18)");
		exit(1);
	}
	return fd;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Sends until the time is up or a signal came; ENOBUFS backs off. */
static void run(int fd, const struct opts *o, struct totals *t)
{
	size_t len = o->size * o->segments;
	struct timespec pause = { (time_t)(o->backoff_us / 1000000), (long)(o->backoff_us % 1000000) * 1000 };
	unsigned char *buf = malloc(len);
	double start = now_s(), end = start + (double)o->seconds;
	ssize_t r;

	if (!buf) {
		fprintf(stderr, "uso-send: out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < len; i++)
		buf[i] = (unsigned char)(i * 7 + 1);
	while (!stop && now_s() < end) {
		r = send(fd, buf, len, 0);
		if (r == (ssize_t)len) {
			t->sends++;
			t->bytes += len;
		} else if (r < 0 && errno == ENOBUFS) {
			t->refused++;
			nanosleep(&pause, NULL);
		} else if (!(r < 0 && errno == EINTR)) {
			/* EIO: the route's device offers no checksum offload; EMSGSIZE: too big */
			fprintf(stderr, "uso-send: send of %zu bytes: %s\n", len, r < 0 ? strerror(errno) : "short");
			exit(1);
		}
	}
	t->seconds = now_s() - start;
	free(buf);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct totals t = { 0 };
	struct rusage ru;
	struct opts o;
	int fd;

	parse(argc, argv, &o);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	fd = open_socket(&o);
	run(fd, &o, &t);
	close(fd);
	getrusage(RUSAGE_SELF, &ru);
	printf("uso-send: %llu sends of %lu x %lu bytes, %llu bytes in %.3f s (%.3f Gbit/s), %llu refused "
	       "(ENOBUFS), CPU %.3f s user %.3f s system\n",
	       t.sends, o.segments, o.size, t.bytes, t.seconds, t.seconds > 0 ? (double)t.bytes * 8 / t.seconds / 1e9 : 0,
	       t.refused, (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6);
	return 0;
}
