"""GPT-style decoder-only transformer: pre-LayerNorm blocks, causal attention through
scaled_dot_product_attention, tanh-GELU feed-forward, bf16 autocast on the GPU. Training (fused
AdamW on the GPU) or inference. The large preset is 12 layers of d2048 at sequence 2048, batch 8.
--swap gelu puts our tanh GELU kernels in place of PyTorch's; --swap gelu-slow, the same kernels
made --slow-factor times slower (a control of known size; swap.py).

Example:  python3 workloads/gpt.py --mode train --profile torch --trace gpt_train.json.gz
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

import common
from layers import TransformerBlock

PRESETS = {
    # The scale sweep (bench/study_scale.py): the same tokens a step at four widths. small and medium
    # are GPT-2 small's and medium's shapes; xl is about 1.3B parameters.
    "small": dict(layers=12, d_model=768, heads=12, seq=2048, batch=8, vocab=32768, steps=12, warmup=3),
    "medium": dict(layers=24, d_model=1024, heads=16, seq=2048, batch=8, vocab=32768, steps=12, warmup=3),
    "large": dict(layers=12, d_model=2048, heads=16, seq=2048, batch=8, vocab=32768, steps=12, warmup=3),
    "xl": dict(layers=16, d_model=2560, heads=20, seq=2048, batch=8, vocab=32768, steps=12, warmup=3),
    "tiny": dict(layers=2, d_model=64, heads=4, seq=32, batch=2, vocab=256, steps=3, warmup=1),
}


class GPT(nn.Module):
    def __init__(self, vocab, d, layers, heads, seq, device):
        super().__init__()
        self.tok = nn.Embedding(vocab, d, device=device)
        self.pos = nn.Embedding(seq, d, device=device)
        self.blocks = nn.ModuleList(
            TransformerBlock(d, heads, 4 * d, bias=False, causal=True, pre_norm=True, gelu="tanh", device=device)
            for _ in range(layers))
        self.ln = nn.LayerNorm(d, device=device)
        self.head = nn.Linear(d, vocab, bias=False, device=device)

    def forward(self, idx):
        pos = torch.arange(idx.shape[1], device=idx.device)
        x = self.tok(idx) + self.pos(pos)
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln(x))


def add_args(p):
    p.add_argument("--layers", type=int)
    p.add_argument("--d-model", type=int)
    p.add_argument("--heads", type=int)
    p.add_argument("--seq", type=int)
    p.add_argument("--batch", type=int)
    p.add_argument("--vocab", type=int)
    p.add_argument("--precision", choices=["autocast", "bf16"], default="autocast",
                   help="autocast: fp32 weights, bf16 compute on the GPU (weights cast every step); "
                        "bf16: weights and optimizer state in bf16, no casts")


def build(args):
    dev = args.device
    model = GPT(args.vocab, args.d_model, args.layers, args.heads, args.seq, dev)
    if args.precision == "bf16":
        model = model.to(torch.bfloat16)
    params = sum(p.numel() for p in model.parameters())
    model = common.compile_regions(args, model, [(model.blocks, i) for i in range(args.layers)])
    idx = torch.randint(0, args.vocab, (args.batch, args.seq), device=dev)
    tgt = torch.randint(0, args.vocab, (args.batch, args.seq), device=dev)
    desc = (f"gpt L{args.layers} d{args.d_model} seq{args.seq} batch{args.batch} "
            f"({params / 1e6:.0f}M params, {args.precision}{', compiled' if args.compile else ''})")
    if args.mode == "infer":
        model.eval()

        @torch.inference_mode()
        def step():
            with common.autocast(args):
                model(idx)
        return step, desc

    # The fused AdamW kernel exists for CUDA tensors only.
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, **({"fused": True} if dev == "cuda" else {}))

    def step():
        with common.autocast(args):
            logits = model(idx)
            loss = F.cross_entropy(logits.view(-1, logits.shape[-1]), tgt.view(-1))
        common.backward_and_step(loss, opt)
    return step, desc


if __name__ == "__main__":
    common.run(build, add_args, PRESETS, swaps=("gelu", "gelu-slow"))
