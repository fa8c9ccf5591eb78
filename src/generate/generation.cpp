#include "headroom/generate/generation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>

#include "headroom/generate/ask.hpp"
#include "headroom/generate/code_extract.hpp"
#include "headroom/generate/feedback.hpp"
#include "headroom/generate/http_client.hpp"
#include "headroom/generate/prompt.hpp"
#include "headroom/generate/request_log.hpp"
#include "headroom/generate/runs_folder.hpp"
#include "headroom/util/error.hpp"
#include "headroom/util/json.hpp"
#include "headroom/util/output_file.hpp"
#include "headroom/util/read_file.hpp"
#include "headroom/util/sha256.hpp"

namespace headroom::generate {
namespace fs = std::filesystem;

namespace {

using sample_key = std::tuple<std::string, std::string, int, int>;  // config, problem id, sample, turn

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string messages_json(const std::vector<chat_message>& messages) {
  std::string out = "[";
  for (std::size_t i = 0; i < messages.size(); ++i) {
    out += i ? ",\n{\"role\":" : "{\"role\":";
    util::append_json_string(out, messages[i].role);
    out += ",\"content\":";
    util::append_json_string(out, messages[i].content);
    out += '}';
  }
  out += "]\n";
  return out;
}

// One configuration's attempts at one problem's sample, turn after turn.
struct sample_chain {
  std::size_t config = 0;
  const named_problem* problem = nullptr;
  int sample = 0;
  std::vector<chat_message> messages;  // the conversation so far
  bool blocked = false;  // a turn failed: no further turn
  // The last turn's answer:
  std::string answer;
  std::string candidate_sha256;  // empty: the answer held no code
  std::string feedback_from;  // of the turn being asked
};

struct run_state {
  const std::vector<model_config>& configs;
  const generate_options& options;
  const progress_fn& progress;
  std::vector<std::string> keys;
  std::vector<prompt_templates> templates;
  request_log log;
  std::mutex mutex;  // guards what follows, the prompt files and progress
  generate_summary summary;
  std::vector<char> endpoint_failed;  // per configuration
  // Per configuration: set when its endpoint failed (its requests in flight stop retrying) or when
  // the run fails (all of them).
  std::unique_ptr<std::atomic<bool>[]> stop;
  bool aborted = false;  // a request threw: no thread takes more work
  bool cost_known = false;
  int done = 0, total = 0;

