"""An MCP client (the official Python SDK) that declares elicitation, sends one call that needs
an approval (bash with `sandboxPermissions`, or a workspace_shell run) and answers the
elicitation with ANSWER ("accept" approves, anything else declines). Records the message it
was asked with.

Usage: elicit_client.py TOOLHOST WORKSPACE DATA_DIR ARGUMENTS_JSON ANSWER [TOOL]
(TOOL: bash by default; any other tool is served alone, with `--tools TOOL`.)

Prints one JSON object: {"asked": [{"message": ...}], "call": <result>}; the Rust test
(`tests/tests/escalation.rs`) asserts on it.
"""

import json
import os
import sys

from report import result, run_parts
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp import types

TOOLHOST, WORKSPACE, DATA_DIR, ARGUMENTS, ANSWER = sys.argv[1:6]
TOOL = sys.argv[6] if len(sys.argv) > 6 else "bash"
SELECTION = [] if TOOL == "bash" else ["--tools", TOOL]


async def ask(out: dict) -> None:
    asked = []

    async def on_elicit(context, request: types.ElicitRequestParams):
        asked.append({"message": request.message})
        if ANSWER == "accept":
            return types.ElicitResult(action="accept", content={"approve": True})
        return types.ElicitResult(action="decline")

    params = StdioServerParameters(
        command=TOOLHOST,
        args=["--workspace", WORKSPACE, "--data-dir", DATA_DIR, *SELECTION, "mcp"],
        env={k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")},
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, elicitation_callback=on_elicit) as session:
            await session.initialize()
            r = await session.call_tool(TOOL, json.loads(ARGUMENTS))
    out["asked"] = asked
    out["call"] = result(r)


run_parts(ask)
