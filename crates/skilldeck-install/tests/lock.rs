use std::collections::BTreeMap;
use std::path::Path;

use skilldeck_install::{Lock, LockEntry, computed_hash};

/// The expected value is the npm package's own: `computeSkillFolderHash` copied verbatim
/// from skills@1.7.4's dist/cli.mjs into tests/fixtures/npm_computed_hash.mjs and run with
/// node v20.20.2 (`node tests/fixtures/npm_computed_hash.mjs tests/fixtures/hash-skill`).
/// The fixture's names sort differently by code point and by `localeCompare`
/// (`reference.md` < `scripts-b/a.txt` < `scripts/run.sh` < `SKILL.md`), and its
/// `node_modules` is left out.
#[test]
fn computed_hash_is_the_npm_packages() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hash-skill");
    assert_eq!(computed_hash(&dir).unwrap(), "7c7d52fcef3b2a1a913789b442a05da38b89c2670ad1a7194c38489065371a94");
}

/// A lock as the npm package writes it (`JSON.stringify(lock, null, 2) + "\n"`, entries'
/// keys in its order), with skilldeck's fields and an unknown one, read and written back
/// byte for byte; names sorted as JavaScript sorts and enumerates them.
#[test]
fn lock_round_trips_byte_for_byte() {
    let text = r#"{
  "version": 1,
  "skills": {
    "7": {
      "source": "./local/seven",
      "sourceType": "local",
      "computedHash": "aa"
    },
    "Zeta": {
      "source": "acme/skills",
      "sourceType": "github",
      "computedHash": "bb"
    },
    "alpha": {
      "source": "file:///srv/skills.git",
      "sourceUrl": "file:///srv/skills.git",
      "ref": "v1",
      "sourceType": "git",
      "skillPath": "skills/alpha/SKILL.md",
      "computedHash": "cc",
      "subagents": [
        "x"
      ],
      "commit": "0123456789abcdef0123456789abcdef01234567",
      "files": {
        "SKILL.md": "sha256:0000000000000000000000000000000000000000000000000000000000000000",
        "scripts/run.sh": "sha256:1111111111111111111111111111111111111111111111111111111111111111"
      }
    }
  },
  "note": "kept"
}
"#;
    let lock = Lock::from_json(text, Path::new("skills-lock.json")).unwrap();
    assert_eq!(lock.skills.len(), 3);
    let alpha = &lock.skills["alpha"];
    assert_eq!(alpha.reference.as_deref(), Some("v1"));
    assert_eq!(alpha.extra["subagents"], serde_json::json!(["x"]));
    assert_eq!(lock.to_json(), text);

    // Written fresh, the same shape.
    let mut fresh = Lock::default();
    let mut entry = LockEntry::new("acme/skills", "github", "bb");
    entry.files = Some(BTreeMap::new());
    fresh.skills.insert("b".into(), entry.clone());
    fresh.skills.insert("B".into(), entry);
    let written = fresh.to_json();
    assert!(written.find("\"B\"").unwrap() < written.find("\"b\"").unwrap());
    assert_eq!(Lock::from_json(&written, Path::new("x")).unwrap(), fresh);
    assert_eq!(Lock::default().to_json(), "{\n  \"version\": 1,\n  \"skills\": {}\n}\n");
}

#[test]
fn bad_locks_are_named() {
    for text in [
        "[]",
        "{\"version\": \"1\", \"skills\": {}}",
        "{\"version\": 1}",
        "{\"version\": 1, \"skills\": {\"a\": {\"source\": 1}}}",
        "{\"version\": 1, \"skills\": {\"a\": {\"source\": \"s\", \"sourceType\": \"git\", \"files\": {\"x\": \"md5:1\"}}}}",
        "{",
    ] {
        let error = Lock::from_json(text, Path::new("/p/skills-lock.json")).unwrap_err();
        assert!(error.to_string().starts_with("/p/skills-lock.json: "), "{error}");
    }
}
