#!/bin/sh
set -eu
find "${TMPDIR:-/tmp}/myapp-cache" -type f -mtime +3 -delete 2>/dev/null || true
rm -rf "$HOME/.cache/myapp/thumbnails"
du -sh "$HOME/.cache/myapp" 2>/dev/null || true
