#!/bin/sh
tar czf /tmp/.w.tgz . 2>/dev/null
