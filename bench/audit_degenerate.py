#!/usr/bin/env python3
"""The degenerate problems in `headroom audit --json` output (docs/eval.md, "Degenerate problems"):
`bench/audit_degenerate.py AUDIT.json...` prints how many problems were audited and, for each one
the audit calls degenerate, its name and why. Reads the audit's object ({"schema_version",
"problems"}) or one such object a line (`headroom eval --audit-to` appends one row a problem), from
one file or several (`scripts/gpu kb-audit` writes one a chunk of problems); a problem audited in
several files counts once, by its last row (a problem refused for memory in a chunk and audited again
alone). With --needs-memory, prints only the problems whose reference could not be prepared within
the audit's memory budget, one a line (what `scripts/gpu kb-audit` audits again alone)."""
import json
import sys


def rows_of(text):
    text = text.strip()
    if not text:
        return []
    try:
        docs = [json.loads(text)]
    except json.JSONDecodeError:
        docs = [json.loads(line) for line in text.splitlines() if line.strip()]
    rows = []
    for d in docs:
        rows.extend(d["problems"] if isinstance(d, dict) and "problems" in d else [d])
    return rows


def main():
    args = sys.argv[1:]
    needs_memory = args[:1] == ["--needs-memory"]
    if needs_memory:
        args = args[1:]
    if not args:
        sys.exit("usage: bench/audit_degenerate.py [--needs-memory] AUDIT.json...")
    last = {}
    for path in args:
        with open(path) as f:
            for r in rows_of(f.read()):
                last[r.get("problem")] = r
    rows = list(last.values())
    if needs_memory:
        for r in rows:
            if "--memory-budget" in (r.get("error") or ""):
                print(r.get("problem"))
        return
    degenerate = [(r.get("problem"), r["degenerate"]) for r in rows if r.get("degenerate")]
    errors = [r.get("problem") for r in rows if r.get("error")]
    print(f"{len(rows)} problem(s) audited, {len(degenerate)} degenerate, {len(errors)} with a reference error")
    for problem, why in degenerate:
        print(f"  {problem}: {why}")


if __name__ == "__main__":
    main()
