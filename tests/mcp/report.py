"""What the MCP client scripts (`client.py`, `http_client.py`) share: a CallToolResult as
plain JSON, and running the parts of a script into one JSON report on stdout."""

import json

import anyio


def result(r) -> dict:
    """A CallToolResult as plain JSON: content, isError, _meta."""
    return {
        "isError": bool(r.is_error),
        "content": [c.model_dump(by_alias=True, exclude_none=True) for c in r.content],
        "text": "".join(c.text for c in r.content if getattr(c, "type", None) == "text"),
        "meta": r.meta or {},
    }


def run_parts(*parts) -> None:
    """Run each `async part(out)` in turn and print `out` as one JSON line; a part that
    raises is reported under "errors" (the Rust test fails with that context)."""

    async def main() -> None:
        out: dict = {}
        for part in parts:
            try:
                await part(out)
            except Exception as e:  # noqa: BLE001
                out.setdefault("errors", []).append(f"{part.__name__}: {type(e).__name__}: {e!r}")
        print(json.dumps(out, default=str))

    anyio.run(main)
