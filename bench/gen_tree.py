#!/usr/bin/env python3
"""Generate a deterministic tree of Agent Skills for benchmarking.

Usage: python3 bench/gen_tree.py OUT_DIR N [--mix plain|registry]

Writes OUT_DIR/skill-00000/ ... OUT_DIR/skill-{N-1:05d}/, each holding
  SKILL.md         ~1.5 KB: frontmatter + markdown body
  scripts/run.sh   ~200 B
  reference.md     ~500 B
No randomness: the same N always yields byte-identical files.

--mix plain (the default): every frontmatter is two plain lines, `name` and
`description`.
--mix registry: frontmatters in the shapes and shares of a public registry
(REGISTRY_MIX, measured by bench/frontmatter_mix.py): quoted, folded, literal
and wrapped descriptions, `metadata:` and other nested maps, block and flow
lists, `allowed-tools`, flow maps, comments, non-ASCII text, and YAML that a
strict parser refuses (a `: ` in a plain description, rescued line by line).
"""

import os
import sys

SKILL_MD_TARGET = 1536
REFERENCE_TARGET = 500

VERBS = ["Convert", "Validate", "Summarize", "Extract", "Generate", "Audit",
         "Refactor", "Migrate", "Format", "Analyze", "Deploy", "Index", "Review"]
OBJECTS = ["PDF invoices", "CSV exports", "Terraform modules", "Jupyter notebooks",
           "REST API specs", "SQL migrations", "Docker images", "release notes",
           "Kubernetes manifests", "spreadsheet reports", "log archives"]
GOALS = ["structured JSON", "a concise changelog", "a compliance checklist",
         "typed Rust structs", "a Markdown report", "reviewable patches",
         "a dependency graph", "test fixtures"]
WHEN = ["the user asks for a batch job", "files arrive in the inbox folder",
        "a pull request touches these files", "the user mentions a deadline",
        "data must be shared with another team", "a CI run fails"]

BODY_PARAGRAPHS = [
    "Read the input files first and confirm they are the kind this skill expects. "
    "If any file is missing or unreadable, stop and tell the user which one, rather "
    "than guessing at its contents.",
    "Work in small, verifiable steps. After each step, check the intermediate result "
    "against the examples in reference.md before moving on, and keep a short log of "
    "what was changed so the user can review it afterwards.",
    "Prefer the bundled script for the mechanical part of the job: run "
    "`scripts/run.sh` with the input path as its only argument. It prints one line "
    "per processed item and exits non-zero on the first error it cannot recover from.",
    "Never overwrite the original files. Write results next to them with a clear "
    "suffix, and mention every file you created in your final answer.",
    "When the input is ambiguous, ask one focused question instead of several broad "
    "ones. Offer a sensible default so the user can simply confirm it.",
    "Large inputs should be processed in chunks of a few hundred records; report "
    "progress between chunks so a long run never looks stalled.",
    "Keep secrets out of the output: redact tokens, passwords and personal data "
    "before quoting any input back to the user.",
    "Finish with a summary that lists what succeeded, what was skipped and why, and "
    "the exact command needed to repeat the run.",
]
NOTES = [
    "See reference.md for worked examples.",
    "The script needs only bash and coreutils.",
    "Outputs are deterministic for the same input.",
    "Re-running on finished output is a no-op.",
    "Ask before touching files outside the workspace.",
]


# Shares of frontmatters showing each shape, measured by
# `bench/frontmatter_mix.py` on gabrielmoreira/agent-skills-mirror at
# 4e7649a87f4d537d80ff59a4fcf2857c2b28ff7e (15,305 frontmatters; refused: by
# PyYAML's safe loader, as toolnexus reads them).
REGISTRY_MIX = {
    "quoted": 0.6088, "non_ascii": 0.1676, "flow_list": 0.1409, "metadata_map": 0.1336,
    "block_list": 0.1049, "other_map": 0.0644, "wrapped": 0.0544, "allowed_tools": 0.0540,
    "folded": 0.0278, "literal": 0.0182, "flow_map": 0.0166, "refused": 0.0038, "comment": 0.0012,
}


def has(shape, i):
    """Whether skill i shows `shape`: a stable spread of REGISTRY_MIX's share,
    a different stride per shape so that shapes combine as they come."""
    stride = 7919 + 104729 * list(REGISTRY_MIX).index(shape)
    return (i * stride) % 10007 < REGISTRY_MIX[shape] * 10007


