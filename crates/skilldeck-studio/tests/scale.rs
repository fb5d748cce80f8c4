//! A 10,000-skill store lists in under a second: pages of 100, the last
//! page, and a search.

use std::time::{Duration, Instant};

use skilldeck::store::Precondition;

use crate::{Backend, Fixture};

#[test]
fn ten_thousand_skills_list_in_under_a_second() {
    let f = Fixture::new(Backend::Memory, |_| {}).unwrap();
    let started = Instant::now();
    for i in 0..10_000 {
        let text = format!(
            "---\nname: skill-{i:05}\ndescription: Skill number {i} of the big store, for <paging>.\n---\nBody {i}.\n"
        );
        f.store.write(&format!("skill-{i:05}"), &text, None, &Precondition::Absent).unwrap();
    }
    f.live.reload().unwrap();
    let filled = started.elapsed();
    let mut took = Vec::new();
    for path in ["/skills", "/skills?page=50", "/skills?page=100", "/skills?q=skill-09999", "/skills?q=number+42"] {
        let started = Instant::now();
        let page = f.get(path);
        took.push((path, started.elapsed()));
        assert_eq!(page.status, 200);
        assert!(page.body.matches("<tr><td>").count() <= 100);
    }
    let page = f.get("/skills?page=100");
    page.has("/skills/skill-09999\"").has("10000 skills, page 100 of 100.");
    f.get("/skills?q=skill-09999").has("/skills/skill-09999\"");
    eprintln!("10,000 skills stored and loaded in {filled:?}; pages: {took:?}");
    for (path, took) in took {
        assert!(took < Duration::from_secs(1), "{path} took {took:?}");
    }
}
