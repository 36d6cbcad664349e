# swat_barrier_host: the plain C++ part of the barrier layer (barrier_layout.hpp), built in every
# configuration, CPU-only too. Included by cuda/sync/barrier/CMakeLists.txt and by the host
# libraries of the studies (their plan tests run in CPU-only builds).
if(NOT TARGET swat_barrier_host)
  add_library(swat_barrier_host STATIC ${CMAKE_CURRENT_LIST_DIR}/barrier_layout.cpp)
  target_include_directories(swat_barrier_host PUBLIC ${SWAT_ROOT})
  target_link_libraries(swat_barrier_host PUBLIC swat_seam)
  target_compile_options(swat_barrier_host PRIVATE -Wall -Wextra)
endif()
