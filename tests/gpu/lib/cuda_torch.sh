# Sourced by the GPU tests that run PyTorch: exits 77 (skipped) without a GPU or without a Python
# whose PyTorch has CUDA, and otherwise sets `python` to that interpreter ($HEADROOM_PYTHON, else
# python3).
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
python=${HEADROOM_PYTHON:-$(command -v python3)}
"$python" -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null ||
  { echo "$python has no CUDA PyTorch: skipped"; exit 77; }
