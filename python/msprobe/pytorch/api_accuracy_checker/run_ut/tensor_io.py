"""Tensor files of run_ut: reading dumped .pt files and writing -save_error_data files."""
import os

import torch


class TensorFileError(ValueError):
    """A tensor file cannot be read (the API is SKIPped with this message)."""


def _tensor_from_core(info):
    dtype = getattr(torch, info["dtype"].split(".", 1)[1])
    storage = info["storage"]
    if len(storage) == 0:
        t = torch.empty_strided(info["shape"], info["stride"], dtype=dtype)
    else:
        flat = torch.frombuffer(storage, dtype=dtype)  # shares the bytearray, no copy
        t = flat.as_strided(info["shape"], info["stride"], info["storage_offset"])
    if info["requires_grad"] and (t.is_floating_point() or t.is_complex()):
        t.requires_grad_(True)
    return t


def load_pt(path):
    """A tensor from a .pt file, on the CPU, without unpickling arbitrary objects: the C++ reader
    for single-tensor torch.save files, torch.load(weights_only=True) for anything else."""
    from msprobe import _core
    info, _why = _core.runut.read_pt(path)
    if info is not None:
        return _tensor_from_core(info)
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
