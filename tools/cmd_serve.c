/* SPDX-License-Identifier: MIT */
/*
 * `perfvisor serve`: live per-VM figures over HTTP for Prometheus. It reads a hypervisor's
 * console (QEMU's output, a pipe, a file, a Unix socket), keeps each vCPU's last live figures
 * record (records.h) and serves them at /metrics (libmicrohttpd): the Prometheus text format
 * 0.0.4 by default, OpenMetrics 1.0.0 when the scraper's Accept header asks for it.
 *
 *   perfvisor serve [--listen ADDR:PORT] [--input FILE|-|unix:PATH] [--echo]
 *   perfvisor serve --scenario FILE [--period SECONDS] [--listen ADDR:PORT]
 *
 * Console lines that are not records go to stdout with --echo. At the end of the input it
 * keeps serving the last figures until SIGINT or SIGTERM. With --scenario it runs a scenario
 * on the simulated machine again and again instead (a new seed each run, a run every period)
 * and serves the last run's figures, as `stats --format openmetrics|prometheus` prints them.
 *
 * What a guest or a client can make it hold is bounded (docs/operator.md, "The limits"): a
 * console line is held up to REC_LINE_MAX bytes, a longer one only counted and echoed; at most
 * SERVE_CONNECTIONS connections are kept, each with SERVE_DEADLINE_S for a whole request.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "options.h"
#include "records_expo.h"
#include "run.h"
#include "tool.h"

#define SERVE_DEFAULT_LISTEN "127.0.0.1:9464"

/* Connections kept open: a scraper needs one, a few people with curl a few more. A new one
 * past this closes the one whose request began longest ago, so that slow clients, however
 * many and from however many addresses, cannot keep a scraper out: it is the newest. */
#define SERVE_CONNECTIONS 64
/* Seconds a connection has for a whole request, from its opening (or from the end of its
 * last answer, kept alive) to the end of the answer: Prometheus' own default scrape timeout.
 * Not an idle timeout: bytes trickled in do not extend it. */
#define SERVE_DEADLINE_S 10
/* libmicrohttpd's own limit, above ours by the connections being closed: it accepts at most
 * 10 a turn, and closes those cut at the next, so it never reaches this and stops accepting. */
#define SERVE_MHD_CONNECTIONS (SERVE_CONNECTIONS + 32)

/* A connection, from libmicrohttpd's start notification to its close notification. */
struct conn {
	struct conn *prev, *next; /* in the open list, the oldest request first */
	int fd;
	uint64_t start_ms; /* when its current request began */
	bool listed;       /* in the list: not cut */
};

/* The connections, touched only by the HTTP thread (libmicrohttpd's callbacks run there). */
struct conns {
	struct conn *head, *tail;
	unsigned n; /* listed */
	uint64_t cut_deadline, cut_limit;
};

struct serve {
	pthread_mutex_t lock; /* guards store and report */
	struct rec_store store;
	bool scenario_mode;
	bool have_report; /* report holds a run's figures */
	struct report report;
	struct conns conns;
};

static void serve_usage(FILE *out)
{
	fputs("usage: perfvisor serve [options]\n"
	      "\n"
	      "Serves the live figures records a hypervisor writes on its console\n"
	      "(records_ms=N for perfvisor's hypervisor), or the figures of a scenario run "
	      "again\n"
	      "and again on the simulated machine, as metrics at http://ADDR:PORT/metrics: "
	      "the\n"
	      "Prometheus text format 0.0.4, or OpenMetrics 1.0.0 when the Accept header "
	      "asks.\n"
	      "\n"
	      "  -l, --listen ADDR:PORT  IPv4 address and port (default " SERVE_DEFAULT_LISTEN
	      "; port 0:\n"
	      "                          a free one, printed on stderr)\n"
	      "  -i, --input SOURCE      the console: a file, - (standard input, the default) "
	      "or\n"
	      "                          unix:PATH (a Unix socket, e.g. QEMU's -serial\n"
	      "                          unix:PATH,server)\n"
	      "  -e, --echo              copy the console's other lines to stdout\n"
	      "  -s, --scenario FILE     run this scenario instead, a new seed each run, and "
	      "serve\n"
	      "                          the last run's figures\n"
	      "  -p, --period SECONDS    with --scenario, a run every SECONDS (default 10)\n"
	      "  -h, --help              this text\n",
	      out);
}

