#!/usr/bin/env bash
# npm run train:main-content: the main-content block model from WCXB's dev split, reproducibly
# (decision 0041, docs/main-content-model.md). Needs python3 with venv and the wheels pinned in
# requirements.txt (PyPI, or a local wheel mirror pip is configured for); nothing here is needed at
# run time (offline, point pip at a wheel mirror: PIP_INDEX_URL=file:///path/to/simple). Writes the
# model the engine ships and the model card; the work files stay in TRAIN_DIR (default
# .scratch/main-content).
set -euo pipefail
cd "$(dirname "$0")/../.."
work="${TRAIN_DIR:-.scratch/main-content}"
venv="${TRAIN_VENV:-.scratch/train-venv}"
mkdir -p "$work"
# The environment is (re)made until an install of exactly the pinned requirements completed in it.
requirements=scripts/train-main-content/requirements.txt
if ! cmp -s "$requirements" "$venv/installed-requirements.txt"; then
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet -r "$requirements"
  cp "$requirements" "$venv/installed-requirements.txt"
fi
node scripts/build.js --if-needed
node --max-old-space-size=8000 dist/bench/src/main-content-training.js features --out "$work"
PYTHONHASHSEED=0 "$venv/bin/python" scripts/train-main-content/train.py "$work"
node --max-old-space-size=8000 dist/bench/src/main-content-training.js score --folds "$work"
node dist/bench/src/main-content-training.js publish --folds "$work"
