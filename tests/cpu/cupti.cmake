# CUPTI record conversion, on fabricated records: needs the CUPTI headers, not a GPU (owner: cupti).
if(HEADROOM_HAVE_CUDA)
  headroom_cpu_test(cupti_convert_test ${CMAKE_CURRENT_LIST_DIR}/cupti/cupti_convert_test.cpp)
  target_link_libraries(cupti_convert_test PRIVATE headroom_cupti_convert)
endif()
