#include "device_gate.hpp"

#include <map>
#include <memory>

namespace headroom::eval {

gate_use gate_use_of(std::string_view fields) {
  constexpr std::string_view key = "\"op\":\"";
  const auto at = fields.find(key);
  if (at == std::string_view::npos) return gate_use::none;
  std::string_view op = fields.substr(at + key.size());
  op = op.substr(0, op.find('"'));
  const worker::request_kind* kind = worker::find_request(op);
  return kind ? kind->use : gate_use::shared;
}

void device_gate::lock_shared() {
  std::unique_lock l(m_);
  cv_.wait(l, [&] { return !writer_ && waiting_writers_ == 0; });
  ++readers_;
}

void device_gate::unlock_shared() {
  {
    std::lock_guard l(m_);
    --readers_;
  }
  cv_.notify_all();
}

void device_gate::lock() {
  std::unique_lock l(m_);
  ++waiting_writers_;
  cv_.wait(l, [&] { return !writer_ && readers_ == 0; });
  --waiting_writers_;
  writer_ = true;
}

void device_gate::unlock() {
  {
    std::lock_guard l(m_);
    writer_ = false;
  }
  cv_.notify_all();
}

int device_gate::waiting_writers() {
  std::lock_guard l(m_);
  return waiting_writers_;
}

device_gate& gate_for(const std::string& device) {
  static std::mutex m;
  static std::map<std::string, std::unique_ptr<device_gate>> gates;
  std::lock_guard l(m);
  auto& g = gates[device];
  if (!g) g = std::make_unique<device_gate>();
  return *g;
}

device_gate& host_gate() {
  static device_gate gate;
  return gate;
}

std::shared_lock<device_gate> host_work() { return std::shared_lock(host_gate()); }

gate_pass pass_gates(std::string_view fields, const std::string& device) {
  gate_pass p;
  switch (gate_use_of(fields)) {
    case gate_use::shared:
      p.host_shared = host_work();
      p.device_shared = std::shared_lock(gate_for(device));
      break;
    case gate_use::exclusive:
      p.host_exclusive = std::unique_lock(host_gate());
      p.device_exclusive = std::unique_lock(gate_for(device));
      break;
    case gate_use::none:
      break;
  }
  return p;
}

}  // namespace headroom::eval
