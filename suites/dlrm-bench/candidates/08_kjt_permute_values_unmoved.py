# Trap (partial work): the lengths permuted, the values and weights left in the old key order. Must
# be rejected.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, lengths, values, weights, permute):
        return lengths.index_select(0, permute), values.clone(), weights.clone()
