#include "worker/error_replies.hpp"

#include <string>

#include <fmt/format.h>

#include "headroom/util/json.hpp"
#include "worker/allocation_watch.hpp"
#include "worker/parent_channel.hpp"
#include "worker/python_driver.hpp"
#include "worker/request_error.hpp"

namespace headroom::worker {

using util::json_string;

void error_replies::python(const char* error) const {
  python_error e = python_.take_error();
  if (allocations_.allocation_failed()) {
    e.kind = "out_of_memory";
    e.message = allocations_.failure_text() + "; then: " + e.message;
  }
  channel_.reply(fmt::format(R"("ok":false,"error":"{}","kind":"{}","message":{},"traceback":{})", error, e.kind,
                             json_string(e.message), json_string(e.traceback)));
}

void error_replies::exception(const std::exception& e) const {
  if (const auto* large = dynamic_cast<const too_large*>(&e))
    return channel_.reply(fmt::format(R"("ok":false,"error":"too_large","kind":"","message":{},"bytes":{})",
                                      json_string(large->what()), large->bytes));
  if (dynamic_cast<const request_error*>(&e))
    return channel_.reply(
        fmt::format(R"("ok":false,"error":"runtime_error","kind":"","message":{})", json_string(e.what())));
  std::string what = e.what();
  std::string kind = what.find("illegal") != std::string::npos || what.find("misaligned") != std::string::npos
                         ? "illegal_address"
                         : (what.find("out of memory") != std::string::npos ? "out_of_memory" : "");
  if (allocations_.allocation_failed()) {
    kind = "out_of_memory";
    what = allocations_.failure_text() + "; then: " + what;
  }
  channel_.reply(
      fmt::format(R"("ok":false,"error":"runtime_error","kind":"{}","message":{})", kind, json_string(what)));
}

bool error_replies::out_of_memory() const {
  if (!allocations_.allocation_failed()) return false;
  channel_.reply(fmt::format(R"("ok":false,"error":"runtime_error","kind":"out_of_memory","message":{})",
                             json_string(allocations_.failure_text())));
  return true;
}

}  // namespace headroom::worker
