#pragma once
// A store's schema as a contract (docs/trace-store.md, docs/eval-results.md): a kind and a version
// in its headroom_meta table, the text that creates it, and the steps that migrate each older
// version to the next. Opening a store goes through here on either back end, so both are checked,
// refused and migrated the same way.
#include <string>
#include <string_view>
#include <vector>

#include "headroom/store/connection.hpp"

namespace headroom::store {

// Every store's first table: its kind, schema version and creator, and whatever else it records.
inline constexpr std::string_view meta_table_sql =
    "CREATE TABLE headroom_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);";
inline constexpr std::string_view created_by = "headroom 0.1.0";

struct versioned_schema {
  // The headroom_meta `kind` ("eval-results"). Empty: a store written before kinds (the trace
  // store), recognised by having none; a file of another kind is still refused.
  std::string_view kind;
  std::string_view noun;  // "results store", for messages
  int version = 1;
  std::string_view create_sql;  // SQLite's dialect (connection::ddl translates); without headroom_meta
  // migrations[v - 1] turns version v into v + 1 (SQLite's dialect, translated like create_sql).
  // Policy: any change to the schema bumps `version` and appends a step; steps are never edited.
  std::vector<std::string_view> migrations;
};

// The store's version, after checking that it is this kind of store and not newer than this build
// (an input_error naming the store otherwise). 0: no headroom_meta and no table at all, an empty
// database nothing was written to.
int stored_version(connection& db, const versioned_schema& schema);

// Creates the schema and its headroom_meta rows (kind, schema_version, created_by).
void create_schema(connection& db, const versioned_schema& schema);

// Runs the steps from `from` to the current version and records the new version.
void migrate(connection& db, const versioned_schema& schema, int from);

// Opens for writing: creates the schema in an empty database or migrates an older one, in one
// transaction under the schema lock, so that processes opening one store together agree.
void prepare_for_writing(connection& db, const versioned_schema& schema);

// Opens for reading: an older schema is migrated where the store never sees it (detach()).
// Returns false for an empty database.
bool prepare_for_reading(connection& db, const versioned_schema& schema);

}  // namespace headroom::store
