"""op_generate: one API of a dump as a standalone script"""



class OpGenerateResult:
    """What op_generate wrote."""

    def __init__(self) -> None: ...

    def __getstate__(self) -> tuple: ...

    def __setstate__(self, arg: tuple, /) -> None: ...

    def __eq__(self, arg: object, /) -> bool: ...

    def __repr__(self) -> str: ...

    @property
    def script_path(self) -> str: ...

    @property
    def api_name(self) -> str: ...

    @property
    def api_entry(self) -> str: ...

    @property
    def extract_api_path(self) -> str: ...

    @property
    def extracted(self) -> bool: ...

    @property
    def tensor_data(self) -> bool: ...

    @property
    def standard(self) -> str: ...

def run_op_generate(config_path: str, output_dir: str, template_path: str) -> OpGenerateResult:
    """
    Checks config_op.json, extracts the API's entries and writes <output_dir>/<entry>.py; user errors raise ConfigError or MsprobeFileError with one line.
    """
