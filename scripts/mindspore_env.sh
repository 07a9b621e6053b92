#!/usr/bin/env bash
# Prints the Python that runs MindSpore for the tests and demos, creating it on first use.
# $MSPROBE_MS_PYTHON, when set, wins (the tests then still run the msprobe that pytest imports:
# tests/fresh_python.py puts it first on that interpreter's PYTHONPATH).
#
# MindSpore 2.10 (CPU) is built against NumPy 1.x while the rest of the project uses NumPy 2, so it
# lives in its own venv, build/ms-venv, which must also see the packages of the caller ($PYTHON or
# python3: a venv or not), where msprobe was just installed, with torch and the rest. How:
#  - ms-venv is made from the caller's BASE interpreter (sys._base_executable), without
#    --system-site-packages: from a venv, that option would show the base Python's packages, not
#    the venv's where msprobe is;
#  - mindspore and numpy<2 are installed into it first, so pip puts all of MindSpore's
#    dependencies there;
#  - then build/ms-venv/lib/python3.X/site-packages/msprobe-caller.pth adds the caller's
#    site-packages (sysconfig's purelib/platlib, site.getsitepackages(), the user site) AFTER
#    ms-venv's own: its numpy<2 and mindspore win, msprobe and torch come from the caller.
# The .pth is rewritten when the caller changes; ms-venv is made again when its base interpreter
# changes or when it was made by an older version of this script.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${MSPROBE_MS_PYTHON:-}" ]; then echo "$MSPROBE_MS_PYTHON"; exit 0; fi
PY=${PYTHON:-python3}
venv=$PWD/build/ms-venv
# Line 1: the base interpreter; then one line of the .pth per site folder of the caller.
caller=$("$PY" - <<'EOF'
import os, site, sys, sysconfig
base = getattr(sys, "_base_executable", "") or os.path.join(
    sys.base_prefix, "bin", "python%d.%d" % sys.version_info[:2])
paths = sysconfig.get_paths()
dirs = [paths["purelib"], paths["platlib"]] + site.getsitepackages()
if site.ENABLE_USER_SITE:
    dirs.append(site.getusersitepackages())
print(os.path.realpath(base))
seen = []
for d in map(os.path.realpath, dirs):
    if os.path.isdir(d) and d not in seen:
        seen.append(d)
        # addsitedir (not a bare path line): the caller's own .pth files apply too (editable installs)
        print("import site; site.addsitedir(%r)" % d)
EOF
)
base=$(head -n1 <<< "$caller")
pth_lines=$(tail -n +2 <<< "$caller")
marker=$venv/msprobe-base-python  # written once MindSpore is installed
if [ "$(cat "$marker" 2>/dev/null)" != "$base" ]; then
  echo "[setup] creating $venv from $base with mindspore==2.10.0 (CPU) and numpy<2 ..." >&2
  rm -rf "$venv"
  "$base" -m venv "$venv" >&2
  "$venv/bin/python" -m pip install -q "mindspore==2.10.0" "numpy<2" >&2
  echo "$base" > "$marker"
fi
site_dir=$("$venv/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
pth=$site_dir/msprobe-caller.pth
if [ "$(cat "$pth" 2>/dev/null)" != "$pth_lines" ]; then
  printf '%s\n' "$pth_lines" > "$pth"
  echo "[setup] $venv now also sees the packages of $PY" >&2
fi
echo "$venv/bin/python"
