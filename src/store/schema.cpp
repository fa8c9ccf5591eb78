#include "headroom/store/schema.hpp"

#include <fmt/core.h>

#include <charconv>

#include "headroom/util/error.hpp"

namespace headroom::store {
namespace {

[[noreturn]] void refuse(connection& db, std::string_view why) {
  throw input_error(fmt::format("{}: {}", db.name(), why));
}

std::string meta(connection& db, std::string_view key, bool& found) {
  std::string value;
  found = false;
  db.run("SELECT value FROM headroom_meta WHERE key = $1", {key}, [&](const row& r) {
    value = std::string(r.text(0));
    found = true;
  });
  return value;
}

}  // namespace

int stored_version(connection& db, const versioned_schema& schema) {
  if (!db.has_table("headroom_meta")) {
    if (db.table_count() == 0) return 0;
    // Another process may have created the schema (in one transaction) between the two looks.
    if (!db.has_table("headroom_meta"))
      refuse(db, fmt::format("not a headroom {} (no headroom_meta table)", schema.noun));
  }
  bool has_kind = false, has_version = false;
  const std::string kind = meta(db, "kind", has_kind);
  if (kind != schema.kind) {
    if (!has_kind)
      refuse(db, fmt::format("not a headroom {} (headroom_meta has no kind; a trace store?)", schema.noun));
    refuse(db, fmt::format("not a headroom {} (it is a \"{}\" file)", schema.noun, kind));
  }
  const std::string text = meta(db, "schema_version", has_version);
  if (!has_version) refuse(db, "headroom_meta has no schema_version");
  int v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 1) {
    refuse(db, fmt::format("schema_version \"{}\" is not a version headroom writes", text));
  }
  if (v > schema.version) {
    refuse(db, fmt::format("written by a newer headroom ({} schema v{}; this build reads up to v{}): upgrade headroom",
                           schema.noun, v, schema.version));
  }
  return v;
}

void create_schema(connection& db, const versioned_schema& schema) {
  db.exec(db.ddl(meta_table_sql));
  db.exec(db.ddl(schema.create_sql));
  const std::string version = std::to_string(schema.version);
  if (!schema.kind.empty()) db.run("INSERT INTO headroom_meta VALUES ('kind', $1)", {schema.kind});
  db.run("INSERT INTO headroom_meta VALUES ('schema_version', $1)", {std::string_view(version)});
  db.run("INSERT INTO headroom_meta VALUES ('created_by', $1)", {created_by});
}

void migrate(connection& db, const versioned_schema& schema, int from) {
  for (int v = from; v < schema.version; ++v) db.exec(db.ddl(schema.migrations.at(static_cast<std::size_t>(v - 1))));
  const std::string version = std::to_string(schema.version);
  db.run("UPDATE headroom_meta SET value = $1 WHERE key = 'schema_version'", {std::string_view(version)});
}

void prepare_for_writing(connection& db, const versioned_schema& schema) {
  // A foreign or newer store is refused before anything is written to it.
  int version = stored_version(db, schema);
  if (version == schema.version) return;
  transaction t(db);
  db.lock_schema();
  // Another process may have created or migrated it between our look and the lock.
  version = stored_version(db, schema);
  if (version == 0) create_schema(db, schema);
  else if (version < schema.version) migrate(db, schema, version);
  t.commit();
}

bool prepare_for_reading(connection& db, const versioned_schema& schema) {
  const int version = stored_version(db, schema);
  if (version == 0) return false;
  if (version < schema.version) {
    db.detach();
    migrate(db, schema, version);
  }
  return true;
}

}  // namespace headroom::store
