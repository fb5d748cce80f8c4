//! The bearer token a server may require: long enough to guard anything,
//! compared in constant time.

use std::fmt;

use axum::http::{HeaderMap, header};

/// The fewest bytes a token holds, after trimming: 128 bits of a random
/// hex or base64 token, and far more than anyone types by hand.
pub const MIN_TOKEN_BYTES: usize = 16;

/// A bearer token, trimmed and at least [`MIN_TOKEN_BYTES`] long. Its
/// `Debug` never shows it.
///
/// ```
/// use skilldeck_http::{Token, TokenError};
///
/// let token = Token::new(" 0123456789abcdef\n").unwrap();
/// assert_eq!(token.as_str(), "0123456789abcdef");
/// assert!(token.matches("0123456789abcdef"));
/// assert_eq!(format!("{token:?}"), "Token(16 bytes)");
/// assert_eq!(Token::new("   ").unwrap_err(), TokenError::Blank);
/// assert_eq!(Token::new("s3cret").unwrap_err(), TokenError::TooShort(6));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

/// Why a text is not a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenError {
    /// Whitespace only (or nothing).
    Blank,
    /// Fewer than [`MIN_TOKEN_BYTES`] bytes after trimming: this many.
    TooShort(usize),
}

impl fmt::Display for TokenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenError::Blank => write!(f, "is blank")?,
            TokenError::TooShort(n) => write!(f, "is {n} byte{} long", if *n == 1 { "" } else { "s" })?,
        }
        write!(f, "; a token holds at least {MIN_TOKEN_BYTES} bytes (make one with `openssl rand -hex 32`)")
    }
}

impl std::error::Error for TokenError {}

impl Token {
    /// `text` trimmed, as a token.
    ///
    /// # Errors
    ///
    /// The text is blank or shorter than [`MIN_TOKEN_BYTES`].
    pub fn new(text: &str) -> Result<Token, TokenError> {
        let text = text.trim();
        match text.len() {
            0 => Err(TokenError::Blank),
            n if n < MIN_TOKEN_BYTES => Err(TokenError::TooShort(n)),
            _ => Ok(Token(text.to_owned())),
        }
    }

    /// The token's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `given` is this token, compared in constant time (for tokens
    /// of one length).
    pub fn matches(&self, given: &str) -> bool {
        constant_time_eq(self.0.as_bytes(), given.as_bytes())
    }

    /// Whether the request carries `Authorization: Bearer <this token>`.
    pub fn in_bearer(&self, headers: &HeaderMap) -> bool {
        headers
            .get(header::AUTHORIZATION)
            .and_then(|h| h.to_str().ok())
            .and_then(|h| h.strip_prefix("Bearer "))
            .is_some_and(|given| self.matches(given.trim()))
    }
}

/// Whether `a` and `b` are equal, in a time that depends on their lengths
/// only: for secrets (tokens, CSRF tokens, MACs), whose every byte a timing
/// difference would otherwise give away one at a time.
///
/// ```
/// assert!(skilldeck_http::constant_time_eq(b"abc", b"abc"));
/// assert!(!skilldeck_http::constant_time_eq(b"abc", b"abd"));
/// assert!(!skilldeck_http::constant_time_eq(b"abc", b"ab"));
/// ```
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Token({} bytes)", self.0.len())
    }
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    #[test]
    fn short_and_blank_texts_are_no_tokens() {
        assert_eq!(Token::new(""), Err(TokenError::Blank));
        assert_eq!(Token::new(" \t\n"), Err(TokenError::Blank));
        assert_eq!(Token::new("  fifteen-bytes!!  "), Err(TokenError::TooShort(15)));
        assert_eq!(Token::new("x"), Err(TokenError::TooShort(1)));
        assert_eq!(
            TokenError::TooShort(1).to_string(),
            "is 1 byte long; a token holds at least 16 bytes (make one with `openssl rand -hex 32`)"
        );
        assert!(Token::new("sixteen-bytes-ok").is_ok());
    }

    #[test]
    fn the_bearer_header_must_carry_it() {
        let token = Token::new("s3cret-s3cret-s3cret").unwrap();
        let with = |value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::AUTHORIZATION, HeaderValue::from_str(value).unwrap());
            token.in_bearer(&headers)
        };
        assert!(with("Bearer s3cret-s3cret-s3cret"));
        assert!(with("Bearer s3cret-s3cret-s3cret "));
        assert!(!with("Bearer s3cret-s3cret-s3cre"));
        assert!(!with("Basic s3cret-s3cret-s3cret"));
        assert!(!with("s3cret-s3cret-s3cret"));
        assert!(!token.in_bearer(&HeaderMap::new()));
    }
}
