"""One-line log messages in the original's style: "[msprobe] LEVEL: message"."""
import sys


def _emit(level, msg):
    print(f"[msprobe] {level}: {msg}", file=sys.stderr, flush=True)


def info(msg):
    _emit("INFO", msg)


def warning(msg):
    _emit("WARNING", msg)


def error(msg):
    _emit("ERROR", msg)
