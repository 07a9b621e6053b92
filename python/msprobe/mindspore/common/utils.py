"""MsprobeStep: dump control for training with the mindspore.train.Model high-level API."""
import mindspore as ms


class MsprobeStep(ms.train.Callback):
    """Calls debugger.start() when each training step begins, and debugger.stop() then
    debugger.step() when it ends. For L0/mix (Cells) or L1 Primitives, call
    debugger.start(model) once before Model.train(...)."""

    def __init__(self, debugger):
        super().__init__()
        self.debugger = debugger

    def on_train_step_begin(self, run_context):
        self.debugger.start()

    def on_train_step_end(self, run_context):
        self.debugger.stop()
        self.debugger.step()
