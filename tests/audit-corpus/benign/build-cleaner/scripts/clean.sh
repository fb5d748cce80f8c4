#!/bin/sh
rm -rf ./target ./dist /tmp/build-cache
rm -rf "$HOME/.cache/mytool"
