"""A real MCP client (the official Python SDK, `mcp` 2.3.0) driving `toolhost mcp` over stdio.

Usage: client.py TOOLHOST WORKSPACE DATA_DIR OUTSIDE_DIR

The workspace holds `a.txt` ("alpha\\nbeta\\n") and `b.txt` ("bee\\n"); OUTSIDE_DIR is an empty
directory outside it (the target of escalation requests). Prints one JSON object with what
the client saw; `tests/tests/mcp_client.rs` asserts on it.
"""

import os
import sys
import time

import anyio
from report import result, run_parts
from mcp import Client, ClientSession, StdioServerParameters, stdio_client
from mcp import types

TOOLHOST, WORKSPACE, DATA_DIR, OUTSIDE = sys.argv[1:5]


def params(*extra: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=TOOLHOST,
        args=["--workspace", WORKSPACE, "--data-dir", DATA_DIR, *extra, "mcp"],
        env={k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")},
    )


def escalation(name: str) -> dict:
    target = os.path.join(OUTSIDE, name)
    return {
        "command": f"echo escalated > {target}",
        "sandboxPermissions": {"paths": [{"path": OUTSIDE, "access": "write", "scope": "subtree"}]},
        "justification": "the test writes one file outside the workspace",
    }


async def legacy(out: dict) -> None:
    """The 2025-11-25 revision: initialize handshake, then the calls."""
    async with stdio_client(params()) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            out["initialize"] = {
                "protocolVersion": init.protocol_version,
                "serverName": init.server_info.name,
                "tools": init.capabilities.tools is not None,
            }
            listed = await session.list_tools()
            out["tools"] = [t.model_dump(by_alias=True, exclude_none=True) for t in listed.tools]

            calls = out["calls"] = {}
            calls["read"] = result(await session.call_tool("read", {"path": "a.txt"}))
            calls["edit_unread"] = result(
                await session.call_tool("edit", {"filePath": "b.txt", "oldString": "bee", "newString": "BEE"})
            )
            calls["read_b"] = result(await session.call_tool("read", {"path": "b.txt"}))
            calls["edit"] = result(
                await session.call_tool("edit", {"filePath": "b.txt", "oldString": "bee", "newString": "BEE"})
            )
            calls["grep"] = result(await session.call_tool("grep", {"pattern": "beta"}))
            calls["bash"] = result(await session.call_tool("bash", {"command": "echo hi"}))

            progress = []

            async def on_progress(p: float, total: float | None, message: str | None) -> None:
                progress.append({"progress": p, "total": total, "message": message})

            calls["bash_long"] = result(
                await session.call_tool(
                    "bash",
                    {"command": "for i in 1 2 3; do echo $i; sleep 0.3; done"},
                    progress_callback=on_progress,
                )
            )
            out["progress"] = progress

            # Cancel: abandoning the request sends notifications/cancelled.
            started = time.monotonic()
            with anyio.move_on_after(1.5) as scope:
                await session.call_tool("bash", {"command": "sleep 30"})
            out["cancel"] = {"cancelled": scope.cancelled_caught, "waited": time.monotonic() - started}
            # Calls run one at a time: this one starts only once the sleep has stopped.
            started = time.monotonic()
            calls["after_cancel"] = result(await session.call_tool("list", {}))
            out["cancel"]["next_call_seconds"] = time.monotonic() - started

            # No elicitation declared, no --allow-escalation: denied.
            calls["escalation_denied"] = result(await session.call_tool("bash", escalation("denied.txt")))

            # An unknown tool is a protocol error.
            try:
                await session.call_tool("nope", {})
                out["unknown_tool"] = "no error"
            except Exception as e:  # noqa: BLE001
                out["unknown_tool"] = str(e)


async def elicitation(out: dict) -> None:
    """A client that declares elicitation: the escalation is asked, approved, and runs."""
    asked = []

    async def on_elicit(context, request: types.ElicitRequestParams):
        asked.append({"message": request.message, "schema": request.requested_schema})
        return types.ElicitResult(action="accept", content={"approve": True})

    async with stdio_client(params()) as (read, write):
        async with ClientSession(read, write, elicitation_callback=on_elicit) as session:
            await session.initialize()
            r = await session.call_tool("bash", escalation("approved.txt"))
    out["elicitation"] = {"asked": asked, "call": result(r)}


async def stateless(out: dict) -> None:
    """The stateless 2026-07-28 revision: no initialize, metadata on every request."""
    async with Client(params(), mode="2026-07-28") as client:
        listed = await client.list_tools()
        r = await client.call_tool("read", {"path": "a.txt"})
        out["stateless"] = {
            "protocolVersion": client.protocol_version,
            "tools": [t.name for t in listed.tools],
            "read": result(r),
        }


run_parts(legacy, elicitation, stateless)
