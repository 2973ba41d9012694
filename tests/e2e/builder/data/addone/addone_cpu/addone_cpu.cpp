#include <ATen/core/Tensor.h>

void addone(at::Tensor& out, const at::Tensor& input) {
  TORCH_CHECK(input.device().is_cpu(), "input must be a CPU tensor");
  // A formatted message: its text only comes out whole when the module shares torch's libstdc++.
  TORCH_CHECK(out.sizes() == input.sizes(), "addone: out has shape ", out.sizes(), ", input has shape ",
              input.sizes());
  out.copy_(input.add(1));
}
