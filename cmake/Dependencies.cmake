# Finds every dependency and fails with one clear line naming what is missing
# (and how to get it) instead of a find_package stack trace. A macro, not a
# function: find_package must set TORCH_LIBRARIES etc. in this scope.

macro(optbench_require pkg hint)
  find_package(${pkg} ${ARGN} QUIET)
  if(NOT ${pkg}_FOUND)
    message(FATAL_ERROR "optbench: missing dependency '${pkg}'. ${hint}")
  endif()
endmacro()

optbench_require(Torch
  "Install Debian's libtorch-dev, or point CMAKE_PREFIX_PATH at a LibTorch (pip torch: python3 -c 'import torch;print(torch.utils.cmake_prefix_path)').")
optbench_require(nlohmann_json "Install nlohmann-json3-dev." 3)
optbench_require(CLI11 "Install libcli11-dev.")

find_package(GTest QUIET)
find_package(benchmark QUIET)
find_package(Threads REQUIRED)

set(OPTBENCH_WITH_CUDA OFF)
if(TARGET torch_cuda)
  set(OPTBENCH_WITH_CUDA ON)
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
endif()
message(STATUS "optbench: LibTorch ${Torch_VERSION}${TORCH_VERSION}, CUDA support: ${OPTBENCH_WITH_CUDA}")

# Everything in the project links this: LibTorch plus the compile definition that
# guards CUDA-only code.
add_library(optbench_torch INTERFACE)
target_link_libraries(optbench_torch INTERFACE ${TORCH_LIBRARIES} nlohmann_json::nlohmann_json Threads::Threads ${CMAKE_DL_LIBS})
target_include_directories(optbench_torch INTERFACE ${PROJECT_SOURCE_DIR})
# Debian's torch target does not carry its include directories.
target_include_directories(optbench_torch SYSTEM INTERFACE ${TORCH_INCLUDE_DIRS})
target_compile_definitions(optbench_torch INTERFACE
  OPTBENCH_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
  OPTBENCH_VERSION="${PROJECT_VERSION}")
if(OPTBENCH_WITH_CUDA)
  target_compile_definitions(optbench_torch INTERFACE OPTBENCH_WITH_CUDA=1)
  target_link_libraries(optbench_torch INTERFACE CUDA::cudart)
endif()
