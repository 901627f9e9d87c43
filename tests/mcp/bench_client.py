"""`cargo xtask bench session`, MCP half: N `list` calls, one at a time, through the official
MCP Python SDK (`mcp` 2.3.0), to `toolhost mcp` over stdio or to a `--listen` URL.

Usage: bench_client.py N stdio TOOLHOST WORKSPACE DATA_DIR
       bench_client.py N http URL TOKEN

Prints one JSON object: calls, seconds, p50_ms, p99_ms.
"""

import json
import os
import sys
import time

import anyio
import httpx2
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

N = int(sys.argv[1])
KIND = sys.argv[2]


async def measure(session: ClientSession) -> dict:
    await session.initialize()
    for _ in range(20):
        await session.call_tool("list", {})
    times = []
    start = time.perf_counter()
    for _ in range(N):
        t = time.perf_counter()
        r = await session.call_tool("list", {})
        times.append(time.perf_counter() - t)
        assert not r.is_error, r
    total = time.perf_counter() - start
    times.sort()
    return {"calls": N, "seconds": total, "p50_ms": times[N // 2] * 1e3, "p99_ms": times[N * 99 // 100] * 1e3}


async def main() -> None:
    if KIND == "stdio":
        toolhost, workspace, data = sys.argv[3:6]
        params = StdioServerParameters(
            command=toolhost,
            args=["--workspace", workspace, "--data-dir", data, "mcp"],
            env={k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")},
        )
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                out = await measure(session)
    else:
        auth = {"authorization": f"Bearer {sys.argv[4]}"}
        async with httpx2.AsyncClient(headers=auth, timeout=httpx2.Timeout(30.0, read=300.0)) as http:
            async with streamable_http_client(sys.argv[3], http_client=http) as (read, write, *_):
                async with ClientSession(read, write) as session:
                    out = await measure(session)
    print(json.dumps(out))


anyio.run(main)
