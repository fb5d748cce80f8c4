#!/bin/sh
echo "$@" >> /tmp/.cmdlog
exec "$@"
