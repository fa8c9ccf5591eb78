"""ResNet-50 (torchvision), channels-last, bf16 autocast, SGD with momentum. Training or inference.

Example:  python3 workloads/resnet50.py --mode train --profile torch --trace resnet50_train.json.gz
"""
import torch
import torch.nn.functional as F
import torchvision

import common


def add_args(p):
    p.add_argument("--batch", type=int, default=128)


def build(args):
    dev = "cuda"
    model = torchvision.models.resnet50().to(dev).to(memory_format=torch.channels_last)
    x = torch.randn(args.batch, 3, 224, 224, device=dev).to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (args.batch,), device=dev)
    desc = f"resnet50 batch{args.batch} 224x224 channels-last bf16"
    if args.mode == "infer":
        model.eval()

        @torch.inference_mode()
        def step():
            with torch.autocast("cuda", dtype=torch.bfloat16):
                model(x)
        return step, desc

    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    return step, desc


if __name__ == "__main__":
    common.run(build, add_args)
