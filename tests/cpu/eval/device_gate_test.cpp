// The device gate that lets several evaluations share a GPU while each measurement runs alone.
#include "eval/device_gate.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <thread>
#include <vector>

namespace headroom::eval {
namespace {

TEST(DeviceGate, MeasuringRequestsAreExclusiveAndDeviceWorkIsShared) {
  EXPECT_EQ(gate_use_of(R"("op":"time","sets":[],"warmup":3)"), gate_use::exclusive);
  EXPECT_EQ(gate_use_of(R"("op":"ceilings")"), gate_use::exclusive);
  EXPECT_EQ(gate_use_of(R"("op":"transfers","read_bytes":4096,"read_evicted":true,"write_bytes":4096)"),
            gate_use::exclusive);
  for (const char* op : {R"("op":"run","inputs":[])", R"("op":"inputs","seed":1)", R"("op":"hello","nonce":"x")",
                         R"("op":"load","path":"p")", R"("op":"flops","inputs":[])", R"("op":"compile_baseline")",
                         R"("op":"dependence","seed":7)"}) {
    EXPECT_EQ(gate_use_of(op), gate_use::shared) << op;
  }
  EXPECT_EQ(gate_use_of(R"("op":"bye")"), gate_use::none);
  EXPECT_EQ(gate_use_of("no op at all"), gate_use::none);
  EXPECT_EQ(gate_use_of(R"("op":"not_a_request")"), gate_use::shared);
}

// Every listed request is gated as the list says, and the list names each op once.
TEST(DeviceGate, FollowsTheWorkersListOfRequests) {
  for (const worker::request_kind& r : worker::requests) {
    EXPECT_EQ(gate_use_of(fmt::format(R"("op":"{}","x":1)", r.op)), r.use) << r.op;
    EXPECT_EQ(worker::find_request(r.op), &r) << r.op;
  }
}

TEST(DeviceGate, OneGatePerDevice) {
  EXPECT_EQ(&gate_for("cuda:0"), &gate_for("cuda:0"));
  EXPECT_NE(&gate_for("cuda:0"), &gate_for("cuda:1"));
}

TEST(DeviceGate, AWaitingMeasurementGoesBeforeLaterDeviceWork) {
  device_gate g;
  std::mutex order_mutex;
  std::vector<char> order;
  auto note = [&](char c) {
    std::lock_guard l(order_mutex);
    order.push_back(c);
  };
  g.lock_shared();  // a request in flight
  std::thread writer([&] {
    std::unique_lock l(g);
    note('W');
  });
  while (g.waiting_writers() == 0) std::this_thread::yield();
  std::atomic<bool> reader_in{false};
  std::thread reader([&] {
    std::shared_lock l(g);
    reader_in = true;
    note('R');
  });
  // The later request may not start while the measurement waits (a wrong gate lets it in at once).
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(reader_in.load());
  g.unlock_shared();
  writer.join();
  reader.join();
  EXPECT_EQ(order, (std::vector<char>{'W', 'R'}));
}

TEST(DeviceGate, RequestsShareTheDeviceWhenNothingMeasures) {
  device_gate g;
  std::shared_lock a(g);
  std::atomic<bool> second{false};
  std::thread t([&] {
    std::shared_lock b(g);
    second = true;
  });
  t.join();  // would hang if shared requests excluded each other
  EXPECT_TRUE(second.load());
}

// Until the host gate has a measurement waiting, or 2 s (a gate that lets it in at once).
bool measurement_waits() {
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (host_gate().waiting_writers() == 0)
    if (std::chrono::steady_clock::now() > until) return false;
    else std::this_thread::yield();
  return true;
}

// Two lanes on two GPUs of one host: a measurement on one waits for the other's request in flight,
// and the other's next request waits for the measurement (host_gate). Requests of both share.
TEST(HostGate, AMeasurementOnOneDeviceExcludesRequestsOnAnother) {
  std::atomic<bool> measured{false}, later_in{false};
  std::optional<gate_pass> in_flight = pass_gates(R"("op":"run","inputs":[])", "cuda:1");
  {
    gate_pass sharing = pass_gates(R"("op":"run","inputs":[])", "cuda:0");  // requests of two lanes share
  }
  std::thread measuring([&] {
    gate_pass g = pass_gates(R"("op":"time","sets":[])", "cuda:0");
    measured = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(later_in.load());  // cuda:1's next request waits for the measurement
  });
  EXPECT_TRUE(measurement_waits());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(measured.load());  // waits for cuda:1's request in flight
  std::thread later([&] {
    gate_pass g = pass_gates(R"("op":"inputs","seed":1)", "cuda:1");
    later_in = true;
  });
  in_flight.reset();
  measuring.join();
  later.join();
  EXPECT_TRUE(measured.load());
  EXPECT_TRUE(later_in.load());
}

TEST(HostGate, HostWorkOfTheParentHoldsOffAMeasurement) {
  std::atomic<bool> measured{false};
  auto audit = host_work();  // a comparison or the audit, in the parent
  std::thread measuring([&] {
    gate_pass g = pass_gates(R"("op":"ceilings")", "cuda:0");
    measured = true;
  });
  EXPECT_TRUE(measurement_waits());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(measured.load());
  audit.unlock();
  measuring.join();
  EXPECT_TRUE(measured.load());
}

}  // namespace
}  // namespace headroom::eval
