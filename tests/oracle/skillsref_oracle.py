#!/usr/bin/env python3
"""Oracle: drive the real skills-ref (pinned 0.1.1) validator and property reader.

Reads ONE JSON object on stdin:
  {"validate": [path, ...], "read_properties": [path, ...]}
Writes ONE JSON object (UTF-8, one line) on stdout:
  {"validate": [{"errors": [message, ...]} | {"crash": "Type: msg"}, ...],
   "read_properties": [{"json": <the CLI's stdout without its final newline>}
                       | {"error": message} | {"crash": "Type: msg"}, ...]}
in the order of the request. "errors" is the list `skills_ref.validate` returns
(empty: valid), which `agentskills validate` prints one per line; "json" is
exactly what `agentskills read-properties` prints, "error" what it prints
after "Error: ". A path that is a SKILL.md file is replaced by its directory,
as the CLI does. "crash" is an exception the library does not catch (the CLI
would print a traceback).

Run with the venv interpreter: target/venvs/skillsref/bin/python.
Standard library only, besides skills_ref itself.
"""
import json
import sys
from pathlib import Path

from skills_ref import SkillError, read_properties, validate


def _skill_dir(raw):
    # cli._is_skill_md_file
    path = Path(raw)
    if path.is_file() and path.name.lower() == "skill.md":
        return path.parent
    return path


def _validate(raw):
    try:
        return {"errors": validate(_skill_dir(raw))}
    except Exception as e:  # noqa: BLE001 - an uncaught exception is an answer
        return {"crash": f"{type(e).__name__}: {e}"}


def _read_properties(raw):
    try:
        props = read_properties(_skill_dir(raw))
        return {"json": json.dumps(props.to_dict(), indent=2)}
    except SkillError as e:
        return {"error": str(e)}
    except Exception as e:  # noqa: BLE001
        return {"crash": f"{type(e).__name__}: {e}"}


def main():
    request = json.load(sys.stdin)
    answer = {
        "validate": [_validate(p) for p in request.get("validate", [])],
        "read_properties": [_read_properties(p) for p in request.get("read_properties", [])],
    }
    sys.stdout.write(json.dumps(answer, ensure_ascii=False))


if __name__ == "__main__":
    main()
