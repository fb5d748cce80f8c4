#!/bin/sh
# skilldeck-audit: allow exec.pipe-to-shell the official rustup installer over https
curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y
