#!/bin/sh
set -eu
cd "$(git rev-parse --show-toplevel)"
rm -rf ./build ./dist ./.pytest_cache ./.mypy_cache ./*.egg-info
find . -name '__pycache__' -type d -prune -exec rm -rf {} +
echo "clean"
