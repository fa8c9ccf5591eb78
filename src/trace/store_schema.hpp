#pragma once
// The trace store's schema as a versioned contract (docs/trace-store.md): written by
// store_write.cpp, checked and migrated on read by store_read.cpp through the stores' shared layer.
#include "headroom/store/schema.hpp"

namespace headroom::trace {

const store::versioned_schema& trace_store_schema();

// Built after the rows are in: one sort per index instead of a b-tree update per row.
extern const char* const trace_store_index_sql;

}  // namespace headroom::trace
