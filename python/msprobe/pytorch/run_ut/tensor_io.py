"""Tensor files of run_ut: reading dumped .pt files and writing -save_error_data files."""
import os

import torch


class TensorFileError(ValueError):
    """A tensor file cannot be read (the API is SKIPped with this message)."""


def load_dumped_tensor(store, data_name):
    """The tensor `data_name` of a dump folder (a _core.reader.TensorStore), on the CPU.

    The C++ reader confines the name to the folder and maps the file (.pt or .npy) without
    copying; its pages are private to this process, so in-place APIs may write to them. A .pt file
    it does not read itself (not a single tensor, legacy format) goes to
    torch.load(weights_only=True), which never unpickles arbitrary objects."""
    from msprobe import _core
    try:
        array, requires_grad = store.load(data_name)
    except _core.reader.PtUnsupported:
        path = store.resolve(data_name)
        try:
            return torch.load(path, map_location="cpu", weights_only=True)
        except Exception as e:  # corrupt zip, pickle refused by weights_only, ...
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise TensorFileError(f"cannot load {path}: {first}") from None
    except _core.MsprobeFileError as e:
        raise TensorFileError(str(e)) from None
    t = torch.from_dlpack(array)
    if requires_grad and (t.is_floating_point() or t.is_complex()):
        t.requires_grad_(True)
    return t


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
