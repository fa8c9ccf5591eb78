#pragma once
// The embedded interpreter's start: Python as if the given environment's executable had been run
// (main.cpp, before any request). The rest of the Python gateway is python_*.hpp.
#include <string>

namespace headroom::worker {

// Starts Python as if `executable` had been run, so its virtual environment's site-packages are on
// the path. Throws with Python's own message when it cannot start.
void start_python(const std::string& executable);

}  // namespace headroom::worker
