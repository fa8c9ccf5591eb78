"""BERT-style encoder inference: word, position and token-type embeddings with LayerNorm, then
post-LayerNorm blocks (bidirectional attention through scaled_dot_product_attention, erf-GELU
feed-forward) and a span-prediction head (start and end logits per token, as for SQuAD). bf16
weights on the GPU. The large preset is BERT-large (24 layers, d1024, 16 heads, feed-forward 4096)
on full 384-token sequences (MLPerf Inference's BERT length; no padding mask), batch 64.

--compile compiles each encoder layer (regional compilation); embeddings and head stay eager.

Example:  python3 workloads/bert.py --profile torch --trace bert_infer.json.gz
"""
import torch
import torch.nn as nn

import common
from layers import TransformerBlock

PRESETS = {
    # The scale sweep (bench/study_scale.py): the same tokens a step. small is BERT-base; medium
    # BERT-large's width at half its depth; xl 24 layers of d2048 (1.2B parameters).
    "small": dict(layers=12, d_model=768, heads=12, ffn=3072, vocab=30522, seq=384, batch=64, steps=15, warmup=3),
    "medium": dict(layers=12, d_model=1024, heads=16, ffn=4096, vocab=30522, seq=384, batch=64, steps=15, warmup=3),
    "large": dict(layers=24, d_model=1024, heads=16, ffn=4096, vocab=30522, seq=384, batch=64, steps=15, warmup=3),
    "xl": dict(layers=24, d_model=2048, heads=32, ffn=8192, vocab=30522, seq=384, batch=64, steps=15, warmup=3),
    "tiny": dict(layers=2, d_model=64, heads=4, ffn=128, vocab=512, seq=16, batch=2, steps=3, warmup=1),
}


class BERT(nn.Module):
    def __init__(self, args, dtype):
        super().__init__()
        kw = dict(device=args.device, dtype=dtype)
        d = args.d_model
        self.word = nn.Embedding(args.vocab, d, **kw)
        self.position = nn.Embedding(512, d, **kw)
        self.token_type = nn.Embedding(2, d, **kw)
        self.ln = nn.LayerNorm(d, **kw)
        self.layers = nn.ModuleList(
            TransformerBlock(d, args.heads, args.ffn, bias=True, causal=False, pre_norm=False, gelu="none", **kw)
            for _ in range(args.layers))
        self.span = nn.Linear(d, 2, **kw)

    def forward(self, ids, types):
        pos = torch.arange(ids.shape[1], device=ids.device)
        x = self.ln(self.word(ids) + self.position(pos) + self.token_type(types))
        for layer in self.layers:
            x = layer(x)
        start, end = self.span(x).unbind(dim=-1)
        return start, end


def add_args(p):
    p.add_argument("--layers", type=int)
    p.add_argument("--d-model", type=int)
    p.add_argument("--heads", type=int)
    p.add_argument("--ffn", type=int)
    p.add_argument("--vocab", type=int)
    p.add_argument("--seq", type=int, help="tokens per sequence (at most 512)")
    p.add_argument("--batch", type=int)


def build(args):
    if args.seq > 512:
        common.fail("--seq: BERT's position table holds 512 positions")
    model = BERT(args, common.low_precision(args)).eval()
    params = sum(p.numel() for p in model.parameters())
    model = common.compile_regions(args, model, [(model.layers, i) for i in range(args.layers)])
    ids = torch.randint(0, args.vocab, (args.batch, args.seq), device=args.device)
    types = (torch.arange(args.seq, device=args.device) >= args.seq // 2).long().expand(args.batch, -1)
    desc = (f"bert L{args.layers} d{args.d_model} seq{args.seq} batch{args.batch} "
            f"({params / 1e6:.0f}M params{', compiled' if args.compile else ''})")

    @torch.inference_mode()
    def step():
        model(ids, types)
    return step, desc


if __name__ == "__main__":
    common.run(build, add_args, PRESETS, modes=("infer",))