static bool parse_listen(const char *s, struct sockaddr_in *sa)
{
	const char *colon = strrchr(s, ':');
	if (!colon || colon == s)
		return false;
	char host[64];
	size_t n = (size_t)(colon - s);
	if (n >= sizeof(host))
		return false;
	memcpy(host, s, n);
	host[n] = '\0';
	char *end;
	errno = 0;
	unsigned long port = strtoul(colon + 1, &end, 10);
	if (errno || *end || colon[1] == '\0' || port > 65535)
		return false;
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)port);
	return inet_pton(AF_INET, host, &sa->sin_addr) == 1;
}

static FILE *open_input(const char *src)
{
	if (!src) {
		errno = EINVAL;
		return NULL;
	}
	if (strcmp(src, "-") == 0)
		return stdin;
	if (!strncmp(src, "unix:", 5)) {
		struct sockaddr_un sun = {.sun_family = AF_UNIX};
		if (strlen(src + 5) >= sizeof(sun.sun_path)) {
			errno = ENAMETOOLONG;
			return NULL;
		}
		memcpy(sun.sun_path, src + 5, strlen(src + 5) + 1);
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (fd < 0)
			return NULL;
		if (connect(fd, (struct sockaddr *)&sun, sizeof(sun))) {
			int e = errno;
			close(fd);
			errno = e;
			return NULL;
		}
		return fdopen(fd, "r");
	}
	return fopen(src, "r");
}

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void conn_unlink(struct conns *cs, struct conn *k)
{
	*(k->prev ? &k->prev->next : &cs->head) = k->next;
	*(k->next ? &k->next->prev : &cs->tail) = k->prev;
	k->prev = k->next = NULL;
	k->listed = false;
	cs->n--;
}

static void conn_append(struct conns *cs, struct conn *k)
{
	k->prev = cs->tail;
	k->next = NULL;
	*(cs->tail ? &cs->tail->next : &cs->head) = k;
	cs->tail = k;
	k->listed = true;
	cs->n++;
}

/* Cuts a connection: shut down, libmicrohttpd sees its end at its next turn and closes it
 * (the descriptor stays open until the close notification, so it is never another's). */
static void conn_cut(struct conns *cs, struct conn *k, uint64_t *count)
{
	shutdown(k->fd, SHUT_RDWR);
	conn_unlink(cs, k);
	(*count)++;
}

/* Cuts every connection whose request has had its SERVE_DEADLINE_S. */
static void conns_sweep(struct conns *cs)
{
	uint64_t now = now_ms();
	while (cs->head && now - cs->head->start_ms >= SERVE_DEADLINE_S * 1000ull)
		conn_cut(cs, cs->head, &cs->cut_deadline);
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	struct conns *cs = &((struct serve *)cls)->conns;
	struct conn *k = *socket_context;
	if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (k && k->listed)
			conn_unlink(cs, k);
		free(k);
		*socket_context = NULL;
		return;
	}
	const union MHD_ConnectionInfo *fd = MHD_get_connection_info(
		c, MHD_CONNECTION_INFO_CONNECTION_FD);
	k = calloc(1, sizeof(*k));
	if (!k) { /* a connection that cannot be kept to its deadline is not kept */
		if (fd)
			shutdown(fd->connect_fd, SHUT_RDWR);
		return;
	}
	k->fd = fd ? fd->connect_fd : -1;
	k->start_ms = now_ms();
	*socket_context = k;
	conn_append(cs, k);
	while (cs->head && cs->n > SERVE_CONNECTIONS)
		conn_cut(cs, cs->head, &cs->cut_limit);
}

/* An answer sent: a connection kept alive begins its next request now. */
static void on_completed(void *cls, struct MHD_Connection *c, void **req,
			 enum MHD_RequestTerminationCode toe)
{
	struct conns *cs = &((struct serve *)cls)->conns;
	(void)req, (void)toe;
	const union MHD_ConnectionInfo *info = MHD_get_connection_info(
		c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct conn *k = info ? info->socket_context : NULL;
	if (k && k->listed) {
		conn_unlink(cs, k);
		k->start_ms = now_ms();
		conn_append(cs, k);
	}
}

/* libmicrohttpd's messages are written while it starts (a port taken, ...). After that they
 * are of one client's connection (closed early, cut, malformed), which any client can make
 * it write as often as it likes: they are dropped, so that none can fill the operator's log
 * or block the server on a full stderr. */
static atomic_bool mhd_quiet;

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	if (atomic_load(&mhd_quiet))
		return;
	fputs("perfvisor serve: ", stderr);
	vfprintf(stderr, fmt, ap);
}

