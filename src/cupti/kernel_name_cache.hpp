#pragma once
// Kernel name -> event-stream string id, found by the address of the name's text. CUPTI gives
// every record of a kernel function the same name pointer, so a converted kernel record costs a
// pointer lookup instead of hashing ~100-300 characters under the writer's lock.
//
// A module unload can free that text and a later module reuse the address for another name. A hit
// is therefore confirmed by strcmp against the text we copied: exact (a length plus the first and
// last bytes would pass two tile shapes of one CUTLASS template, which differ only in the middle),
// no dearer than the strlen an uncached intern needs, and it stops at the new text's end, so it
// never reads past it.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "headroom/trace/model.hpp"

namespace headroom::cupti {

class kernel_name_cache {
 public:
  // Enough for every kernel of a large model and its autotuning; beyond it names go uncached
  // rather than growing without bound inside someone else's process.
  static constexpr std::size_t max_names = 65'536;

  // The id remembered for `name`'s address, if the text there is still the text remembered.
  std::optional<trace::string_id> find(const char* name) const noexcept {
    if (slots_.empty()) return std::nullopt;
    for (auto i = home(name);; i = (i + 1) & (slots_.size() - 1)) {
      const auto& s = slots_[i];
      if (s.address == name) {
        if (std::strcmp(name, s.text.c_str()) != 0) return std::nullopt;
        return s.id;
      }
      if (s.address == nullptr) return std::nullopt;
    }
  }

  // Remembers `id` for `text`, the text now at `name`, replacing what that address held before.
  // May throw std::bad_alloc.
  void remember(const char* name, std::string_view text, trace::string_id id) {
    if (slots_.empty()) slots_.resize(512);
    auto* s = &slot_for(name);
    if (s->address == nullptr) {
      if (used_ >= max_names) return;
      if (2 * (used_ + 1) > slots_.size()) {
        grow();
        s = &slot_for(name);
      }
      s->address = name;
      ++used_;
    }
    s->text.assign(text);
    s->id = id;
  }

  std::size_t size() const noexcept { return used_; }

 private:
  struct slot {
    const char* address = nullptr;
    trace::string_id id = 0;
    std::string text;
  };

  std::size_t home(const char* p) const noexcept {
    // Fibonacci hashing: the low bits of heap and .rodata addresses repeat, the high bits of the
    // product do not.
    const auto h = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(p)) * 0x9E3779B97F4A7C15ULL;
    return static_cast<std::size_t>(h >> 32) & (slots_.size() - 1);
  }

  // The slot holding `p`, or the empty slot where it would go.
  slot& slot_for(const char* p) noexcept {
    auto i = home(p);
    while (slots_[i].address != nullptr && slots_[i].address != p) i = (i + 1) & (slots_.size() - 1);
    return slots_[i];
  }

  void grow() {
    std::vector<slot> old(slots_.size() * 2);
    old.swap(slots_);
    for (auto& s : old) {
      if (s.address != nullptr) slot_for(s.address) = std::move(s);
    }
  }

  std::vector<slot> slots_;  // open addressing, linear probing; a power of two, at most half full
  std::size_t used_ = 0;
};

}  // namespace headroom::cupti
