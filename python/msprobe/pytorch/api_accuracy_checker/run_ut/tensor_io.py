"""Tensor files of run_ut: reading dumped .pt files and writing -save_error_data files."""
import os

import torch


class TensorFileError(ValueError):
    """A tensor file cannot be read (the API is SKIPped with this message)."""


def load_pt(path):
    """A tensor from a .pt file, on the CPU, without unpickling arbitrary objects."""
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # corrupt zip, pickle refused by weights_only, ...
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise TensorFileError(f"cannot load {path}: {first}") from None
    return data


def save_pt(tensor, path):
    """Writes a CPU copy of `tensor` as a torch.save file (C++ encoder), mode 0640."""
    from msprobe import _core
    t = tensor.detach().cpu().contiguous()
    data = _core.encode_pt(t, os.path.splitext(os.path.basename(path))[0], False)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o640)
    try:
        os.fchmod(fd, 0o640)
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
    finally:
        os.close(fd)
