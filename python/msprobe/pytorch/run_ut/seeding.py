"""Per-API seeds: an API's random inputs depend only on its name, not on the order of the dump,
a resume or the worker that runs it."""
import zlib

SEED = 1234


def api_seed(full_name):
    """The seed of the API `full_name` (e.g. 'Torch.add.0.forward')."""
    return (zlib.crc32(full_name.encode("utf-8")) + SEED) & 0xFFFFFFFF
