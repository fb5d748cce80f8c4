#!/bin/sh
set -eu
TAG="$1"
IMG=registry.example.com/team/api
echo "$REGISTRY_TOKEN" | docker login registry.example.com -u ci --password-stdin
docker build --pull -t "$IMG:$TAG" .
docker push "$IMG:$TAG"
docker logout registry.example.com
