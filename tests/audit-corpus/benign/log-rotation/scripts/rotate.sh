#!/bin/sh
find ./logs -name '*.log' -mtime +7 -delete
gzip -9 ./logs/*.log.1
