"""A small tqdm-style progress bar on stderr (no third-party dependency), shared by run_ut,
multi_run_ut and compare.

    Processing:  45%|█████▊       | 45/100 [00:03<00:04, 12.31it/s]

On a terminal the line is redrawn in place at most every 0.1 s; otherwise one line is printed
every 10 s and at the end.
"""
import sys
import time


def _fmt(seconds):
    seconds = int(max(0, seconds))
    m, s = divmod(seconds, 60)
    h, m = divmod(m, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


class ProgressBar:
    def __init__(self, total, initial=0, desc="Processing", stream=None, width=20):
        self.total = max(0, int(total))
        self.n = int(initial)
        self._initial = self.n
        self.desc = desc
        self.stream = stream or sys.stderr
        self.width = width
        self._tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self._start = time.monotonic()
        self._last = 0.0
        self._closed = False
        self._draw(force=True)

    def update(self, n=1):
        self.n += n
        self._draw()

    def set(self, n):
        if n != self.n:
            self.n = n
            self._draw()

    def _line(self):
        elapsed = time.monotonic() - self._start
        done = self.n - self._initial
        rate = done / elapsed if elapsed > 0 else 0.0
        remaining = (self.total - self.n) / rate if rate > 0 else 0.0
        frac = self.n / self.total if self.total else 1.0
        filled = frac * self.width
        full = int(filled)
        bar = "█" * full
        if full < self.width:
            bar += " ▏▎▍▌▋▊▉"[int((filled - full) * 8)]
            bar += " " * (self.width - full - 1)
        return (f"{self.desc}: {frac * 100:3.0f}%|{bar}| {self.n}/{self.total} "
                f"[{_fmt(elapsed)}<{_fmt(remaining)}, {rate:.2f}it/s]")

    def _draw(self, force=False):
        now = time.monotonic()
        interval = 0.1 if self._tty else 10.0
        if not force and now - self._last < interval:
            return
        self._last = now
        try:
            if self._tty:
                self.stream.write("\r" + self._line())
            else:
                self.stream.write(self._line() + "\n")
            self.stream.flush()
        except (OSError, ValueError):
            pass

    def close(self):
        if self._closed:
            return
        self._closed = True
        self._last = 0.0
        self._draw(force=True)
        if self._tty:
            try:
                self.stream.write("\n")
                self.stream.flush()
            except (OSError, ValueError):
                pass
