# Finds the CUDA toolkit and CUPTI. Only src/cuda and src/cupti (later issues) may use them.
set(HEADROOM_HAVE_CUDA OFF)
if(NOT HEADROOM_CUDA STREQUAL "OFF")
  find_package(CUDAToolkit QUIET)
  if(CUDAToolkit_FOUND AND TARGET CUDA::cupti)
    set(HEADROOM_HAVE_CUDA ON)
    message(STATUS "headroom: CUDA ${CUDAToolkit_VERSION} with CUPTI found; GPU parts enabled")
  elseif(HEADROOM_CUDA STREQUAL "ON")
    message(FATAL_ERROR "HEADROOM_CUDA=ON but the CUDA toolkit with CUPTI was not found "
                        "(set CUDAToolkit_ROOT, or configure with -DHEADROOM_CUDA=OFF)")
  else()
    message(STATUS "headroom: CUDA/CUPTI not found; building the CPU-only parts")
  endif()
endif()
