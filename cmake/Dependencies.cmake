# Finds every dependency and fails with one clear line naming what is missing
# (and how to get it) instead of a find_package stack trace. A macro, not a
# function: find_package must set TORCH_LIBRARIES etc. in this scope.

macro(optbench_require pkg hint)
  find_package(${pkg} ${ARGN} QUIET)
  if(NOT ${pkg}_FOUND)
    message(FATAL_ERROR "optbench: missing dependency '${pkg}'. ${hint}")
  endif()
endmacro()

# The oldest LibTorch the sources support: 2.6, the first with AOTInductor's C++
# package loader (and the DeviceType autocast API, 2.4). Checked: 2.11.
set(OPTBENCH_MIN_TORCH 2.6)
optbench_require(Torch
  "Point CMAKE_PREFIX_PATH (or TORCH_CMAKE_PREFIX with the presets) at a LibTorch: pip torch's is python3 -c 'import torch;print(torch.utils.cmake_prefix_path)', or an unpacked LibTorch zip's share/cmake.")
if(Torch_VERSION VERSION_LESS OPTBENCH_MIN_TORCH)
  message(FATAL_ERROR "optbench: LibTorch ${Torch_VERSION} found at ${Torch_DIR}; optbench needs ${OPTBENCH_MIN_TORCH} or newer")
endif()
optbench_require(nlohmann_json "Install nlohmann-json3-dev." 3)
optbench_require(CLI11 "Install libcli11-dev.")

find_package(GTest QUIET)
find_package(benchmark QUIET)
find_package(Threads REQUIRED)

# The interpreter the tests, `optbench report` and the aot_inductor experiment
# run (the scripts pass the one they found or made; $OPTBENCH_PYTHON overrides
# it at run time).
if(NOT OPTBENCH_PYTHON)
  find_program(OPTBENCH_PYTHON_FOUND NAMES python3 python)
  set(OPTBENCH_PYTHON "${OPTBENCH_PYTHON_FOUND}" CACHE FILEPATH "Python with torch and the report's packages")
endif()

set(OPTBENCH_WITH_CUDA OFF)
if(TARGET torch_cuda)
  set(OPTBENCH_WITH_CUDA ON)
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
  if(CMAKE_CXX_COMPILER_LAUNCHER)
    set(CMAKE_CUDA_COMPILER_LAUNCHER "${CMAKE_CXX_COMPILER_LAUNCHER}")
  endif()
endif()
# No GPU is there to detect on a build machine: Ampere and Hopper machine code,
# and Hopper PTX that newer GPUs (Blackwell) compile when they load it.
set(OPTBENCH_CUDA_ARCHITECTURES "80-real;90-real;90-virtual" CACHE STRING "CUDA_ARCHITECTURES of optbench's own .cu files")
message(STATUS "optbench: LibTorch ${Torch_VERSION}, CUDA support: ${OPTBENCH_WITH_CUDA}, Python: ${OPTBENCH_PYTHON}")

# Everything in the project links this: LibTorch plus the compile definition that
# guards CUDA-only code.
add_library(optbench_torch INTERFACE)
target_link_libraries(optbench_torch INTERFACE ${TORCH_LIBRARIES} nlohmann_json::nlohmann_json Threads::Threads ${CMAKE_DL_LIBS})
target_include_directories(optbench_torch INTERFACE ${PROJECT_SOURCE_DIR})
target_include_directories(optbench_torch SYSTEM INTERFACE ${TORCH_INCLUDE_DIRS})
target_compile_definitions(optbench_torch INTERFACE OPTBENCH_VERSION="${PROJECT_VERSION}")
# The configured Python and the source tree in a generated header that only
# harness/build_info.cpp includes: a clone elsewhere or another Python rebuilds
# one file, and ccache (CCACHE_BASEDIR) reuses the rest.
configure_file(${PROJECT_SOURCE_DIR}/cmake/build_config.h.in ${PROJECT_BINARY_DIR}/generated/optbench/build_config.h @ONLY)
if(OPTBENCH_WITH_CUDA)
  target_compile_definitions(optbench_torch INTERFACE OPTBENCH_WITH_CUDA=1)
  target_link_libraries(optbench_torch INTERFACE CUDA::cudart)
endif()

# pip's LibTorch exports copies of libstdc++ functions it linked statically from a
# newer GCC (libtorch.so: std::filesystem, whose remove_all calls a weak
# recursive_directory_iterator::__erase that older libstdc++ lacks, so it jumps to
# address 0; libtorch_cpu.so: 2,400 std:: symbols). The dynamic linker binds a
# call to the first library in load order that defines the symbol, and g++ puts
# libstdc++ last on the link line, after LibTorch. Naming libstdc++ first makes it
# the first DT_NEEDED of every binary, so every std:: call binds to the libstdc++
# the code was compiled against (tests/libstdcxx_bindings.sh checks each binary).
if(CMAKE_SYSTEM_NAME STREQUAL "Linux" AND CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  target_link_options(optbench_torch INTERFACE "LINKER:--push-state,--no-as-needed,-lstdc++,--pop-state")
endif()
