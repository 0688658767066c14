#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Parses one perfvisor report format with a real parser and prints the figures in one
normalized form, one per line, for the tool tests to compare with the ground truth:

    DOMAIN <TAB> KEY <TAB> VALUE

KEY uses libvirt's domstats names where libvirt has one (perf.<event>,
memory.bandwidth.monitor.<N>.node.<M>.bytes.total / .bytes.local / .id, ...name, ...vcpus),
and vcpu.<id>.<REGISTER>.<EVENT> for a guest PMU counter (EVENT as perf spells it), vcpu.<id>.amu.<counter> for an
AMU counter (vcpu.<id>.amu.mhz: the frequency, rounded to MHz), feature.<spe|amu|mpam> for a
feature's state, perfvisor.spe.<figure> (our own domstats keys) for an SPE figure; a bandwidth
node also has ...node.<M>.bytes_per_second, .bound (the error bound of bytes.total),
.local_bound (that of bytes.local), .status and .local_status. OpenMetrics families are also
listed as
"#family <TAB> NAME <TAB> TYPE <TAB> UNIT".

    parse.py json|openmetrics|prometheus|domstats|table < REPORT

Any deviation from the format (invalid JSON, OpenMetrics or Prometheus text the Prometheus
client's parser for it refuses, a
domstats line that is not "  key=value") exits with status 1.
"""
import json
import re
import sys


# SPE figures: (JSON key, domstats key after "perfvisor.spe.", OpenMetrics family after
# "perfvisor_domain_spe_", table label), as tools/report.h REP_SPE_FIGURES names them.
SPE = [
    ("max_buffer_bytes", "buffer.max", "max_buffer_bytes", "max buffer bytes"),
    ("profiling", "profiling", "profiling", "profiling"),
    ("buffer_enables", "buffer.enables", "buffer_enables", "buffer enables"),
    ("records_written", "records.written", "records_written", "records written"),
    ("records_decoded", "records.decoded", "records_decoded", "records decoded"),
    ("records_valid", "records.valid", "records_valid", "records valid"),
    ("records_lost", "records.lost", "records_lost", "records lost"),
    ("collected_bytes", "bytes.collected", "collected_bytes", "bytes collected"),
    ("interrupts", "interrupts", "interrupts", "interrupts"),
    ("pinned_peak_bytes", "pinned.bytes.peak", "pinned_peak_bytes", "pinned bytes peak"),
    ("pinned_bytes", "pinned.bytes", "pinned_bytes", "pinned bytes"),
    ("pin_calls", "pin.calls", "pin_calls", "pin calls"),
    ("unpin_calls", "unpin.calls", "unpin_calls", "unpin calls"),
    ("stage2_faults", "stage2.faults", "stage2_faults", "stage-2 faults"),
    ("stage2_repaired", "stage2.repaired", "stage2_repaired", "stage-2 faults repaired"),
]


def out(domain, key, value):
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    print(f"{domain}\t{key}\t{value}")


def parse_json(text):
    doc = json.loads(text)
    assert doc["format"] == "perfvisor-stats/1", doc["format"]
    for d in doc["domains"]:
        name = d["name"]
        for event, fig in d["perf"].items():
            if "value" in fig:
                assert isinstance(fig["value"], int)
                out(name, f"perf.{event}", fig["value"])
        for v in d["vcpu"]:
            for c in v["counters"]:
                out(name, f"vcpu.{v['id']}.{c['register']}.{c['event_name']}", c["value"])
            for k, val in v.get("amu", {}).items():
                if k == "frequency_mhz":
                    out(name, f"vcpu.{v['id']}.amu.mhz", round(val))
                else:
                    out(name, f"vcpu.{v['id']}.amu.{k}", val)
        for feature in ("spe", "amu", "mpam"):
            if feature in d:
                out(name, f"feature.{feature}", d[feature]["state"])
        spe = d.get("spe", {})
        if spe.get("state") == "measured":
            out(name, "perfvisor.spe.version", spe["version"])
            for j, k, _, _ in SPE:
                v = spe[j]
                assert isinstance(v, bool) == (j == "profiling"), j
                out(name, f"perfvisor.spe.{k}", int(v))
        else:
            assert "records_written" not in spe, "an SPE figure without a measurement"
        for n, mon in enumerate(d.get("memory_bandwidth", [])):
            p = f"memory.bandwidth.monitor.{n}"
            out(name, f"{p}.name", mon["name"])
            out(name, f"{p}.vcpus", mon["vcpus"])
            out(name, f"{p}.node.count", len(mon["nodes"]))
            for m, node in enumerate(mon["nodes"]):
                out(name, f"{p}.node.{m}.id", node["id"])
                out(name, f"{p}.node.{m}.status", node["status"])
                out(name, f"{p}.node.{m}.local_status", node["local_status"])
                if node["status"] in ("measured", "estimated"):
                    out(name, f"{p}.node.{m}.bytes.total", node["bytes_total"])
                    out(name, f"{p}.node.{m}.bytes_per_second", node["bytes_per_second"])
                    out(name, f"{p}.node.{m}.bound", node["bound_bytes"])
                else:
                    assert "bytes_total" not in node, "a figure without a reading"
                local = node["local_status"] in ("measured", "estimated") and "bytes_total" in node
                assert ("bytes_local" in node) == local, "bytes.local without its reading"
                assert ("local_bound_bytes" in node) == local, "a local bound without a figure"
                if local:
                    out(name, f"{p}.node.{m}.bytes.local", node["bytes_local"])
                    out(name, f"{p}.node.{m}.local_bound", node["local_bound_bytes"])


def parse_openmetrics(text):
    from prometheus_client.openmetrics.parser import text_string_to_metric_families

    parse_metrics(text_string_to_metric_families(text))


def parse_prometheus(text):
    from prometheus_client.parser import text_string_to_metric_families

    assert "# EOF" not in text and "# UNIT" not in text, "OpenMetrics lines in the text format"
    parse_metrics(text_string_to_metric_families(text))


def parse_metrics(families):
    monitors = {}
    for fam in families:
        print(f"#family\t{fam.name}\t{fam.type}\t{fam.unit}")
        for s in fam.samples:
            lb = s.labels
            val = int(s.value) if float(s.value).is_integer() else s.value
            if s.name == "perfvisor_domain_perf_events_total":
                out(lb["domain"], f"perf.{lb['event']}", val)
            elif s.name == "perfvisor_vcpu_pmu_events":
                assert re.fullmatch(r"0x[0-9A-F]{4}", lb["event"]), lb["event"]
                out(lb["domain"], f"vcpu.{lb['vcpu']}.{lb['counter']}.{lb['name']}", val)
            elif s.name == "perfvisor_vcpu_amu_events_total":
                out(lb["domain"], f"vcpu.{lb['vcpu']}.amu.{lb['counter']}", val)
            elif s.name == "perfvisor_vcpu_amu_frequency_hertz":
                out(lb["domain"], f"vcpu.{lb['vcpu']}.amu.mhz", round(val / 1e6))
            elif s.name == "perfvisor_domain_spe_info":
                out(lb["domain"], "perfvisor.spe.version", lb["version"])
            elif s.name.startswith("perfvisor_domain_spe_"):
                fam_name = fam.name[len("perfvisor_domain_spe_"):]
                k = {m: d for _, d, m, _ in SPE}[fam_name]
                out(lb["domain"], f"perfvisor.spe.{k}", val)
            elif s.name == "perfvisor_domain_feature_offered":
                out(lb["domain"], f"feature.{lb['feature']}",
                    "measured" if val == 1 else "not offered")
            elif s.name.startswith("perfvisor_domain_memory_bandwidth_") and "monitor" in lb:
                # monitors and their nodes numbered in order of appearance, as domstats does
                mons = monitors.setdefault(lb["domain"], {})
                nodes = mons.setdefault(lb["monitor"], [])
                if lb["node"] not in nodes:
                    nodes.append(lb["node"])
                n = list(mons).index(lb["monitor"])
                m = nodes.index(lb["node"])
                p = f"memory.bandwidth.monitor.{n}"
                suffix = {"perfvisor_domain_memory_bandwidth_bytes_total": "bytes.total",
                          "perfvisor_domain_memory_bandwidth_local_bytes_total": "bytes.local",
                          "perfvisor_domain_memory_bandwidth_bound_bytes": "bound",
                          "perfvisor_domain_memory_bandwidth_local_bound_bytes": "local_bound"}
                out(lb["domain"], f"{p}.name", lb["monitor"])
                out(lb["domain"], f"{p}.vcpus", lb["vcpus"])
                out(lb["domain"], f"{p}.node.{m}.id", lb["node"])
                out(lb["domain"], f"{p}.node.{m}.{suffix[s.name]}", val)


DOMAIN = re.compile(r"^Domain: '([^']+)'$")
FIELD = re.compile(r"^  ([A-Za-z0-9_.]+)=(.*)$")


def parse_domstats(text):
    domain = None
    lines = text.split("\n")
    assert lines[-1] == "", "output must end with a newline"
    for i, line in enumerate(lines[:-1], 1):
        if domain is None:
            m = DOMAIN.match(line)
            assert m, f"line {i}: expected Domain: 'NAME', got {line!r}"
            domain = m.group(1)
        elif line == "":
            domain = None
        else:
            m = FIELD.match(line)
            assert m, f"line {i}: expected '  key=value', got {line!r}"
            out(domain, m.group(1), m.group(2))
    assert domain is None, "the last record is not closed by an empty line"


TABLE_SECTIONS = ("PERF EVENTS", "GUEST PMU COUNTERS", "AMU", "SPE", "MEMORY BANDWIDTH")


def parse_table(text):
    """The PERF EVENTS, GUEST PMU COUNTERS, AMU, SPE and MEMORY BANDWIDTH sections: a title line, a
    header, rows of columns separated by two or more spaces, an empty line."""
    sections = {}
    title = None
    rows = None
    monitors = {}
    for line in text.split("\n"):
        if title is None:
            if line.split(" (")[0] in TABLE_SECTIONS:
                title = line.split(" (")[0]
                rows = []
        elif line == "":
            sections[title] = rows
            title = None
        else:
            rows.append(re.split(r"\s{2,}", line.strip()))
    for title, rows in sections.items():
        head, body = rows[0], rows[1:]
        for r in body:
            assert len(r) == len(head), f"{title}: row {r} does not match header {head}"
            row = dict(zip(head, r))
            if title == "PERF EVENTS" and row["VALUE"].isdigit():
                out(row["DOMAIN"], f"perf.{row['EVENT']}", int(row["VALUE"]))
            elif title == "GUEST PMU COUNTERS":
                assert re.fullmatch(r"0x[0-9A-F]{4}", row["EVENT"]), row["EVENT"]
                out(row["DOMAIN"], f"vcpu.{row['VCPU']}.{row['COUNTER']}.{row['NAME']}",
                    int(row["VALUE"]))
            elif title == "AMU":
                for k in ("CPU_CYCLES", "CNT_CYCLES", "INST_RETIRED", "STALL_BACKEND_MEM"):
                    out(row["DOMAIN"], f"vcpu.{row['VCPU']}.amu.{k.lower()}", int(row[k]))
                mhz = re.fullmatch(r"(\d+) MHz", row["FREQUENCY"])
                assert mhz, row["FREQUENCY"]
                out(row["DOMAIN"], f"vcpu.{row['VCPU']}.amu.mhz", int(mhz.group(1)))
            elif title == "SPE":
                if row["FIGURE"] == "version":
                    out(row["DOMAIN"], "perfvisor.spe.version", row["VALUE"])
                    continue
                k = {t: d for _, d, _, t in SPE}[row["FIGURE"]]
                v = row["VALUE"]
                if k == "profiling":
                    assert v in ("on", "off"), v
                    v = int(v == "on")
                out(row["DOMAIN"], f"perfvisor.spe.{k}", int(v))
            elif title == "MEMORY BANDWIDTH":
                mons = monitors.setdefault(row["DOMAIN"], {})
                nodes = mons.setdefault(row["MONITOR"], [])
                nodes.append(row["NODE"])
                p = f"memory.bandwidth.monitor.{list(mons).index(row['MONITOR'])}"
                m = len(nodes) - 1
                out(row["DOMAIN"], f"{p}.name", row["MONITOR"])
                out(row["DOMAIN"], f"{p}.node.{m}.id", int(row["NODE"]))
                # "measured", or "measured, local not ready" when bytes.local has no figure
                status, _, local_status = row["STATUS"].partition(", local ")
                out(row["DOMAIN"], f"{p}.node.{m}.status", status)
                if local_status:
                    out(row["DOMAIN"], f"{p}.node.{m}.local_status", local_status)
                if status in ("measured", "estimated"):
                    out(row["DOMAIN"], f"{p}.node.{m}.bytes.total", int(row["BYTES"]))
                    out(row["DOMAIN"], f"{p}.node.{m}.bound", int(row["BOUND"]))
                else:
                    assert row["BYTES"] == "-", f"a figure without a reading: {row}"
                if row["LOCAL"] != "-":
                    assert status in ("measured", "estimated") and not local_status, row
                    out(row["DOMAIN"], f"{p}.node.{m}.bytes.local", int(row["LOCAL"]))
                    out(row["DOMAIN"], f"{p}.node.{m}.local_bound", int(row["LOCAL BOUND"]))
                else:
                    assert row["LOCAL BOUND"] == "-", f"a bound without a figure: {row}"


def main():
    fmt = sys.argv[1]
    text = sys.stdin.read()
    try:
        {"json": parse_json, "openmetrics": parse_openmetrics, "prometheus": parse_prometheus,
         "domstats": parse_domstats, "table": parse_table}[fmt](text)
    except Exception as e:  # any refusal of the parser is a test failure
        print(f"parse.py {fmt}: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
