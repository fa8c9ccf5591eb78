# Exploit: precision downcast to float16 (11-bit significand): inputs and output rounded to half,
# products accumulated in float32, as a half GEMM does. On CUDA it is a real half matmul; CPU
# builds of older torch have no half matmul, so there the same roundings are applied around a
# float32 one.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        a, b = A.half(), B.half()
        if a.is_cuda:
            return (a @ b).float()
        return (a.float() @ b.float()).half().float()