/* The HTTP thread: libmicrohttpd's turns (epoll, none of select's limit on descriptors), and
 * between them the deadlines, at most a quarter of a second late. */
struct http {
	struct MHD_Daemon *d;
	struct serve *sv;
	atomic_bool stop, failed;
};

static void *http_main(void *arg)
{
	struct http *h = arg;
	while (!atomic_load(&h->stop)) {
		if (MHD_run_wait(h->d, 250) != MHD_YES) {
			fprintf(stderr, "perfvisor serve: the HTTP server failed\n");
			atomic_store(&h->failed, true);
			kill(getpid(), SIGTERM); /* the main thread ends it */
			return NULL;
		}
		conns_sweep(&h->sv->conns);
	}
	return NULL;
}

/* serve's own family, after the records' (records mode): the connections it cut. */
static void cut_families(struct expo *e, const struct conns *cs)
{
	char help[160];
	snprintf(
		help, sizeof(help),
		"HTTP connections perfvisor serve closed: deadline (no whole request in %d s), "
		"limit (the oldest request when more than %d were open).",
		SERVE_DEADLINE_S, SERVE_CONNECTIONS);
	expo_family(e, "perfvisor_serve_connections_cut_total", EXPO_COUNTER, NULL, help);
	const char *deadline[] = {"reason", "deadline", NULL},
		   *limit[] = {"reason", "limit", NULL};
	expo_sample(e, deadline, cs->cut_deadline);
	expo_sample(e, limit, cs->cut_limit);
}

/* A response of `body` (len bytes, freed by MHD; NULL: none could be made); `allow`, when
 * not NULL, is its Allow header. */
static enum MHD_Result answer(struct MHD_Connection *c, unsigned status, const char *type,
			      const char *allow, char *body, size_t len)
{
	if (!body)
		return MHD_NO;
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body,
								 MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (allow)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
	enum MHD_Result res = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return res;
}

static enum MHD_Result answer_text(struct MHD_Connection *c, unsigned status, const char *allow,
				   const char *text)
{
	return answer(c, status, "text/plain", allow, strdup(text), strlen(text));
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version,
				  const char *upload_data, size_t *upload_data_size, void **req)
{
	struct serve *sv = cls;
	(void)version, (void)upload_data;
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return answer_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "GET, HEAD",
				   "only GET and HEAD\n");
	if (*upload_data_size) /* no request body is wanted */
		return MHD_NO;
	/* The first call comes with the headers: answered only at the second, once the request
	 * has been read whole, libmicrohttpd keeps the connection alive for the next one. */
	if (!*req) {
		*req = sv;
		return MHD_YES;
	}
	if (strcmp(url, "/metrics") != 0)
		return answer_text(c, strcmp(url, "/") != 0 ? MHD_HTTP_NOT_FOUND : MHD_HTTP_OK,
				   NULL, "perfvisor serve: the metrics are at /metrics\n");
	enum expo_format f = expo_negotiate(
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept"));
	char *body = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&body, &len);
	if (!out)
		return MHD_NO;
	struct expo e;
	expo_begin(&e, out, f);
	pthread_mutex_lock(&sv->lock);
	if (!sv->scenario_mode) {
		records_expo(&e, &sv->store);
		cut_families(&e, &sv->conns);
		expo_end(&e);
	} else if (sv->have_report) {
		report_metrics(&sv->report, out, f);
	} else {
		expo_end(&e); /* before the first run ends: no family yet */
	}
	pthread_mutex_unlock(&sv->lock);
	if (fclose(out)) {
		free(body);
		return MHD_NO;
	}
	return answer(c, MHD_HTTP_OK, expo_content_type(f), NULL, body, len);
}

/* Where the console's pieces go: records into the store, the rest to stdout with --echo. */
struct console {
	struct serve *sv;
	bool echo;
};

static void echo_bytes(struct console *con, const char *bytes, size_t len)
{
	/* A reader of stdout that went away ends the echo, not the server. */
	if (con->echo && (fwrite(bytes, 1, len, stdout) != len || fflush(stdout) == EOF))
		con->echo = false;
}

