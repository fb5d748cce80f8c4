//! The benchmark tree: skills shaped like `bench/gen_tree.py`'s, a ~1.5 KB
//! `SKILL.md` and two sibling files each. Shared by the engine's and the
//! store's criterion benches (included with `#[path]`).

use std::path::Path;

/// Writes `skill-00000` … `skill-{n-1}` under `root`.
pub(crate) fn generate(root: &Path, n: usize) {
    let body = "Follow these steps carefully and report what you did.\n".repeat(26);
    for i in 0..n {
        let dir = root.join(format!("skill-{i:05}"));
        std::fs::create_dir_all(dir.join("scripts")).expect("mkdir");
        let md = format!(
            "---\nname: skill-{i:05}\ndescription: Handles task number {i} of the benchmark; use it when the user asks for task {i}.\n---\n\n# Skill {i}\n\n{body}"
        );
        std::fs::write(dir.join("SKILL.md"), md).expect("write");
        std::fs::write(dir.join("scripts/run.sh"), "#!/bin/sh\necho run\n").expect("write");
        std::fs::write(dir.join("reference.md"), "# Reference\n").expect("write");
    }
}

/// The frontmatter shapes of a public registry (`bench/frontmatter_mix.py`,
/// `bench/gen_tree.py --mix registry`), one per skill in turn: quoted,
/// wrapped, folded and literal descriptions, `metadata:` and other nested
/// maps, block and flow lists, `allowed-tools`, comments, non-ASCII text, a
/// flow map and YAML a strict parser refuses (rescued line by line).
const REGISTRY_HEADS: [&str; 10] = [
    "description: \"Automate Box: upload, \\\"search\\\" and share files; use it for task {i}.\"\nrequires:\n  mcp: [rube]\n",
    "description: 'Protocolo de Inteligência Pré-Tarefa — task {i}.'\nrisk: none\nsource: community\ndate_added: '2026-03-06'\ntags:\n- planning\n- pre-task\n",
    "description: Reduce attack surface for task {i} with distroless images that contain\n  only the runtime, no shell and no package manager.\nlicense: MIT\nmetadata:\n  author: \"platform-team\"\n  version: \"1.2.0\"\n  spec_version: 1.0\n",
    "description: Handles task number {i} of the benchmark; use it when the user asks for task {i}.\n",
    "description: >-\n  Runs the huddle for task {i}.\n  Trigger on \"war room\".\nallowed-tools: Read, Grep, Glob, Bash(git:*)\n",
    "description: \"Handles task {i}\"\ntools: [Read, Write, Edit, Bash]\n# maintained by the platform team\n",
    "description: |\n  Handles task {i}.\n  Reports what it did.\ncompatibility: 'Requires FFmpeg on PATH'\n",
    "description: \"Handles task {i}.\"\nmetadata: { \"openclaw\": { \"emoji\": \"x\", \"requires\": { \"bins\": [\"curl\"] } } }\n",
    "description: Use when: the user asks for task {i}\n",
    "description: \"Handles task {i}; use it when asked.\"\nmetadata:\n  authors: \"microsoft/hve-core\"\n  last_updated: \"2026-03-18\"\n",
];

/// Writes `skill-00000` … `skill-{n-1}` under `root` like [`generate`], but
/// with the frontmatter shapes of a public registry ([`REGISTRY_HEADS`], in
/// turn).
#[allow(dead_code)] // the store's benches use the plain tree only
pub(crate) fn generate_registry_mix(root: &Path, n: usize) {
    let body = "Follow these steps carefully and report what you did.\n".repeat(26);
    for i in 0..n {
        let dir = root.join(format!("skill-{i:05}"));
        std::fs::create_dir_all(dir.join("scripts")).expect("mkdir");
        let head = REGISTRY_HEADS[i % REGISTRY_HEADS.len()].replace("{i}", &i.to_string());
        let md = format!("---\nname: skill-{i:05}\n{head}---\n\n# Skill {i}\n\n{body}");
        std::fs::write(dir.join("SKILL.md"), md).expect("write");
        // The same sibling files as `generate`'s, so that the two trees differ
        // only in their frontmatters.
        std::fs::write(dir.join("scripts/run.sh"), "#!/bin/sh\necho run\n").expect("write");
        std::fs::write(dir.join("reference.md"), "# Reference\n").expect("write");
    }
}
