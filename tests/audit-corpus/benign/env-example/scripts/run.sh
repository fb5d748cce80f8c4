#!/bin/sh
set -a
. ./.env
set +a
npm start
