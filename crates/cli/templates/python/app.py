"""`{{name}}`: a toolhost tool. It reads one file of the workspace through the host's
capability handles and says how many bytes and lines it holds, as text for the model and as
a structured result matching its output schema. Change it into your own tool: the contract
it follows is in `wit/tool.wit` (`toolhost wit`) and in toolhost's docs/authoring.md.

componentize-py generates the `wit_world` package from `wit/` when it builds: a function
returning `result<T, tool-error>` returns T, or raises `Err(ToolError(...))`.
"""

import json

from componentize_py_types import Err
from wit_world import exports
from wit_world.imports import call, workspace
from wit_world.imports.types import (
    Definition,
    ErrorCode,
    Inspection_ReadOnly,
    Output,
    Risk,
    ToolError,
)

# The tool's id: what models call it by. 1 to 64 characters of `A-Za-z0-9_-`.
ID = "{{name}}"

# The JSON Schema of the input. Every property has a description: it is all the model knows
# about it. The host checks every call's arguments against it before the tool runs.
INPUT_SCHEMA = {
    "type": "object",
    "properties": {
        "path": {
            "type": "string",
            "minLength": 1,
            "description": "The file to read, relative to the workspace root (or absolute inside it).",
        },
    },
    "required": ["path"],
    "additionalProperties": False,
}

# The JSON Schema of the structured result `execute` returns.
OUTPUT_SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "The file, as the host displays it."},
        "bytes": {"type": "integer", "minimum": 0, "description": "Its size in bytes."},
        "lines": {
            "type": "integer",
            "minimum": 0,
            "description": "How many newline characters it holds.",
        },
    },
    "required": ["path", "bytes", "lines"],
    "additionalProperties": False,
}

# How many bytes to ask the host for at a time.
CHUNK = 64 * 1024


def error(code: ErrorCode, message: str) -> Err:
    return Err(ToolError(code=code, message=message, retryable=False))


def parse(text: str) -> dict:
    """Parse the input, refusing what the schema does not allow with `invalid-arguments` and
    a text starting `invalid tool input: ` (the host checks the schema too; this keeps the
    tool correct on its own)."""
    try:
        value = json.loads(text)
    except ValueError as e:
        raise error(ErrorCode.INVALID_ARGUMENTS, f"invalid tool input: not JSON: {e}")
    if not isinstance(value, dict):
        raise error(ErrorCode.INVALID_ARGUMENTS, "invalid tool input: expected a JSON object")
    unknown = sorted(set(value) - set(INPUT_SCHEMA["properties"]))
    if unknown:
        raise error(ErrorCode.INVALID_ARGUMENTS, f"invalid tool input: unknown field `{unknown[0]}`")
    path = value.get("path")
    if not isinstance(path, str) or not path:
        raise error(
            ErrorCode.INVALID_ARGUMENTS,
            "invalid tool input: `path` must be a non-empty string naming a file of the workspace",
        )
    return value


class Tool(exports.Tool):
    def describe(self) -> Definition:
        return Definition(
            id=ID,
            description="Reads one file of the workspace and says how many bytes and lines it holds.",
            input_schema=json.dumps(INPUT_SCHEMA),
            output_schema=json.dumps(OUTPUT_SCHEMA),
            risk=Risk.READ_ONLY,
        )

    def inspect(self, input: str):
        parse(input)
        return Inspection_ReadOnly()

    def execute(self, input: str) -> Output:
        args = parse(input)
        # The host resolves and fences the path; a refused path raises its error here.
        file = workspace.open_file(args["path"])
        size, lines = 0, 0
        while True:
            if call.cancelled():
                raise error(ErrorCode.CANCELLED, "cancelled")
            chunk = file.read(CHUNK)
            if not chunk:
                break
            size += len(chunk)
            lines += chunk.count(b"\n")
        path = file.display_path()
        structured = {"path": path, "bytes": size, "lines": lines}
        return Output(text=f"{path}: {lines} lines, {size} bytes", structured=json.dumps(structured))
