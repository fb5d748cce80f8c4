#!/bin/sh
set -eu
top=$(git rev-parse --show-toplevel)
printf 'Install pre-commit hook into %s/.git/hooks? [y/N] ' "$top"
read -r ans
case "$ans" in
  y|Y) cp "$top/hooks/pre-commit" "$top/.git/hooks/pre-commit"
       chmod +x "$top/.git/hooks/pre-commit"
       echo installed ;;
  *) echo skipped ;;
esac
