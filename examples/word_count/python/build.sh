#!/bin/sh
# Build word_count.wasm from app.py and wit/. Uses `componentize-py` from PATH when it is the
# pinned version (requirements.txt), else installs that into .venv/ first (once).
set -eu
cd "$(dirname "$0")"
want=$(sed -n 's/^componentize-py==//p' requirements.txt)
if command -v componentize-py >/dev/null 2>&1 \
  && [ "$(componentize-py --version 2>/dev/null)" = "componentize-py $want" ]; then
  cpy=componentize-py
else
  if [ ! -x .venv/bin/componentize-py ] \
    || [ "$(.venv/bin/componentize-py --version 2>/dev/null)" != "componentize-py $want" ]; then
    echo "build.sh: installing componentize-py $want into .venv/ (once)" >&2
    "${PYTHON:-python3}" -m venv .venv
    .venv/bin/pip install --quiet --disable-pip-version-check -r requirements.txt
  fi
  cpy=.venv/bin/componentize-py
fi
"$cpy" -d wit -w tool-component componentize app -o word_count.wasm
echo "build.sh: built word_count.wasm" >&2
