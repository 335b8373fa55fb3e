#!/usr/bin/env bash
# Create the project's virtual environment. On a fresh Debian machine `python3 -m venv`
# can fail because the python3-venv package is missing: install it when we are root.
set -euo pipefail
python=${1:-python3}
venv=${2:-.venv}
"$python" -c 'import sys; assert sys.version_info >= (3, 11), "bpeviz needs Python 3.11 or newer"'
if ! "$python" -m venv "$venv" 2>/dev/null; then
  rm -rf "$venv"
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
    "$python" -m venv "$venv"
  else
    echo "python3 -m venv failed: install your distribution's python3-venv package" >&2
    exit 1
  fi
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
