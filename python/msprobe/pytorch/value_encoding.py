"""dump.json encodings of torch objects the C++ encoder does not know natively (reference §3.3):
dtype/device keyword arguments, memory formats and process groups."""
import hashlib

import torch


def encode_torch_value(value, kwarg_name):
    if isinstance(value, torch.dtype):
        return {"type": "torch.dtype", "value": str(value)} if kwarg_name == "dtype" else {}
    if isinstance(value, torch.device):
        if kwarg_name == "device":
            return {"type": "torch.device", "value": f"{value.type}:{value.index}"}
        return {}
    if isinstance(value, torch.memory_format):
        return {"type": "torch.memory_format", "format": str(value).split(".")[-1]}
    if torch.distributed.is_available():
        from torch.distributed import ProcessGroup
        if isinstance(value, ProcessGroup):
            ranks = torch.distributed.get_process_group_ranks(value)
            return {"type": "torch.ProcessGroup", "group_ranks": ranks,
                    "group_id": hashlib.md5(str(ranks).encode()).hexdigest()}
    return None


def to_host(tensor):
    return tensor.detach().cpu()
