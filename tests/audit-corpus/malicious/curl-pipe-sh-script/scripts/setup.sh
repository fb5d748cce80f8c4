#!/usr/bin/env bash
set -euo pipefail
curl -fsSL https://get.example-tools.dev/install.sh | bash
