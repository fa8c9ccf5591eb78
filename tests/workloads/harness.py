"""What the workload tests share: the workloads' folder on sys.path, a scratch folder, checks that
collect failures, and a script run as its own __main__ in this process (PyTorch imported once)."""
import contextlib
import io
import json
import os
import runpy
import shutil
import sys
import tempfile


class Harness:
    def __init__(self, workloads, prefix):
        self.workloads = os.path.abspath(workloads)
        sys.path.insert(0, self.workloads)
        self.tmp = tempfile.mkdtemp(prefix=prefix)
        self.failures = []

    def check(self, condition, what):
        if not condition:
            self.failures.append(what)
            print(f"FAIL: {what}", file=sys.stderr)

    def run(self, script, *args):
        """The script's summary, or the exit status and stderr of a run that exited."""
        summary = os.path.join(self.tmp, "summary.json")
        if os.path.exists(summary):
            os.remove(summary)
        sys.argv = [script, "--device", "cpu", *args, "--summary", summary]
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err):
                runpy.run_path(os.path.join(self.workloads, script), run_name="__main__")
        except SystemExit as e:
            return {"exit": e.code, "stderr": err.getvalue()}
        with open(summary) as f:
            return json.load(f)

    def expect_usage_error(self, script, args, message):
        r = self.run(script, *args)
        self.check(r.get("exit") == 2, f"{script} {' '.join(args)}: exit status {r.get('exit')}, expected 2")
        self.check(message in r.get("stderr", ""), f"{script} {' '.join(args)}: no '{message}' in: {r.get('stderr', '')!r}")

    def finish(self):
        shutil.rmtree(self.tmp, ignore_errors=True)
        if self.failures:
            print(f"{len(self.failures)} check(s) failed", file=sys.stderr)
            sys.exit(1)
        print("OK")
