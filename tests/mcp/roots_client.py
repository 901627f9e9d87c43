"""An MCP client (the official Python SDK) that offers roots to a toolhost whose reads the
operator confined to the workspace plus LIB (`--read-root LIB`). It offers LIB/sub first, then
LIB whole (notifications/roots/list_changed), then only OTHER (outside the operator's roots),
and records what read, write and bash do with LIB/sub/a.txt, LIB/b.txt and OTHER/.env at each
step, and the read tool's description.

Usage: roots_client.py TOOLHOST WORKSPACE DATA_DIR LIB OTHER [silent]

With `silent`, the client never answers roots/list: it makes two calls and records them.

Prints one JSON object; the Rust test (`tests/tests/reads_confined_to_roots.rs`) asserts on it.
"""

import os
import pathlib
import sys

import anyio

from report import result, run_parts
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp import types

TOOLHOST, WORKSPACE, DATA_DIR, LIB, OTHER = sys.argv[1:6]
SILENT = sys.argv[6:7] == ["silent"]
SUB_FILE = os.path.join(LIB, "sub", "a.txt")
LIB_FILE = os.path.join(LIB, "b.txt")
OTHER_FILE = os.path.join(OTHER, ".env")


async def roots(out: dict) -> None:
    # The SDK refuses a root that is not a file:// URI itself; one naming another host is
    # toolhost's to ignore.
    offered = [pathlib.Path(LIB, "sub").as_uri(), "file://elsewhere/share"]
    changed = anyio.Event()
    state = {"changed": changed}

    async def on_list_roots(context):
        if SILENT:
            await anyio.sleep_forever()
        return types.ListRootsResult(roots=[types.Root(uri=u) for u in offered])

    async def on_message(message):
        if isinstance(message, types.ToolListChangedNotification):
            state["changed"].set()

    params = StdioServerParameters(
        command=TOOLHOST,
        args=["--workspace", WORKSPACE, "--data-dir", DATA_DIR, "--read-root", LIB, "mcp"],
        env={k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")},
    )

    async def step(session, name: str) -> None:
        async def call(tool, arguments):
            return result(await session.call_tool(tool, arguments))

        tools = await session.list_tools()
        out[name] = {
            "tools": [t.name for t in tools.tools],
            "read_description": next(t.description for t in tools.tools if t.name == "read"),
            "read_sub": await call("read", {"path": SUB_FILE}),
            "read_lib": await call("read", {"path": LIB_FILE}),
            "read_other": await call("read", {"path": OTHER_FILE}),
            "write_lib": await call("write", {"path": LIB_FILE, "content": "changed\n"}),
            "bash": await call(
                "bash",
                {"command": f"cat {SUB_FILE} {LIB_FILE} {OTHER_FILE}; echo changed > {LIB_FILE}"},
            ),
        }

    async def offer(session, uris) -> None:
        offered[:] = uris
        state["changed"] = anyio.Event()
        await session.send_roots_list_changed()
        # The server asks roots/list again and tells the client its tools changed.
        with anyio.fail_after(60):
            await state["changed"].wait()

    async with stdio_client(params) as (read, write):
        async with ClientSession(
            read, write, list_roots_callback=on_list_roots, message_handler=on_message
        ) as session:
            await session.initialize()
            if SILENT:
                r = await session.call_tool("read", {"path": LIB_FILE})
                out["silent_read_lib"] = result(r)
                r = await session.call_tool("list", {"path": WORKSPACE})
                out["silent_list"] = result(r)
                return
            await step(session, "sub")
            await offer(session, [pathlib.Path(LIB).as_uri()])
            await step(session, "lib")
            await offer(session, [pathlib.Path(OTHER).as_uri()])
            await step(session, "other")


run_parts(roots)
