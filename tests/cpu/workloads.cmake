# The reference workloads' tiny presets on the CPU (owner: study). Needs the Python with PyTorch
# that the evaluation worker uses (Debian's python3-torch); skipped (77) without one.
if(HEADROOM_WORKER_PYTHON)
  add_test(NAME workloads_tiny_presets
           COMMAND ${HEADROOM_WORKER_PYTHON} ${PROJECT_SOURCE_DIR}/tests/workloads/tiny_presets.py ${PROJECT_SOURCE_DIR}/workloads)
  set_tests_properties(workloads_tiny_presets PROPERTIES LABELS cpu SKIP_RETURN_CODE 77 TIMEOUT 600)
endif()
# The swappable kernels (workloads/swap.py) through their CPU implementations, and the --swap options.
if(HEADROOM_WORKER_PYTHON)
  add_test(NAME workloads_swap
           COMMAND ${HEADROOM_WORKER_PYTHON} ${PROJECT_SOURCE_DIR}/tests/workloads/swap_test.py ${PROJECT_SOURCE_DIR}/workloads)
  set_tests_properties(workloads_swap PROPERTIES LABELS cpu SKIP_RETURN_CODE 77 TIMEOUT 600)
endif()
