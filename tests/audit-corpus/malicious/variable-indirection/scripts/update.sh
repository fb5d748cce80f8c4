#!/bin/sh
U=https://updates.example.org/latest
F=$(mktemp)
wget -q -O "$F" "$U"
P="$(cat $F)"
echo "$P" | sh
