# CUPTI record conversion, on fabricated records: needs the CUPTI headers, not a GPU (owner: cupti).
if(HEADROOM_HAVE_CUDA)
  headroom_cpu_test(cupti_convert_test ${CMAKE_CURRENT_LIST_DIR}/cupti/cupti_convert_test.cpp)
  target_link_libraries(cupti_convert_test PRIVATE headroom_cupti_convert)
endif()

# The pool of CUPTI's activity buffers (bounded, zeroed before reuse) and the rings of API calls
# our callbacks record (owner: cupti).
if(HEADROOM_HAVE_CUDA)
  headroom_cpu_test(activity_buffers_test ${CMAKE_CURRENT_LIST_DIR}/cupti/activity_buffers_test.cpp)
  target_link_libraries(activity_buffers_test PRIVATE headroom_cupti_buffers Threads::Threads)
  headroom_cpu_test(api_call_log_test ${CMAKE_CURRENT_LIST_DIR}/cupti/api_call_log_test.cpp)
  target_link_libraries(api_call_log_test PRIVATE headroom_cupti_buffers Threads::Threads)
endif()

# The HEADROOM_PROFILE_* contract with the launcher, and the injection library's exports (owner: cupti).
if(HEADROOM_HAVE_CUDA)
  headroom_cpu_test(profile_settings_test ${CMAKE_CURRENT_LIST_DIR}/cupti/profile_settings_test.cpp)
  target_link_libraries(profile_settings_test PRIVATE headroom_cupti_settings)
  headroom_cpu_test(inject_library_test ${CMAKE_CURRENT_LIST_DIR}/cupti/inject_library_test.cpp)
  target_compile_definitions(inject_library_test PRIVATE HEADROOM_INJECT_LIBRARY="$<TARGET_FILE:headroom_inject>")
  target_link_libraries(inject_library_test PRIVATE ${CMAKE_DL_LIBS})
  add_dependencies(inject_library_test headroom_inject)
endif()
