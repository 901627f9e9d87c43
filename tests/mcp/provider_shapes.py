"""The provider-shaped tools checked against the providers' own SDK types.

`calls`: print, one JSON line each, the session requests that the SDKs' own types make of
tool calls a model sends: Anthropic's `ToolUseBlock`s for `str_replace_based_edit_tool` and
`bash` (named as `ToolTextEditor20250728Param` and `ToolBash20250124Param` name them), and
OpenAI's `ResponseApplyPatchToolCall` operations and `ResponseFunctionShellToolCall` actions.

`results`: read the session's results (one JSON line each, `{"id", "result"}`) and feed each
back through the type that carries it to the model: `ToolResultBlockParam` (validated with
pydantic), `ResponseApplyPatchToolCallOutput`, `ResponseFunctionShellToolCallOutput`. A field
named or shaped differently fails validation; exit status 1 then, with the error.
"""

import json
import sys

import pydantic
from anthropic.types import ToolBash20250124Param, ToolResultBlockParam, ToolTextEditor20250728Param, ToolUseBlock
from openai.types.responses import (
    ResponseApplyPatchToolCall,
    ResponseApplyPatchToolCallOutput,
    ResponseFunctionShellToolCall,
    ResponseFunctionShellToolCallOutput,
)

EDITOR: ToolTextEditor20250728Param = {"type": "text_editor_20250728", "name": "str_replace_based_edit_tool"}
BASH: ToolBash20250124Param = {"type": "bash_20250124", "name": "bash"}


def tool_use(n, name, payload):
    block = ToolUseBlock.model_validate({"id": f"toolu_{n}", "type": "tool_use", "name": name, "input": payload})
    return {"id": block.id, "tool": block.name, "arguments": block.input}


def calls():
    out = [
        tool_use(1, EDITOR["name"], {"command": "view", "path": "a.py"}),
        tool_use(2, EDITOR["name"], {"command": "str_replace", "path": "a.py", "old_str": "x = 1", "new_str": "x = 2"}),
        tool_use(3, EDITOR["name"], {"command": "insert", "path": "a.py", "insert_line": 0, "new_str": "import os"}),
        tool_use(4, EDITOR["name"], {"command": "create", "path": "b.py", "file_text": "y = 1\n"}),
        tool_use(5, EDITOR["name"], {"command": "view", "path": "a.py", "view_range": [1, -1]}),
        tool_use(6, EDITOR["name"], {"command": "str_replace", "path": "a.py", "old_str": "nowhere", "new_str": "z"}),
        tool_use(7, BASH["name"], {"command": "echo hi"}),
        tool_use(8, BASH["name"], {"restart": True}),
    ]
    operations = [
        {"type": "create_file", "path": "c.txt", "diff": "+one\n+two\n"},
        {"type": "update_file", "path": "c.txt", "diff": "@@\n one\n-two\n+three\n"},
        {"type": "update_file", "path": "c.txt", "diff": "@@\n-missing\n+x\n"},
        {"type": "delete_file", "path": "c.txt"},
    ]
    for n, op in enumerate(operations):
        call = ResponseApplyPatchToolCall.model_validate(
            {"id": f"apc_{n}", "call_id": f"call_p{n}", "type": "apply_patch_call", "status": "completed", "operation": op}
        )
        out.append({"id": call.call_id, "tool": "apply_patch", "arguments": call.operation.model_dump(exclude_none=True)})
    shell = ResponseFunctionShellToolCall.model_validate(
        {
            "id": "sh_1",
            "call_id": "call_s1",
            "type": "shell_call",
            "status": "completed",
            "action": {"commands": ["echo out", "echo err >&2; exit 4"], "timeout_ms": 10000, "max_output_length": 100},
        }
    )
    out.append({"id": shell.call_id, "tool": "shell", "arguments": shell.action.model_dump(exclude_none=True)})
    for line in out:
        print(json.dumps(line))


def text(result):
    return "".join(c.get("text", "") for c in result.get("content", []))


def results():
    tool_result = pydantic.TypeAdapter(ToolResultBlockParam)
    checked = []
    for line in sys.stdin:
        event = json.loads(line)
        call_id, result = event["id"], event["result"]
        failed = result["status"] != "succeeded"
        if call_id.startswith("toolu_"):
            tool_result.validate_python(
                {"type": "tool_result", "tool_use_id": call_id, "content": text(result), "is_error": failed}
            )
        elif call_id.startswith("call_p"):
            status = "failed" if failed else result["structuredContent"]["status"]
            output = text(result) if failed else result["structuredContent"]["output"]
            ResponseApplyPatchToolCallOutput.model_validate(
                {"id": "apo", "call_id": call_id, "type": "apply_patch_call_output", "status": status, "output": output}
            )
        elif call_id.startswith("call_s"):
            structured = result["structuredContent"]
            out = ResponseFunctionShellToolCallOutput.model_validate(
                {"id": "sho", "call_id": call_id, "type": "shell_call_output", "status": "completed", **structured}
            )
            assert [o.outcome.type for o in out.output] == ["exit", "exit"], out
            assert [o.outcome.exit_code for o in out.output] == [0, 4], out
            assert out.output[1].stderr == "err\n", out
        else:
            raise SystemExit(f"unknown call id {call_id}")
        checked.append(call_id)
    print(json.dumps(checked))


if __name__ == "__main__":
    {"calls": calls, "results": results}[sys.argv[1]]()
