//! What other programs change shows on the Studio's pages: a `SKILL.md`
//! edited on disk (the roots' watcher), a record another handle writes
//! (the store's change token).

use skilldeck::store::Precondition;

use crate::{Backend, Fixture, disk_skill};

#[test]
fn disk_edits_and_other_writers_show() {
    for backend in [Backend::Sqlite, Backend::Postgres] {
        let Some(f) =
            Fixture::new(backend, |root| disk_skill(root, "first", "---\nname: first\ndescription: v1\n---\n"))
        else {
            continue;
        };
        let following = f.following();
        // Let the first reload (right after the store's token is read) land, so that
        // what follows is the watcher's doing.
        std::thread::sleep(std::time::Duration::from_millis(500));
        f.get("/skills").has("<td>v1</td>");
        disk_skill(f.root.path(), "first", "---\nname: first\ndescription: v2, edited on disk\n---\n");
        f.eventually("/skills", "<td>v2, edited on disk</td>");
        disk_skill(f.root.path(), "second", "---\nname: second\ndescription: new on disk\n---\n");
        f.eventually("/skills", "<a href=\"/skills/second\">second</a>");
        // Another handle on the same store (another process, in effect).
        let other = skilldeck_store::open(&f.location).unwrap();
        other.write("third", "---\nname: third\ndescription: from elsewhere\n---\n", None, &Precondition::Any).unwrap();
        f.eventually("/skills", "<a href=\"/skills/third\">third</a>");
        drop(following);
        // Stopped: a later disk edit waits for the next reload.
        disk_skill(f.root.path(), "fourth", "---\nname: fourth\ndescription: unseen\n---\n");
        std::thread::sleep(std::time::Duration::from_millis(500));
        f.get("/skills").lacks("/skills/fourth\"");
    }
}
