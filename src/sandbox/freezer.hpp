#pragma once
// The isolated workers alive in this process, so that a measurement can freeze all the others.
#include "headroom/sandbox/worker_process.hpp"

namespace headroom::sandbox {

void registry_add(worker_process* w);
void registry_remove(worker_process* w);

}  // namespace headroom::sandbox
