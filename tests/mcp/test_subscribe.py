"""Following files and logs of a live catalog: `resources/subscribe` and `resources/unsubscribe`
(the handshake), `subscriptions/listen` with `resourceSubscriptions` (2026-07-28), the
`notifications/resources/updated` an edit sends, and `logging/setLevel` filtering the log
messages a reload sends. Real trees edited under the real binary, driven by the official
client."""

from __future__ import annotations

import itertools
import os
import warnings
from typing import Any

import anyio
import mcp_types as t
import pytest
from mcp import Client
from mcp.client.subscriptions import ResourcesListChanged, ResourceUpdated
from mcp.shared.exceptions import MCPError

from support import MAIN_TREE, TRANSPORTS, connect, http_server, skill_uri, write_tree

pytestmark = [pytest.mark.anyio, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

BETA_MD = b"---\nname: beta\ndescription: A skill with nothing but its SKILL.md.\n---\n\n"
# How long after a reload's resources/list_changed the rest of what it sends (log
# messages, updates) has surely arrived: they follow it on the same connection.
TRAILING = 0.7


class Seen:
    """A message handler recording resources/list_changed and resources/updated."""

    def __init__(self) -> None:
        self.updated: list[str] = []
        self.event = anyio.Event()

    async def __call__(self, message: Any) -> None:
        if isinstance(message, t.ResourceListChangedNotification):
            self.event.set()
        elif isinstance(message, t.ResourceUpdatedNotification):
            self.updated.append(str(message.params.uri))

    async def reload(self) -> list[str]:
        """Waits for the next reload's list change and what follows it; returns (and
        forgets) the URIs updated meanwhile."""
        with anyio.fail_after(15):
            await self.event.wait()
        await anyio.sleep(TRAILING)
        self.event = anyio.Event()
        updated, self.updated = self.updated, []
        return updated


def tree(tmp_path: Any) -> Any:
    return write_tree(tmp_path / "skills", {k: v for k, v in MAIN_TREE.items() if k in ("alpha", "beta")})


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_an_edit_to_a_subscribed_file_is_one_update_and_other_files_none(transport: str, tmp_path: Any) -> None:
    root = tree(tmp_path)
    seen = Seen()
    beta, guide = skill_uri("beta"), skill_uri("alpha", "references/guide.md")
    async with connect(transport, "legacy", ["--root", str(root)], message_handler=seen) as client:
        assert client.server_capabilities.resources is not None
        assert client.server_capabilities.resources.subscribe is True
        assert await client.subscribe_resource(beta) is not None
        await client.subscribe_resource(guide)
        await client.subscribe_resource(beta)  # again: still one subscription, one update

        (root / "beta" / "SKILL.md").write_bytes(BETA_MD + b"Edited once.\n")
        assert await seen.reload() == [beta]

        # A file nobody follows: the list changes, nothing is updated.
        (root / "alpha" / "scripts" / "run.sh").write_bytes(b"#!/bin/sh\necho edited\n")
        assert await seen.reload() == []

        # Unsubscribed: nothing; the file still followed: one update with its URI.
        await client.unsubscribe_resource(beta)
        (root / "beta" / "SKILL.md").write_bytes(BETA_MD + b"Edited twice.\n")
        assert await seen.reload() == []
        (root / "alpha" / "references" / "guide.md").write_bytes(b"# Guide\n\nEdited.\n")
        assert await seen.reload() == [guide]

        # A followed file removed is one update (reading it now fails), then no more.
        (root / "alpha" / "references" / "guide.md").unlink()
        assert await seen.reload() == [guide]
        (root / "alpha" / "scripts" / "run.sh").write_bytes(b"#!/bin/sh\necho again\n")
        assert await seen.reload() == []

        # Unsubscribing from what is not followed (or not served) is no error.
        await client.unsubscribe_resource(beta)
        await client.unsubscribe_resource(skill_uri("nope"))


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_subscribing_to_a_file_not_served_is_the_error_a_read_gets(transport: str, tmp_path: Any) -> None:
    root = tree(tmp_path)
    async with connect(transport, "legacy", ["--root", str(root)]) as client:
        for uri, message in [
            (skill_uri("nope"), f"No resource is served at {skill_uri('nope')}"),
            (skill_uri("alpha", "missing.md"), f"No resource is served at {skill_uri('alpha', 'missing.md')}"),
            ("file:///etc/passwd", "No resource is served at file:///etc/passwd"),
            ("skill://alpha/../beta/SKILL.md", "Resource path is not inside a served skill: skill://alpha/../beta/SKILL.md"),
        ]:
            for request in (client.subscribe_resource, client.read_resource):
                with pytest.raises(MCPError) as caught:
                    await request(uri)
                error = caught.value.error
                assert (error.code, error.message, error.data) == (-32602, message, {"uri": uri}), request


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_listen_stream_follows_the_served_files_it_names(transport: str, tmp_path: Any) -> None:
    root = tree(tmp_path)
    beta, unknown = skill_uri("beta"), skill_uri("nope")
    async with connect(transport, "auto", ["--root", str(root)]) as client:
        async with client.listen(resources_list_changed=True, resource_subscriptions=[beta, unknown]) as sub:
            # The acknowledgment names what is followed: a URI not served is not.
            assert sub.honored.resource_subscriptions == [beta]

            async def one_reload() -> list[str]:
                updated: list[str] = []
                with anyio.fail_after(15):
                    async for event in sub:
                        if isinstance(event, ResourceUpdated):
                            updated.append(event.uri)
                        if isinstance(event, ResourcesListChanged):
                            break
                with anyio.move_on_after(TRAILING):
                    async for event in sub:
                        if isinstance(event, ResourceUpdated):
                            updated.append(event.uri)
                return updated

            (root / "beta" / "SKILL.md").write_bytes(BETA_MD + b"Edited on 2026-07-28.\n")
            assert await one_reload() == [beta]
            (root / "alpha" / "scripts" / "run.sh").write_bytes(b"#!/bin/sh\necho edited\n")
            assert await one_reload() == []


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_log_messages_follow_the_level_a_session_set(transport: str, tmp_path: Any) -> None:
    root = tree(tmp_path)
    outside = tmp_path / "secret.txt"
    outside.write_bytes(b"not a skill's\n")
    seen = Seen()
    logs: list[tuple[str, str | None, Any]] = []

    async def on_log(params: t.LoggingMessageNotificationParams) -> None:
        logs.append((params.level, params.logger, params.data))

    args = ["--root", str(root)]
    async with connect(transport, "legacy", args, message_handler=seen, logging_callback=on_log) as client:
        assert client.server_capabilities.logging is not None
        edits = itertools.count()

        async def edit() -> None:
            (root / "beta" / "SKILL.md").write_bytes(BETA_MD + f"Edit {next(edits)}.\n".encode())
            await seen.reload()

        # No level set: nothing is sent.
        await edit()
        assert logs == []

        await client.set_logging_level("info")
        await edit()
        assert logs == [("info", "skilldeck", "catalog reloaded: 2 skills served")]
        logs.clear()

        # At warning, the reload's info is held back and a file left out is said.
        await client.set_logging_level("warning")
        os.symlink(outside, root / "alpha" / "leak.txt")
        await seen.reload()
        assert len(logs) == 1, logs
        level, logger, data = logs[0]
        assert (level, logger) == ("warning", "skilldeck")
        assert data.startswith("file of a skill not served: alpha: "), data
        assert str(outside) in data or "leak.txt" in data, data
        logs.clear()

        await client.set_logging_level("error")
        await edit()
        assert logs == []


async def test_logging_set_level_is_not_found_on_2026_07_28(tmp_path: Any) -> None:
    root = tree(tmp_path)
    async with connect("stdio", "auto", ["--root", str(root)]) as client:
        assert client.server_capabilities.logging is not None
        with warnings.catch_warnings(), pytest.raises(MCPError) as caught:
            warnings.simplefilter("ignore")
            await client.set_logging_level("info")
        assert caught.value.error.code == -32601, caught.value.error


async def test_each_http_session_is_told_of_its_own_subscriptions_only(tmp_path: Any) -> None:
    root = tree(tmp_path)
    beta, guide = skill_uri("beta"), skill_uri("alpha", "references/guide.md")
    first, second = Seen(), Seen()
    kw: dict[str, Any] = dict(mode="legacy", cache=None)
    with http_server(["--root", str(root)]) as server:
        async with Client(server.url, message_handler=first, **kw) as one, \
                Client(server.url, message_handler=second, **kw) as two:
            await one.subscribe_resource(beta)
            await two.subscribe_resource(guide)

            (root / "alpha" / "references" / "guide.md").write_bytes(b"# Guide\n\nOnly the second follows it.\n")
            assert (await first.reload(), await second.reload()) == ([], [guide])
            (root / "beta" / "SKILL.md").write_bytes(BETA_MD + b"Only the first follows it.\n")
            assert (await first.reload(), await second.reload()) == ([beta], [])
