"""PIJit (mindspore.jit(capture_mode="bytecode")) under levels L1 and mix: while dumping is on, a
PIJit function runs eagerly, so its APIs are recorded one by one, as 1.2.1 documents. Outside the
dump (and before start()) it is compiled as usual: only the capture context's entry is skipped,
and its exit is skipped for exactly the entries that were."""
def _context_class():
    for module in ("mindspore.graph._utils.pijit_context", "mindspore.common._pijit_context"):
        try:
            return __import__(module, fromlist=["PIJitCaptureContext"]).PIJitCaptureContext
        except (ImportError, AttributeError):
            continue
    return None


class PIJitEager:
    def __init__(self, dumping):
        self.dumping = dumping  # callable: is dumping on now?
        self.cls = None
        self.saved = None

    def install(self):
        cls = _context_class()
        if cls is None or self.saved is not None:
            return
        enter, exit_ = cls.__enter__, cls.__exit__
        dumping = self.dumping

        def __enter__(ctx):
            skipped = ctx.__dict__.setdefault("_msprobe_skipped", [])
            skipped.append(dumping())
            if not skipped[-1]:
                return enter(ctx)
            return None

        def __exit__(ctx, *exc):
            skipped = ctx.__dict__.get("_msprobe_skipped")
            if skipped and skipped.pop():
                return False
            return exit_(ctx, *exc)

        cls.__enter__, cls.__exit__ = __enter__, __exit__
        self.cls, self.saved = cls, (enter, exit_)

    def uninstall(self):
        if self.saved is not None:
            self.cls.__enter__, self.cls.__exit__ = self.saved
            self.saved = None
