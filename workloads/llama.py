"""Llama-style decoder serving a batch: one decode step (one new token per sequence) against a KV
cache. RMSNorm, rotary position embeddings (RoPE), SwiGLU feed-forward and grouped-query attention
(8 key/value heads for 32 query heads, as Llama 3 8B); bf16 weights and cache on the GPU. The
query, key and value projections are one GEMM, as are the gate and up projections, as serving
engines fuse them. The large preset is Llama 3 8B's shape (32 layers, d4096, feed-forward 14336,
vocabulary 128256) at batch 32 and a 4096-token context.

Every step decodes the token at position --context, writing its key and value into the same cache
slot, so steps are identical: the cost of one decode step at that context (a real decode advances
one position a step, which changes attention's cost by 1/context). The cache holds random values in
place of a prefill. Greedy sampling: the next input token is the argmax of the logits.

--compile compiles each decoder layer (regional compilation); embedding, final norm, head and
sampling stay eager.

Example:  python3 workloads/llama.py --profile torch --trace llama_decode.json.gz
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

import common
from layers import RMSNorm, apply_rope, attention, rope_tables

PRESETS = {
    # The scale sweep (bench/study_scale.py), batch and context as large's: small and medium are
    # Llama 3.2 1B's and 3B's shapes, xl Llama 2 13B's layers with 8 key/value heads (12B parameters).
    "small": dict(layers=16, d_model=2048, heads=32, kv_heads=8, ffn=8192, vocab=128256, batch=32,
                  context=4096, steps=30, warmup=3),
    "medium": dict(layers=28, d_model=3072, heads=24, kv_heads=8, ffn=8192, vocab=128256, batch=32,
                   context=4096, steps=30, warmup=3),
    "large": dict(layers=32, d_model=4096, heads=32, kv_heads=8, ffn=14336, vocab=128256, batch=32,
                  context=4096, steps=30, warmup=3),
    "xl": dict(layers=40, d_model=5120, heads=40, kv_heads=8, ffn=13824, vocab=128256, batch=32,
               context=4096, steps=30, warmup=3),
    "tiny": dict(layers=2, d_model=64, heads=4, kv_heads=2, ffn=128, vocab=256, batch=2, context=16,
                 steps=3, warmup=1),
}


class DecoderLayer(nn.Module):
    def __init__(self, args, dtype):
        super().__init__()
        kw = dict(device=args.device, dtype=dtype)
        d, h, hk = args.d_model, args.heads, args.kv_heads
        self.h, self.hk, self.hd = h, hk, d // h
        self.pos = args.context
        self.attn_norm = RMSNorm(d, **kw)
        self.wqkv = nn.Linear(d, (h + 2 * hk) * self.hd, bias=False, **kw)
        self.wo = nn.Linear(h * self.hd, d, bias=False, **kw)
        self.ffn_norm = RMSNorm(d, **kw)
        self.w13 = nn.Linear(d, 2 * args.ffn, bias=False, **kw)
        self.w2 = nn.Linear(args.ffn, d, bias=False, **kw)
        # Positions 0..context-1 hold the prefill (random here); position `context` is the new token's.
        cache = (args.batch, hk, args.context + 1, self.hd)
        self.register_buffer("cache_k", torch.randn(cache, **kw))
        self.register_buffer("cache_v", torch.randn(cache, **kw))

    def forward(self, x, cos, sin):
        b = x.shape[0]
        q, k, v = self.wqkv(self.attn_norm(x)).split([self.h * self.hd, self.hk * self.hd, self.hk * self.hd], dim=-1)
        q = apply_rope(q.view(b, 1, self.h, self.hd).transpose(1, 2), cos, sin)
        k = apply_rope(k.view(b, 1, self.hk, self.hd).transpose(1, 2), cos, sin)
        self.cache_k[:, :, self.pos] = k[:, :, 0]
        self.cache_v[:, :, self.pos] = v.view(b, self.hk, self.hd)
        y = attention(q, self.cache_k, self.cache_v)
        x = x + self.wo(y.transpose(1, 2).reshape(b, 1, self.h * self.hd))
        gate, up = self.w13(self.ffn_norm(x)).chunk(2, dim=-1)
        return x + self.w2(F.silu(gate) * up)


class Llama(nn.Module):
    def __init__(self, args, dtype):
        super().__init__()
        kw = dict(device=args.device, dtype=dtype)
        self.tok = nn.Embedding(args.vocab, args.d_model, **kw)
        self.layers = nn.ModuleList(DecoderLayer(args, dtype) for _ in range(args.layers))
        self.norm = RMSNorm(args.d_model, **kw)
        self.head = nn.Linear(args.d_model, args.vocab, bias=False, **kw)
        cos, sin = rope_tables(torch.tensor([args.context]), args.d_model // args.heads, 500000.0, args.device, dtype)
        self.register_buffer("cos", cos)
        self.register_buffer("sin", sin)

    def forward(self, tokens):
        x = self.tok(tokens)
        for layer in self.layers:
            x = layer(x, self.cos, self.sin)
        return self.head(self.norm(x))


def add_args(p):
    p.add_argument("--layers", type=int)
    p.add_argument("--d-model", type=int)
    p.add_argument("--heads", type=int)
    p.add_argument("--kv-heads", type=int, help="key/value heads (grouped-query attention when fewer than --heads)")
    p.add_argument("--ffn", type=int, help="SwiGLU hidden size")
    p.add_argument("--vocab", type=int)
    p.add_argument("--batch", type=int, help="sequences decoded together")
    p.add_argument("--context", type=int, help="tokens already in the KV cache")


def build(args):
    if args.heads % args.kv_heads or args.d_model % args.heads:
        common.fail("--heads must be a multiple of --kv-heads and divide --d-model")
    dtype = common.low_precision(args)
    with torch.no_grad():
        model = Llama(args, dtype).eval()
    params = sum(p.numel() for p in model.parameters())
    model = common.compile_regions(args, model, [(model.layers, i) for i in range(args.layers)])
    tokens = torch.randint(0, args.vocab, (args.batch, 1), device=args.device)
    desc = (f"llama decode L{args.layers} d{args.d_model} heads {args.heads}/{args.kv_heads} batch{args.batch} "
            f"context{args.context} ({params / 1e9:.2f}B params{', compiled' if args.compile else ''})")

    @torch.inference_mode()
    def step():
        logits = model(tokens)
        tokens.copy_(logits[:, -1].argmax(dim=-1, keepdim=True))
    return step, desc


if __name__ == "__main__":
    common.run(build, add_args, PRESETS, modes=("infer",))
