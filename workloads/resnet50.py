"""ResNet-50 (He et al., the v1.5 variant torchvision ships: stride in the 3x3 convolution) in plain
PyTorch, channels-last, bf16 autocast on the GPU, SGD with momentum. Training or inference. The large
preset runs 224x224 images at batch 128.

--compile compiles the whole network (its blocks differ in shape from stage to stage).

Example:  python3 workloads/resnet50.py --mode train --profile torch --trace resnet50_train.json.gz
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

import common

PRESETS = {
    "large": dict(batch=128, image=224, steps={"train": 20, "infer": 40}, warmup=3),
    "tiny": dict(batch=2, image=32, steps=3, warmup=1),
}


def conv_bn(cin, cout, kernel, stride, device):
    return nn.Sequential(nn.Conv2d(cin, cout, kernel, stride, kernel // 2, bias=False, device=device),
                         nn.BatchNorm2d(cout, device=device))


class Bottleneck(nn.Module):
    def __init__(self, cin, width, stride, device):
        super().__init__()
        cout = 4 * width
        self.a = conv_bn(cin, width, 1, 1, device)
        self.b = conv_bn(width, width, 3, stride, device)
        self.c = conv_bn(width, cout, 1, 1, device)
        self.shortcut = conv_bn(cin, cout, 1, stride, device) if stride != 1 or cin != cout else nn.Identity()

    def forward(self, x):
        y = F.relu(self.a(x))
        y = F.relu(self.b(y))
        return F.relu(self.c(y) + self.shortcut(x))


class ResNet50(nn.Module):
    def __init__(self, device, classes=1000):
        super().__init__()
        self.stem = conv_bn(3, 64, 7, 2, device)
        blocks, cin = [], 64
        for width, count, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
            for i in range(count):
                blocks.append(Bottleneck(cin, width, stride if i == 0 else 1, device))
                cin = 4 * width
        self.blocks = nn.Sequential(*blocks)
        self.fc = nn.Linear(cin, classes, device=device)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.stem(x)), 3, 2, 1)
        x = self.blocks(x)
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def add_args(p):
    p.add_argument("--batch", type=int)
    p.add_argument("--image", type=int, help="image side in pixels")


def build(args):
    dev = args.device
    model = ResNet50(dev).to(memory_format=torch.channels_last)
    model = common.compile_regions(args, model)
    x = torch.randn(args.batch, 3, args.image, args.image, device=dev).to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (args.batch,), device=dev)
    desc = f"resnet50 batch{args.batch} {args.image}x{args.image} channels-last{' bf16' if dev == 'cuda' else ''}"
    if args.mode == "infer":
        model.eval()

        @torch.inference_mode()
        def step():
            with common.autocast(args):
                model(x)
        return step, desc

    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)

    def step():
        with common.autocast(args):
            loss = F.cross_entropy(model(x), y)
        common.backward_and_step(loss, opt)
    return step, desc


if __name__ == "__main__":
    common.run(build, add_args, PRESETS)
