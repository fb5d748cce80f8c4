//! Where skills come from, below the catalog: what a walk for skills is
//! ([`walk`]), reading a `SKILL.md`'s head and, later, its body ([`read`]),
//! the frontmatter rules ([`frontmatter`]), the one rule for bytes leaving a
//! host ([`confine`]), the places users keep skills ([`convention`]), and
//! the check of installed skills against their project's lock ([`installed`]).
//! Nothing here knows the catalog that collects what it reads.

pub(crate) mod confine;
pub(crate) mod convention;
pub(crate) mod frontmatter;
pub(crate) mod installed;
pub(crate) mod read;
pub(crate) mod walk;
