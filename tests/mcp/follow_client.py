"""A real MCP client (the official Python SDK) watching `toolhost mcp` follow the installed tools.

Usage: follow_client.py TOOLHOST WORKSPACE DATA_DIR SCRIBE_WASM MISBEHAVE_WASM

Over stdio: list the tools, install `scribe` with `toolhost tool add` while the server runs,
wait for `notifications/tools/list_changed`, list again and call the new tool; then install
`misbehave`, make it trap three times in a row (the server disables it for the session and
notifies), call it once more; then remove `scribe` and wait for the notice. Prints one JSON
object with what the client saw; `tests/tests/mcp_follows_installed.rs` asserts on it.
"""

import os
import subprocess
import sys
import time

import anyio
from report import result, run_parts
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp import types

TOOLHOST, WORKSPACE, DATA_DIR, SCRIBE, MISBEHAVE = sys.argv[1:6]
ENV = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}


def toolhost(*args: str) -> dict:
    p = subprocess.run(
        [TOOLHOST, "--workspace", WORKSPACE, "--data-dir", DATA_DIR, *args],
        env=ENV, capture_output=True, text=True, timeout=300,
    )
    return {"code": p.returncode, "stdout": p.stdout, "stderr": p.stderr}


async def follow(out: dict) -> None:
    changed = []

    async def on_message(message) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.append(time.monotonic())

    async def wait_for_notice(seen: int, limit: float = 20.0) -> float | None:
        started = time.monotonic()
        while time.monotonic() - started < limit:
            if len(changed) > seen:
                return time.monotonic() - started
            await anyio.sleep(0.05)
        return None

    params = StdioServerParameters(
        command=TOOLHOST, args=["--workspace", WORKSPACE, "--data-dir", DATA_DIR, "mcp"], env=ENV
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as session:
            init = await session.initialize()
            tools_cap = init.capabilities.tools
            out["listChanged"] = bool(tools_cap and tools_cap.list_changed)
            out["before"] = [t.name for t in (await session.list_tools()).tools]

            out["add"] = toolhost("tool", "add", SCRIBE, "--yes")
            out["addNoticeSeconds"] = await wait_for_notice(0)
            out["afterAdd"] = [t.name for t in (await session.list_tools()).tools]
            out["scribe"] = result(await session.call_tool("scribe", {"path": "from-mcp.txt", "text": "hi\n"}))

            seen = len(changed)
            out["addMisbehave"] = toolhost("tool", "add", MISBEHAVE, "--yes")
            await wait_for_notice(seen)
            seen = len(changed)
            out["traps"] = [result(await session.call_tool("misbehave", {"action": "trap"})) for _ in range(3)]
            out["disableNoticeSeconds"] = await wait_for_notice(seen)
            out["afterDisable"] = [t.name for t in (await session.list_tools()).tools]
            out["disabledCall"] = result(await session.call_tool("misbehave", {"action": "echo"}))

            seen = len(changed)
            out["remove"] = toolhost("tool", "remove", "scribe")
            out["removeNoticeSeconds"] = await wait_for_notice(seen)
            out["afterRemove"] = [t.name for t in (await session.list_tools()).tools]


run_parts(follow)
