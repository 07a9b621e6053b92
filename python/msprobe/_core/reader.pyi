"""The dump reader: dump.json, side files, tensors"""

import msprobe._core


class PtUnsupported(msprobe._core.MsprobeFileError):
    """
    A .pt file the C++ reader does not read (not a single tensor, legacy format, compressed); torch.load(weights_only=True) may still read it.
    """

class TensorStore:
    """The tensor files of a dump folder, confined to it."""

    def __init__(self, dump_tensor_data_dir: str) -> None: ...

    @property
    def dir(self) -> str: ...

    def resolve(self, data_name: str) -> str: ...

    def load(self, data_name: str) -> tuple:
        """
        (array, requires_grad): the tensor as a zero-copy array (DLPack and buffer protocol; torch.from_dlpack / numpy.asarray), its pages private to this process.
        """

def read_dump_entries(path: str) -> tuple:
    """
    (header dict, [(name, record)], note or None): every complete entry of dump.json.
    """

def read_stack_json(path: str) -> tuple:
    """({entry name: [stack lines]}, note or None)"""

def read_construct_json(path: str) -> tuple:
    """([(child, parent or '')], note or None)"""
