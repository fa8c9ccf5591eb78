// Tensors in worker messages (src/eval/tensor_wire.hpp): encoded as views of their own bytes, and
// decoded from an answer's payload without copying the largest when the payload is theirs alone.
#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "eval/tensor_wire.hpp"

namespace headroom::eval {
namespace {

tensor filled(dtype type, std::vector<std::int64_t> shape, std::byte value) {
  tensor t;
  t.type = type;
  t.shape = std::move(shape);
  t.bytes.assign(std::size_t(t.numel()) * dtype_size(type), value);
  return t;
}

// The payload an answer carries for `tensors`, and the metas its header describes them with.
struct answer_like {
  std::string metas;
  std::vector<std::byte> payload;
  simdjson::dom::parser parser;
  simdjson::dom::array array() { return parser.parse(metas).get_array().value(); }
};

void fill(answer_like& a, const std::vector<tensor>& tensors) {
  std::vector<std::span<const std::byte>> parts;
  a.metas = wire::encode(tensors, parts);
  for (std::span<const std::byte> p : parts) a.payload.insert(a.payload.end(), p.begin(), p.end());
}

TEST(Wire, EncodingPointsAtTheTensorsOwnBytes) {
  const std::vector<tensor> inputs = {filled(dtype::f32, {2, 3}, std::byte{1}), filled(dtype::i64, {4}, std::byte{2})};
  std::vector<std::span<const std::byte>> parts;
  const std::string metas = wire::encode(inputs, parts);
  EXPECT_EQ(metas, R"([{"dtype":"float32","shape":[2,3],"bytes":24},{"dtype":"int64","shape":[4],"bytes":32}])");
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].data(), inputs[0].bytes.data());
  EXPECT_EQ(parts[1].size(), 32u);
}

TEST(Wire, TheLargestTensorTakesOverThePayloadBuffer) {
  // A small index tensor first, the large one second: it is moved to the buffer's front.
  answer_like a;
  fill(a, {filled(dtype::i32, {3}, std::byte{5}), filled(dtype::f32, {1000}, std::byte{7})});
  const std::byte* buffer = a.payload.data();
  std::vector<tensor> got = wire::decode(a.array(), std::move(a.payload));
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1].bytes.data(), buffer);
  EXPECT_EQ(got[1].bytes, filled(dtype::f32, {1000}, std::byte{7}).bytes);
  EXPECT_EQ(got[0].bytes, filled(dtype::i32, {3}, std::byte{5}).bytes);
  EXPECT_EQ(got[0].shape, std::vector<std::int64_t>{3});
}

TEST(Wire, TensorsOfSimilarSizeAreEachCopiedExactly) {
  // Adopting one would keep the other's bytes as dead capacity: two inputs of a gigabyte each
  // would hold three.
  answer_like a;
  fill(a, {filled(dtype::f32, {1000}, std::byte{1}), filled(dtype::f32, {900}, std::byte{2})});
  std::vector<tensor> got = wire::decode(a.array(), std::move(a.payload));
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].bytes, filled(dtype::f32, {1000}, std::byte{1}).bytes);
  EXPECT_EQ(got[1].bytes, filled(dtype::f32, {900}, std::byte{2}).bytes);
  EXPECT_EQ(got[0].bytes.capacity(), got[0].bytes.size());
}

TEST(Wire, APayloadThatIsNotExactlyTheTensorsIsRejected) {
  answer_like a;
  fill(a, {filled(dtype::f32, {10}, std::byte{1})});
  a.payload.push_back(std::byte{0});
  EXPECT_THROW(wire::decode(a.array(), std::move(a.payload)), std::runtime_error);
  answer_like b;
  fill(b, {filled(dtype::f32, {10}, std::byte{1})});
  b.payload.pop_back();
  EXPECT_THROW(wire::decode(b.array(), std::move(b.payload)), std::runtime_error);
}

}  // namespace
}  // namespace headroom::eval
