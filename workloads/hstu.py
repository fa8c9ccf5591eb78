"""HSTU-style generative recommender (Zhai et al., "Actions Speak Louder than Words", ICML 2024).

Each user's history is a jagged sequence of item ids: lengths differ, and the batch is stored as the
concatenated values with offsets, as TorchRec's jagged tensors are. Item embeddings come from one
large table (sparse gradients, Adagrad). Each HSTU layer:
    U, V, Q, K = split(SiLU(f1(LayerNorm(x))))
    A = SiLU(Q K^T + rab) / N under a causal mask     (pointwise attention: no softmax)
    x = x + f2(LayerNorm(A V) * U)
with rab a learned relative-position bias: rab[i - j] at query i and key j, built as a Toeplitz
matrix from the vector rab (a sliding window over it, as the reference builds it from a padded,
repeated vector) rather than gathered by an [N, N] index, whose backward piles every position with
the same i - j onto one entry (that gradient was 84% of the eager step). The pointwise parts run on
the jagged values (no work on padding); attention pads Q, K, V to [batch, heads, N, d] and gathers
its output back to the jagged layout, as the reference implementation's PyTorch path does.
Training predicts the next item of every position with a sampled softmax (the true next item
against shared random negatives), bf16 autocast on the GPU. The large preset: 8 layers of d512 (8
heads of 64), a 10M-item table, 32 users with histories of 256 to 1024 items.

--attention fused runs attention as one fused kernel instead (study entry hstu_train_fused): PyTorch's
scaled_dot_product_attention on its memory-efficient backend (CUTLASS's fused multi-head attention),
forward and backward, with the relative-position bias, the causal mask and each history's padding
as its additive mask. That kernel normalises with a softmax where HSTU applies SiLU / N pointwise:
it stands in for production HSTU's fused kernels (generative-recommenders' Triton and CUDA
hstu_attention), which have the same shape: Q K^T, the bias and the mask, a pointwise function and
A V in one kernel that never writes the [batch, heads, N, N] scores. The model it trains is not
HSTU's arithmetic; its step is, minus the attention's memory traffic, which is what the study
measures. Without SDPA (PyTorch 1.13, the tiny preset on a CPU) the same softmax attention is
written out.

--compile compiles each HSTU layer (regional compilation); the embedding lookup and the loss stay
eager.

Example:  python3 workloads/hstu.py --mode train --profile torch --trace hstu_train.json.gz
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

import common
from layers import HAS_SDPA

PRESETS = {
    "large": dict(items=10_000_000, d_model=512, layers=8, heads=8, head_dim=64, batch=32, min_len=256,
                 max_len=1024, negatives=512, steps=12, warmup=3),
    "tiny": dict(items=1000, d_model=32, layers=2, heads=2, head_dim=8, batch=2, min_len=4, max_len=16,
                 negatives=16, steps=3, warmup=1),
}


class HSTULayer(nn.Module):
    def __init__(self, d, heads, head_dim, max_len, fused, device):
        super().__init__()
        self.heads, self.head_dim, self.max_len, self.fused = heads, head_dim, max_len, fused
        self.ln_in = nn.LayerNorm(d, device=device)
        self.f1 = nn.Linear(d, 4 * heads * head_dim, device=device)
        self.ln_attn = nn.LayerNorm(heads * head_dim, device=device)
        self.f2 = nn.Linear(heads * head_dim, d, device=device)
        # One bias per relative position i - j (0..N-1; the causal mask drops the rest).
        self.rab = nn.Parameter(torch.zeros(max_len, device=device))

    def _padded(self, jagged, pad_index, batch):
        """[total, heads * head_dim] jagged rows to [batch, heads, N, head_dim], zeros in the padding."""
        dense = jagged.new_zeros(batch * self.max_len, jagged.shape[1])
        dense[pad_index] = jagged
        return dense.view(batch, self.max_len, self.heads, self.head_dim).transpose(1, 2)

    def _bias(self):
        """[N, N] with rab[i - j] where i >= j and 0 above the diagonal (masked): row i is a window of
        y = (rab reversed, then N - 1 zeros) starting at N - 1 - i. unfold's backward sums each
        entry's windows without atomics or sorting."""
        n = self.max_len
        y = torch.cat([self.rab.flip(0), self.rab.new_zeros(n - 1)])
        return y.unfold(0, n, 1).flip(0)

    def forward(self, x, pad_index, future, hidden, batch):
        u, v, q, k = F.silu(self.f1(self.ln_in(x))).chunk(4, dim=-1)
        q, k, v = (self._padded(z, pad_index, batch) for z in (q, k, v))
        if self.fused:
            av = self._fused(q, k, v, hidden)
        else:
            scores = q @ k.transpose(-2, -1)
            # In the scores' dtype (bf16 under autocast): an fp32 bias would turn every [batch, heads,
            # N, N] tensor after it into fp32.
            scores = scores + self._bias().to(scores.dtype)
            a = F.silu(scores).masked_fill(future, 0.0) / self.max_len
            av = a @ v
        av = av.transpose(1, 2).reshape(batch * self.max_len, self.heads * self.head_dim)[pad_index]
        return x + self.f2(self.ln_attn(av) * u)

    def _fused(self, q, k, v, hidden):
        """--attention fused: softmax(Q K^T / sqrt(d) + bias) V in one kernel, the bias the relative
        positions' plus -inf where a query must not see a key (later positions, another history's
        padding); hidden is [batch, 1, N, N]."""
        bias = self._bias().to(q.dtype) + hidden.to(q.dtype)
        if HAS_SDPA:
            if q.is_cuda:
                from torch.nn.attention import SDPBackend, sdpa_kernel
                # Only the fused kernel: were it refused, the run fails instead of timing the
                # unfused math backend under the fused kernel's name.
                with sdpa_kernel([SDPBackend.EFFICIENT_ATTENTION]):
                    return F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
            return F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim) + bias
        return scores.softmax(dim=-1) @ v


