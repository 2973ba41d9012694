#include <torch/torch.h>

void addone(torch::Tensor& out, const torch::Tensor& input) {
  TORCH_CHECK(input.device().is_cpu(), "input must be a CPU tensor");
  out.copy_(input + 1);
}
