#!/bin/sh
set -eu
: "${BACKUP_HOST:?set BACKUP_HOST, e.g. backup.example.com}"
name=$(basename "$PWD")
rsync -az --delete --exclude .git --exclude node_modules --exclude '.env*' \
  ./ "$BACKUP_HOST:/srv/backups/$name/"
echo "backed up $name to $BACKUP_HOST"