  run_state(const std::vector<model_config>& c, const generate_options& o, const progress_fn& p)
      : configs(c),
        options(o),
        progress(p),
        log(o.runs_dir / "generate.jsonl"),
        endpoint_failed(c.size(), 0),
        stop(new std::atomic<bool>[c.size()]) {
    for (std::size_t i = 0; i < c.size(); ++i) stop[i] = false;
  }
};

progress_event event(const std::string& config, const std::string& problem, int sample, int turn, std::string outcome,
                     std::string detail) {
  progress_event e;
  e.config = config;
  e.problem = problem;
  e.sample = sample;
  e.turn = turn;
  e.outcome = std::move(outcome);
  e.detail = std::move(detail);
  return e;
}

void report(run_state& s, progress_event e) {
  // Called with s.mutex held.
  e.done = ++s.done;
  e.total = s.total;
  e.all_tokens_in = s.summary.tokens_in;
  e.all_tokens_out = s.summary.tokens_out;
  e.all_cost = s.summary.cost;
  e.cost_known = s.cost_known;
  if (s.progress) s.progress(e);
}

void write_whole(const fs::path& target, std::string_view bytes) {
  util::output_file f(target);
  f.stream().write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  f.commit();
}

void ask_one(run_state& s, sample_chain& chain, int turn, std::mt19937_64& rng) {
  const model_config& c = s.configs[chain.config];
  const named_problem& p = *chain.problem;
  {
    std::lock_guard lock(s.mutex);
    if (s.endpoint_failed[chain.config]) {
      chain.blocked = true;
      ++s.summary.skipped;
      report(s, event(c.name, p.spec.id, chain.sample, turn, "skipped", "its endpoint failed on an earlier request"));
      return;
    }
  }
  const std::string prompt = messages_json(chain.messages);
  const std::string prompt_sha = util::sha256_hex(prompt);
  {
    std::lock_guard lock(s.mutex);
    const fs::path f = s.options.runs_dir / "prompts" / (prompt_sha + ".json");
    std::error_code ec;
    if (!fs::exists(f, ec)) write_whole(f, prompt);
    ++s.summary.asked;
  }
  log_record base;
  base.config = c.name;
  base.model = c.model;
  base.endpoint = c.base_url;
  base.problem = p.spec.id;
  base.sample = chain.sample;
  base.turn = turn;
  base.prompt_sha256 = prompt_sha;
  base.feedback_from = chain.feedback_from;
  double answer_latency_s = 0;
  int answer_attempt = 1;
  const ask_result result = ask(
      c, s.keys[chain.config], chat_request_body(c, chain.messages), retry_policy{c.max_retries, s.options.backoff_s},
      rng, s.stop[chain.config], [&](const attempt_report& a) {
        if (a.answer) {  // logged below, with what was cut from it
          answer_latency_s = a.latency_s;
          answer_attempt = a.attempt;
          return;
        }
        log_record r = base;
        r.time = now_utc();
        r.attempt = a.attempt;
        r.status = a.status;
        r.latency_s = a.latency_s;
        r.error = a.error;
        r.retry_in_s = a.retry_in_s;
        r.outcome = a.retry_in_s ? "retry" : "failed";
        s.log.append(r);
        std::lock_guard lock(s.mutex);
        ++s.summary.attempts;
        if (a.retry_in_s && s.progress) {
          progress_event e = event(c.name, p.spec.id, chain.sample, turn, "retry",
                                   fmt::format("attempt {}: {}; again in {:.1f} s", a.attempt, a.error, *a.retry_in_s));
          e.done = s.done;
          e.total = s.total;
          e.all_tokens_in = s.summary.tokens_in;
          e.all_tokens_out = s.summary.tokens_out;
          e.all_cost = s.summary.cost;
          e.cost_known = s.cost_known;
          s.progress(e);
        }
      });
  if (!result.answer) {
    std::lock_guard lock(s.mutex);
    chain.blocked = true;
    ++s.summary.failed;
    if (result.endpoint_failed && !s.endpoint_failed[chain.config]) {
      s.endpoint_failed[chain.config] = 1;
      s.stop[chain.config] = true;
      s.summary.failed_endpoints.push_back(fmt::format("{}: {}", c.name, result.error));
    }
    report(s, event(c.name, p.spec.id, chain.sample, turn, "failed", result.error));
    return;
  }
  const chat_answer& a = *result.answer;
  const extracted_code code = extract_code(a.content);
  log_record r = base;
  r.time = now_utc();
  r.attempt = answer_attempt;
  r.latency_s = answer_latency_s;
  r.status = 200;
  r.tokens_in = a.tokens_in;
  r.tokens_out = a.tokens_out;
  if ((c.price_in_per_mtok > 0 || c.price_out_per_mtok > 0) && (a.tokens_in || a.tokens_out))
    r.cost = (static_cast<double>(a.tokens_in.value_or(0)) * c.price_in_per_mtok +
              static_cast<double>(a.tokens_out.value_or(0)) * c.price_out_per_mtok) /
             1e6;
  r.finish_reason = a.finish_reason;
  r.code_blocks = code.blocks;
  r.extraction = code.how;
  r.answer = a.content;
  if (code.code) {
    const fs::path folder = turn_folder(s.options.runs_dir, c.name, turn);
    const std::string name = candidate_file_name(p, chain.sample);
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec) throw input_error(fmt::format("{}: cannot make the folder: {}", folder.string(), ec.message()));
    write_whole(folder / name, *code.code);
    r.outcome = "candidate";
    r.file = (fs::path(folder.filename()) / name).string();
    r.candidate_sha256 = util::sha256_hex(*code.code);
  } else {
    r.outcome = "no_code";
    if (a.finish_reason == "length") r.error = "the answer was cut at max_tokens before any code";
  }
  s.log.append(r);
  std::lock_guard lock(s.mutex);
  ++s.summary.attempts;
  s.summary.tokens_in += a.tokens_in.value_or(0);
  s.summary.tokens_out += a.tokens_out.value_or(0);
  if (r.cost) s.summary.cost += *r.cost;
  chain.answer = a.content;
  chain.candidate_sha256 = r.candidate_sha256;
  if (code.code) {
    ++s.summary.candidates;
  } else {
    ++s.summary.no_code;
  }
  progress_event e = event(c.name, p.spec.id, chain.sample, turn, r.outcome, code.how);
  e.tokens_in = a.tokens_in;
  e.tokens_out = a.tokens_out;
  e.latency_s = r.latency_s;
  report(s, e);
}

}  // namespace