static void on_piece(void *ctx, enum rec_piece kind, const char *bytes, size_t len)
{
	struct console *con = ctx;
	enum rec_status st = REC_NOT_RECORD;
	if (kind != REC_LONG_MORE) {
		pthread_mutex_lock(&con->sv->lock);
		if (kind == REC_LINE)
			st = rec_store_line(&con->sv->store, bytes, len);
		else
			con->sv->store.lines[REC_TOO_LONG]++;
		pthread_mutex_unlock(&con->sv->lock);
	}
	if (st == REC_NOT_RECORD)
		echo_bytes(con, bytes, len);
}

/* Reads the console into the store, line by line, holding no more than a record can be: a
 * longer line is counted once (too-long) when it passes the bound, then goes by in pieces
 * (echoed with --echo) up to its newline, never held; a line is whatever comes up to its
 * newline, NUL bytes included (a record never holds one: rec_parse refuses it). */
static void read_console(struct serve *sv, FILE *in, bool echo)
{
	static struct rec_lines lines;
	static char buf[65536];
	struct console con = {sv, echo};
	int fd = fileno(in);
	for (;;) {
		ssize_t got = read(fd, buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		rec_lines_feed(&lines, buf, (size_t)got, on_piece, &con);
	}
	rec_lines_end(&lines, on_piece, &con);
}

struct reader {
	struct serve *sv;
	FILE *in;
	bool echo;
	const char *name;
};

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	read_console(r->sv, r->in, r->echo);
	fprintf(stderr, "perfvisor serve: end of %s; serving the last figures until stopped\n",
		r->name);
	return NULL;
}

/* The scenario mode: runs the scenario for ever, one seed after another, each run's report
 * replacing the last under the lock (its counters start again, as after a restart). */
struct runner {
	struct serve *sv;
	struct scenario *sc;
	unsigned period_s;
};

static void *runner_main(void *arg)
{
	struct runner *rn = arg;
	uint64_t seed = rn->sc->seed;
	for (;;) {
		struct run *r = calloc(1, sizeof(*r));
		struct report rep = {0};
		struct diag d;
		rn->sc->seed = seed++;
		if (!r || run_prepare(r, rn->sc, &d)) {
			fprintf(stderr, "perfvisor serve: %s\n", r ? d.msg : "out of memory");
			free(r);
			return NULL;
		}
		run_execute(r, NULL);
		int err = run_report(r, &rep);
		run_free(r);
		free(r);
		if (err) {
			fprintf(stderr, "perfvisor serve: out of memory\n");
			return NULL;
		}
		pthread_mutex_lock(&rn->sv->lock);
		if (rn->sv->have_report)
			report_free(&rn->sv->report);
		rn->sv->report = rep;
		rn->sv->have_report = true;
		pthread_mutex_unlock(&rn->sv->lock);
		sleep(rn->period_s);
	}
}

