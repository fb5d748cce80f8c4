"""Small protocol edges (issue 10, items 14, 15 and 17).

- A session's `DELETE` answers 204: the Python SDK takes only 200 or 204 as success.
- Methods rmcp knows but this server does not offer (`completion/complete`, ...) get the
  answer every unknown method gets: `-32601`, `Method not found: <method>`; the
  handshake-only `resources/subscribe` is not found on 2026-07-28.
- `serve` logs one line per event on stderr; a skill name holding a newline cannot
  split a line or forge another.
"""

from __future__ import annotations

import itertools
import logging
import time
from pathlib import Path
from typing import Any, Literal

import mcp_types as t
import pytest
from mcp.shared.exceptions import MCPError
from pydantic import TypeAdapter

from support import ERAS, TRANSPORTS, RawHttp, RawStdio, connect, http_server

pytestmark = pytest.mark.anyio

COMBOS = [pytest.param(tr, era, id=f"{tr}-{era}") for tr, era in itertools.product(TRANSPORTS, ERAS)]
METHOD_NOT_FOUND = -32601
UNOFFERED = ["completion/complete", "tasks/get"]
PARAMS: dict[str, Any] = {
    "completion/complete": {"ref": {"type": "ref/prompt", "name": "alpha"}, "argument": {"name": "a", "value": ""}},
    "tasks/get": {"taskId": "t1"},
}


def test_delete_of_a_session_answers_204(main_tree: Any) -> None:
    with http_server(main_tree.args) as server:
        raw = RawHttp(server)
        try:
            reply = raw.client.delete(raw.url, headers=raw.headers)
            assert (reply.status_code, reply.content) == (204, b"")
            # The session is gone.
            gone = raw.post_json({"jsonrpc": "2.0", "id": 5, "method": "ping"})
            assert gone.status_code == 404, (gone.status_code, gone.text)
        finally:
            raw.close()


async def test_the_sdk_ends_a_session_without_warning(main_tree: Any, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="mcp"):
        async with connect("http", "legacy", main_tree.args) as client:
            await client.list_tools()
    failed = [r.getMessage() for r in caplog.records if "Session termination failed" in r.getMessage()]
    assert failed == []


@pytest.mark.parametrize("method", UNOFFERED)
def test_unoffered_methods_are_not_found_over_stdio(method: str, raw_stdio: RawStdio) -> None:
    reply = raw_stdio.request(method, PARAMS[method])
    assert reply["error"] == {"code": METHOD_NOT_FOUND, "message": f"Method not found: {method}"}, reply
    unknown = raw_stdio.request("resources/nothing", {})
    assert unknown["error"] == {"code": METHOD_NOT_FOUND, "message": "Method not found: resources/nothing"}
    raw_stdio.assert_alive()


@pytest.mark.parametrize("method", UNOFFERED)
def test_unoffered_methods_are_not_found_over_http(method: str, main_tree: Any) -> None:
    with http_server(main_tree.args) as server:
        raw = RawHttp(server)
        try:
            reply = raw.request(method, PARAMS[method])
            assert reply["error"] == {"code": METHOD_NOT_FOUND, "message": f"Method not found: {method}"}, reply
        finally:
            raw.close()


class SubscribeRequest(t.Request[t.SubscribeRequestParams, Literal["resources/subscribe"]]):
    method: Literal["resources/subscribe"] = "resources/subscribe"
    params: t.SubscribeRequestParams


@pytest.mark.parametrize(("transport", "era"), COMBOS)
async def test_subscribe_is_served_on_the_handshake_only(transport: str, era: str, main_tree: Any) -> None:
    async with connect(transport, era, main_tree.args) as client:
        request = SubscribeRequest(params=t.SubscribeRequestParams(uri="skill://alpha/SKILL.md"))
        if era == "legacy":
            assert await client.session.send_request(request, TypeAdapter(dict[str, Any])) == {}
        else:
            # 2026-07-28 removed it: a subscriptions/listen stream names the files it follows.
            with pytest.raises(MCPError) as err:
                await client.session.send_request(request, TypeAdapter(dict[str, Any]))
            assert err.value.code == METHOD_NOT_FOUND
            assert "resources/subscribe" in err.value.message
        assert len((await client.list_tools()).tools) == 1


def test_a_newline_in_a_file_name_does_not_split_log_lines(tmp_path: Path) -> None:
    # A skill's name may hold no line break (the name rule: such a skill is an
    # invalid-name skip); a file's name may, and a link that leaves the root is logged.
    skill = tmp_path / "skills" / "evil"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: evil\ndescription: d\n---\n\nBody.\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("secret\n")
    (skill / "x\nskilldeck: forged line").symlink_to(outside)
    with http_server(["--root", str(tmp_path / "skills")]) as server:
        # Serving starts at once; the line comes once the catalog is published (in the background).
        deadline = time.monotonic() + 20
        while not any("file of a skill not served" in line for line in server.stderr_lines):
            assert time.monotonic() < deadline, server.stderr_lines
            time.sleep(0.05)
        time.sleep(0.2)  # a forged line would follow in the same write
    lines = server.stderr_lines
    assert not any(line.startswith("skilldeck: forged") for line in lines), lines
    left_out = [line for line in lines if "file of a skill not served" in line]
    assert left_out == [
        f'skilldeck: warning: file of a skill not served skill="evil" '
        f'reason="{skill}/x\\nskilldeck: forged line leads outside its root (to {outside.resolve()})"'
    ], lines
