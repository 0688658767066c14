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
 */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "options.h"
#include "records_expo.h"
#include "run.h"
#include "tool.h"

#define SERVE_DEFAULT_LISTEN "127.0.0.1:9464"

struct serve {
	pthread_mutex_t lock; /* guards store and report */
	struct rec_store store;
	bool scenario_mode;
	bool have_report; /* report holds a run's figures */
	struct report report;
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
	(void)version, (void)upload_data, (void)req;
	if (*upload_data_size) /* no request body is wanted */
		return MHD_NO;
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return answer_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "GET, HEAD",
				   "only GET and HEAD\n");
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

/* Reads the console line by line into the store; a line longer than a record can be is not
 * one (it is echoed in pieces, and counted once: as not a record, or as a truncated one). */
static void read_console(struct serve *sv, FILE *in, bool echo)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t got;
	/* getline: a line is whatever comes up to its newline, NUL bytes included (a record
	 * never holds one: rec_parse refuses it, by its length). */
	while ((got = getline(&line, &cap, in)) > 0) {
		size_t n = (size_t)got;
		pthread_mutex_lock(&sv->lock);
		enum rec_status st = rec_store_line(&sv->store, line, n);
		pthread_mutex_unlock(&sv->lock);
		if (echo && st == REC_NOT_RECORD) {
			/* A reader of stdout that went away ends the echo, not the server. */
			if (fwrite(line, 1, n, stdout) != n || fflush(stdout) == EOF)
				echo = false;
		}
	}
	free(line);
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
	/* A scraper that never finishes its request, or many of them, must not starve the
	 * others: each connection has 10 s, and one address at most 16 at once. */
	struct MHD_Daemon *d = MHD_start_daemon(
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ERROR_LOG, 0, NULL,
		NULL, on_request, &sv, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)10,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)16, MHD_OPTION_END);
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
	/* The console in a thread of its own, the main thread waiting for the signal: either
	 * may come first. */
	struct reader rd = {&sv, in, echo, input};
	struct runner rn = {&sv, &sc, (unsigned)period};
	pthread_t t;
	if (scenario ? pthread_create(&t, NULL, runner_main, &rn)
		     : pthread_create(&t, NULL, reader_main, &rd)) {
		fprintf(stderr, "perfvisor serve: cannot start the reader\n");
		MHD_stop_daemon(d);
		return 1;
	}
	int sig = 0;
	sigwait(&stop, &sig);
	MHD_stop_daemon(d);
	return 0; /* the reader may still block on its input: the process ends with it */
}
