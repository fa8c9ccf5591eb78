-- results store schema v4
CREATE TABLE candidates (hash TEXT PRIMARY KEY, source TEXT NOT NULL, path TEXT NOT NULL, text TEXT NOT NULL);
CREATE TABLE evaluations (
  id INTEGER PRIMARY KEY,
  candidate_hash TEXT NOT NULL, source TEXT NOT NULL, candidate_path TEXT NOT NULL,
  problem TEXT NOT NULL, problem_hash TEXT NOT NULL, checker INTEGER NOT NULL, device TEXT NOT NULL,
  verdict TEXT NOT NULL, verified INTEGER NOT NULL, reasons TEXT NOT NULL,
  speedup REAL, speedup_compiled REAL, speed_of_light_ms REAL, paired_rounds INTEGER, paired_spread REAL,
  roofline_ms REAL, sol_gap_closed REAL,
  normwise_error REAL, max_abs_error REAL, mismatched INTEGER NOT NULL, unwritten INTEGER NOT NULL,
  trials INTEGER NOT NULL, trials_passed INTEGER NOT NULL,
  candidate_samples INTEGER, candidate_median_ms REAL, candidate_mean_ms REAL, candidate_stddev_ms REAL, candidate_min_ms REAL, candidate_max_ms REAL, candidate_rel_spread REAL, candidate_wall_median_ms REAL, candidate_score_ms REAL,
  eager_samples INTEGER, eager_median_ms REAL, eager_mean_ms REAL, eager_stddev_ms REAL, eager_min_ms REAL, eager_max_ms REAL, eager_rel_spread REAL, eager_wall_median_ms REAL, eager_score_ms REAL,
  compiled_samples INTEGER, compiled_median_ms REAL, compiled_mean_ms REAL, compiled_stddev_ms REAL, compiled_min_ms REAL, compiled_max_ms REAL, compiled_rel_spread REAL, compiled_wall_median_ms REAL, compiled_score_ms REAL,
  gpu TEXT NOT NULL, driver TEXT NOT NULL, cuda TEXT NOT NULL, torch TEXT NOT NULL, python TEXT NOT NULL, host TEXT NOT NULL, clocks TEXT NOT NULL,
  started_at TEXT NOT NULL, duration_s REAL, log TEXT NOT NULL,
  UNIQUE (candidate_hash, problem_hash, checker, device)
);
CREATE TABLE headroom_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE jobs (
  candidate_hash TEXT NOT NULL, problem_hash TEXT NOT NULL, checker INTEGER NOT NULL, platform TEXT NOT NULL,
  state TEXT NOT NULL, claimed_by TEXT NOT NULL, claim INTEGER NOT NULL, lease_until REAL, attempts INTEGER NOT NULL,
  PRIMARY KEY (candidate_hash, problem_hash, checker, platform)
);
CREATE TABLE problems (hash TEXT PRIMARY KEY, id TEXT NOT NULL, path TEXT NOT NULL, text TEXT NOT NULL);
CREATE INDEX evaluations_source ON evaluations (source, problem);
CREATE INDEX jobs_state ON jobs (platform, checker, state, problem_hash);
