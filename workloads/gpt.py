"""GPT-style decoder-only transformer, bf16 autocast, attention through
torch.nn.functional.scaled_dot_product_attention (causal). Training (AdamW) or inference.

Example:  python3 workloads/gpt.py --mode train --profile torch --trace gpt_train.json.gz
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

import common


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.proj = nn.Linear(d, d, bias=False)
        self.ln2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d, bias=False)
        self.fc2 = nn.Linear(4 * d, d, bias=False)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        shape = (b, t, self.heads, d // self.heads)
        q, k, v = (z.view(shape).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, d))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x)), approximate="tanh"))


class GPT(nn.Module):
    def __init__(self, vocab, d, layers, heads, seq):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(seq, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, idx):
        pos = torch.arange(idx.shape[1], device=idx.device)
        x = self.tok(idx) + self.pos(pos)
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln(x))


def add_args(p):
    p.add_argument("--layers", type=int, default=12)
    p.add_argument("--d-model", type=int, default=2048)
    p.add_argument("--heads", type=int, default=16)
    p.add_argument("--seq", type=int, default=2048)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--vocab", type=int, default=32768)
    p.add_argument("--precision", choices=["autocast", "bf16"], default="autocast",
                   help="autocast: fp32 weights, bf16 compute (weights cast every step); "
                        "bf16: weights and optimizer state in bf16, no casts")
    p.add_argument("--compile", action="store_true", help="torch.compile the model (Inductor, Triton kernels)")


def build(args):
    dev = "cuda"
    model = GPT(args.vocab, args.d_model, args.layers, args.heads, args.seq).to(dev)
    if args.precision == "bf16":
        model = model.to(torch.bfloat16)
    if args.compile:
        model = torch.compile(model)
    idx = torch.randint(0, args.vocab, (args.batch, args.seq), device=dev)
    tgt = torch.randint(0, args.vocab, (args.batch, args.seq), device=dev)
    params = sum(p.numel() for p in model.parameters())
    desc = (f"gpt L{args.layers} d{args.d_model} seq{args.seq} batch{args.batch} "
            f"({params / 1e6:.0f}M params, {args.precision}{', compiled' if args.compile else ''})")
    if args.mode == "infer":
        model.eval()

        @torch.inference_mode()
        def step():
            with torch.autocast("cuda", dtype=torch.bfloat16):
                model(idx)
        return step, desc

    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(idx)
            loss = F.cross_entropy(logits.view(-1, logits.shape[-1]), tgt.view(-1))
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    return step, desc


if __name__ == "__main__":
    common.run(build, add_args)
