//! The flash a redirect leaves for the next page (Insika's "Skill saved."
//! and the rest), in a cookie signed by this process: cookies do not
//! separate ports, so any page of this host can set one, and only a flash
//! this Studio wrote is shown.

use std::sync::OnceLock;

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use crate::form;

/// The cookie carrying a flash across a redirect.
pub(crate) const FLASH_COOKIE: &str = "skilldeck_flash";

/// The `Set-Cookie` value that removes the flash.
pub(crate) const CLEAR_FLASH: &str = "skilldeck_flash=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict";

/// The flash a redirect left for this page: its text and whether it is an error.
#[derive(Clone, Debug)]
pub(crate) struct Flash {
    pub(crate) text: String,
    pub(crate) error: bool,
}

/// This process's signing key: 32 random bytes, made on first use. A flash
/// signed before a restart is ignored after it, which loses one message.
fn key() -> &'static [u8; 32] {
    static KEY: OnceLock<[u8; 32]> = OnceLock::new();
    KEY.get_or_init(|| {
        let mut key = [0u8; 32];
        // Without randomness nothing here can be trusted: refuse to go on.
        #[allow(clippy::expect_used)]
        getrandom::fill(&mut key).expect("the operating system's random source failed");
        key
    })
}

/// HMAC-SHA256 of `message` under the process key, hex.
fn sign(message: &str) -> String {
    // HMAC takes a key of any length.
    #[allow(clippy::expect_used)]
    let mut mac = Hmac::<Sha256>::new_from_slice(key()).expect("any key length");
    mac.update(message.as_bytes());
    mac.finalize().into_bytes().iter().map(|b| format!("{b:02x}")).collect()
}

/// The `Set-Cookie` value of a flash: the signature (64 hex digits), then
/// `ok:` or `error:` and the text percent-encoded.
pub(crate) fn encode_flash(text: &str, error: bool) -> String {
    let message = format!("{}:{}", if error { "error" } else { "ok" }, form::encode(text));
    format!("{FLASH_COOKIE}={}{message}; Path=/; HttpOnly; SameSite=Strict", sign(&message))
}

/// The flash a cookie value holds, if this process signed it.
pub(crate) fn decode_flash(value: &str) -> Option<Flash> {
    let (signature, message) = value.split_at_checked(64)?;
    if !skilldeck_http::constant_time_eq(sign(message).as_bytes(), signature.as_bytes()) {
        return None;
    }
    let (error, text) = match message.split_once(':')? {
        ("error", text) => (true, text),
        ("ok", text) => (false, text),
        _ => return None,
    };
    Some(Flash { text: form::decode(text), error })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(cookie: &str) -> &str {
        cookie.strip_prefix("skilldeck_flash=").unwrap().split(';').next().unwrap()
    }

    #[test]
    fn a_signed_flash_reads_back() {
        let cookie = encode_flash("Skill saved.", false);
        let flash = decode_flash(value(&cookie)).unwrap();
        assert_eq!((flash.text.as_str(), flash.error), ("Skill saved.", false));
        let error = decode_flash(value(&encode_flash("skill 'x' was changed", true))).unwrap();
        assert_eq!((error.text.as_str(), error.error), ("skill 'x' was changed", true));
    }

    #[test]
    fn a_forged_or_altered_flash_is_ignored() {
        assert!(decode_flash("error:Your%20session%20expired").is_none());
        assert!(decode_flash("").is_none());
        let genuine = encode_flash("Skill saved.", false);
        let altered = value(&genuine).replace("ok:", "error:");
        assert!(decode_flash(&altered).is_none());
        let (signature, _) = value(&genuine).split_at(64);
        assert!(decode_flash(&format!("{signature}ok:Call%20this%20number")).is_none());
        assert!(decode_flash(&format!("{}ok:x", "0".repeat(64))).is_none());
    }
}
