/* SPDX-License-Identifier: MIT */
/*
 * A client of `perfvisor serve` for its tests and benchmarks: starts the tool with its console
 * on a pipe, scrapes /metrics over plain sockets with a deadline, reads the process' memory
 * from /proc, and keeps many slow clients open from many loopback addresses (each sends a
 * request line, then a header line every period, and never ends its request; one the server
 * closes comes back a period later). Header-only: the functions a program does not use cost
 * it nothing.
 */
#ifndef PERFVISOR_SERVE_CLIENT_H
#define PERFVISOR_SERVE_CLIENT_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static inline uint64_t sc_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static inline double sc_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A running `perfvisor serve`. */
struct sc_serve {
	pid_t pid;
	int in;  /* its console (stdin), -1 once closed */
	int err; /* its stderr */
	uint16_t port;
	char errtext[4096]; /* what it printed on stderr so far */
	size_t errlen;
};

/* Reads the server's stderr until `want` is in it or timeout_ms pass; true if it is. */
static inline bool sc_wait_stderr(struct sc_serve *s, const char *want, int timeout_ms)
{
	uint64_t end = sc_now_ms() + (uint64_t)timeout_ms;
	for (;;) {
		s->errtext[s->errlen] = '\0';
		if (strstr(s->errtext, want))
			return true;
		uint64_t now = sc_now_ms();
		if (now >= end)
			return false;
		struct pollfd p = {.fd = s->err, .events = POLLIN};
		if (poll(&p, 1, (int)(end - now)) <= 0)
			continue;
		ssize_t got = read(s->err, s->errtext + s->errlen,
				   sizeof(s->errtext) - 1 - s->errlen);
		if (got <= 0)
			return false;
		s->errlen += (size_t)got;
	}
}

/* Starts `tool serve --listen 127.0.0.1:0 ARGS...` (ARGS NULL-terminated), its stdin a pipe
 * of ours, its stdout /dev/null unless `out` names a file; true once it listens. */
