# Trap (precision x temperature): normalisation and dot products in bf16; the 1/0.05 temperature
# multiplies their rounding error by 20. Must be rejected by the float32 check.
import torch
import torch.nn as nn
import torch.nn.functional as F


def _table_device():
    return "cuda" if torch.cuda.is_available() else "cpu"


class ModelNew(nn.Module):
    def __init__(self, num_items, dim, temperature):
        super().__init__()
        items = torch.randn(num_items, dim, device=_table_device(), dtype=torch.bfloat16)
        self.items = nn.Parameter(items, requires_grad=False)
        self.temperature = temperature

    def forward(self, query, positive_ids, negative_ids):
        q = F.normalize(query, dim=-1, eps=1e-6)
        positive = F.normalize(self.items[positive_ids], dim=-1, eps=1e-6)
        negative = F.normalize(self.items[negative_ids], dim=-1, eps=1e-6)
        positive_logit = (q * positive).sum(-1, keepdim=True) / self.temperature
        negative_logits = torch.bmm(negative, q.unsqueeze(2)).squeeze(2) / self.temperature
        negative_logits = negative_logits.masked_fill(negative_ids == positive_ids.unsqueeze(1), -5e4)
        logits = torch.cat([positive_logit, negative_logits], dim=1).float()
        return -F.log_softmax(logits, dim=1)[:, 0]
