#include <torch/mps.h>
#include <torch/torch.h>

#import <Foundation/Foundation.h>
#import <Metal/Metal.h>

#include "torch_binding.h"

// The builder compiles the .metal shaders into a metallib and embeds it in this header.
#include EMBEDDED_METALLIB_HEADER

// The MTLBuffer backing an MPS tensor (MPS tensors store it as their storage pointer).
static inline id<MTLBuffer> buffer_of(const torch::Tensor &tensor) {
  return __builtin_bit_cast(id<MTLBuffer>, tensor.storage().data());
}

void {{ python_name }}(torch::Tensor &out, torch::Tensor const &input) {
  TORCH_CHECK(input.device().is_mps(), "input must be an MPS tensor");
  TORCH_CHECK(out.device().is_mps(), "out must be an MPS tensor");
  TORCH_CHECK(input.scalar_type() == torch::kFloat && out.scalar_type() == torch::kFloat,
              "only float32 tensors are supported");
  TORCH_CHECK(out.sizes() == input.sizes(), "out and input must have the same shape");
  TORCH_CHECK(input.is_contiguous() && out.is_contiguous(), "out and input must be contiguous");
  if (input.numel() == 0) return;

  @autoreleasepool {
    // Encode on PyTorch's own MPS command buffer and queue, so the kernel is ordered with the
    // other work on these tensors.
    id<MTLCommandBuffer> command_buffer = torch::mps::get_command_buffer();
    TORCH_CHECK(command_buffer, "Failed to get the MPS command buffer");
    id<MTLDevice> device = command_buffer.device;
    NSError *error = nil;
    id<MTLLibrary> library = EMBEDDED_METALLIB_NAMESPACE::createLibrary(device, &error);
    TORCH_CHECK(library, "Failed to create Metal library: ", error.localizedDescription.UTF8String);
    id<MTLFunction> function = [library newFunctionWithName:@"{{ python_name }}_kernel"];
    TORCH_CHECK(function, "Metal function {{ python_name }}_kernel not found");
    id<MTLComputePipelineState> pipeline = [device newComputePipelineStateWithFunction:function error:&error];
    TORCH_CHECK(pipeline, "Failed to create compute pipeline: ", error.localizedDescription.UTF8String);

    dispatch_sync(torch::mps::get_dispatch_queue(), ^() {
      id<MTLComputeCommandEncoder> encoder = [command_buffer computeCommandEncoder];
      [encoder setComputePipelineState:pipeline];
      [encoder setBuffer:buffer_of(out) offset:out.storage_offset() * out.element_size() atIndex:0];
      [encoder setBuffer:buffer_of(input) offset:input.storage_offset() * input.element_size() atIndex:1];
      const NSUInteger n = static_cast<NSUInteger>(input.numel());
      const NSUInteger group = std::min<NSUInteger>(pipeline.maxTotalThreadsPerThreadgroup, n);
      [encoder dispatchThreads:MTLSizeMake(n, 1, 1) threadsPerThreadgroup:MTLSizeMake(group, 1, 1)];
      [encoder endEncoding];
      torch::mps::commit();
    });
  }
}
