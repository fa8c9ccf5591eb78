// The worker's pin of its timing thread to one CPU (worker/thread_pin.hpp): the thread runs there
// while pinned, gets its earlier CPUs back after, and a CPU it may not use changes nothing.
#include "worker/thread_pin.hpp"

#include <gtest/gtest.h>
#include <sched.h>

namespace {

using headroom::worker::thread_pin;

int count_of(const cpu_set_t& s) { return CPU_COUNT(&s); }

cpu_set_t allowed() {
  cpu_set_t s;
  CPU_ZERO(&s);
  EXPECT_EQ(sched_getaffinity(0, sizeof s, &s), 0);
  return s;
}

int last_allowed(const cpu_set_t& s) {
  for (int c = CPU_SETSIZE - 1; c >= 0; --c)
    if (CPU_ISSET(c, &s)) return c;
  return -1;
}

TEST(ThreadPin, RunsOnTheCpuWhilePinnedAndGetsItsCpusBackAfter) {
  cpu_set_t before = allowed();
  int cpu = last_allowed(before);
  ASSERT_GE(cpu, 0);
  {
    thread_pin pin(cpu);
    if (!pin.pinned()) GTEST_SKIP() << "this sandbox refuses sched_setaffinity";
    cpu_set_t now = allowed();
    EXPECT_EQ(count_of(now), 1);
    EXPECT_TRUE(CPU_ISSET(cpu, &now));
  }
  cpu_set_t after = allowed();
  EXPECT_TRUE(CPU_EQUAL(&before, &after));
}

TEST(ThreadPin, ACpuOutsideTheThreadsSetChangesNothing) {
  cpu_set_t before = allowed();
  for (int cpu : {-1, CPU_SETSIZE, CPU_SETSIZE + 5}) {
    thread_pin pin(cpu);
    EXPECT_FALSE(pin.pinned()) << cpu;
  }
  // A CPU the thread may not use (when the machine has one): refused, the set unchanged.
  int outside = -1;
  for (int c = 0; c < CPU_SETSIZE && outside < 0; ++c)
    if (!CPU_ISSET(c, &before)) outside = c;
  {
    thread_pin pin(outside);
    EXPECT_FALSE(pin.pinned());
  }
  cpu_set_t after = allowed();
  EXPECT_TRUE(CPU_EQUAL(&before, &after));
}

}  // namespace
