"""Model pieces the transformer workloads share, in plain PyTorch.

No transformers, timm or torchvision: the same code runs the tiny preset on Debian's CPU-only
PyTorch 1.13 and the large preset on the GPU image's PyTorch 2.x, and the kernels a trace shows are
the ones these few lines ask for, not a library's choice of fused paths.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

import swap


def _version():
    major, minor = torch.__version__.split(".")[:2]
    return int(major), int("".join(c for c in minor if c.isdigit()) or 0)


# scaled_dot_product_attention came with PyTorch 2.0 (flash, cuDNN and memory-efficient backends on
# the GPU); its enable_gqa argument with 2.5, which lets the backend read each key/value head for
# its whole query group instead of a copy of k and v per query head.
HAS_SDPA = hasattr(F, "scaled_dot_product_attention")
_SDPA_GQA = HAS_SDPA and _version() >= (2, 5)


def attention(q, k, v, causal=False):
    """q [b, h, t, d], k and v [b, hk, s, d] with h a multiple of hk (grouped-query when hk < h).
    causal needs t == s. Without SDPA (PyTorch 1.13): softmax(q k^T / sqrt(d)) v written out."""
    h, hk = q.shape[1], k.shape[1]
    if _SDPA_GQA and h != hk:
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=True)
    if h != hk:
        k = k.repeat_interleave(h // hk, dim=1)
        v = v.repeat_interleave(h // hk, dim=1)
    if HAS_SDPA:
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if causal:
        t = q.shape[2]
        scores = scores.masked_fill(torch.ones(t, t, dtype=torch.bool, device=q.device).triu(1), float("-inf"))
    return scores.softmax(dim=-1) @ v


class TransformerBlock(nn.Module):
    """Multi-head self-attention and a GELU feed-forward, each with a residual: pre-LayerNorm (GPT,
    ViT) or post-LayerNorm (BERT)."""

    def __init__(self, d, heads, ffn, bias, causal, pre_norm, gelu, device=None, dtype=None):
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        self.heads, self.causal, self.pre_norm, self.gelu = heads, causal, pre_norm, gelu
        self.ln1 = nn.LayerNorm(d, **kw)
        self.qkv = nn.Linear(d, 3 * d, bias=bias, **kw)
        self.proj = nn.Linear(d, d, bias=bias, **kw)
        self.ln2 = nn.LayerNorm(d, **kw)
        self.fc1 = nn.Linear(d, ffn, bias=bias, **kw)
        self.fc2 = nn.Linear(ffn, d, bias=bias, **kw)

    def _attention(self, x):
        b, t, d = x.shape
        shape = (b, t, self.heads, d // self.heads)
        q, k, v = (z.view(shape).transpose(1, 2) for z in self.qkv(x).split(d, dim=2))
        y = attention(q, k, v, causal=self.causal)
        return self.proj(y.transpose(1, 2).reshape(b, t, d))

    def _feed_forward(self, x):
        return self.fc2(swap.gelu(self.fc1(x), self.gelu))

    def forward(self, x):
        if self.pre_norm:
            x = x + self._attention(self.ln1(x))
            return x + self._feed_forward(self.ln2(x))
        x = self.ln1(x + self._attention(x))
        return self.ln2(x + self._feed_forward(x))


class RMSNorm(nn.Module):
    """x / sqrt(mean(x^2) + eps) * weight, computed in fp32 and cast back (as Llama's reference code)."""

    def __init__(self, d, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d, device=device, dtype=dtype))

    def forward(self, x):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)).type_as(x) * self.weight


def rope_tables(positions, head_dim, base, device, dtype):
    """cos and sin of the rotary embedding for each position: [len(positions), head_dim] each."""
    inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2, device=device, dtype=torch.float32) / head_dim))
    angles = torch.outer(positions.to(device=device, dtype=torch.float32), inv_freq)
    angles = torch.cat([angles, angles], dim=-1)
    return angles.cos().to(dtype), angles.sin().to(dtype)


def apply_rope(x, cos, sin):
    """Rotates pairs (x_i, x_{i + d/2}) of x [..., t, d] by each position's angles (the rotate-half form)."""
    half = x.shape[-1] // 2
    rotated = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
    return x * cos + rotated * sin


def mlp(sizes, device=None, last_activation=None):
    """Linear layers with ReLU between them; last_activation (a module) after the last one."""
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1], device=device))
        if i < len(sizes) - 2:
            layers.append(nn.ReLU())
    if last_activation is not None:
        layers.append(last_activation)
    return nn.Sequential(*layers)
