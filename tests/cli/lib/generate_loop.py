"""The checks of tests/cli/generate.sh: python3 generate_loop.py HEADROOM SOURCE_DIR WORK PYTHON."""
import hashlib
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time

headroom, source, work, python = sys.argv[1:5]
data = os.path.join(source, "tests", "data", "generate")
problems = os.path.join(data, "level1")
runs = os.path.join(work, "runs")
record = os.path.join(work, "requests.jsonl")
port_file = os.path.join(work, "port")


def fail(message):
    print("FAIL:", message)
    sys.exit(1)


server = subprocess.Popen([python, os.path.join(source, "tests", "cli", "lib", "fake_openai_server.py"),
                           "--script", os.path.join(data, "script.json"), "--record", record,
                           "--port-file", port_file, "--key", "secret-test"],
                          stderr=open(os.path.join(work, "server.err"), "w"))
try:
    for _ in range(100):
        if os.path.exists(port_file):
            break
        time.sleep(0.05)
    else:
        fail("the test server did not start")
    port = open(port_file).read()

    def models_file(name, text):
        path = os.path.join(work, name)
        with open(path, "w") as f:
            f.write(text.replace("PORT", port))
        return path

    models = models_file("models.toml", open(os.path.join(data, "models.toml")).read())
    eval_options = ["--device", "cpu", "--python", python, "--cache", os.path.join(work, "cache"), "--trials", "2",
                    "--no-compile-baseline", "--min-samples", "5", "--max-time", "0.3"]

    def generate(*extra, key="secret-test", models_path=models, out=runs):
        env = dict(os.environ)
        env.pop("HEADROOM_TEST_KEY", None)
        if key is not None:
            env["HEADROOM_TEST_KEY"] = key
        return subprocess.run([headroom, "generate", problems, "--models", models_path, "-o", out, "--backoff", "0.05",
                               *eval_options, *extra], env=env, capture_output=True, text=True)

    def requests():
        if not os.path.exists(record):
            return []
        return [json.loads(line) for line in open(record)]

    # The whole loop: two configurations, alpha over two turns.
    started = time.time()
    r = generate()
    took = time.time() - started
    if r.returncode != 0:
        fail(f"generate ended with {r.returncode}:\n{r.stderr}")
    print(f"generate: {took:.1f} s")

    def answer_code(name, block=0):
        text = open(os.path.join(data, "answers", name)).read()
        text = re.sub(r"<think>.*?</think>", "", text, flags=re.S)
        return re.findall(r"```python\n(.*?)```", text, flags=re.S)[block]

    expected_files = {
        "alpha/level_1_problem_1_sample_0_kernel.py": answer_code("relu_ok.md"),
        "alpha/level_1_problem_1_sample_1_kernel.py": answer_code("relu_two_blocks.md"),
        "alpha/level_1_problem_2_sample_0_kernel.py": answer_code("scale_wrong.md"),
        "beta-stream/level_1_problem_1_sample_0_kernel.py": answer_code("relu_stream.md"),
        "beta-stream/level_1_problem_2_sample_0_kernel.py": answer_code("scale_ok.md"),
    }
    for s in range(2):
        for p in range(1, 3):
            expected_files[f"alpha.turn2/level_1_problem_{p}_sample_{s}_kernel.py"] = answer_code("scale_ok.md")
    for rel, code in expected_files.items():
        path = os.path.join(runs, rel)
        if not os.path.exists(path):
            fail(f"{rel} was not written")
        if open(path).read() != code:
            fail(f"{rel} is not the answer's code:\n{open(path).read()}")
    for folder in ("alpha", "alpha.turn2", "beta-stream"):
        names = sorted(os.listdir(os.path.join(runs, folder)))
        want = sorted(os.path.basename(k) for k in expected_files if k.startswith(folder + "/"))
        if names != want:
            fail(f"{folder} holds {names}, not {want}")

    log = [json.loads(line) for line in open(os.path.join(runs, "generate.jsonl"))]
    full_log = open(os.path.join(runs, "generate.jsonl")).read()
    if "secret-test" in full_log:
        fail("the key is in the log")

    def attempts(config, problem, sample, turn=1):
        return [(x["status"], x["outcome"], x["error"]) for x in log
                if x["kind"] == "request" and x["config"] == config and x["problem"].endswith(problem)
                and x["sample"] == sample and x["turn"] == turn]

    def check(config, problem, sample, want):
        got = attempts(config, problem, sample)
        ok = len(got) == len(want) and all(g[0] == w[0] and g[1] == w[1] and w[2] in g[2] for g, w in zip(got, want))
        if not ok:
            fail(f"{config} {problem} sample {sample}: attempts {got}, expected {want}")

    check("alpha", "1_relu", 0, [(429, "retry", "HTTP 429"), (200, "candidate", "")])
    check("alpha", "1_relu", 1, [(500, "retry", "HTTP 500"), (200, "retry", "malformed answer: not JSON"),
                                 (200, "candidate", "")])
    check("alpha", "2_scale_add", 0, [(0, "retry", "timeout"), (200, "candidate", "")])
    check("alpha", "2_scale_add", 1, [(200, "no_code", "")])
    check("beta-stream", "1_relu", 0, [(200, "retry", "the connection ended before the answer did"), (200, "candidate", "")])
    check("beta-stream", "2_scale_add", 0, [(200, "candidate", "")])
    first = [x for x in log if x["kind"] == "request" and x["config"] == "alpha" and x["status"] == 429][0]
    if first.get("retry_in_s") != 1.0:
        fail(f"the 429's Retry-After of 1 s was not honoured: {first}")
    for x in log:
        if x["kind"] != "request" or x["outcome"] not in ("candidate", "no_code"):
            continue
        if not (x.get("tokens_in", 0) > 0 and x.get("tokens_out", 0) > 0 and x["finish_reason"] == "stop"):
            fail(f"no tokens or finish reason: {x}")
        want_cost = (x["tokens_in"] * 1.0 + x["tokens_out"] * 4.0) / 1e6 if x["config"] == "alpha" else None
        if (want_cost is None) != ("cost" not in x) or (want_cost is not None and abs(x["cost"] - want_cost) > 1e-12):
            fail(f"cost {x.get('cost')} for {x}, expected {want_cost}")
        prompt = os.path.join(runs, "prompts", x["prompt_sha256"] + ".json")
        if hashlib.sha256(open(prompt, "rb").read()).hexdigest() != x["prompt_sha256"]:
            fail(f"{prompt} does not hash to its name")
        if x["outcome"] == "candidate":
            code = open(os.path.join(runs, x["file"])).read()
            if hashlib.sha256(code.encode()).hexdigest() != x["candidate_sha256"]:
                fail(f"the log's candidate_sha256 is not {x['file']}'s")
    two = [x for x in log if x["kind"] == "request" and x["outcome"] == "candidate" and x["problem"].endswith("1_relu")
           and x["sample"] == 1 and x["turn"] == 1][0]
    if two["code_blocks"] != 2 or "block 2 of 2" not in two["extraction"]:
        fail(f"the answer with two blocks: {two['code_blocks']} blocks, {two['extraction']}")

    # The server saw the retry after 429 no sooner than Retry-After said.
    seen = requests()
    relu_alpha = [x for x in seen if x["route"] == 0]
    if relu_alpha[1]["time"] - relu_alpha[0]["time"] < 0.95:
        fail(f"retried {relu_alpha[1]['time'] - relu_alpha[0]['time']:.2f} s after a 429 with Retry-After: 1")
    if not all(x["stream"] for x in seen if x["model"] == "beta") or any(x["stream"] for x in seen if x["model"] == "alpha"):
        fail("streaming was not asked as configured")
    if not all(x["key_ok"] for x in seen):
        fail("a request went without the key")

    # The evaluations the second turn was shown, in the log and in the prompts.
    evals = {(x["problem"].split("/")[-1], x["sample"]): x for x in log if x["kind"] == "evaluation"}
    verdicts = {k: v["verdict"] for k, v in evals.items()}
    if verdicts != {("1_relu", 0): "correct", ("1_relu", 1): "correct", ("2_scale_add", 0): "incorrect"}:
        fail(f"evaluations in the log: {verdicts}")
    turn2 = [x for x in seen if x["route"] == 2]
    if len(turn2) != 4:
        fail(f"{len(turn2)} second-turn requests, not 4")
    by_answer = {}
    for x in turn2:
        roles = [m["role"] for m in x["messages"]]
        if roles != ["system", "user", "assistant", "user"]:
            fail(f"second-turn conversation {roles}")
        by_answer[x["messages"][2]["content"]] = x["messages"][3]["content"]

    def feedback_to(answer_file):
        text = open(os.path.join(data, "answers", answer_file)).read()
        if text not in by_answer:
            fail(f"no second turn follows {answer_file}")
        return by_answer[text]

    wrong = feedback_to("scale_wrong.md")
    for needle in ("Verdict: incorrect.", "- mismatch:", "first at [", "expected ", ", got ", "trials passed"):
        if needle not in wrong:
            fail(f"the feedback on the wrong kernel lacks '{needle}':\n{wrong}")
    right = feedback_to("relu_ok.md")
    for needle in ("Verdict: correct.", "Speedup over PyTorch eager: ", "on cpu", "make it faster"):
        if needle not in right:
            fail(f"the feedback on the correct kernel lacks '{needle}':\n{right}")
    if "Verdict: no_code." not in feedback_to("no_code.md"):
        fail("the feedback on the answer without code does not say so")
    linked = [x for x in log if x["kind"] == "request" and x["turn"] == 2 and x["outcome"] == "candidate"]
    shas = {v["candidate_sha256"] for v in evals.values()}
    if len(linked) != 4 or sum(1 for x in linked if x["feedback_from"] in shas) != 3:
        fail("the second turn's log lines do not name the evaluations they were shown")
    print("ok: runs folder, log, retries and the second turn's feedback")

    # headroom eval judges the generated candidates as they are.
    db = os.path.join(runs, "results.sqlite")
    e = subprocess.run([headroom, "eval", problems, "--candidates", os.path.join(runs, "alpha"),
                        os.path.join(runs, "beta-stream"), "--db", db, *eval_options], capture_output=True, text=True)
    if e.returncode != 0:
        fail(f"eval ended with {e.returncode}:\n{e.stderr}")
    rows = sqlite3.connect(db).execute("select source, candidate_path, verdict from evaluations").fetchall()
    got = sorted((s, os.path.basename(p), v) for s, p, v in rows if s in ("alpha", "beta-stream"))
    want = sorted([("alpha", "level_1_problem_1_sample_0_kernel.py", "correct"),
                   ("alpha", "level_1_problem_1_sample_1_kernel.py", "correct"),
                   ("alpha", "level_1_problem_2_sample_0_kernel.py", "incorrect"),
                   ("beta-stream", "level_1_problem_1_sample_0_kernel.py", "correct"),
                   ("beta-stream", "level_1_problem_2_sample_0_kernel.py", "correct")])
    if got != want:
        fail(f"eval's verdicts {got}, expected {want}")
    print("ok: headroom eval --device cpu judged the runs folders")

    # A rerun asks for nothing; a deleted candidate is asked for again, and only it. A candidate of a
    # problem this run was not given (an earlier run's) stays out of the evaluation between turns.
    stray = os.path.join(runs, "alpha", "level_1_problem_9_sample_0_kernel.py")
    with open(stray, "w") as f:
        f.write("class ModelNew: pass\n")
    before = len(requests())
    r = generate()
    os.remove(stray)
    if r.returncode != 0 or len(requests()) != before or "10 found done by an earlier run" not in r.stderr:
        fail(f"the rerun ({r.returncode}) sent {len(requests()) - before} request(s):\n{r.stderr}")
    os.remove(os.path.join(runs, "beta-stream", "level_1_problem_1_sample_0_kernel.py"))
    r = generate("--only", "beta-stream")
    if r.returncode != 0 or len(requests()) != before + 1:
        fail(f"the rerun after a deletion ({r.returncode}) sent {len(requests()) - before} request(s):\n{r.stderr}")
    if not os.path.exists(os.path.join(runs, "beta-stream", "level_1_problem_1_sample_0_kernel.py")):
        fail("the deleted candidate was not written again")
    print("ok: reruns ask only for what is missing")

    # Clear errors: a missing key, a refused key, an unreachable endpoint.
    before = len(requests())
    r = generate(key=None, out=os.path.join(work, "nokey"))
    if r.returncode != 2 or "$HEADROOM_TEST_KEY, which is not set" not in r.stderr or len(requests()) != before:
        fail(f"missing key: {r.returncode}\n{r.stderr}")
    r = generate("--only", "alpha", key="wrong", out=os.path.join(work, "badkey"))
    if r.returncode != 2 or "refused the key in $HEADROOM_TEST_KEY" not in r.stderr or len(requests()) != before + 1:
        fail(f"refused key ({len(requests()) - before} requests): {r.returncode}\n{r.stderr}")
    down = models_file("down.toml", '[[model]]\nname = "down"\nbase_url = "http://127.0.0.1:1/v1"\nmodel = "m"\n'
                                    'max_retries = 1\n')
    r = generate(models_path=down, out=os.path.join(work, "down"))
    if r.returncode != 2 or "cannot reach http://127.0.0.1:1/v1/chat/completions" not in r.stderr:
        fail(f"unreachable endpoint: {r.returncode}\n{r.stderr}")
    if os.listdir(os.path.join(work, "down", "down")) if os.path.isdir(os.path.join(work, "down", "down")) else []:
        fail("an unreachable endpoint left files")
    # An endpoint that fails (a 404: no such model) stops its configuration's other requests, even
    # one waiting out a 503's Retry-After of 5 s.
    gone = models_file("gone.toml", '[[model]]\nname = "delta"\nbase_url = "http://127.0.0.1:PORT/v1"\n'
                                    'model = "delta"\napi_key_env = "HEADROOM_TEST_KEY"\nsamples = 2\nconcurrency = 2\n')
    keyed = dict(os.environ, HEADROOM_TEST_KEY="secret-test")
    one_relu = os.path.join(work, "one_relu")
    os.makedirs(one_relu)
    os.symlink(os.path.join(problems, "1_relu.py"), os.path.join(one_relu, "1_relu.py"))
    started = time.time()
    r = subprocess.run([headroom, "generate", one_relu, "--models", gone, "-o", os.path.join(work, "gone")],
                       capture_output=True, text=True, env=keyed)
    if r.returncode != 2 or "HTTP 404 from" not in r.stderr or time.time() - started > 4:
        fail(f"a 404 took {time.time() - started:.1f} s to end the configuration ({r.returncode}):\n{r.stderr}")
    print("ok: a missing key, a refused key, an unreachable endpoint and a 404 are clear errors (status 2)")

    # Ctrl-C while requests are in flight leaves no file behind, and a rerun finishes the work.
    slow = models_file("slow.toml", '[[model]]\nname = "gamma"\nbase_url = "http://127.0.0.1:PORT/v1"\n'
                                    'model = "gamma"\napi_key_env = "HEADROOM_TEST_KEY"\nsamples = 2\nconcurrency = 2\n'
                                    'timeout_s = 30\n')
    one = os.path.join(work, "one")
    os.makedirs(one)
    os.symlink(os.path.join(problems, "1_relu.py"), os.path.join(one, "1_relu.py"))
    before = len(requests())
    p = subprocess.Popen([headroom, "generate", one, "--models", slow, "-o", os.path.join(work, "slow")],
                         stderr=subprocess.PIPE, text=True, env=keyed)
    for _ in range(200):
        if sum(1 for x in requests()[before:] if x["model"] == "gamma") == 2:
            break
        time.sleep(0.05)
    else:
        fail("the slow requests never reached the server")
    p.send_signal(signal.SIGINT)
    try:
        p.wait(timeout=3)
    except subprocess.TimeoutExpired:
        p.kill()
        fail("generate did not stop on SIGINT")
    left = [f for _, _, files in os.walk(os.path.join(work, "slow")) for f in files
            if not f.endswith(".json") and f != "generate.jsonl"]
    if p.returncode == 0 or left:
        fail(f"interrupted: status {p.returncode}, files {left}")
    r = subprocess.run([headroom, "generate", one, "--models", slow, "-o", os.path.join(work, "slow")],
                       capture_output=True, text=True, env=keyed)
    got = sorted(os.listdir(os.path.join(work, "slow", "gamma"))) if r.returncode == 0 else []
    if got != ["level_1_problem_1_sample_0_kernel.py", "level_1_problem_1_sample_1_kernel.py"]:
        fail(f"the rerun after Ctrl-C: {r.returncode}, {got}\n{r.stderr}")
    print("ok: Ctrl-C leaves no file, and a rerun completes the run")
finally:
    server.terminate()
    server.wait()
