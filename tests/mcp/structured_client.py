"""A real MCP client (the official Python SDK) calling toolhost:tool 0.2.0 features over stdio.

Usage: structured_client.py TOOLHOST WORKSPACE DATA_DIR RUNNER_WASM SHAPELESS_WASM LEGACY_WASM MISBEHAVE_WASM

The server runs with four `--tool` components: `runner` (process-execution, with an output
schema), `shapeless` (its structured result breaks its own schema), `legacy` (built against
the frozen 0.1.0 WIT) and `misbehave` (reports progress with fractions). The workspace holds
`a.txt`. The SDK itself checks every `structuredContent` against the tool's `outputSchema`
(and raises when one is missing or wrong), so a call that comes back is one the SDK accepted.
Prints one JSON object with what the client saw; `tests/tests/structured_results.rs` asserts
on it.
"""

import os
import sys

from report import result, run_parts
from mcp import ClientSession, StdioServerParameters, stdio_client

TOOLHOST, WORKSPACE, DATA_DIR, RUNNER, SHAPELESS, LEGACY, MISBEHAVE = sys.argv[1:8]


def params() -> StdioServerParameters:
    tools = []
    for wasm in (RUNNER, SHAPELESS, LEGACY, MISBEHAVE):
        tools += ["--tool", wasm]
    return StdioServerParameters(
        command=TOOLHOST,
        args=["--workspace", WORKSPACE, "--data-dir", DATA_DIR, *tools, "mcp"],
        env={k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")},
    )


def with_structured(r) -> dict:
    out = result(r)
    out["structuredContent"] = r.structured_content
    return out


async def structured(out: dict) -> None:
    async with stdio_client(params()) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
            out["tools"] = {t.name: t.model_dump(by_alias=True, exclude_none=True) for t in listed.tools}
            calls = out["calls"] = {}
            calls["runner"] = with_structured(
                await session.call_tool("runner", {"program": "sh", "args": ["-c", "echo hello from a program"]})
            )
            try:
                calls["shapeless"] = with_structured(await session.call_tool("shapeless", {"text": "one two three"}))
            except Exception as e:  # noqa: BLE001 - what the SDK says is the observation
                calls["shapeless"] = {"raised": f"{type(e).__name__}: {e}"}
            calls["legacy"] = with_structured(await session.call_tool("legacy", {"path": "a.txt", "needle": "et"}))

            progress = []

            async def on_progress(p: float, total: float | None, message: str | None) -> None:
                progress.append({"progress": p, "total": total, "message": message})

            calls["progress"] = with_structured(
                await session.call_tool("misbehave", {"action": "progress"}, progress_callback=on_progress)
            )
            out["progress"] = progress


run_parts(structured)
