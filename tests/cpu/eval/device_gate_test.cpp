// The device gate that lets several evaluations share a GPU while each measurement runs alone.
#include "eval/device_gate.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <vector>

namespace headroom::eval {
namespace {

TEST(DeviceGate, MeasuringRequestsAreExclusiveAndDeviceWorkIsShared) {
  EXPECT_EQ(gate_use_of(R"("op":"time","sets":[],"warmup":3)"), gate_use::exclusive);
  EXPECT_EQ(gate_use_of(R"("op":"ceilings")"), gate_use::exclusive);
  for (const char* op : {R"("op":"run","inputs":[])", R"("op":"inputs","seed":1)", R"("op":"hello","nonce":"x")",
                         R"("op":"load","path":"p")", R"("op":"flops","inputs":[])", R"("op":"compile_baseline")"}) {
    EXPECT_EQ(gate_use_of(op), gate_use::shared) << op;
  }
  EXPECT_EQ(gate_use_of(R"("op":"stop")"), gate_use::none);
  EXPECT_EQ(gate_use_of("no op at all"), gate_use::none);
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

}  // namespace
}  // namespace headroom::eval