int tool_serve(int argc, char **argv)
{
	static const struct option opts[] = {
		{"listen", required_argument, NULL, 'l'},
		{"input", required_argument, NULL, 'i'},
		{"echo", no_argument, NULL, 'e'},
		{"help", no_argument, NULL, 'h'},
		{"scenario", required_argument, NULL, 's'},
		{"period", required_argument, NULL, 'p'},
		{NULL, 0, NULL, 0},
	};
	static const char *const hints[] = {
		"IPV4-ADDRESS:PORT", "a file, - or unix:PATH", NULL, NULL,
		"a scenario file",   "seconds, 1 to 3600",     NULL};
	const struct tool_options o = {
		.cmd = "serve", .shortopts = "l:i:ehs:p:", .longopts = opts, .hints = hints};
	const char *listen = SERVE_DEFAULT_LISTEN, *input = "-", *scenario = NULL;
	unsigned long period = 10;
	char *end;
	bool echo = false;
	int c;
	optind = 1;
	while ((c = tool_getopt(&o, argc, argv)) != -1) {
		switch (c) {
		case 'l':
			listen = optarg;
			break;
		case 'i':
			input = optarg;
			break;
		case 'e':
			echo = true;
			break;
		case 's':
			scenario = optarg;
			break;
		case 'p':
			errno = 0;
			period = strtoul(optarg, &end, 10);
			if (errno || *end || optarg[0] == '-' || period < 1 || period > 3600) {
				fprintf(stderr,
					"perfvisor serve: --period '%s' is not seconds from 1 "
					"to 3600\n",
					optarg);
				fputs("Try 'perfvisor serve --help' for its options.\n",
				      stderr);
				return 2;
			}
			break;
		case 'h':
			serve_usage(stdout);
			return 0;
		default:
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "perfvisor serve: unexpected argument '%s'\n", argv[optind]);
		fputs("Try 'perfvisor serve --help' for its options.\n", stderr);
		return 2;
	}
	struct sockaddr_in sa;
	if (!parse_listen(listen, &sa)) {
		fprintf(stderr, "perfvisor serve: --listen '%s' is not IPV4-ADDRESS:PORT\n",
			listen);
		return 2;
	}
	static struct serve sv = {.lock = PTHREAD_MUTEX_INITIALIZER};
	static struct scenario sc;
	FILE *in = NULL;
	if (scenario) {
		struct diag d;
		if (scenario_load(scenario, NULL, &sc, &d)) {
			fprintf(stderr, "perfvisor serve: %s\n", d.msg);
			return 1;
		}
		for (unsigned i = 0; i < sc.nvms; i++)
			tool_warnings(&sc.vm[i].dom);
		sv.scenario_mode = true;
	} else if (!(in = open_input(input))) {
		fprintf(stderr, "perfvisor serve: %s: %s\n", input, strerror(errno));
		return 1;
	}
	/* SIGINT and SIGTERM end it; blocked here so that the server's thread never takes them
	 * and sigwait() below does. */
	signal(SIGPIPE, SIG_IGN); /* a write to a reader that went away fails, and says so */
	sigset_t stop;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	/* Driven by a thread of ours (below) so that the deadlines are kept between its turns;
	 * no per-address limit: on loopback every client may share the scraper's address. */
	struct MHD_Daemon *d = MHD_start_daemon(
		MHD_USE_EPOLL | MHD_USE_ERROR_LOG, 0, NULL, NULL, on_request, &sv,
		MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL, MHD_OPTION_SOCK_ADDR,
		(struct sockaddr *)&sa, MHD_OPTION_CONNECTION_LIMIT,
		(unsigned int)SERVE_MHD_CONNECTIONS, MHD_OPTION_NOTIFY_CONNECTION,
		on_connection, &sv, MHD_OPTION_NOTIFY_COMPLETED, on_completed, &sv,
		MHD_OPTION_END);
	atomic_store(&mhd_quiet, true);
	if (!d) {
		fprintf(stderr, "perfvisor serve: cannot listen on %s\n", listen);
		if (in && in != stdin)
			fclose(in);
		return 1;
	}
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	char addr[INET_ADDRSTRLEN];
	inet_ntop(AF_INET, &sa.sin_addr, addr, sizeof(addr));
	fprintf(stderr, "perfvisor serve: http://%s:%u/metrics\n", addr,
		info ? info->port : ntohs(sa.sin_port));
	/* The console in a thread of its own, HTTP in another, the main thread waiting for the
	 * signal: either may come first. */
	struct reader rd = {&sv, in, echo, input};
	struct runner rn = {&sv, &sc, (unsigned)period};
	struct http h = {.d = d, .sv = &sv};
	atomic_init(&h.stop, false);
	atomic_init(&h.failed, false);
	pthread_t t, ht;
	if (pthread_create(&ht, NULL, http_main, &h)) {
		fprintf(stderr, "perfvisor serve: cannot start the HTTP server\n");
		MHD_stop_daemon(d);
		return 1;
	}
	if (scenario ? pthread_create(&t, NULL, runner_main, &rn)
		     : pthread_create(&t, NULL, reader_main, &rd)) {
		fprintf(stderr, "perfvisor serve: cannot start the reader\n");
		atomic_store(&h.stop, true);
		pthread_join(ht, NULL);
		MHD_stop_daemon(d);
		return 1;
	}
	int sig = 0;
	sigwait(&stop, &sig);
	atomic_store(&h.stop, true);
	pthread_join(ht, NULL);
	MHD_stop_daemon(d);
	/* the reader may still block on its input: the process ends with it */
	return atomic_load(&h.failed) ? 1 : 0;
}
