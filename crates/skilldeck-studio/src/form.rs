//! `application/x-www-form-urlencoded`: what HTML forms send. Parsed by
//! hand because a form repeats a field for each ticked checkbox
//! (`agent_ids=a&agent_ids=b`), which a map cannot hold.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};

/// Every byte but the unreserved ones (RFC 3986) is encoded: safe in a
/// path segment, a query value and a cookie.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'_').remove(b'~').remove(b'.');

/// The fields of a form body, in order, names and values decoded
/// (`+` is a space; invalid UTF-8 is replaced).
pub(crate) fn parse(body: &[u8]) -> Vec<(String, String)> {
    body.split(|&b| b == b'&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let text = String::from_utf8_lossy(pair);
            let (name, value) = text.split_once('=').unwrap_or((&text, ""));
            (decode(name), decode(value))
        })
        .collect()
}

/// One form or cookie value decoded.
pub(crate) fn decode(text: &str) -> String {
    percent_decode_str(&text.replace('+', " ")).decode_utf8_lossy().into_owned()
}

/// `text` percent-encoded for a path segment, a query value or a cookie.
/// `.` and `..` are encoded whole, so that a link never walks up a path.
pub(crate) fn encode(text: &str) -> String {
    match text {
        "." => "%2E".into(),
        ".." => "%2E%2E".into(),
        _ => utf8_percent_encode(text, SEGMENT).to_string(),
    }
}

/// The values of every field named `name`.
pub(crate) fn all(fields: &[(String, String)], name: &str) -> Vec<String> {
    fields.iter().filter(|(k, _)| k == name).map(|(_, v)| v.clone()).collect()
}

/// The first value of field `name`.
pub(crate) fn first<'f>(fields: &'f [(String, String)], name: &str) -> Option<&'f str> {
    fields.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_fields_and_escapes_survive() {
        let fields = parse(b"agent_ids=bia&agent_ids=chef&content=a+b%0A%3Cscript%3E&empty=&bare");
        assert_eq!(all(&fields, "agent_ids"), ["bia", "chef"]);
        assert_eq!(first(&fields, "content"), Some("a b\n<script>"));
        assert_eq!(first(&fields, "empty"), Some(""));
        assert_eq!(first(&fields, "bare"), Some(""));
        assert_eq!(encode("a/b c"), "a%2Fb%20c");
        assert_eq!(encode(".."), "%2E%2E");
        assert_eq!(decode(&encode("ünï/cødé?#")), "ünï/cødé?#");
    }
}
