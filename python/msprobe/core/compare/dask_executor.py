"""`--dask ADDRESS`: rank pairs fan out over a Dask distributed cluster. Dask is optional
(`pip install "msprobe[dask]"`) and imported only here, only when asked for. Every worker needs
msprobe installed and must see the dump folders and the output folder at the same paths (a shared
file system)."""
import contextlib

from msprobe.core.errors import MsprobeException


@contextlib.contextmanager
def dask_executor(address):
    """Yields a concurrent.futures.Executor that runs tasks on the cluster at `address`
    ("tcp://host:8786", or a scheduler file path ending in .json)."""
    try:
        from distributed import Client
    except ImportError:
        raise MsprobeException('--dask needs the Dask "distributed" package: pip install "msprobe[dask]"') from None
    try:
        if address.endswith(".json"):
            client = Client(scheduler_file=address, timeout="30s")
        else:
            client = Client(address, timeout="30s")
    except (OSError, TimeoutError, ValueError) as e:
        raise MsprobeException(f"--dask {address}: cannot connect to the Dask scheduler ({e})") from None
    try:
        # pure=False: every task runs, even two with equal arguments.
        yield client.get_executor(pure=False)
    finally:
        client.close()