class HSTU(nn.Module):
    def __init__(self, args):
        super().__init__()
        dev = args.device
        self.items = nn.Embedding(args.items, args.d_model, sparse=True, device=dev)
        fused = args.attention == "fused"
        self.layers = nn.ModuleList(HSTULayer(args.d_model, args.heads, args.head_dim, args.max_len, fused, dev)
                                    for _ in range(args.layers))
        self.ln_out = nn.LayerNorm(args.d_model, device=dev)
        # The causal mask: True where a position would see a later one.
        self.register_buffer("future", torch.ones(args.max_len, args.max_len, dtype=torch.bool, device=dev).triu(1))

    def forward(self, ids, pad_index, hidden, batch):
        x = self.items(ids)
        for layer in self.layers:
            x = layer(x, pad_index, self.future, hidden, batch)
        return self.ln_out(x)


class JaggedBatch:
    """One batch of histories: item ids (the jagged values), each value's row in the padded
    [batch * N] layout, each history's last position, and for every other position its index and
    the next item's id (the training target)."""

    def __init__(self, args):
        g = torch.Generator().manual_seed(args.seed)
        lengths = torch.randint(args.min_len, args.max_len + 1, (args.batch,), generator=g)
        ends = torch.cumsum(lengths, 0)
        ids = torch.randint(0, args.items, (int(ends[-1]),), generator=g)
        pad_index = torch.cat([b * args.max_len + torch.arange(n) for b, n in enumerate(lengths.tolist())])
        with_next = torch.cat([torch.arange(e - n, e - 1) for e, n in zip(ends.tolist(), lengths.tolist())])
        dev = args.device
        self.total = ids.numel()
        self.ids, self.pad_index = ids.to(dev), pad_index.to(dev)
        self.last = (ends - 1).to(dev)
        # For --attention fused: -inf where a query must not see a key, a later position or a key
        # past its history's end, [batch, 1, N, N].
        n = torch.arange(args.max_len)
        blocked = (n[None, :] > n[:, None])[None] | (n[None, None, :] >= lengths[:, None, None])
        # In the attention's dtype (bf16 under autocast on the GPU), so that no layer converts it.
        hidden = torch.zeros(blocked.shape, dtype=common.low_precision(args)).masked_fill(blocked, float("-inf"))
        self.hidden = hidden[:, None].to(dev)
        self.with_next, self.next_ids = with_next.to(dev), ids[with_next + 1].to(dev)


def add_args(p):
    p.add_argument("--items", type=int, help="rows of the item embedding table")
    p.add_argument("--d-model", type=int)
    p.add_argument("--layers", type=int)
    p.add_argument("--heads", type=int)
    p.add_argument("--head-dim", type=int)
    p.add_argument("--batch", type=int, help="users (histories) per step")
    p.add_argument("--min-len", type=int, help="shortest history")
    p.add_argument("--max-len", type=int, help="longest history (N, the padded length of attention)")
    p.add_argument("--negatives", type=int, help="random items each positive is scored against")
    p.add_argument("--attention", choices=["pointwise", "fused"], default="pointwise",
                   help="pointwise: HSTU's SiLU attention written out in PyTorch (the default); fused: one fused "
                        "attention kernel standing in for production's (see above)")


def build(args):
    if not 2 <= args.min_len <= args.max_len:
        common.fail("--min-len must be at least 2 and at most --max-len")
    model = HSTU(args)
    model = common.compile_regions(args, model, [(model.layers, i) for i in range(args.layers)])
    jb = JaggedBatch(args)
    desc = (f"hstu L{args.layers} d{args.d_model} heads{args.heads}x{args.head_dim} batch{args.batch} "
            f"histories {args.min_len}-{args.max_len} ({jb.total} items) table {args.items}"
            f"{', fused attention' if args.attention == 'fused' else ''}"
            f"{', compiled' if args.compile else ''}")
    temperature = 0.05  # the reference's sampled softmax: cosine similarity over a temperature

    def user_embeddings(rows):
        return F.normalize(model(jb.ids, jb.pad_index, jb.hidden, args.batch)[rows], dim=-1)

    def item_scores(users, candidates):
        return users @ F.normalize(model.items(candidates), dim=-1).T / temperature

    def negatives():
        return torch.randint(0, args.items, (args.negatives,), device=args.device)

    if args.mode == "infer":
        model.eval()

        @torch.inference_mode()
        def step():
            with common.autocast(args):
                item_scores(user_embeddings(jb.last), negatives()).topk(min(10, args.negatives), dim=-1)
        return step, desc

    # Sparse gradients: only the one-tensor-at-a-time Adagrad takes them.
    sparse_opt = torch.optim.Adagrad(model.items.parameters(), lr=0.01, foreach=False)
    dense_params = [p for name, p in model.named_parameters() if not name.startswith("items.")]
    dense_opt = torch.optim.AdamW(dense_params, lr=1e-4, **({"fused": True} if args.device == "cuda" else {}))
    labels = torch.zeros(jb.with_next.numel(), dtype=torch.long, device=args.device)

    def step():
        with common.autocast(args):
            users = user_embeddings(jb.with_next)
            positive = (users * F.normalize(model.items(jb.next_ids), dim=-1)).sum(-1, keepdim=True) / temperature
            loss = F.cross_entropy(torch.cat([positive, item_scores(users, negatives())], dim=1).float(), labels)
        common.backward_and_step(loss, sparse_opt, dense_opt)
    return step, desc


if __name__ == "__main__":
    common.run(build, add_args, PRESETS)