generate_summary run_generation(const std::vector<model_config>& configs,
                                const std::vector<eval::problem_spec>& problems, const generate_options& options,
                                const evaluate_fn& evaluate, const progress_fn& progress) {
  if (configs.empty()) throw input_error("no model configurations");
  const std::vector<named_problem> named = name_problems(problems);
  std::vector<std::string> keys;
  for (const auto& c : configs) {
    std::string key;
    if (!c.api_key_env.empty()) {
      const char* v = std::getenv(c.api_key_env.c_str());
      if (!v || !*v)
        throw input_error(
            fmt::format("configuration '{}': its key is read from ${}, which is not set (export {}=... "
                        "first, or leave api_key_env out for an endpoint that needs no key)",
                        c.name, c.api_key_env, c.api_key_env));
      key = v;
    }
    keys.push_back(std::move(key));
  }
  std::vector<prompt_templates> templates;
  for (const auto& c : configs) templates.push_back(templates_for(c));
  std::error_code ec;
  fs::create_directories(options.runs_dir / "prompts", ec);
  if (ec)
    throw input_error(fmt::format("{}: cannot make the runs folder: {}", options.runs_dir.string(), ec.message()));
  http_global_init();

  // What earlier runs found: answers by (config, problem, sample, turn), evaluations already logged.
  int unreadable = 0;
  std::map<sample_key, log_record> answered;
  std::set<std::tuple<std::string, std::string, int, int, std::string>> evaluations_logged;
  for (auto& r : read_log(options.runs_dir / "generate.jsonl", &unreadable)) {
    if (r.kind == "evaluation") {
      evaluations_logged.emplace(r.config, r.problem, r.sample, r.turn, r.candidate_sha256);
    } else if (r.outcome == "candidate" || r.outcome == "no_code") {
      answered[{r.config, r.problem, r.sample, r.turn}] = std::move(r);
    }
  }

  run_state s(configs, options, progress);
  s.keys = std::move(keys);
  s.templates = std::move(templates);
  if (unreadable)
    s.summary.log_problems.push_back(
        fmt::format("{} line(s) of the log could not be read and were skipped", unreadable));
  for (const auto& c : configs) s.cost_known = s.cost_known || c.price_in_per_mtok > 0 || c.price_out_per_mtok > 0;

  std::vector<sample_chain> chains;
  int max_turns = 1;
  auto turns_of = [&](const model_config& c) { return options.turns.value_or(c.turns); };
  for (std::size_t i = 0; i < configs.size(); ++i) {
    max_turns = std::max(max_turns, turns_of(configs[i]));
    for (const auto& p : named)
      for (int sample = 0; sample < options.samples.value_or(configs[i].samples); ++sample) {
        sample_chain chain;
        chain.config = i;
        chain.problem = &p;
        chain.sample = sample;
        chain.messages = first_turn_messages(s.templates[i], configs[i].example, p.spec.id, p.spec.text);
        chains.push_back(std::move(chain));
      }
  }

  for (int turn = 1; turn <= max_turns; ++turn) {
    std::vector<sample_chain*> work;
    for (auto& chain : chains)
      if (!chain.blocked && turn <= turns_of(configs[chain.config])) work.push_back(&chain);
    if (work.empty()) break;

    if (turn > 1) {
      // Show each chain what the evaluation found of its last candidate.
      std::vector<fs::path> files;
      for (auto* chain : work)
        if (!chain->candidate_sha256.empty())
          files.push_back(turn_folder(options.runs_dir, configs[chain->config].name, turn - 1) /
                          candidate_file_name(*chain->problem, chain->sample));
      std::map<std::pair<std::string, std::string>, record::evaluation> found;  // (candidate, problem hash)
      if (!files.empty()) {
        if (!evaluate) throw std::logic_error("run_generation: further turns need an evaluate function");
        for (auto& e : evaluate(files)) found[{e.candidate_hash, e.problem_hash}] = std::move(e);
      }
      for (auto* chain : work) {
        const model_config& c = configs[chain->config];
        std::optional<record::evaluation> e;
        if (!chain->candidate_sha256.empty()) {
          auto it = found.find({chain->candidate_sha256, chain->problem->spec.hash});
          if (it == found.end()) {
            chain->blocked = true;
            ++s.summary.skipped;
            report(s, event(c.name, chain->problem->spec.id, chain->sample, turn, "skipped",
                            "the evaluation returned nothing for the last turn's candidate"));
            continue;
          }
          e = it->second;
          if (evaluations_logged.emplace(c.name, chain->problem->spec.id, chain->sample, turn - 1, e->candidate_hash)
                  .second) {
            log_record r;
            r.kind = "evaluation";
            r.time = now_utc();
            r.config = c.name;
            r.problem = chain->problem->spec.id;
            r.sample = chain->sample;
            r.turn = turn - 1;
            r.candidate_sha256 = e->candidate_hash;
            r.verdict = std::string(record::verdict_name(e->result));
            r.speedup = e->speedup;
            for (const auto& reason : e->reasons)
              r.reasons += (r.reasons.empty() ? "" : "; ") + reason.code + ": " + reason.detail;
            s.log.append(r);
          }
        }
        const feedback fb = feedback_for(e);
        chain->messages.push_back({"assistant", chain->answer});
        chain->messages.push_back(
            {"user",
             render(s.templates[chain->config].feedback,
                    {{"turn", std::to_string(turn - 1)}, {"evaluation", fb.evaluation}, {"request", fb.request}},
                    "data/prompts/feedback.md")});
        chain->feedback_from = chain->candidate_sha256;
      }
      std::erase_if(work, [](const sample_chain* c) { return c->blocked; });
    }

    // What an earlier run already has.
    std::vector<std::vector<sample_chain*>> pending(configs.size());
    for (auto* chain : work) {
      const model_config& c = configs[chain->config];
      const fs::path file =
          turn_folder(options.runs_dir, c.name, turn) / candidate_file_name(*chain->problem, chain->sample);
      auto logged = answered.find({c.name, chain->problem->spec.id, chain->sample, turn});
      if (fs::exists(file, ec)) {
        auto code = util::read_file(file);
        if (!code) throw input_error(fmt::format("{}: cannot read the candidate", file.string()));
        chain->candidate_sha256 = util::sha256_hex(*code);
        // The conversation shows the answer as it came; without the log, the candidate itself.
        chain->answer = logged != answered.end() && logged->second.outcome == "candidate"
                            ? logged->second.answer
                            : "```python\n" + *code + "```";
        ++s.summary.resumed;
      } else if (logged != answered.end() && logged->second.outcome == "no_code") {
        chain->candidate_sha256.clear();
        chain->answer = logged->second.answer;
        ++s.summary.resumed;
      } else {
        pending[chain->config].push_back(chain);
      }
    }
    s.done = 0;
    s.total = 0;
    for (const auto& p : pending) s.total += static_cast<int>(p.size());
    if (s.total == 0) continue;

    // Each configuration's requests on its own threads, `concurrency` at a time.
    std::vector<std::thread> threads;
    std::vector<std::size_t> next(configs.size(), 0);
    std::exception_ptr failure;
    for (std::size_t i = 0; i < configs.size(); ++i) {
      const int n = std::min<int>(configs[i].concurrency, static_cast<int>(pending[i].size()));
      for (int t = 0; t < n; ++t)
        threads.emplace_back([&, i, t] {
          std::mt19937_64 rng(std::hash<std::string>{}(configs[i].name) + static_cast<unsigned>(t) * 7919 +
                              static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
          try {
            while (true) {
              sample_chain* chain = nullptr;
              {
                std::lock_guard lock(s.mutex);
                if (s.aborted || next[i] >= pending[i].size()) return;
                chain = pending[i][next[i]++];
              }
              ask_one(s, *chain, turn, rng);
            }
          } catch (...) {
            std::lock_guard lock(s.mutex);
            if (!failure) failure = std::current_exception();
            s.aborted = true;
            for (std::size_t k = 0; k < configs.size(); ++k) s.stop[k] = true;
          }
        });
    }
    for (auto& t : threads) t.join();
    if (failure) std::rethrow_exception(failure);
  }
  return s.summary;
}

}  // namespace headroom::generate
