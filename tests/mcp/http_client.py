"""A real MCP client (the official Python SDK, `mcp` 2.3.0) driving `toolhost mcp --listen`
over Streamable HTTP.

Usage: http_client.py URL TOKEN

TOKEN is the server's bearer token (sent as `Authorization: Bearer TOKEN` on every request).
The server's workspace holds `a.txt` ("alpha\\nbeta\\n"), `b.txt` ("bee\\n") and `c.txt`
("sea\\n"). Prints one JSON object with what the client saw; `tests/tests/mcp_http.rs`
asserts on it.
"""

import sys
import time
from urllib.parse import urlsplit, urlunsplit

import anyio
from report import result, run_parts
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

URL, TOKEN = sys.argv[1:3]
AUTH = {"authorization": f"Bearer {TOKEN}"}


def http() -> httpx2.AsyncClient:
    """An HTTP client that sends the bearer token, with the SDK's timeouts."""
    return httpx2.AsyncClient(headers=AUTH, timeout=httpx2.Timeout(30.0, read=300.0))


def connect(client: httpx2.AsyncClient, mode: str) -> Client:
    """An MCP client over `client` (so every request carries the token)."""
    return Client(streamable_http_client(URL, http_client=client), mode=mode)


async def legacy(out: dict) -> None:
    """The 2025-11-25 revision over HTTP: an MCP session (Mcp-Session-Id) per client."""
    async with http() as h, connect(h, "legacy") as client:
        listed = await client.list_tools()
        out["legacy_tools"] = [t.name for t in listed.tools]
        calls = out["legacy"] = {}
        calls["read"] = result(await client.call_tool("read", {"path": "a.txt"}))
        calls["edit_unread"] = result(
            await client.call_tool("edit", {"filePath": "b.txt", "oldString": "bee", "newString": "BEE"})
        )
        calls["read_b"] = result(await client.call_tool("read", {"path": "b.txt"}))
        calls["edit"] = result(
            await client.call_tool("edit", {"filePath": "b.txt", "oldString": "bee", "newString": "BEE"})
        )
        progress = []

        async def on_progress(p: float, total: float | None, message: str | None) -> None:
            progress.append({"progress": p, "message": message})

        calls["bash_long"] = result(
            await client.call_tool(
                "bash", {"command": "for i in 1 2 3; do echo $i; sleep 0.3; done"}, progress_callback=on_progress
            )
        )
        out["progress"] = progress
        started = time.monotonic()
        with anyio.move_on_after(1.5) as scope:
            await client.call_tool("bash", {"command": "sleep 30"})
        out["cancel"] = {"cancelled": scope.cancelled_caught}
        started = time.monotonic()
        calls["after_cancel"] = result(await client.call_tool("list", {}))
        out["cancel"]["next_call_seconds"] = time.monotonic() - started


async def stateless(out: dict) -> None:
    """The stateless 2026-07-28 revision over HTTP: every request stands alone, yet the read
    recorded by one request lets the next request's edit through (one server = one session)."""
    async with http() as h, connect(h, "2026-07-28") as client:
        calls = out["stateless"] = {}
        calls["read"] = result(await client.call_tool("read", {"path": "c.txt"}))
        calls["edit"] = result(
            await client.call_tool("edit", {"filePath": "c.txt", "oldString": "sea", "newString": "SEA"})
        )
        out["stateless_protocol"] = client.protocol_version


async def rebinding(out: dict) -> None:
    """Plain HTTP requests a browser under DNS rebinding (or another site) could send."""
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}},
    }
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream", **AUTH}
    parts = urlsplit(URL)
    async with httpx2.AsyncClient() as http:
        statuses = out["http"] = {}
        r = await http.post(URL, json=init, headers=headers)
        statuses["loopback"] = r.status_code
        r = await http.post(URL, json=init, headers={**headers, "host": f"attacker.example:{parts.port}"})
        statuses["foreign_host"] = r.status_code
        r = await http.post(URL, json=init, headers={**headers, "origin": "http://attacker.example"})
        statuses["foreign_origin"] = r.status_code
        r = await http.post(URL, json=init, headers={**headers, "origin": f"http://localhost:{parts.port}"})
        statuses["loopback_origin"] = r.status_code
        other = urlunsplit((parts.scheme, parts.netloc, "/elsewhere", "", ""))
        r = await http.post(other, json=init, headers=headers)
        statuses["other_path"] = r.status_code


run_parts(legacy, stateless, rebinding)