static inline bool sc_start(struct sc_serve *s, const char *tool, const char *out,
			    const char *const *args)
{
	int in[2], err[2];
	memset(s, 0, sizeof(*s));
	s->in = s->err = -1;
	if (pipe(in) || pipe(err))
		return false;
	const char *argv[32] = {tool, "serve", "--listen", "127.0.0.1:0"};
	unsigned n = 4;
	for (unsigned i = 0; args && args[i] && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	s->pid = fork();
	if (s->pid < 0)
		return false;
	if (s->pid == 0) {
		int o = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(in[0], 0);
		dup2(o, 1);
		dup2(err[1], 2);
		close(in[0]);
		close(in[1]);
		close(err[0]);
		close(err[1]);
		close(o);
		execv(tool, (char *const *)argv);
		_exit(127);
	}
	close(in[0]);
	close(err[1]);
	s->in = in[1];
	s->err = err[0];
	signal(SIGPIPE, SIG_IGN);
	if (!sc_wait_stderr(s, "/metrics\n", 10000))
		return false;
	const char *p = strstr(s->errtext, "http://127.0.0.1:");
	s->port = p ? (uint16_t)atoi(p + strlen("http://127.0.0.1:")) : 0;
	return s->port != 0;
}

/* Writes all of [bytes, bytes + len) to its console; false if it went away. */
static inline bool sc_write(struct sc_serve *s, const void *bytes, size_t len)
{
	const char *p = bytes;
	while (len) {
		ssize_t w = write(s->in, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		len -= (size_t)w;
	}
	return true;
}

static inline void sc_close_input(struct sc_serve *s)
{
	if (s->in >= 0)
		close(s->in);
	s->in = -1;
}

/* Stops it (SIGTERM, then SIGKILL after 5 s); its exit status, -1 if killed. */
static inline int sc_stop(struct sc_serve *s)
{
	int st = 0;
	sc_close_input(s);
	if (s->pid <= 0)
		return -1;
	kill(s->pid, SIGTERM);
	for (unsigned i = 0; i < 500; i++) {
		if (waitpid(s->pid, &st, WNOHANG) == s->pid) {
			s->pid = 0;
			close(s->err);
			return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
		}
		usleep(10000);
	}
	kill(s->pid, SIGKILL);
	waitpid(s->pid, &st, 0);
	s->pid = 0;
	close(s->err);
	return -1;
}

/* A line of /proc/PID/status in KiB ("VmRSS", "VmHWM"); 0 if it cannot be read. */
static inline unsigned long sc_proc_kib(pid_t pid, const char *key)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	unsigned long v = 0;
	size_t kl = strlen(key);
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) && line[kl] == ':')
			v = strtoul(line + kl + 1, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

/* The CPU time the process has used, in seconds (/proc/PID/stat: user and system); -1 if it
 * cannot be read. */
static inline double sc_proc_cpu_s(pid_t pid)
{
	char path[64], text[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
	if (f)
		fclose(f);
	text[n] = '\0';
	/* after the command's name, in parentheses: state is field 3, utime 14, stime 15 */
	const char *p = strrchr(text, ')');
	unsigned long long ut, st;
	if (!p || sscanf(p + 2, "%*c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu %llu", &ut,
			 &st) != 2)
		return -1;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* A connection to 127.0.0.1:port from `from` (NULL: any), not blocking. */
static inline int sc_connect(uint16_t port, const char *from)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	struct sockaddr_in sa = {.sin_family = AF_INET};
	if (from) {
		inet_pton(AF_INET, from, &sa.sin_addr);
		if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
			close(fd);
			return -1;
		}
	}
	sa.sin_port = htons(port);
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) && errno != EINPROGRESS) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A scrape: GET `path` (Connection: close) with `accept` as its Accept header (NULL: none),
 * all of it within timeout_ms. Returns the HTTP status (0: none in time, or no connection);
 * *body (malloc'd, NUL-terminated, the caller frees) and *len the body. */
static inline int sc_get(uint16_t port, const char *path, const char *accept, int timeout_ms,
			 char **body, size_t *len)
{
	*body = NULL;
	*len = 0;
	uint64_t end = sc_now_ms() + (uint64_t)timeout_ms;
	int fd = sc_connect(port, NULL);
	if (fd < 0)
		return 0;
	char req[512];
	int rl = snprintf(
		req, sizeof(req),
		"GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%s%s%sConnection: close\r\n\r\n", path,
		accept ? "Accept: " : "", accept ? accept : "", accept ? "\r\n" : "");
	size_t sent = 0, cap = 65536, n = 0;
	char *buf = malloc(cap);
	int status = 0;
	while (buf) {
		uint64_t now = sc_now_ms();
		if (now >= end)
			break;
		struct pollfd p = {.fd = fd, .events = sent < (size_t)rl ? POLLOUT : POLLIN};
		if (poll(&p, 1, (int)(end - now)) <= 0)
			continue;
		if (sent < (size_t)rl) {
			ssize_t w = send(fd, req + sent, (size_t)rl - sent, MSG_NOSIGNAL);
			if (w < 0 && errno != EAGAIN)
				break;
			sent += w > 0 ? (size_t)w : 0;
			continue;
		}
		if (n + 1 >= cap) {
			char *b = realloc(buf, cap *= 2);
			if (!b)
				break;
			buf = b;
		}
		ssize_t got = recv(fd, buf + n, cap - n - 1, 0);
		if (got < 0 && errno == EAGAIN)
			continue;
		if (got <= 0) { /* the end of the answer: Connection: close */
			buf[n] = '\0';
			char *hend = strstr(buf, "\r\n\r\n");
			if (hend && !strncmp(buf, "HTTP/1.", 7) && n > 12) {
				status = atoi(buf + 9);
				*len = n - (size_t)(hend + 4 - buf);
				memmove(buf, hend + 4, *len + 1);
				*body = buf;
				buf = NULL;
			}
			break;
		}
		n += (size_t)got;
	}
	free(buf);
	close(fd);
	return status;
}

/* The value of the first sample line that starts with `sample` ("name{labels}") in an
 * exposition; -1 without one. */
static inline long long sc_sample(const char *text, const char *sample)
{
	size_t sl = strlen(sample);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, sample, sl) && p[sl] == ' ')
			return atoll(p + sl + 1);
	return -1;
}

/* Slow clients: n connections from `addrs` loopback addresses (127.1.X.Y), each sending a
 * request line and then a header line every period_ms, for ever; one the server closes is
 * opened again period_ms later. A thread of their own drives them. */
struct sc_slow {
	unsigned n, addrs, period_ms;
	uint16_t port;
	int *fd;
	bool *started;     /* its request line is sent */
	uint64_t *next_ms; /* when it next sends, or opens again */
	atomic_bool stop;
	atomic_uint open;            /* connected and not closed */
	atomic_ulong opened, closed; /* connections made; closed by the server */
	pthread_t thread;
};

