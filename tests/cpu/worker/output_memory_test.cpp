// Where a call's outputs may lie (worker/output_memory.hpp): an output is judged on its values in
// memory the call allocated, in memory the candidate keeps that the worker filled before the call,
// or (in the trials only) in memory the harness handed out earlier that no call returned yet; an
// input's memory, memory no allocator of the harness handed out, a strided view of kept memory and
// memory that is not private each fail with a reason that says which.
#include "worker/output_memory.hpp"

#include <gtest/gtest.h>

#include <sys/mman.h>

#include <cstdint>
#include <vector>

namespace {

using namespace headroom::worker;

// Address ranges stand in for memory: nothing here is read or written.
const void* at(std::uintptr_t a) { return reinterpret_cast<const void*>(a); }

output_extent out(std::uintptr_t a, std::size_t bytes, bool dense = true) {
  output_extent x;
  x.begin = at(a);
  x.bytes = bytes;
  x.dense = dense;
  x.type = headroom::dtype::f32;
  return x;
}

// A worker's view after a call: the blocks allocated during it, those since load, the inputs.
struct memory {
  std::vector<memory_span> during, since_load;
  output_sources sources() const {
    auto in = [](const std::vector<memory_span>& blocks) {
      return [blocks](const output_extent& x) {
        for (const memory_span& b : blocks)
          if (reinterpret_cast<std::uintptr_t>(b.begin) <= reinterpret_cast<std::uintptr_t>(x.begin) &&
              reinterpret_cast<std::uintptr_t>(x.begin) + x.bytes <=
                  reinterpret_cast<std::uintptr_t>(b.begin) + b.bytes)
            return true;
        return false;
      };
    };
    output_sources s;
    s.allocated_during_call = in(during);
    s.allocated_since_load = in(since_load);
    s.private_read_write = [](const output_extent&) { return true; };
    s.blocks_during_call = during.size();
    return s;
  }
};

TEST(OutputMemory, AnOutputTheCallAllocatedIsFresh) {
  memory m{{{at(0x10000), 4096, false}}, {{at(0x10000), 4096, false}}};
  output_placement p = place_outputs({out(0x10000, 4096), out(0x10400, 1024)}, m.sources());
  ASSERT_FALSE(p.failed()) << p.why;
  ASSERT_EQ(p.places.size(), 2u);
  EXPECT_EQ(p.places[0].memory, output_memory::fresh);
  EXPECT_EQ(p.places[1].memory, output_memory::fresh);
}

TEST(OutputMemory, AnOutputInAnInputIsAnAliasOfIt) {
  memory m{{}, {}};
  output_sources s = m.sources();
  s.inputs = {{at(0x20000), 8192, false}, {at(0x40000), 4096, false}};
  // A view of the second input, and the first input itself.
  for (const output_extent& x : {out(0x40100, 256), out(0x20000, 8192)}) {
    output_placement p = place_outputs({x}, s);
    ASSERT_TRUE(p.failed());
    EXPECT_EQ(p.code, "output_aliases_input");
    EXPECT_NE(p.why.find("memory of input"), std::string::npos) << p.why;
  }
  // Input memory on the device is another address space than host memory at the same address.
  s.inputs = {{at(0x20000), 8192, true}};
  EXPECT_EQ(place_outputs({out(0x20000, 64)}, s).code, "foreign_output");
}

TEST(OutputMemory, KeptMemoryTheWorkerFilledIsJudgedAsKept) {
  // An out= buffer allocated in an earlier call and returned again: filled before this call.
  memory m{{}, {{at(0x50000), 1 << 20, false}}};
  output_sources s = m.sources();
  s.filled = {{at(0x90000), 64, false}, {at(0x50000), 1 << 20, false}};
  output_placement p = place_outputs({out(0x50000, 1 << 20)}, s);
  ASSERT_FALSE(p.failed()) << p.why;
  EXPECT_EQ(p.places[0].memory, output_memory::kept);
  EXPECT_EQ(p.places[0].filled, 1u);
  // Outside the trials too: a timed call may return a buffer it keeps once the worker fills it.
  s.first_return_allowed = false;
  EXPECT_FALSE(place_outputs({out(0x50000, 1 << 20)}, s).failed());
}

TEST(OutputMemory, MemoryFirstReturnedIsAcceptedInTheTrialsOnly) {
  // A buffer allocated at load (or the second of two used in turn) returned for the first time.
  memory m{{}, {{at(0x60000), 4096, false}}};
  output_sources s = m.sources();
  s.first_return_allowed = true;
  output_placement p = place_outputs({out(0x60000, 4096)}, s);
  ASSERT_FALSE(p.failed()) << p.why;
  EXPECT_EQ(p.places[0].memory, output_memory::first_returned);
  s.first_return_allowed = false;
  p = place_outputs({out(0x60000, 4096)}, s);
  EXPECT_EQ(p.code, "foreign_output");
  EXPECT_NE(p.why.find("for the first time"), std::string::npos) << p.why;
}

TEST(OutputMemory, MemoryNoAllocatorHandedOutIsForeign) {
  memory m{{{at(0x10000), 4096, false}}, {{at(0x10000), 4096, false}}};
  output_sources s = m.sources();
  s.first_return_allowed = true;
  output_placement p = place_outputs({out(0x10000, 4096), out(0x70000, 4096)}, s);
  ASSERT_TRUE(p.failed());
  EXPECT_EQ(p.code, "foreign_output");
  EXPECT_NE(p.why.find("output 1"), std::string::npos) << p.why;
  EXPECT_NE(p.why.find("mapped or allocated itself"), std::string::npos) << p.why;
  EXPECT_TRUE(p.places.empty());
}

TEST(OutputMemory, AStridedViewOfKeptMemoryCannotBeChecked) {
  // Every other column of a buffer the candidate keeps: filling the whole range would write memory
  // the output does not cover; filling only the view is not done, so it is refused.
  memory m{{}, {{at(0x80000), 8192, false}}};
  output_sources s = m.sources();
  s.filled = {{at(0x80000), 8192, false}};
  s.first_return_allowed = true;
  output_placement p = place_outputs({out(0x80000, 8192, false)}, s);
  EXPECT_EQ(p.code, "foreign_output");
  EXPECT_NE(p.why.find("strided view"), std::string::npos) << p.why;
  // A strided view of memory the call allocated is fresh as any other.
  m.during = {{at(0x80000), 8192, false}};
  EXPECT_FALSE(place_outputs({out(0x80000, 8192, false)}, m.sources()).failed());
}

TEST(OutputMemory, MemoryThatIsNotPrivateIsForeign) {
  memory m{{{at(0x10000), 4096, false}}, {}};
  output_sources s = m.sources();
  s.private_read_write = [](const output_extent&) { return false; };
  EXPECT_EQ(place_outputs({out(0x10000, 4096)}, s).code, "foreign_output");
  // Device memory has no mapping of the worker's to read.
  output_extent d = out(0x10000, 4096);
  d.on_device = true;
  m.during = {};
  s = m.sources();
  s.private_read_write = [](const output_extent&) { return false; };
  s.allocated_during_call = [](const output_extent&) { return true; };
  EXPECT_FALSE(place_outputs({d}, s).failed());
}

TEST(OutputMemory, AnEmptyOutputLiesAnywhere) {
  memory m{{}, {}};
  EXPECT_FALSE(place_outputs({out(0x1234, 0)}, m.sources()).failed());
}

TEST(OutputMemory, TheProcessMapsSayWhatIsPrivate) {
  const std::size_t page = 4096;
  void* priv = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  void* shared = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  void* locked = mmap(nullptr, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(priv, MAP_FAILED);
  ASSERT_NE(shared, MAP_FAILED);
  ASSERT_NE(locked, MAP_FAILED);
  EXPECT_TRUE(mapped_private_read_write(priv, page));
  EXPECT_FALSE(mapped_private_read_write(shared, page));  // another process could write it later
  EXPECT_FALSE(mapped_private_read_write(locked, page));  // filled by a fault handler when first read
  munmap(priv, page);
  munmap(shared, page);
  munmap(locked, page);
}

}  // namespace
