"""Two MCP clients (the official Python SDK) of one `toolhost mcp --listen --read-root LIB`
at once, over Streamable HTTP: A offers the root LIB/sub, B offers LIB. Each reads LIB/b.txt
and LIB/sub/a.txt, so the report shows whether each MCP session has roots of its own.

Usage: roots_http_client.py URL TOKEN LIB

Prints one JSON object; the Rust test (`tests/tests/reads_confined_to_roots.rs`) asserts on it.
"""

import os
import pathlib
import sys

import httpx2
from report import result, run_parts
from mcp import Client, types
from mcp.client.streamable_http import streamable_http_client

URL, TOKEN, LIB = sys.argv[1:4]


def offering(path: str):
    async def on_list_roots(context):
        return types.ListRootsResult(roots=[types.Root(uri=pathlib.Path(path).as_uri())])

    return on_list_roots


async def two_sessions(out: dict) -> None:
    auth = {"authorization": f"Bearer {TOKEN}"}
    timeout = httpx2.Timeout(30.0, read=300.0)
    async with (
        httpx2.AsyncClient(headers=auth, timeout=timeout) as ha,
        httpx2.AsyncClient(headers=auth, timeout=timeout) as hb,
        Client(
            streamable_http_client(URL, http_client=ha),
            mode="legacy",
            list_roots_callback=offering(os.path.join(LIB, "sub")),
        ) as a,
        Client(streamable_http_client(URL, http_client=hb), mode="legacy", list_roots_callback=offering(LIB)) as b,
    ):
        for name, client in (("a", a), ("b", b)):
            out[name] = {
                "read_lib": result(await client.call_tool("read", {"path": os.path.join(LIB, "b.txt")})),
                "read_sub": result(await client.call_tool("read", {"path": os.path.join(LIB, "sub", "a.txt")})),
            }


run_parts(two_sessions)
