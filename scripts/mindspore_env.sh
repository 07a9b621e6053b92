#!/usr/bin/env bash
# Prints the Python that runs MindSpore for the tests and demos, creating it on first use:
#   scripts/mindspore_env.sh          build/ms-venv: MindSpore WITHOUT torch (a MindSpore-only
#                                     install: msprobe must work there, and say in one line what
#                                     to install for run_ut)
#   scripts/mindspore_env.sh --torch  build/ms-torch-venv: the same plus the caller's torch
#                                     (MindSpore's run_ut replays against PyTorch)
# $MSPROBE_MS_PYTHON / $MSPROBE_MS_TORCH_PYTHON, when set, win (the tests then still run the
# msprobe that pytest imports: tests/fresh_python.py puts it first on that interpreter's PYTHONPATH).
#
# MindSpore 2.10 (CPU) is built against NumPy 1.x while the rest of the project uses NumPy 2, so it
# lives in its own venv, build/ms-venv, which must also see the packages of the caller ($PYTHON or
# python3: a venv or not), where msprobe was just installed, except torch. How:
#  - ms-venv is made from the caller's BASE interpreter (sys._base_executable), without
#    --system-site-packages: from a venv, that option would show the base Python's packages, not
#    the venv's where msprobe is;
#  - mindspore and numpy<2 are installed into it first, so pip puts all of MindSpore's
#    dependencies there;
#  - build/ms-caller-site/N holds links to everything in the caller's N-th site folder but torch
#    (torch, torchgen, functorch and their .dist-info): a torch-free view, remade when the caller's
#    folders change;
#  - build/ms-venv/lib/python3.X/site-packages/msprobe-caller.pth adds those views AFTER ms-venv's
#    own site-packages: its numpy<2 and mindspore win, msprobe and the rest come from the caller;
#  - build/ms-torch-venv (no packages of its own, made with --without-pip) has a .pth adding
#    ms-venv's site-packages, then the caller's real site folders: torch is the caller's, installed
#    once (install_deps.sh), never downloaded again.
# The .pth files are rewritten when the caller changes; the venvs are made again when their base
# interpreter changes.
set -euo pipefail
cd "$(dirname "$0")/.."
want=plain
[ "${1:-}" = --torch ] && want=torch
if [ $want = plain ] && [ -n "${MSPROBE_MS_PYTHON:-}" ]; then echo "$MSPROBE_MS_PYTHON"; exit 0; fi
if [ $want = torch ] && [ -n "${MSPROBE_MS_TORCH_PYTHON:-}" ]; then echo "$MSPROBE_MS_TORCH_PYTHON"; exit 0; fi
PY=${PYTHON:-python3}
venv=$PWD/build/ms-venv
tvenv=$PWD/build/ms-torch-venv
views=$PWD/build/ms-caller-site
# Line 1: the base interpreter; then one line per caller site folder: the folder and its
# torch-free view, build/ms-caller-site/N, made (again) here when the folder's entries changed.
caller=$("$PY" - "$views" <<'EOF2'
import os, re, shutil, site, sys, sysconfig
base = getattr(sys, "_base_executable", "") or os.path.join(
    sys.base_prefix, "bin", "python%d.%d" % sys.version_info[:2])
paths = sysconfig.get_paths()
dirs = [paths["purelib"], paths["platlib"]] + site.getsitepackages()
if site.ENABLE_USER_SITE:
    dirs.append(site.getusersitepackages())
print(os.path.realpath(base))
views = sys.argv[1]
torch = re.compile(r"^(torch|torchgen|functorch)$|^torch-.*\.dist-info$")
seen = []
for d in map(os.path.realpath, dirs):
    if not os.path.isdir(d) or d in seen:
        continue
    view = os.path.join(views, str(len(seen)))
    seen.append(d)
    want = {e: os.path.join(d, e) for e in os.listdir(d) if not torch.match(e)}
    have = {e: os.readlink(os.path.join(view, e)) for e in os.listdir(view)} if os.path.isdir(view) else None
    if want != have:
        shutil.rmtree(view, ignore_errors=True)
        os.makedirs(view)
        for name, target in want.items():
            os.symlink(target, os.path.join(view, name))
    print(d + "\t" + view)
for stale in os.listdir(views) if os.path.isdir(views) else ():
    if not stale.isdigit() or int(stale) >= len(seen):
        shutil.rmtree(os.path.join(views, stale), ignore_errors=True)
EOF2
)
base=$(head -n1 <<< "$caller")
marker=$venv/msprobe-base-python  # written once MindSpore is installed
if [ "$(cat "$marker" 2>/dev/null)" != "$base" ]; then
  echo "[setup] creating $venv from $base with mindspore==2.10.0 (CPU) and numpy<2 ..." >&2
  rm -rf "$venv"
  "$base" -m venv "$venv" >&2
  "$venv/bin/python" -m pip install -q "mindspore==2.10.0" "numpy<2" >&2
  echo "$base" > "$marker"
fi
if [ "$(cat "$tvenv/msprobe-base-python" 2>/dev/null)" != "$base" ]; then
  rm -rf "$tvenv"
  "$base" -m venv --without-pip "$tvenv" >&2
  echo "$base" > "$tvenv/msprobe-base-python"
fi
# addsitedir (not a bare path line): the caller's own .pth files apply too (editable installs).
pth_lines=""
torch_lines=""
while IFS=$'\t' read -r d v; do
  pth_lines+="import site; site.addsitedir('$v')"$'\n'
  torch_lines+="import site; site.addsitedir('$d')"$'\n'
done < <(tail -n +2 <<< "$caller")
write_pth() {  # $1: the .pth; $2: its lines
  if [ "$(cat "$1" 2>/dev/null)" != "${2%$'\n'}" ]; then
    printf '%s' "$2" > "$1"
    echo "[setup] $1 rewritten for $PY" >&2
  fi
}
purelib() { "$1" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])"; }
site_dir=$(purelib "$venv/bin/python")
write_pth "$site_dir/msprobe-caller.pth" "$pth_lines"
write_pth "$(purelib "$tvenv/bin/python")/msprobe-mindspore.pth" \
  "import site; site.addsitedir('$site_dir')"$'\n'"$torch_lines"
if [ $want = torch ]; then echo "$tvenv/bin/python"; else echo "$venv/bin/python"; fi
