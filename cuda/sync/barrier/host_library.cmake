# swat_barrier_host: the plain C++ part of the barrier layer (sync_mode.hpp), built in every
# configuration, CPU-only too. Included by cuda/sync/barrier/CMakeLists.txt and, when CUDA is off,
# by tests/cuda/CMakeLists.txt (the CLI can include this file the same way).
if(NOT TARGET swat_barrier_host)
  add_library(swat_barrier_host STATIC ${CMAKE_CURRENT_LIST_DIR}/sync_mode.cpp)
  target_include_directories(swat_barrier_host PUBLIC ${SWAT_ROOT} ${SWAT_ROOT}/src)
  target_compile_options(swat_barrier_host PRIVATE -Wall -Wextra)
endif()
