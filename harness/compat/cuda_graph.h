#pragma once
// at::cuda::CUDAGraph capture. Include only where OPTBENCH_WITH_CUDA is set.
// capture_begin(MempoolId_t pool = {0, 0}, cudaStreamCaptureMode mode);
// CUDAGraph(bool keep_graph = false), and with keep_graph false capture_end()
// also instantiates the graph. CUDAGraph is neither copyable nor movable: hold it
// by pointer.
#include <ATen/cuda/CUDAGraph.h>
#include <c10/util/Exception.h>
#include <cuda_runtime_api.h>

namespace optbench::compat {

// Begins capturing on the current stream, which must not be the default stream.
// Global mode (Python's torch.cuda.graph default) makes any thread's unsafe CUDA
// call, such as a synchronising copy, fail the capture instead of corrupting it.
inline void capture_begin(at::cuda::CUDAGraph& g, cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal) {
  g.capture_begin({0, 0}, mode);  // {0, 0}: a private memory pool of this graph's own
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
