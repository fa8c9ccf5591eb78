#include "torch_fallback.hpp"

#include <algorithm>
#include <array>

namespace headroom::eval {

bool is_compute_operator(std::string_view name) {
  // Sorted, for the binary search. Allocation, views and reshapes, copies and conversions, fills, and the
  // helpers PyTorch's own kernels dispatch along the way (resolve_conj, result_type, ...).
  static constexpr auto not_compute = std::to_array<std::string_view>({"_local_scalar_dense",
                                                                       "_reshape_alias",
                                                                       "_to_copy",
                                                                       "_unsafe_view",
                                                                       "alias",
                                                                       "as_strided",
                                                                       "as_strided_",
                                                                       "broadcast_tensors",
                                                                       "chunk",
                                                                       "clone",
                                                                       "contiguous",
                                                                       "copy_",
                                                                       "detach",
                                                                       "empty",
                                                                       "empty_like",
                                                                       "empty_strided",
                                                                       "expand",
                                                                       "expand_as",
                                                                       "fill_",
                                                                       "flatten",
                                                                       "full",
                                                                       "full_like",
                                                                       "is_same_size",
                                                                       "item",
                                                                       "lift_fresh",
                                                                       "lift_fresh_copy",
                                                                       "movedim",
                                                                       "narrow",
                                                                       "new_empty",
                                                                       "new_empty_strided",
                                                                       "new_full",
                                                                       "new_ones",
                                                                       "new_zeros",
                                                                       "ones",
                                                                       "ones_like",
                                                                       "permute",
                                                                       "reshape",
                                                                       "resize_",
                                                                       "resolve_conj",
                                                                       "resolve_neg",
                                                                       "result_type",
                                                                       "select",
                                                                       "set_",
                                                                       "slice",
                                                                       "split",
                                                                       "squeeze",
                                                                       "squeeze_",
                                                                       "t",
                                                                       "to",
                                                                       "transpose",
                                                                       "unbind",
                                                                       "unflatten",
                                                                       "unsqueeze",
                                                                       "unsqueeze_",
                                                                       "view",
                                                                       "view_as",
                                                                       "zero_",
                                                                       "zeros",
                                                                       "zeros_like"});
  static_assert(std::is_sorted(not_compute.begin(), not_compute.end()));
  name = name.substr(0, name.find('('));
  return !name.empty() && !std::binary_search(not_compute.begin(), not_compute.end(), name);
}

std::optional<std::string> torch_fallback(std::span<const std::string> reference,
                                          const std::set<std::string>& candidate) {
  std::set<std::string> compute;
  for (const std::string& op : reference)
    if (is_compute_operator(op)) compute.insert(op);
  if (compute.empty()) return std::nullopt;
  std::string list;
  for (const std::string& op : compute) {
    if (!candidate.contains(op)) return std::nullopt;
    list += (list.empty() ? "" : ", ") + op;
  }
  return list;
}

}  // namespace headroom::eval
