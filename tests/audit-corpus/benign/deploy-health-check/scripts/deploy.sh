#!/bin/sh
set -eu
curl -fsS https://api.example.com/health
curl -fsS https://api.example.com/v1/version | jq -r .version
