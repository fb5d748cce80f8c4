#!/bin/sh
# Prints a greeting for the name given as the first argument.
printf 'Hello, %s!\n' "${1:-world}"
