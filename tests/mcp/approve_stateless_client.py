"""A stateless 2026-07-28 MCP client (the official Python SDK's `Client`) that declares
elicitation and approves a bash escalation the way the revision asks: the server answers with
an input-required result, the client asks its user (ANSWER: "accept" approves, anything else
declines) and retries. Then it drives the rounds by hand and attacks the request state: a
changed state, the state with other arguments, and the genuine answer sent twice.

Usage: approve_stateless_client.py TOOLHOST WORKSPACE DATA_DIR ARGUMENTS_JSON OTHER_ARGUMENTS_JSON ANSWER

Prints one JSON object; the Rust test (`tests/tests/escalation.rs`) asserts on it.
"""

import json
import os
import sys

from report import result, run_parts
from mcp import Client, StdioServerParameters
from mcp import types

TOOLHOST, WORKSPACE, DATA_DIR, ARGUMENTS, OTHER, ANSWER = sys.argv[1:7]


def params() -> StdioServerParameters:
    return StdioServerParameters(
        command=TOOLHOST,
        args=["--workspace", WORKSPACE, "--data-dir", DATA_DIR, "mcp"],
        env={k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")},
    )


def answer() -> types.ElicitResult:
    if ANSWER == "accept":
        return types.ElicitResult(action="accept", content={"approve": True})
    return types.ElicitResult(action="decline")


async def automatic(out: dict) -> None:
    """The SDK drives the round: asks through the callback, retries with the answer."""
    asked = []

    async def on_elicit(context, request: types.ElicitRequestParams):
        asked.append({"message": request.message})
        return answer()

    async with Client(params(), mode="2026-07-28", elicitation_callback=on_elicit) as client:
        r = await client.call_tool("bash", json.loads(ARGUMENTS))
    out["automatic"] = {"asked": asked, "call": result(r)}


async def by_hand(out: dict) -> None:
    """The rounds driven by hand: what the server accepts as an answer."""

    async def on_elicit(context, request: types.ElicitRequestParams):
        return answer()

    arguments = json.loads(ARGUMENTS)
    accepted = {"approval": types.ElicitResult(action="accept", content={"approve": True})}
    report = {}
    async with Client(params(), mode="2026-07-28", elicitation_callback=on_elicit) as client:
        session = client.session

        async def attempt(label, args, responses, state):
            try:
                r = await session.call_tool(
                    "bash", args, input_responses=responses, request_state=state, allow_input_required=True
                )
                if isinstance(r, types.InputRequiredResult):
                    report[label] = {"input_required": True}
                else:
                    report[label] = {"call": result(r)}
            except Exception as e:  # the server's refusal arrives as an MCP error
                report[label] = {"error": str(e)}

        first = await session.call_tool("bash", arguments, allow_input_required=True)
        report["first"] = {
            "input_required": isinstance(first, types.InputRequiredResult),
            "keys": sorted((first.input_requests or {}).keys()) if isinstance(first, types.InputRequiredResult) else [],
        }
        state = first.request_state or ""
        flipped = state[:-2] + ("A" if state[-2] != "A" else "B") + state[-1]
        await attempt("tampered", arguments, accepted, flipped)
        await attempt("other_arguments", json.loads(OTHER), accepted, state)
        await attempt("state_only", arguments, None, state)
        await attempt("genuine", arguments, accepted, state)
        await attempt("replayed", arguments, accepted, state)
    out["by_hand"] = report


run_parts(automatic, by_hand)
