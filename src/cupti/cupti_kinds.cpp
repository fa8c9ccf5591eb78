// Which activity kinds and API calls CUPTI records: the kinds of the settings, and under --api
// launches every runtime and driver call but the query calls, either by kind with the queries
// switched off or call by call (HEADROOM_PROFILE_API_ENABLE=calls).
#include <algorithm>
#include <vector>

#include "cupti_session_state.hpp"

namespace headroom::cupti::detail {
namespace {

// The runtime (driver) calls recorded one by one under HEADROOM_PROFILE_API_ENABLE=calls: every
// named call but the queries. Found once by name (a capture range enables the kinds at every start).
const std::vector<CUpti_CallbackId>& recorded_calls(bool runtime) {
  static const auto runtime_calls = named_callbacks(CUPTI_CB_DOMAIN_RUNTIME_API, false);
  static const auto driver_calls = named_callbacks(CUPTI_CB_DOMAIN_DRIVER_API, false);
  return runtime ? runtime_calls : driver_calls;
}

bool api_kind(CUpti_ActivityKind kind) {
  return kind == CUPTI_ACTIVITY_KIND_RUNTIME || kind == CUPTI_ACTIVITY_KIND_DRIVER;
}

bool call_by_call(const session& s, CUpti_ActivityKind kind) {
  return api_kind(kind) && s.settings.api == api_calls::launches && s.settings.api_enable == api_enabling::calls;
}

// Switches one recorded call of the RUNTIME (DRIVER) kind on or off; CUPTI_SUCCESS or its error.
CUptiResult enable_call(bool runtime, CUpti_CallbackId cbid, bool on) {
  return runtime ? cuptiActivityEnableRuntimeApi(cbid, on ? 1 : 0) : cuptiActivityEnableDriverApi(cbid, on ? 1 : 0);
}

}  // namespace

std::vector<CUpti_CallbackId> named_callbacks(CUpti_CallbackDomain domain, bool queries) {
  const CUpti_CallbackId size = domain == CUPTI_CB_DOMAIN_DRIVER_API
                                    ? static_cast<CUpti_CallbackId>(CUPTI_DRIVER_TRACE_CBID_SIZE)
                                    : static_cast<CUpti_CallbackId>(CUPTI_RUNTIME_TRACE_CBID_SIZE);
  std::vector<CUpti_CallbackId> ids;
  for (CUpti_CallbackId cbid = 1; cbid < size; ++cbid) {
    const auto name = callback_name(domain, cbid);
    if (!name.empty() && is_query_api(name) == queries) ids.push_back(cbid);
  }
  return ids;
}

// Enables an activity kind. RUNTIME and DRIVER under --api launches: either the whole kind, then
// the query calls switched off one by one (enabling a kind resets its per-call choices), or, with
// HEADROOM_PROFILE_API_ENABLE=calls, the recorded calls switched on one by one, the kind left off.
CUptiResult enable_kind(const session& s, CUpti_ActivityKind kind) {
  const bool runtime = kind == CUPTI_ACTIVITY_KIND_RUNTIME;
  if (call_by_call(s, kind)) {
    CUptiResult first_error = CUPTI_SUCCESS;
    std::size_t enabled = 0;
    for (CUpti_CallbackId cbid : recorded_calls(runtime)) {
      const auto result = enable_call(runtime, cbid, true);
      if (result == CUPTI_SUCCESS) {
        ++enabled;
      } else if (first_error == CUPTI_SUCCESS) {
        first_error = result;
      }
    }
    return enabled > 0 ? CUPTI_SUCCESS : first_error;
  }
  const auto result = cuptiActivityEnable(kind);
  if (result != CUPTI_SUCCESS || !api_kind(kind) || s.settings.api != api_calls::launches) return result;
  static const auto runtime_queries = named_callbacks(CUPTI_CB_DOMAIN_RUNTIME_API, true);
  static const auto driver_queries = named_callbacks(CUPTI_CB_DOMAIN_DRIVER_API, true);
  for (CUpti_CallbackId cbid : runtime ? runtime_queries : driver_queries) {
    HEADROOM_CUPTI_TRY(enable_call(runtime, cbid, false));
  }
  return CUPTI_SUCCESS;
}

void disable_kind(const session& s, CUpti_ActivityKind kind) {
  if (!call_by_call(s, kind)) {
    HEADROOM_CUPTI_TRY(cuptiActivityDisable(kind));
    return;
  }
  const bool runtime = kind == CUPTI_ACTIVITY_KIND_RUNTIME;
  for (CUpti_CallbackId cbid : recorded_calls(runtime)) enable_call(runtime, cbid, false);
}

}  // namespace headroom::cupti::detail