static inline void sc_slow_close(struct sc_slow *c, unsigned i, uint64_t now)
{
	close(c->fd[i]);
	c->fd[i] = -1;
	c->next_ms[i] = now + c->period_ms;
	if (c->started[i])
		atomic_fetch_sub(&c->open, 1);
	atomic_fetch_add(&c->closed, 1);
}

static inline void *sc_slow_main(void *arg)
{
	struct sc_slow *c = arg;
	char from[32], sink[256];
	struct pollfd *p = calloc(c->n, sizeof(*p));
	while (p && !atomic_load(&c->stop)) {
		/* Those the server closed: readable, at their end. */
		for (unsigned i = 0; i < c->n; i++)
			p[i] = (struct pollfd){.fd = c->fd[i], .events = POLLIN};
		poll(p, c->n, 10);
		uint64_t now = sc_now_ms();
		for (unsigned i = 0; i < c->n; i++) {
			if (c->fd[i] >= 0 && p[i].revents) {
				ssize_t got = recv(c->fd[i], sink, sizeof(sink), MSG_DONTWAIT);
				if (got == 0 ||
				    (got < 0 && errno != EAGAIN && errno != ENOTCONN)) {
					sc_slow_close(c, i, now);
					continue;
				}
			}
			if (now < c->next_ms[i])
				continue;
			if (c->fd[i] < 0) {
				unsigned a = i % c->addrs;
				snprintf(from, sizeof(from), "127.1.%u.%u", a / 250,
					 a % 250 + 1);
				c->fd[i] = sc_connect(c->port, from);
				c->started[i] = false;
				c->next_ms[i] = now + 20;
				if (c->fd[i] >= 0)
					atomic_fetch_add(&c->opened, 1);
				continue;
			}
			const char *msg = c->started[i]
						  ? "X-Slow: 1\r\n"
						  : "GET /metrics HTTP/1.1\r\nHost: x\r\n";
			ssize_t w = send(c->fd[i], msg, strlen(msg),
					 MSG_NOSIGNAL | MSG_DONTWAIT);
			if (w > 0) {
				if (!c->started[i])
					atomic_fetch_add(&c->open, 1);
				c->started[i] = true;
				/* spread over the period, so the lines do not come all at once */
				c->next_ms[i] = now + c->period_ms -
						(i * 7919u) % (c->period_ms / 4);
			} else if (errno == EAGAIN || errno == ENOTCONN) {
				c->next_ms[i] = now + 20; /* not connected yet */
			} else {
				sc_slow_close(c, i, now);
			}
		}
	}
	free(p);
	for (unsigned i = 0; i < c->n; i++)
		if (c->fd[i] >= 0)
			close(c->fd[i]);
	return NULL;
}

/* Room for `fds` descriptors, raising the soft limit as far as the hard one; false if not. */
static inline bool sc_fd_room(rlim_t fds)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl))
		return false;
	if (rl.rlim_cur >= fds)
		return true;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < fds)
		return false;
	rl.rlim_cur = fds;
	return setrlimit(RLIMIT_NOFILE, &rl) == 0;
}

static inline bool sc_slow_start(struct sc_slow *c, uint16_t port, unsigned n, unsigned addrs,
				 unsigned period_ms)
{
	memset(c, 0, sizeof(*c));
	c->n = n;
	c->addrs = addrs;
	c->period_ms = period_ms;
	c->port = port;
	c->fd = malloc(n * sizeof(*c->fd));
	c->started = calloc(n, sizeof(*c->started));
	c->next_ms = calloc(n, sizeof(*c->next_ms));
	if (!c->fd || !c->started || !c->next_ms)
		return false;
	for (unsigned i = 0; i < n; i++)
		c->fd[i] = -1;
	atomic_init(&c->stop, false);
	return pthread_create(&c->thread, NULL, sc_slow_main, c) == 0;
}

/* Waits until `want` of them have sent their request line, at most timeout_ms. */
static inline bool sc_slow_wait_open(struct sc_slow *c, unsigned want, int timeout_ms)
{
	uint64_t end = sc_now_ms() + (uint64_t)timeout_ms;
	while (atomic_load(&c->open) < want)
		if (sc_now_ms() >= end)
			return false;
		else
			usleep(10000);
	return true;
}

static inline void sc_slow_stop(struct sc_slow *c)
{
	atomic_store(&c->stop, true);
	pthread_join(c->thread, NULL);
	free(c->fd);
	free(c->started);
	free(c->next_ms);
}

#endif
