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
