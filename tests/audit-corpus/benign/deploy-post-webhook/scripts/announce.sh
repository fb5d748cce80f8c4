#!/bin/sh
curl -s -X POST -H 'Content-Type: application/json' -d '{"text":"deployed"}' "$SLACK_WEBHOOK_URL"
