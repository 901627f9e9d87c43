"""`cargo xtask bench edits`, aider's half: aider's own SEARCH/REPLACE matcher applied to files.

Usage: edits_aider.py   (with aider-chat installed in this Python; the bench passes
<target>/bench-peers/aider-venv/bin/python)

Reads JSON Lines on stdin, one edit each: {"path": <absolute file>, "old": <SEARCH text>,
"new": <REPLACE text>}. Each is applied as aider applies a SEARCH/REPLACE block
(`EditBlockCoder.apply_edits` with aider's `InputOutput` defaults): the file is read in text
mode with universal newlines (`io.read_text`), the block goes through
`aider.coders.editblock_coder.replace_most_similar_chunk(whole, part, replace)`, and a result
that is not empty is written back in text mode with the platform's newline (`io.write_text`
with `line_endings="platform"`). Answers one line each: {"applied": true|false} (false:
aider found no place and wrote nothing), or {"error": <text>} if the matcher raised.
The first line printed is {"ready": <aider version>}.
"""

import json
import sys

import aider
from aider.coders.editblock_coder import replace_most_similar_chunk


def apply(path: str, old: str, new: str) -> bool:
    with open(path, "r", encoding="utf-8") as f:
        whole = f.read()
    result = replace_most_similar_chunk(whole, old, new)
    if not result:
        return False
    with open(path, "w", encoding="utf-8", newline=None) as f:
        f.write(result)
    return True


def main() -> None:
    print(json.dumps({"ready": aider.__version__}), flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        edit = json.loads(line)
        try:
            answer = {"applied": apply(edit["path"], edit["old"], edit["new"])}
        except Exception as e:  # noqa: BLE001 - the bench records it as a refusal with a note
            answer = {"error": f"{type(e).__name__}: {e}"}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
