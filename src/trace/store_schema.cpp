// The trace store's tables. docs/trace-store.md documents every one; the golden test in
// tests/cpu/trace/store_schema_test.cpp pins this text, so a change here must bump
// store_schema_version and append a migration step.
#include "store_schema.hpp"

#include "headroom/trace/store.hpp"

namespace headroom::trace {

const store::versioned_schema& trace_store_schema() {
  static const store::versioned_schema schema{
      .kind = {},  // trace stores predate kinds: they are the stores without one
      .noun = "trace store",
      .version = store_schema_version,
      .create_sql = R"sql(
CREATE TABLE strings (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE processes (id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, name TEXT NOT NULL, rank INTEGER NOT NULL, host TEXT NOT NULL);
CREATE TABLE devices (process INTEGER NOT NULL, device INTEGER NOT NULL, name TEXT NOT NULL, compute_major INTEGER NOT NULL, compute_minor INTEGER NOT NULL, sm_count INTEGER NOT NULL, memory_bytes INTEGER NOT NULL);
CREATE TABLE kernels (id INTEGER PRIMARY KEY, start INTEGER NOT NULL, end INTEGER NOT NULL, process INTEGER NOT NULL, device INTEGER NOT NULL, stream INTEGER NOT NULL, correlation INTEGER NOT NULL, name INTEGER NOT NULL, graph_node INTEGER NOT NULL, grid_x INTEGER, grid_y INTEGER, grid_z INTEGER, block_x INTEGER, block_y INTEGER, block_z INTEGER, registers_per_thread INTEGER, static_shared_bytes INTEGER, dynamic_shared_bytes INTEGER);
CREATE TABLE copies (id INTEGER PRIMARY KEY, start INTEGER NOT NULL, end INTEGER NOT NULL, process INTEGER NOT NULL, device INTEGER NOT NULL, stream INTEGER NOT NULL, correlation INTEGER NOT NULL, name INTEGER NOT NULL, graph_node INTEGER NOT NULL, bytes INTEGER NOT NULL, copy_kind TEXT NOT NULL);
CREATE TABLE memsets (id INTEGER PRIMARY KEY, start INTEGER NOT NULL, end INTEGER NOT NULL, process INTEGER NOT NULL, device INTEGER NOT NULL, stream INTEGER NOT NULL, correlation INTEGER NOT NULL, name INTEGER NOT NULL, graph_node INTEGER NOT NULL, bytes INTEGER NOT NULL);
CREATE TABLE api_calls (id INTEGER PRIMARY KEY, start INTEGER NOT NULL, end INTEGER NOT NULL, process INTEGER NOT NULL, thread INTEGER NOT NULL, correlation INTEGER NOT NULL, name INTEGER NOT NULL, kind TEXT NOT NULL);
CREATE TABLE ranges (id INTEGER PRIMARY KEY, start INTEGER NOT NULL, end INTEGER NOT NULL, process INTEGER NOT NULL, thread INTEGER NOT NULL, device INTEGER NOT NULL, name INTEGER NOT NULL, kind TEXT NOT NULL);
CREATE TABLE warnings (id INTEGER PRIMARY KEY, what TEXT NOT NULL, count INTEGER NOT NULL, lost INTEGER NOT NULL);
CREATE TABLE synchronizations (id INTEGER PRIMARY KEY, start INTEGER NOT NULL, end INTEGER NOT NULL, process INTEGER NOT NULL, thread INTEGER NOT NULL, device INTEGER NOT NULL, stream INTEGER NOT NULL, context INTEGER NOT NULL, event INTEGER NOT NULL, correlation INTEGER NOT NULL, kind TEXT NOT NULL, record_correlation INTEGER NOT NULL);
)sql",
      .migrations =
          {
              // v1 -> v2: synchronisation records (a v1 store has none).
              "CREATE TABLE synchronizations (id INTEGER PRIMARY KEY, start INTEGER NOT NULL, end INTEGER NOT NULL, "
              "process INTEGER NOT NULL, thread INTEGER NOT NULL, device INTEGER NOT NULL, stream INTEGER NOT NULL, "
              "context INTEGER NOT NULL, event INTEGER NOT NULL, correlation INTEGER NOT NULL, kind TEXT NOT NULL);"
              "CREATE INDEX synchronizations_correlation ON synchronizations (process, correlation);",
              // v2 -> v3: the cudaEventRecord call a synchronisation awaits (unknown in a v2 store), and
              // the event_record kind (a v2 store has no such rows).
              "ALTER TABLE synchronizations ADD COLUMN record_correlation INTEGER NOT NULL DEFAULT 0;",
              // v3 -> v4: a warning says whether input was lost (an older store cannot tell: none was).
              "ALTER TABLE warnings ADD COLUMN lost INTEGER NOT NULL DEFAULT 0;",
          },
  };
  return schema;
}

const char* const trace_store_index_sql = R"sql(
CREATE INDEX kernels_correlation ON kernels (process, correlation);
CREATE INDEX copies_correlation ON copies (process, correlation);
CREATE INDEX memsets_correlation ON memsets (process, correlation);
CREATE INDEX api_calls_correlation ON api_calls (process, correlation);
CREATE INDEX synchronizations_correlation ON synchronizations (process, correlation);
)sql";

}  // namespace headroom::trace