def registry_head(name, i):
    """A frontmatter in the registry's shapes (see REGISTRY_MIX)."""
    desc = description(i)
    if has("non_ascii", i):
        desc = desc.replace("; use when", " — résumé, naïve café; use when")
    lines = [f"name: {name}"]
    if has("refused", i):
        # A plain `: ` YAML refuses; toolnexus and skilldeck rescue the line.
        lines.append(f"description: Use when: {desc}")
    elif has("folded", i) or has("literal", i):
        half = len(desc) // 2
        cut = desc.rfind(" ", 0, half) if " " in desc[:half] else half
        marker = ">-" if has("folded", i) else "|"
        lines += [f"description: {marker}", f"  {desc[:cut]}", f"  {desc[cut + 1:]}"]
    elif has("wrapped", i):
        cut = desc.rfind(" ", 0, 80)
        lines += [f"description: {desc[:cut]}", f"  {desc[cut + 1:]}"]
    elif has("quoted", i):
        lines.append(f'description: "{desc} Say \\"go\\" to start."' if i % 3 else f"description: '{desc}'")
    else:
        lines.append(f"description: {desc}")
    if has("comment", i):
        lines.append("# maintained by the platform team")
    if has("allowed_tools", i):
        lines.append("allowed-tools: Read, Grep, Glob, Bash(git:*)")
    if has("flow_list", i):
        lines.append("tools: [Read, Write, Edit, Bash]")
    if has("block_list", i):
        lines += ["tags:", f"- {pick(OBJECTS, i, 2).split()[0].lower()}", "- automation", "- review"]
    if has("other_map", i):
        lines += ["requires:", "  bins: [python3, jq]", "  env:", "    - API_TOKEN"]
    if has("metadata_map", i):
        lines += ["metadata:", '  author: "platform-team"', '  version: "1.2.0"', "  spec_version: 1.0",
                  f"  updated: '2026-0{1 + i % 9}-1{i % 10}'"]
    if has("flow_map", i):
        lines.append('metadata: { "openclaw": { "emoji": "🧰", "requires": { "bins": ["curl"] } } }'
                     if not has("metadata_map", i) else 'openclaw: { "emoji": "🧰" }')
    return "---\n" + "\n".join(lines) + "\n---\n"


def pick(seq, i, salt):
    return seq[(i * 7 + salt * 13 + i // len(seq)) % len(seq)]


def description(i):
    s = (f"{pick(VERBS, i, 1)} {pick(OBJECTS, i, 2)} into {pick(GOALS, i, 3)}; "
         f"use when {pick(WHEN, i, 4)} or when variant {i} of this workflow is "
         f"requested explicitly.")
    # Pad to roughly 150 characters with a stable tail.
    tail = " Handles edge cases and reports problems clearly."
    while len(s) < 140:
        s += tail[: 150 - len(s)]
    return s


def skill_md(name, i, mix="plain"):
    if mix == "registry":
        head = registry_head(name, i)
    else:
        head = f"---\nname: {name}\ndescription: {description(i)}\n---\n"
    body = [f"# {name.replace('-', ' ').title()}\n",
            f"This skill helps to {pick(VERBS, i, 1).lower()} {pick(OBJECTS, i, 2)}.\n",
            "## Instructions\n"]
    k = 0
    text = head + "\n".join(body)
    while k < len(BODY_PARAGRAPHS):
        para = f"{k + 1}. " + BODY_PARAGRAPHS[(i + k) % len(BODY_PARAGRAPHS)] + "\n"
        if len(text) + len(para) > SKILL_MD_TARGET:
            break
        text += para
        k += 1
    text += "\n## Notes\n"
    for j in range(len(NOTES)):
        note = f"- {NOTES[(i + j) % len(NOTES)]}\n"
        if len(text) + len(note) > SKILL_MD_TARGET:
            break
        text += note
    return text.rstrip() + "\n"


def run_sh(name, i):
    return (f"#!/usr/bin/env bash\n# Helper for {name}.\nset -euo pipefail\n"
            f"input=\"${{1:?usage: run.sh INPUT}}\"\n"
            f"echo \"{name}: processing $input (variant {i})\"\n"
            f"test -r \"$input\" || {{ echo \"cannot read $input\" >&2; exit 1; }}\n"
            f"wc -c -- \"$input\"\n")


def reference_md(name, i):
    text = f"# {name} reference\n\n## Examples\n\n"
    n = 0
    while len(text) < REFERENCE_TARGET - 30:
        text += (f"- Example {n + 1}: {pick(VERBS, i + n, 5).lower()} "
                 f"{pick(OBJECTS, i + n, 6)} -> {pick(GOALS, i + n, 7)}\n")
        n += 1
    return text


def write(path, content, mode=None):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(content)
    if mode is not None:
        os.chmod(path, mode)


def main():
    args = sys.argv[1:]
    mix = "plain"
    if "--mix" in args:
        at = args.index("--mix")
        mix = args[at + 1] if at + 1 < len(args) else ""
        del args[at:at + 2]
    if len(args) != 2 or mix not in ("plain", "registry"):
        sys.exit("usage: gen_tree.py OUT_DIR N [--mix plain|registry]")
    out, n = args[0], int(args[1])
    os.makedirs(out, exist_ok=True)
    for i in range(n):
        name = f"skill-{i:05d}"
        d = os.path.join(out, name)
        os.makedirs(os.path.join(d, "scripts"), exist_ok=True)
        write(os.path.join(d, "SKILL.md"), skill_md(name, i, mix))
        write(os.path.join(d, "scripts", "run.sh"), run_sh(name, i), 0o755)
        write(os.path.join(d, "reference.md"), reference_md(name, i))


if __name__ == "__main__":
    main()
