#include "headroom/sandbox/announcements.hpp"
#include "headroom/sandbox/channel.hpp"

#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <span>
#include <thread>
#include <vector>

using namespace headroom::sandbox;
using namespace std::chrono_literals;

namespace {
struct pipe_pair {
  int r = -1, w = -1;
  pipe_pair() {
    int fds[2];
    EXPECT_EQ(pipe(fds), 0);
    r = fds[0];
    w = fds[1];
  }
  ~pipe_pair() {
    if (r >= 0) close(r);
    if (w >= 0) close(w);
  }
};
}  // namespace

TEST(Channel, AMessageWithALargePayloadArrivesWhole) {
  pipe_pair p;
  message m{R"({"op":"run"})", std::vector<std::byte>(5 << 20, std::byte{7})};
  std::thread writer([&] { EXPECT_TRUE(write_message(p.w, m)); });
  read_result r = read_message(p.r, std::chrono::steady_clock::now() + 10s);
  writer.join();
  ASSERT_EQ(r.status, read_status::ok);
  EXPECT_EQ(r.msg.header, m.header);
  EXPECT_EQ(r.msg.payload, m.payload);
}

// A worker that hangs becomes a timeout, not a hung harness.
TEST(Channel, ReadingFromASilentWriterTimesOut) {
  pipe_pair p;
  auto start = std::chrono::steady_clock::now();
  read_result r = read_message(p.r, start + 200ms);
  EXPECT_EQ(r.status, read_status::timeout);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

TEST(Channel, AClosedWriterReadsAsClosed) {
  pipe_pair p;
  close(p.w);
  p.w = -1;
  EXPECT_EQ(read_message(p.r, std::nullopt).status, read_status::closed);
}

// A candidate writing into the result channel produces bytes that are not a frame.
TEST(Channel, BytesThatAreNotAFrameAreMalformed) {
  pipe_pair p;
  const char junk[] = "check: pass\ntime: 0.00001\n";
  ASSERT_EQ(write(p.w, junk, sizeof junk), static_cast<ssize_t>(sizeof junk));
  EXPECT_EQ(read_message(p.r, std::chrono::steady_clock::now() + 1s).status, read_status::malformed);
}

// Gigabyte-scale payloads go through shared memory; the frame names the file and the reader
// removes it, so nothing is left behind.
TEST(Channel, ALargePayloadTravelsThroughSharedMemoryAndLeavesNoFile) {
  pipe_pair p;
  std::vector<std::byte> big(64 << 20);
  for (std::size_t i = 0; i < big.size(); i += 4096) big[i] = std::byte(i >> 12);
  message m{R"({"op":"inputs"})", big};
  std::thread writer([&] { EXPECT_TRUE(write_message(p.w, m)); });
  read_result r = read_message(p.r, std::chrono::steady_clock::now() + 60s);
  writer.join();
  ASSERT_EQ(r.status, read_status::ok);
  EXPECT_EQ(r.msg.payload, big);
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/dev/shm", ec))
    EXPECT_EQ(e.path().filename().string().find("headroom-" + std::to_string(getpid()) + "-"), std::string::npos)
        << e.path();
}

// Tensors go out as views of their own bytes, gathered as the message is written, through the
// pipe and through shared memory alike.
TEST(Channel, GatheredPartsArriveAsOnePayload) {
  for (std::size_t size : {std::size_t(1000), std::size_t(3) << 20}) {  // the pipe; a file in /dev/shm
    pipe_pair p;
    std::vector<std::byte> a(size, std::byte{1}), b(size + 7, std::byte{2}), empty;
    const std::vector<std::span<const std::byte>> parts = {a, empty, b};
    std::thread writer([&] { EXPECT_TRUE(write_message(p.w, R"({"op":"run"})", parts)); });
    read_result r = read_message(p.r, std::chrono::steady_clock::now() + 60s);
    writer.join();
    ASSERT_EQ(r.status, read_status::ok);
    std::vector<std::byte> whole = a;
    whole.insert(whole.end(), b.begin(), b.end());
    EXPECT_EQ(r.msg.payload, whole) << size;
  }
}

// A payload is read into the buffer of an earlier one when it fits (its pages are mapped already);
// one too small is not grown, which would copy its stale bytes.
TEST(Channel, APayloadIsReadIntoTheBufferItIsGiven) {
  for (std::size_t size : {std::size_t(1000), std::size_t(6) << 20}) {
    pipe_pair p;
    std::vector<std::byte> sent(size, std::byte{9});
    std::vector<std::byte> spare(size + 100, std::byte{3});
    const std::byte* spare_data = spare.data();
    message m{R"({"op":"run"})", sent};
    std::thread writer([&] { EXPECT_TRUE(write_message(p.w, m)); });
    read_result r = read_message(p.r, std::chrono::steady_clock::now() + 60s, std::move(spare), 2);
    writer.join();
    ASSERT_EQ(r.status, read_status::ok);
    EXPECT_EQ(r.msg.payload, sent);
    EXPECT_EQ(r.msg.payload.data(), spare_data) << size;

    std::thread again([&] { EXPECT_TRUE(write_message(p.w, m)); });
    r = read_message(p.r, std::chrono::steady_clock::now() + 60s, std::vector<std::byte>(10, std::byte{3}));
    again.join();
    ASSERT_EQ(r.status, read_status::ok);
    EXPECT_EQ(r.msg.payload, sent);
  }
}

namespace {
std::vector<std::byte> pattern(std::size_t n, unsigned seed) {
  std::vector<std::byte> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((i * 131 + seed) & 0xFF);
  return v;
}

std::size_t dev_shm_files() {
  std::size_t n = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/dev/shm", ec))
    n += e.path().filename().string().rfind("headroom-", 0) == 0;
  return n;
}
}  // namespace

TEST(Channel, LargePayloadsTravelThroughTheSharedRegionOneAfterAnother) {
  shared_region region = make_shared_region("headroom-test");
  if (region.fd < 0) GTEST_SKIP() << "memfd_create is not available here";
  pipe_pair p;
  const std::size_t before = dev_shm_files();
  // Growing, shrinking and growing again: each answer is exactly what was written, never a longer
  // earlier payload's tail.
  for (auto [bytes, seed] : {std::pair<std::size_t, unsigned>{6 << 20, 1}, {5 << 20, 2}, {9 << 20, 3}}) {
    const std::vector<std::byte> a = pattern(bytes / 3, seed), b = pattern(bytes - bytes / 3, seed + 7);
    const std::span<const std::byte> parts[] = {a, b};
    std::thread writer([&] { EXPECT_TRUE(write_message(p.w, R"({"op":"run"})", parts, region, 2)); });
    read_result r = read_message(p.r, std::chrono::steady_clock::now() + 10s, std::vector<std::byte>(), 2, region);
    writer.join();
    ASSERT_EQ(r.status, read_status::ok) << r.problem;
    ASSERT_EQ(r.msg.payload.size(), bytes);
    EXPECT_TRUE(std::equal(a.begin(), a.end(), r.msg.payload.begin()));
    EXPECT_TRUE(std::equal(b.begin(), b.end(), r.msg.payload.begin() + static_cast<std::ptrdiff_t>(a.size())));
  }
  EXPECT_EQ(dev_shm_files(), before);  // nothing went through /dev/shm
  close(region.fd);
}

TEST(Channel, APayloadInARegionTheReaderDoesNotHaveIsMalformed) {
  shared_region region = make_shared_region("headroom-test");
  if (region.fd < 0) GTEST_SKIP() << "memfd_create is not available here";
  pipe_pair p;
  const std::vector<std::byte> big = pattern(5 << 20, 4);
  const std::span<const std::byte> parts[] = {big};
  ASSERT_TRUE(write_message(p.w, R"({"op":"run"})", parts, region, 1));
  read_result r = read_message(p.r, std::chrono::steady_clock::now() + 10s);  // no region here
  EXPECT_EQ(r.status, read_status::malformed);
  EXPECT_NE(r.problem.find("shared region"), std::string::npos) << r.problem;
  close(region.fd);
}

TEST(Channel, SmallPayloadsStayInThePipeEvenWithARegion) {
  shared_region region = make_shared_region("headroom-test");
  if (region.fd < 0) GTEST_SKIP() << "memfd_create is not available here";
  pipe_pair p;
  message m{R"({"op":"inputs"})", pattern(1000, 5)};
  const std::span<const std::byte> parts[] = {m.payload};
  ASSERT_TRUE(write_message(p.w, m.header, parts, region, 1));
  read_result r = read_message(p.r, std::chrono::steady_clock::now() + 10s);  // works without the region
  ASSERT_EQ(r.status, read_status::ok);
  EXPECT_EQ(r.msg.payload, m.payload);
  struct stat st {};
  ASSERT_EQ(fstat(region.fd, &st), 0);
  EXPECT_EQ(st.st_size, 0);  // the region was not touched
  close(region.fd);
}

TEST(Channel, NoOneCanShrinkARegionUnderTheReader) {
  // A candidate holds its worker's regions: cut short while the parent copies out of its mapping,
  // one would kill the parent with SIGBUS.
  shared_region region = make_shared_region("headroom-test");
  if (region.fd < 0) GTEST_SKIP() << "memfd_create or sealing is not available here";
  ASSERT_EQ(ftruncate(region.fd, 8 << 20), 0);  // growing is how writers make room
  EXPECT_NE(ftruncate(region.fd, 0), 0);
  EXPECT_NE(fcntl(region.fd, F_ADD_SEALS, F_SEAL_GROW), 0);  // nor can the seals be changed
  close(region.fd);
}

// The parent bounds a timed call by the stamps of its start and end announcements: a stamp must say
// when the worker sent it, however late the parent reads it (a busy machine is late to wake it).
TEST(Announcements, CarryTheirSendTimeNotTheirReadTime) {
  announcement_socket s = make_announcement_socket();
  auto now_ms = [] {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
  };
  const double before = now_ms();
  ASSERT_TRUE(announce(s.worker, "start 3"));
  const double sent = now_ms();
  std::this_thread::sleep_for(80ms);
  ASSERT_TRUE(announce(s.worker, "done 3"));
  const double read_at = now_ms();
  std::vector<announcement> got = read_announcements(s.parent);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].text, "start 3");
  EXPECT_EQ(got[1].text, "done 3");
  EXPECT_GE(got[0].sent_ms, before - 1.0);  // two clocks (realtime, then monotonic): 1 ms either way
  EXPECT_LE(got[0].sent_ms, sent + 1.0);
  EXPECT_GE(got[1].sent_ms - got[0].sent_ms, 79.0);
  EXPECT_LE(got[1].sent_ms, read_at + 1.0);
  EXPECT_TRUE(read_announcements(s.parent).empty());  // nothing waits: the parent's end never blocks
  close(s.parent);
  close(s.worker);
}
