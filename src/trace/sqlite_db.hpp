#pragma once
// Where trace's SQLite layer was: it is util's now (headroom/util/sqlite_db.hpp). Kept only for
// src/eval/results_store.cpp, the one include cmake/modules.cmake lists as an exception; remove both
// once that file includes the util header.
#include "headroom/util/sqlite_db.hpp"

namespace headroom::trace {
namespace sqlite = util::sqlite;
}
