//! A request's body, read within its deadline and size.

use std::fmt;
use std::time::Duration;

use axum::body::{Body, Bytes};

/// Why a body was not read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyError {
    /// It holds more than the size given, in bytes (answer `413`).
    TooLarge(usize),
    /// It did not arrive whole within the deadline (answer `408` and close
    /// the connection: the rest may never come).
    TooSlow(Duration),
}

impl fmt::Display for BodyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BodyError::TooLarge(max) => write!(f, "a request body may hold at most {max} bytes"),
            BodyError::TooSlow(deadline) => write!(f, "the body was not received within {}s", deadline.as_secs()),
        }
    }
}

impl std::error::Error for BodyError {}

/// Reads `body` whole: at most `max` bytes, within `deadline` (the
/// surface's [`ConnectionLimits::body_timeout`](crate::ConnectionLimits::body_timeout)).
///
/// # Errors
///
/// [`BodyError::TooLarge`] past `max` bytes (or when the client broke off),
/// [`BodyError::TooSlow`] past the deadline.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
/// use std::time::Duration;
/// use skilldeck_http::{BodyError, read_body};
///
/// let body = read_body(axum::body::Body::from("hello"), 16, Duration::from_secs(1)).await;
/// assert_eq!(body.unwrap(), "hello");
/// let big = read_body(axum::body::Body::from("hello"), 4, Duration::from_secs(1)).await;
/// assert_eq!(big, Err(BodyError::TooLarge(4)));
/// # });
/// ```
pub async fn read_body(body: Body, max: usize, deadline: Duration) -> Result<Bytes, BodyError> {
    match tokio::time::timeout(deadline, axum::body::to_bytes(body, max)).await {
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(_)) => Err(BodyError::TooLarge(max)),
        Err(_elapsed) => Err(BodyError::TooSlow(deadline)),
    }
}
