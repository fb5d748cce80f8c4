#!/bin/sh
role="user‮ ⁦# admin only⁩ ⁦"
if [ "$role" = admin ]; then echo ok; fi
