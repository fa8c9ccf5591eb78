"""ViT-B/16 inference (Dosovitskiy et al.): 16x16 patches embedded by a strided convolution, a class
token and learned position embeddings, 12 pre-LayerNorm blocks (d768, 12 heads, erf-GELU
feed-forward 3072), final LayerNorm and a 1000-class head on the class token. bf16 weights on the
GPU. The large preset runs 224x224 images (197 tokens) at batch 256.

--compile compiles each block (regional compilation); patch embedding and head stay eager.

Example:  python3 workloads/vit.py --profile torch --trace vit_infer.json.gz
"""
import torch
import torch.nn as nn

import common
from layers import TransformerBlock

PRESETS = {
    "large": dict(image=224, patch=16, layers=12, d_model=768, heads=12, ffn=3072, classes=1000, batch=256,
                 steps=30, warmup=3),
    "tiny": dict(image=32, patch=8, layers=2, d_model=64, heads=4, ffn=128, classes=10, batch=2, steps=3, warmup=1),
}


class ViT(nn.Module):
    def __init__(self, args, dtype):
        super().__init__()
        kw = dict(device=args.device, dtype=dtype)
        d, tokens = args.d_model, (args.image // args.patch) ** 2 + 1
        self.patch = nn.Conv2d(3, d, kernel_size=args.patch, stride=args.patch, **kw)
        self.cls = nn.Parameter(torch.zeros(1, 1, d, **kw))
        self.pos = nn.Parameter(torch.randn(1, tokens, d, **kw) * 0.02)
        self.blocks = nn.ModuleList(
            TransformerBlock(d, args.heads, args.ffn, bias=True, causal=False, pre_norm=True, gelu="none", **kw)
            for _ in range(args.layers))
        self.ln = nn.LayerNorm(d, **kw)
        self.head = nn.Linear(d, args.classes, **kw)

    def forward(self, images):
        x = self.patch(images).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.pos
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln(x[:, 0]))


def add_args(p):
    p.add_argument("--image", type=int, help="image side in pixels")
    p.add_argument("--patch", type=int)
    p.add_argument("--layers", type=int)
    p.add_argument("--d-model", type=int)
    p.add_argument("--heads", type=int)
    p.add_argument("--ffn", type=int)
    p.add_argument("--classes", type=int)
    p.add_argument("--batch", type=int)


def build(args):
    if args.image % args.patch:
        common.fail("--image must be a multiple of --patch")
    dtype = common.low_precision(args)
    model = ViT(args, dtype).eval()
    params = sum(p.numel() for p in model.parameters())
    model = common.compile_regions(args, model, [(model.blocks, i) for i in range(args.layers)])
    images = torch.randn(args.batch, 3, args.image, args.image, device=args.device, dtype=dtype)
    desc = (f"vit {args.image}/{args.patch} L{args.layers} d{args.d_model} batch{args.batch} "
            f"({params / 1e6:.0f}M params{', compiled' if args.compile else ''})")

    @torch.inference_mode()
    def step():
        model(images)
    return step, desc


if __name__ == "__main__":
    common.run(build, add_args, PRESETS, modes=("infer",))
