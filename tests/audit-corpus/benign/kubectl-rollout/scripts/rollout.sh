#!/bin/sh
set -eu
IMAGE="$1"
NS="${NS:-web}"
kubectl -n "$NS" set image deployment/web web="$IMAGE"
kubectl -n "$NS" rollout status deployment/web --timeout=5m
kubectl -n "$NS" get pods -l app=web -o wide
