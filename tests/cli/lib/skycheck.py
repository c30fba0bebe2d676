#!/usr/bin/env python3
"""skycheck.py - check a task gpurent emitted against SkyPilot itself.

  skycheck.py SCHEMA OUT.yaml [--in TASK.yaml] [--catalog PATH]... [--service] [--on-demand]
              [--allow KEY]...

Every document of OUT.yaml validates against SCHEMA (tests/data/
skypilot-task.schema.json, SkyPilot's task schema written down); every
resources.instance_type is an InstanceType of a --catalog given (a
vms.csv, or a folder of them); with --in, every key of the input task's
document gpurent does not write is there unchanged (and each of its
resources' keys but those of the choice); --service: a SkyPilot service
(service.readiness_probe, replicas >= 1, resources.ports); --on-demand:
no use_spot: true; --allow KEY: a top-level key the input has that
SkyPilot's task schema does not (left out of the schema check). Prints one line per problem; exit 1 when there is one.
Needs PyYAML and python3-jsonschema.
"""
import csv
import json
import os
import sys

import jsonschema
import yaml

# written by gpurent for the choice (src/core/plan/skyemit.c owned_res, run, num_nodes)
OWNED_TOP = {"resources", "run", "num_nodes"}
OWNED_RES = {"accelerators", "any_of", "cloud", "infra", "instance_type", "ordered", "region", "use_spot", "zone"}


def instance_types(paths):
    names = set()
    for p in paths:
        files = [p]
        if os.path.isdir(p):
            files = [os.path.join(d, f) for d, _, fs in os.walk(p) for f in fs if f.endswith(".csv")]
        for f in files:
            with open(f, newline="", encoding="utf-8", errors="replace") as fh:
                for row in csv.DictReader(fh):
                    if row.get("InstanceType"):
                        names.add(row["InstanceType"])
    return names


def docs(path):
    with open(path, encoding="utf-8") as fh:
        return [d for d in yaml.safe_load_all(fh) if d]


def main(argv):
    schema_path, out_path, rest = argv[1], argv[2], argv[3:]
    inp, cats, service, on_demand, allow = None, [], False, False, set()
    while rest:
        a = rest.pop(0)
        if a == "--in":
            inp = rest.pop(0)
        elif a == "--catalog":
            cats.append(rest.pop(0))
        elif a == "--service":
            service = True
        elif a == "--on-demand":
            on_demand = True
        elif a == "--allow":
            allow.add(rest.pop(0))
    with open(schema_path, encoding="utf-8") as fh:
        v = jsonschema.Draft202012Validator(json.load(fh))
    bad = []
    out = docs(out_path)
    if not out:
        bad.append("no document")
    names = instance_types(cats) if cats else set()
    for i, d in enumerate(out):
        # as SkyPilot's Task.from_yaml_config (sky/task.py) does before it
        # validates: envs and secrets keys and values as text ("More robust
        # handling for 'envs'")
        t = {k: x for k, x in d.items() if k not in allow}
        for key in ("envs", "secrets"):
            if isinstance(t.get(key), dict):
                t[key] = {str(k): (None if x is None else str(x)) for k, x in t[key].items()}
        for e in v.iter_errors(t):
            bad.append("document %d: %s: %s" % (i + 1, "/".join(map(str, e.path)) or "(top)", e.message))
        r = d.get("resources") or {}
        it = r.get("instance_type") if isinstance(r, dict) else None
        if it is not None and it not in names:
            bad.append("document %d: instance_type %r is in no catalog given (%s)" % (i + 1, it, cats))
        if on_demand and isinstance(r, dict) and r.get("use_spot") is True:
            bad.append("document %d: use_spot: true, the task asked no spot" % (i + 1))
        if service:
            s = d.get("service") or {}
            if not s.get("readiness_probe"):
                bad.append("document %d: service without readiness_probe" % (i + 1))
            if not isinstance(s.get("replicas"), int) or s["replicas"] < 1:
                bad.append("document %d: service replicas %r" % (i + 1, s.get("replicas")))
            if not isinstance(r, dict) or r.get("ports") in (None, []):
                bad.append("document %d: a service without resources.ports" % (i + 1))
    if inp:
        ins = [d for d in docs(inp) if isinstance(d, dict)]
        if len(ins) != len(out):
            bad.append("%d documents in, %d out" % (len(ins), len(out)))
        for i, (a, b) in enumerate(zip(ins, out)):
            for k, val in a.items():
                if k in OWNED_TOP or (k == "service" and service):
                    continue
                if b.get(k) != val:
                    bad.append("document %d: %s: %r in, %r out" % (i + 1, k, val, b.get(k)))
            ra, rb = a.get("resources"), b.get("resources") or {}
            if isinstance(ra, dict):
                alts = (ra.get("any_of") or []) + (ra.get("ordered") or [])
                for k, val in ra.items():
                    if k in OWNED_RES or k in ("disk_size", "autostop") and k not in ra:
                        continue
                    if rb.get(k) != val and not any(isinstance(x, dict) and x.get(k) == rb.get(k) for x in alts):
                        bad.append("document %d: resources.%s: %r in, %r out" % (i + 1, k, val, rb.get(k)))
    for line in bad:
        print("%s: %s" % (out_path, line))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
