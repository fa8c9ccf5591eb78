// Golden test of the trace store schema (docs/trace-store.md). If this fails, the schema changed:
// bump store_schema_version, add a migration step in src/trace/store_schema.cpp, update the docs and
// then this text — in that order, on purpose.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "headroom/trace/store.hpp"

namespace fs = std::filesystem;
using namespace headroom::trace;

namespace {

constexpr const char* expected_schema =
    R"sql(index api_calls_correlation: CREATE INDEX api_calls_correlation ON api_calls (process, correlation)
index copies_correlation: CREATE INDEX copies_correlation ON copies (process, correlation)
index kernels_correlation: CREATE INDEX kernels_correlation ON kernels (process, correlation)
index memsets_correlation: CREATE INDEX memsets_correlation ON memsets (process, correlation)
index sqlite_autoindex_headroom_meta_1: 
index synchronizations_correlation: CREATE INDEX synchronizations_correlation ON synchronizations (process, correlation)
table api_calls: CREATE TABLE api_calls (id INTEGER PRIMARY KEY, start INTEGER NOT NULL, end INTEGER NOT NULL, process INTEGER NOT NULL, thread INTEGER NOT NULL, correlation INTEGER NOT NULL, name INTEGER NOT NULL, kind TEXT NOT NULL)
table copies: CREATE TABLE copies (id INTEGER PRIMARY KEY, start INTEGER NOT NULL, end INTEGER NOT NULL, process INTEGER NOT NULL, device INTEGER NOT NULL, stream INTEGER NOT NULL, correlation INTEGER NOT NULL, name INTEGER NOT NULL, graph_node INTEGER NOT NULL, bytes INTEGER NOT NULL, copy_kind TEXT NOT NULL)
table devices: CREATE TABLE devices (process INTEGER NOT NULL, device INTEGER NOT NULL, name TEXT NOT NULL, compute_major INTEGER NOT NULL, compute_minor INTEGER NOT NULL, sm_count INTEGER NOT NULL, memory_bytes INTEGER NOT NULL)
table headroom_meta: CREATE TABLE headroom_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)
table kernels: CREATE TABLE kernels (id INTEGER PRIMARY KEY, start INTEGER NOT NULL, end INTEGER NOT NULL, process INTEGER NOT NULL, device INTEGER NOT NULL, stream INTEGER NOT NULL, correlation INTEGER NOT NULL, name INTEGER NOT NULL, graph_node INTEGER NOT NULL, grid_x INTEGER, grid_y INTEGER, grid_z INTEGER, block_x INTEGER, block_y INTEGER, block_z INTEGER, registers_per_thread INTEGER, static_shared_bytes INTEGER, dynamic_shared_bytes INTEGER)
table memsets: CREATE TABLE memsets (id INTEGER PRIMARY KEY, start INTEGER NOT NULL, end INTEGER NOT NULL, process INTEGER NOT NULL, device INTEGER NOT NULL, stream INTEGER NOT NULL, correlation INTEGER NOT NULL, name INTEGER NOT NULL, graph_node INTEGER NOT NULL, bytes INTEGER NOT NULL)
table processes: CREATE TABLE processes (id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, name TEXT NOT NULL, rank INTEGER NOT NULL, host TEXT NOT NULL)
table ranges: CREATE TABLE ranges (id INTEGER PRIMARY KEY, start INTEGER NOT NULL, end INTEGER NOT NULL, process INTEGER NOT NULL, thread INTEGER NOT NULL, device INTEGER NOT NULL, name INTEGER NOT NULL, kind TEXT NOT NULL)
table strings: CREATE TABLE strings (id INTEGER PRIMARY KEY, value TEXT NOT NULL)
table synchronizations: CREATE TABLE synchronizations (id INTEGER PRIMARY KEY, start INTEGER NOT NULL, end INTEGER NOT NULL, process INTEGER NOT NULL, thread INTEGER NOT NULL, device INTEGER NOT NULL, stream INTEGER NOT NULL, context INTEGER NOT NULL, event INTEGER NOT NULL, correlation INTEGER NOT NULL, kind TEXT NOT NULL, record_correlation INTEGER NOT NULL)
table warnings: CREATE TABLE warnings (id INTEGER PRIMARY KEY, what TEXT NOT NULL, count INTEGER NOT NULL, lost INTEGER NOT NULL)
)sql";

std::string schema_of(const fs::path& path) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, "SELECT type, name, sql FROM sqlite_master ORDER BY type, name", -1, &s, nullptr),
            SQLITE_OK);
  std::string out;
  while (sqlite3_step(s) == SQLITE_ROW) {
    auto text = [&](int i) {
      const auto* p = sqlite3_column_text(s, i);
      return p ? std::string(reinterpret_cast<const char*>(p)) : std::string();
    };
    out += text(0) + " " + text(1) + ": " + text(2) + "\n";
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  return out;
}

std::string meta_value(const fs::path& path, const std::string& key) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(db, "SELECT value FROM headroom_meta WHERE key = ?", -1, &s, nullptr);
  sqlite3_bind_text(s, 1, key.c_str(), -1, SQLITE_TRANSIENT);
  std::string out = sqlite3_step(s) == SQLITE_ROW ? reinterpret_cast<const char*>(sqlite3_column_text(s, 0)) : "";
  sqlite3_finalize(s);
  sqlite3_close(db);
  return out;
}

TEST(TraceStoreSchema, MatchesTheDocumentedVersion) {
  const auto path = fs::temp_directory_path() / ("headroom-schema-" + std::to_string(::getpid()) + ".sqlite");
  trace t;
  t.format = source_format::nsys_sqlite;
  t.platform = "cuda";
  write_store(t, path);
  EXPECT_EQ(schema_of(path), expected_schema);
  EXPECT_EQ(store_schema_version, 4);
  EXPECT_EQ(meta_value(path, "schema_version"), "4");
  EXPECT_EQ(meta_value(path, "source_format"), "nsys-sqlite");
  EXPECT_EQ(meta_value(path, "platform"), "cuda");
  EXPECT_EQ(meta_value(path, "dropped_records"), "0");
  EXPECT_EQ(meta_value(path, "created_by").rfind("headroom ", 0), 0u);
  fs::remove(path);
}

}  // namespace
