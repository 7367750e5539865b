#pragma once
// at::cuda::CUDAGraph capture across LibTorch versions. Include only where
// OPTBENCH_WITH_CUDA is set.
//  - 1.13: capture_begin(MempoolId_t pool = {0, 0}); the capture mode is always
//    cudaStreamCaptureModeGlobal.
//  - 2.x: capture_begin(MempoolId_t pool = {0, 0}, cudaStreamCaptureMode mode =
//    cudaStreamCaptureModeGlobal); CUDAGraph(bool keep_graph = false), and with
//    keep_graph false capture_end() also instantiates the graph, as in 1.13.
//    CUDAGraph is neither copyable nor movable: hold it by pointer.
// The overload is picked by what compiles, not by a version number.
#include <ATen/cuda/CUDAGraph.h>
#include <c10/util/Exception.h>
#include <cuda_runtime_api.h>

namespace optbench::compat {
namespace detail {

template <class Graph>
auto capture_begin_impl(Graph& g, cudaStreamCaptureMode mode, int) -> decltype(g.capture_begin({0, 0}, mode), void()) {
  g.capture_begin({0, 0}, mode);  // {0, 0}: a private memory pool of this graph's own
}

template <class Graph>
void capture_begin_impl(Graph& g, cudaStreamCaptureMode mode, long) {
  TORCH_CHECK(mode == cudaStreamCaptureModeGlobal, "this LibTorch captures CUDA graphs in global mode only");
  g.capture_begin();
}

}  // namespace detail

// Begins capturing on the current stream, which must not be the default stream.
// Global mode (Python's torch.cuda.graph default) makes any thread's unsafe CUDA
// call, such as a synchronising copy, fail the capture instead of corrupting it.
inline void capture_begin(at::cuda::CUDAGraph& g, cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal) {
  detail::capture_begin_impl(g, mode, 0);
}

// After an exception between capture_begin and capture_end: ends the capture so
// the stream is usable again (the graph is discarded), and clears the error.
inline void abandon_capture(at::cuda::CUDAGraph& g) noexcept {
  try {
    g.capture_end();
  } catch (...) {  // the capture was invalid: that is why it is abandoned
  }
  (void)cudaGetLastError();
}

}  // namespace optbench::compat
