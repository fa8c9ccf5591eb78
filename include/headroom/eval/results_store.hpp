#pragma once
// The results store lives in the store module (include/headroom/store/results_store.hpp), with the
// layer that puts SQLite and PostgreSQL behind one interface; these names keep eval's callers.
#include "headroom/store/results_store.hpp"

namespace headroom::eval {

using store::evaluation_filter;
using store::results_schema_version;
using store::results_store;
using store::stored_candidate;
using store::stored_problem;

}  // namespace headroom::eval
