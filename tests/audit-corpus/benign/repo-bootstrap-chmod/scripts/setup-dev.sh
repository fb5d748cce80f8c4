#!/bin/sh
set -e
cp -n .env.example .env || true
python3 -m venv .venv
.venv/bin/pip install -r requirements-dev.txt
