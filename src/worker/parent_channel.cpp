#include "worker/parent_channel.hpp"

#include <cstdlib>

#include <fmt/format.h>

#include "headroom/util/json.hpp"
#include "worker/request_error.hpp"

namespace headroom::worker {

sandbox::read_result parent_channel::read_request(std::vector<std::byte>&& reuse) {
  // Bulk copies run on the worker's chunk_pool (installed in main), never on new threads.
  return sandbox::read_message(in_, std::nullopt, std::move(reuse), 0, in_region_);
}

void parent_channel::reply(const std::string& fields, std::span<const std::span<const std::byte>> parts) {
  if (pending_) send_pending_();
  pending_ = pending_reply{fmt::format(R"({{"nonce":{},{}}})", util::json_string(nonce_), fields),
                           {parts.begin(), parts.end()}};
}

void parent_channel::reply(const std::string& fields, const std::vector<std::byte>& payload) {
  const std::span<const std::byte> part(payload);
  reply(fields, std::span(&part, 1));
}

void parent_channel::write_pending() {
  const bool written = sandbox::write_message(out_, pending_->header, pending_->parts, out_region_, 0);
  pending_.reset();
  if (!written) std::_Exit(4);
}

simdjson::dom::element parent_channel::ask(simdjson::dom::parser& parser, const char* what, int call) {
  if (!sandbox::write_message(
          out_, sandbox::message{
                    fmt::format(R"({{"nonce":{},"ask":"{}","call":{}}})", util::json_string(nonce_), what, call), {}}))
    std::_Exit(4);
  sandbox::read_result r = sandbox::read_message(in_, std::nullopt);
  if (r.status != sandbox::read_status::ok) std::_Exit(r.status == sandbox::read_status::closed ? 0 : 3);
  simdjson::dom::element doc;
  if (parser.parse(r.msg.header).get(doc)) throw request_error("the parent's answer to a question is not JSON");
  return doc;
}

}  // namespace headroom::worker
