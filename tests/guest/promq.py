#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""HTTP and Prometheus helpers for tests/guest/prometheus.sh (standard library and Debian's
python3-prometheus-client only):

    promq.py get URL [ACCEPT]     the body on stdout, "Content-Type: ..." on stderr
    promq.py query URL EXPR       the values of an instant PromQL query through Prometheus'
                                  HTTP API, one "LABELS VALUE" line per series (sorted)
    promq.py openmetrics FILE     parses FILE with the client's strict OpenMetrics parser;
                                  prints "FAMILY TYPE SAMPLES" per family; exit 1 if refused

Exit status 1, with the reason on stderr, on any HTTP or parse failure.
"""
import json
import sys
import urllib.parse
import urllib.request


def get(url, accept=None):
    req = urllib.request.Request(url)
    if accept:
        req.add_header("Accept", accept)
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.headers.get("Content-Type", ""), r.read().decode("utf-8")


def main():
    cmd = sys.argv[1]
    try:
        if cmd == "get":
            ctype, body = get(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
            sys.stderr.write("Content-Type: %s\n" % ctype)
            sys.stdout.write(body)
        elif cmd == "query":
            url = sys.argv[2] + "/api/v1/query?" + urllib.parse.urlencode({"query": sys.argv[3]})
            _, body = get(url)
            data = json.loads(body)
            if data.get("status") != "success":
                raise ValueError("query failed: %s" % body)
            lines = []
            for s in data["data"]["result"]:
                labels = ",".join("%s=%s" % kv for kv in sorted(s["metric"].items()))
                lines.append("%s %s" % (labels, s["value"][1]))
            for line in sorted(lines):
                print(line)
        elif cmd == "openmetrics":
            from prometheus_client.openmetrics.parser import text_string_to_metric_families
            with open(sys.argv[2], encoding="utf-8") as f:
                for fam in text_string_to_metric_families(f.read()):
                    print(fam.name, fam.type, len(fam.samples))
        else:
            raise ValueError("unknown command %s" % cmd)
    except Exception as e:  # any failure is the test's: say which
        sys.stderr.write("promq.py %s: %s\n" % (cmd, e))
        sys.exit(1)


main()
