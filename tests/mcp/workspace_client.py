"""A real MCP client (the official Python SDK) calling the workspace tools over stdio.

Usage: workspace_client.py TOOLHOST WORKSPACE DATA_DIR CALLS_JSON

The server runs with `--agent workspace`. CALLS_JSON is a JSON list of [label, tool,
arguments]; each call's result is reported under its label. The SDK checks every successful
call's `structuredContent` against the tool's `outputSchema` and raises when it is missing or
wrong, so a succeeded call that comes back is one the SDK accepted. Prints one JSON object;
`tests/tests/workspace_tools_mcp.rs` asserts on it.
"""

import json
import os
import sys

from report import result, run_parts
from mcp import ClientSession, StdioServerParameters, stdio_client

TOOLHOST, WORKSPACE, DATA_DIR, CALLS = sys.argv[1:5]


def params() -> StdioServerParameters:
    return StdioServerParameters(
        command=TOOLHOST,
        args=["--workspace", WORKSPACE, "--data-dir", DATA_DIR, "--agent", "workspace", "mcp"],
        env={k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")},
    )


async def workspace(out: dict) -> None:
    async with stdio_client(params()) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
            out["tools"] = {t.name: t.model_dump(by_alias=True, exclude_none=True) for t in listed.tools}
            calls = out["calls"] = {}
            for label, tool, arguments in json.loads(CALLS):
                try:
                    r = await session.call_tool(tool, arguments)
                    got = result(r)
                    got["structuredContent"] = r.structured_content
                    calls[label] = got
                except Exception as e:  # noqa: BLE001 - what the SDK says is the observation
                    calls[label] = {"raised": f"{type(e).__name__}: {e}"}


run_parts(workspace)
