# Honest candidate for problems/attention.py (library): the hand-written softmax(q k^T / sqrt(d)) v
# replaced by torch.nn.functional.scaled_dot_product_attention (a fused attention kernel, float32,
# no mask, no dropout). Needs PyTorch 2.0 or later.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False)
