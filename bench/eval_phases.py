"""Where `headroom eval`'s time went, from its HEADROOM_EVAL_TRACE=1 lines (docs/eval.md).

    HEADROOM_EVAL_TRACE=1 headroom eval ... 2>eval.err
    python3 bench/eval_phases.py eval.err [WALL_S]

Each traced phase logs "headroom: [<s> s] <phase> took <ms> ms" when it ends. Prints a Markdown
table of the phases by total time: how many, their total, median and longest, and their share of
the run's wall clock (WALL_S, else the last line's time). Phases nest: a worker request
(`request hello`, `request time`, ...) runs inside `evaluate_candidate` or `prepare_reference`, so
the shares add up to more than the whole; with --lanes above 1 they also overlap in time.
"""
import re
import statistics
import sys

LINE = re.compile(r"^headroom: \[(?P<at>[0-9.]+) s\] (?P<what>.+) took (?P<ms>[0-9.]+) ms$")
OP = re.compile(r'"op":"(?P<op>[a-z_]+)"')


def phase_name(what):
    # A worker request is named by its fields' first one ("op":"time"): named by the op alone.
    if what.startswith("request "):
        m = OP.search(what)
        return "request " + (m.group("op") if m else what[len("request "):])
    return what


def read(path):
    """The phases of one trace: {name: [ms, ...]}, and the time of the last line (s)."""
    phases, last = {}, 0.0
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.match(line.rstrip("\n"))
            if not m:
                continue
            phases.setdefault(phase_name(m.group("what")), []).append(float(m.group("ms")))
            last = max(last, float(m.group("at")))
    return phases, last


def print_table(trace, wall_s=None):
    phases, last = trace
    wall = wall_s or last
    if not phases:
        print("(no phase lines: was HEADROOM_EVAL_TRACE=1 set?)")
        return
    print(f"| phase | count | total s | median ms | longest ms | share of {wall:.0f} s |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name, ms in sorted(phases.items(), key=lambda kv: -sum(kv[1])):
        total = sum(ms) / 1e3
        print(f"| {name} | {len(ms)} | {total:.1f} | {statistics.median(ms):.1f} | {max(ms):.1f} | "
              f"{100 * total / wall:.1f}% |")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    wall = float(sys.argv[2]) if len(sys.argv) > 2 else None
    print_table(read(sys.argv[1]), wall)


if __name__ == "__main__":
    main()
