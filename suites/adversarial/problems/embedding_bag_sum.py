# Sum of `bag` embedding rows per sample: integer index inputs (torch.randint) and a float32 table
# drawn in the constructor, so Model and ModelNew built under the same seed hold the same table.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, num_embeddings, dim):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(num_embeddings, dim))

    def forward(self, indices):
        return F.embedding_bag(indices, self.weight, mode="sum")


num_embeddings = 10000
dim = 64
batch = 256
bag = 32


def get_inputs():
    return [torch.randint(0, num_embeddings, (batch, bag))]


def get_init_inputs():
    return [num_embeddings, dim]
