#include <metal_stdlib>
using namespace metal;

kernel void {{ python_name }}_kernel(device float *out [[buffer(0)]], device const float *input [[buffer(1)]],
                                   uint index [[thread_position_in_grid]]) {
  out[index] = input[index] + 1.0f;
}
