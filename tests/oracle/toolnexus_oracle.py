#!/usr/bin/env python3
"""Oracle: drive the real toolnexus (Python port, pinned 0.21.0) skill engine.

Reads ONE JSON object on stdin:
  {"roots": [abs paths], "skills": [{"name"?, "description"?, "content"?,
   "resources"?, "base"?}], "filter": {name: bool} | null,
   "sample_limit": int, "calls": [name | {raw args object}],
   "yaml_types": [abs SKILL.md paths] (optional)}
Writes ONE JSON object (UTF-8, one line) on stdout:
  {"prompt": str,
   "calls": [{"name", "output", "is_error", "metadata"}],
   "list": {"skills": [{"name","description","location","origin"}],
            "skipped": [{"location","reason"}]},
   "warnings": [lines printed while loading + calling],
   "list_warnings": [lines printed by list_skills],
   "yaml_types": {path: {"name"?: type, "description"?: type}}}
where a type is the Python type name PyYAML (YAML 1.1, as toolnexus reads the
frontmatter) gives that key ("str", "bool", "int", "float", "date",
"NoneType", ...), or the whole entry is {"error": msg} when PyYAML refuses
the block or it is no mapping.
On an exception raised by the library: {"error": "Type: msg", "warnings": [...]}
and exit status 2.

Run with the venv interpreter: target/venvs/toolnexus/bin/python.
Standard library only, besides toolnexus itself.
"""
import asyncio
import contextlib
import io
import json
import sys

import yaml
from toolnexus import SkillDef, list_skills, load_skills
from toolnexus.skill import _FRONTMATTER_RE


def _defs(raw):
    # SkillDef requires name and content; a missing name maps to "" (which the
    # library reports as a "missing-name" skip), a missing content to "".
    return [
        SkillDef(
            name=d.get("name") or "",
            content=d.get("content") or "",
            description=d.get("description"),
            resources=d.get("resources"),
            base=d.get("base"),
        )
        for d in raw
    ] or None  # the library treats None and [] alike; pass None like a host would


@contextlib.contextmanager
def _captured(lines):
    # toolnexus prints warnings with print(..., file=sys.stderr); it looks up
    # sys.stderr at call time, so redirecting both streams into one buffer
    # captures everything in the order it was printed.
    buf = io.StringIO()
    try:
        with contextlib.redirect_stderr(buf), contextlib.redirect_stdout(buf):
            yield
    finally:
        lines.extend(buf.getvalue().splitlines())


def _yaml_types(path):
    # The frontmatter exactly as toolnexus reads it (text mode, its regex),
    # typed by the YAML parser it uses.
    with open(path, "r", encoding="utf-8") as f:
        match = _FRONTMATTER_RE.match(f.read())
    if not match:
        return {"error": "no frontmatter"}
    try:
        parsed = yaml.safe_load(match.group(1))
    except Exception as e:  # noqa: BLE001 — every refusal, as toolnexus
        return {"error": str(e).replace("\n", " ")}
    if not isinstance(parsed, dict):
        return {"error": "not a mapping"}
    return {k: type(parsed[k]).__name__ for k in ("name", "description") if k in parsed}


def _emit(obj, code=0):
    sys.stdout.buffer.write(json.dumps(obj, ensure_ascii=False).encode("utf-8") + b"\n")
    sys.stdout.flush()
    sys.exit(code)


def main():
    req = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    roots = req.get("roots") or []
    raw_defs = req.get("skills") or []
    warnings, list_warnings = [], []
    try:
        with _captured(warnings):
            src = load_skills(
                roots,
                skills=_defs(raw_defs),
                filter=req.get("filter"),
                sample_limit=req.get("sample_limit", 0),
            )
            prompt = src.prompt()
            calls = []
            for c in req.get("calls") or []:
                # A bare string is the skill name; an object is passed as raw args
                # (lets a test exercise e.g. a missing "name" key).
                args = c if isinstance(c, dict) else {"name": c}
                # Tool.execute is an async coroutine (args, ctx) -> ToolResult.
                r = asyncio.run(src.tool.execute(args))
                calls.append(
                    {
                        "name": args.get("name"),
                        "output": r.output,
                        "is_error": r.is_error,
                        "metadata": r.metadata,
                    }
                )
        # Unfiltered inventory; it re-runs discovery, so it re-prints warnings
        # (e.g. duplicates) — kept apart so "warnings" reflects load + calls only.
        with _captured(list_warnings):
            inv = list_skills(roots, skills=_defs(raw_defs))
    except Exception as e:  # noqa: BLE001 — report, don't traceback
        _emit({"error": f"{type(e).__name__}: {e}", "warnings": warnings + list_warnings}, 2)
    _emit(
        {
            "prompt": prompt,
            "calls": calls,
            "list": {
                "skills": [
                    {
                        "name": s.name,
                        "description": s.description,
                        "location": s.location,
                        "origin": s.origin,
                    }
                    for s in inv.skills
                ],
                "skipped": [{"location": k.location, "reason": k.reason} for k in inv.skipped],
            },
            "warnings": warnings,
            "list_warnings": list_warnings,
            "yaml_types": {p: _yaml_types(p) for p in req.get("yaml_types") or []},
        }
    )


if __name__ == "__main__":
    main()
