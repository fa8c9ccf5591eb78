# The launch-cost program needs CUDA (bench/launch_cost/).
if(HEADROOM_HAVE_CUDA)
  add_subdirectory(${CMAKE_CURRENT_LIST_DIR}/launch_cost ${CMAKE_CURRENT_BINARY_DIR}/launch_cost)
endif()
