//! Insika's URL rule: a store key (a skill name or an agent id) is one
//! path segment of the Studio's URLs, so one that would not survive as a
//! segment is refused before anything is written.

/// Checks a skill name (`what` = `"skill name"`) or agent id (`"agent id"`)
/// about to become a store key: not blank, not `.` or `..`, no `/`.
///
/// # Errors
///
/// The message to show, naming what is wrong.
///
/// ```
/// use skilldeck_studio::check_key;
///
/// assert!(check_key("pedido", "skill name").is_ok());
/// assert_eq!(check_key("a/b", "skill name").unwrap_err(), "a skill name cannot contain '/'");
/// assert_eq!(check_key("..", "agent id").unwrap_err(), "an agent id cannot be '.' or '..'");
/// assert_eq!(check_key(" ", "skill name").unwrap_err(), "name is required");
/// ```
pub fn check_key(key: &str, what: &str) -> Result<(), String> {
    let article = if what.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
    match key.trim() {
        "" if what == "skill name" => Err("name is required".into()),
        "" => Err("id is required".into()),
        "." | ".." => Err(format!("{article} {what} cannot be '.' or '..'")),
        _ if key.contains('/') => Err(format!("{article} {what} cannot contain '/'")),
        _ => Ok(()),
    }
}
