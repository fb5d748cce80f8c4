//! The first look at a message from the wire, before rmcp sees it: one
//! function that either hands rmcp a message it can parse, or says which
//! JSON-RPC error answers it. Both transports use it, so malformed JSON,
//! wrong shapes and wrong parameter types get the same answer over stdio and
//! HTTP (rmcp alone ignores unparsable stdio lines and answers HTTP ones with
//! a bare 415).

use std::time::Duration;

use rmcp::model::{ClientJsonRpcMessage, ClientRequest, GetMeta, JsonRpcMessage, ProtocolVersion, skill_name_from_uri};
use serde_json::{Map, Value, json};

/// JSON-RPC: the bytes are not JSON.
pub(crate) const PARSE_ERROR: i64 = -32700;
/// JSON-RPC: JSON, but not a request, notification or response.
pub(crate) const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC: no such method (here: one this server does not serve).
pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC: the method exists, its parameters do not fit it.
pub(crate) const INVALID_PARAMS: i64 = -32602;
/// JSON-RPC (implementation-defined server error): no room for another session.
pub(crate) const SERVER_BUSY: i64 = -32000;

/// The largest message either transport reads: far above any request this
/// server answers (they carry a skill name or a URI), far below memory trouble.
pub const MAX_MESSAGE_BYTES: usize = 64 * 1024 * 1024;

/// What to do with one message from the wire.
#[derive(Debug)]
pub(crate) enum Incoming {
    /// A message rmcp can handle.
    Message(Box<ClientJsonRpcMessage>),
    /// Answer with this error and handle nothing.
    Reject(Rejection),
    /// A notification that fits nothing: no answer (JSON-RPC never answers
    /// notifications), nothing handled.
    Ignore,
}

/// A JSON-RPC error for a message that was not handled.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Rejection {
    /// The request's id when it had a usable one.
    pub(crate) id: Option<Value>,
    /// The JSON-RPC error code.
    pub(crate) code: i64,
    /// The error message.
    pub(crate) message: String,
}

impl Rejection {
    /// The error object, one JSON-RPC message.
    pub(crate) fn to_json(&self) -> Value {
        let mut error = Map::new();
        error.insert("jsonrpc".into(), json!("2.0"));
        if let Some(id) = &self.id {
            error.insert("id".into(), id.clone());
        }
        error.insert("error".into(), json!({"code": self.code, "message": self.message}));
        Value::Object(error)
    }

    /// An oversized message: its id cannot be known without reading it.
    pub(crate) fn too_large(limit: usize) -> Rejection {
        Rejection { id: None, code: INVALID_REQUEST, message: format!("Invalid Request: message over {limit} bytes") }
    }

    /// A body that did not arrive within `deadline`.
    pub(crate) fn too_slow(deadline: Duration) -> Rejection {
        Rejection {
            id: None,
            code: INVALID_REQUEST,
            message: format!("Invalid Request: body not received within {deadline:?}"),
        }
    }

    /// An `initialize` refused because `max` sessions are open.
    pub(crate) fn busy(id: Option<Value>, max: usize) -> Rejection {
        Rejection {
            id,
            code: SERVER_BUSY,
            message: format!("Server busy: {max} sessions are open, the most it keeps; try again later"),
        }
    }

    /// Whether the error is about the request as a whole (its bytes or
    /// shape) rather than its method or parameters: HTTP answers those 400.
    pub(crate) fn is_malformed(&self) -> bool {
        matches!(self.code, PARSE_ERROR | INVALID_REQUEST)
    }
}

/// The methods this server answers; a request for one of them whose
/// parameters do not parse is `-32602`, any other is `-32601`.
const SERVED: [&str; 16] = [
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
    "server/discover",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "prompts/list",
    "prompts/get",
    "skills/list",
    "skills/get",
    "subscriptions/listen",
];

/// Served methods the 2026-07-28 wire removed: a request for one of them on
/// that wire is for a method that does not exist there, whatever its
/// parameters (`-32601`; HTTP 404, as SEP-2575 has it).
const HANDSHAKE_ONLY: [&str; 5] =
    ["initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"];

/// Whether a request carries the 2026-07-28 request metadata (a protocol
/// version of that era or later in `_meta`).
fn modern(request: &ClientRequest) -> bool {
    let version = request.get_meta().protocol_version();
    version.is_some_and(|version| version.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
}

/// Decides what one message (one stdio line, one HTTP body) is.
pub(crate) fn classify(bytes: &[u8]) -> Incoming {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let typed = match serde_json::from_slice::<ClientJsonRpcMessage>(bytes) {
        Ok(message) => return check_params(message, bytes),
        Err(error) => error,
    };
    let value: Value = match serde_json::from_slice(bytes) {
        Ok(value) => value,
        Err(error) => {
            return Incoming::Reject(Rejection {
                id: None,
                code: PARSE_ERROR,
                message: format!("Parse error: {error}"),
            });
        }
    };
    let invalid = |id: Option<Value>| {
        Incoming::Reject(Rejection { id, code: INVALID_REQUEST, message: "Invalid Request".into() })
    };
    let Value::Object(object) = &value else {
        let message = if value.is_array() { "Invalid Request: batches are not supported" } else { "Invalid Request" };
        return Incoming::Reject(Rejection { id: None, code: INVALID_REQUEST, message: message.into() });
    };
    let id = object.get("id").filter(|id| id.is_string() || id.is_i64() || id.is_u64()).cloned();
    let method = object.get("method").and_then(Value::as_str);
    if object.get("jsonrpc") != Some(&json!("2.0")) {
        return invalid(id);
    }
    match (object.contains_key("id"), id, method) {
        // A notification that does not parse: nothing to answer.
        (false, _, Some(_)) => Incoming::Ignore,
        (true, Some(id), Some(method)) if SERVED.contains(&method) => Incoming::Reject(Rejection {
            id: Some(id),
            code: INVALID_PARAMS,
            message: format!("Invalid params for {method}: {typed}"),
        }),
        (true, Some(id), Some(method)) => Incoming::Reject(Rejection {
            id: Some(id),
            code: METHOD_NOT_FOUND,
            message: format!("Method not found: {method}"),
        }),
        (_, id, _) => invalid(id),
    }
}

/// rmcp reads a request of a served method whose parameters do not fit it
/// as a custom request (answered "method not found"), and takes a cursor of
/// any type as no cursor; both are `-32602` here. It also answers
/// `skills/get` of a URI that is not a `SKILL.md` itself, in its own words;
/// here it gets the same answer as any other unknown skill. A method rmcp
/// knows but this server does not serve (`completion/complete`, ...) rmcp
/// answers with its bare name; here it gets the answer every unknown method
/// gets, and so does a handshake-only method on the 2026-07-28 wire (rmcp
/// would check that era's headers for it first, or answer its bare name).
fn check_params(message: ClientJsonRpcMessage, bytes: &[u8]) -> Incoming {
    let JsonRpcMessage::Request(request) = &message else {
        return Incoming::Message(Box::new(message));
    };
    let method = request.request.method();
    let removed = HANDSHAKE_ONLY.contains(&method) && modern(&request.request);
    if removed || (!SERVED.contains(&method) && !matches!(request.request, ClientRequest::CustomRequest(_))) {
        return Incoming::Reject(Rejection {
            id: serde_json::to_value(&request.id).ok(),
            code: METHOD_NOT_FOUND,
            message: format!("Method not found: {method}"),
        });
    }
    let invalid = |method: &str, why: &str| {
        Incoming::Reject(Rejection {
            id: serde_json::to_value(&request.id).ok(),
            code: INVALID_PARAMS,
            message: format!("Invalid params for {method}: {why}"),
        })
    };
    match &request.request {
        ClientRequest::GetSkillRequest(get) if skill_name_from_uri(&get.params.uri).is_none() => {
            Incoming::Reject(Rejection {
                id: serde_json::to_value(&request.id).ok(),
                code: INVALID_PARAMS,
                message: format!("No skill is served at {}", get.params.uri),
            })
        }
        ClientRequest::CustomRequest(custom) if SERVED.contains(&custom.method.as_str()) => {
            invalid(&custom.method, "they do not match the method's parameters")
        }
        ClientRequest::ListToolsRequest(_)
        | ClientRequest::ListPromptsRequest(_)
        | ClientRequest::ListResourcesRequest(_)
        | ClientRequest::ListResourceTemplatesRequest(_)
        | ClientRequest::ListSkillsRequest(_) => {
            let raw: Value = serde_json::from_slice(bytes).unwrap_or_default();
            match raw.pointer("/params/cursor") {
                None | Some(Value::String(_) | Value::Null) => Incoming::Message(Box::new(message)),
                Some(_) => invalid(raw["method"].as_str().unwrap_or_default(), "`cursor` must be a string"),
            }
        }
        _ => Incoming::Message(Box::new(message)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reject(bytes: &[u8]) -> Rejection {
        match classify(bytes) {
            Incoming::Reject(rejection) => rejection,
            other => panic!("{} was not rejected: {other:?}", String::from_utf8_lossy(bytes)),
        }
    }

    #[test]
    fn good_messages_pass() {
        for line in [
            &br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#[..],
            br#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"skill","arguments":{"name":"x"}}}"#,
            br#"{"jsonrpc":"2.0","id":2,"method":"skills/nope","params":{}}"#,
            br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
        ] {
            assert!(matches!(classify(line), Incoming::Message(_)), "{}", String::from_utf8_lossy(line));
        }
    }

    #[test]
    fn malformed_json_is_a_parse_error_without_id() {
        for line in
            [&b"{"[..], b"not json", b"\xff\xfe\x00garbage", br#"{"jsonrpc":"2.0","id":1,"method":"ping"}}"#, b"\0\0"]
        {
            let rejection = reject(line);
            assert_eq!((rejection.code, rejection.id.clone()), (PARSE_ERROR, None));
            assert!(rejection.to_json().get("id").is_none());
        }
    }

    #[test]
    fn wrong_shapes_are_invalid_requests() {
        for line in [
            &b"42"[..],
            b"\"str\"",
            b"[]",
            b"null",
            br#"{"jsonrpc":"2.0"}"#,
            br#"{"id":5,"method":"ping"}"#,
            br#"{"jsonrpc":"1.0","id":5,"method":"ping"}"#,
            br#"{"jsonrpc":"2.0","id":{"o":1},"method":"ping"}"#,
            br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
        ] {
            assert_eq!(reject(line).code, INVALID_REQUEST, "{}", String::from_utf8_lossy(line));
        }
    }

    #[test]
    fn wrong_params_of_a_served_method_are_invalid_params_with_the_id() {
        let rejection = reject(br#"{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":123}}"#);
        assert_eq!((rejection.code, rejection.id), (INVALID_PARAMS, Some(json!(7))));
        let rejection = reject(br#"{"jsonrpc":"2.0","id":"x","method":"skills/get"}"#);
        assert_eq!((rejection.code, rejection.id), (INVALID_PARAMS, Some(json!("x"))));
        assert_eq!(
            reject(br#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":"a string"}"#).code,
            INVALID_PARAMS
        );
        for line in [
            &br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}"#[..],
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"name":"alpha"}}}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{}}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":null}}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"skills/get","params":{"uri":[]}}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"skills/list","params":{"cursor":7}}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"resources/list","params":{"cursor":{"x":1}}}"#,
        ] {
            let rejection = reject(line);
            assert_eq!(
                (rejection.code, rejection.id),
                (INVALID_PARAMS, Some(json!(1))),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
        let rejection = reject(br#"{"jsonrpc":"2.0","id":3,"method":"skills/get","params":{"uri":"skill://a/x.md"}}"#);
        assert_eq!(
            (rejection.code, rejection.message.as_str()),
            (INVALID_PARAMS, "No skill is served at skill://a/x.md")
        );
        // A method this server does not serve goes on to rmcp, which answers
        // "method not found" whatever its params.
        let line = br#"{"jsonrpc":"2.0","id":9,"method":"resources/directory/read","params":{}}"#;
        assert!(matches!(classify(line), Incoming::Message(_)));
    }

    #[test]
    fn a_method_rmcp_knows_but_this_server_does_not_serve_is_not_found() {
        for (method, params) in [
            ("completion/complete", r#"{"ref":{"type":"ref/prompt","name":"a"},"argument":{"name":"x","value":""}}"#),
            ("tasks/get", r#"{"taskId":"t1"}"#),
        ] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":4,"method":"{method}","params":{params}}}"#);
            let rejection = reject(line.as_bytes());
            assert_eq!(
                (rejection.id, rejection.code, rejection.message),
                (Some(json!(4)), METHOD_NOT_FOUND, format!("Method not found: {method}"))
            );
        }
    }

    /// On the handshake, a subscription or log level with the wrong
    /// parameters is `-32602`; on the 2026-07-28 wire, which removed these
    /// methods, they are not found, with parameters that fit or not.
    #[test]
    fn handshake_only_methods_are_checked_on_the_handshake_and_not_found_in_2026() {
        let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
        for (method, params) in [
            (
                "initialize",
                r#""protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}"#,
            ),
            ("ping", ""),
            ("resources/subscribe", r#""uri":"skill://a/SKILL.md""#),
            ("resources/unsubscribe", r#""uri":"skill://a/SKILL.md""#),
            ("logging/setLevel", r#""level":"info""#),
        ] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":4,"method":"{method}","params":{{{params}}}}}"#);
            assert!(matches!(classify(line.as_bytes()), Incoming::Message(_)), "{method}");
            for params in [meta.to_owned(), format!("{params},{meta}").trim_start_matches(',').to_owned()] {
                let line = format!(r#"{{"jsonrpc":"2.0","id":5,"method":"{method}","params":{{{params}}}}}"#);
                let rejection = reject(line.as_bytes());
                assert_eq!(
                    (rejection.id, rejection.code, rejection.message),
                    (Some(json!(5)), METHOD_NOT_FOUND, format!("Method not found: {method}")),
                    "{line}"
                );
            }
            if method != "ping" {
                let line = format!(r#"{{"jsonrpc":"2.0","id":6,"method":"{method}","params":{{"bad":1}}}}"#);
                let rejection = reject(line.as_bytes());
                assert_eq!((rejection.id, rejection.code), (Some(json!(6)), INVALID_PARAMS), "{method}");
            }
        }
    }

    #[test]
    fn a_notification_that_does_not_parse_is_ignored() {
        assert!(matches!(
            classify(br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":5}"#),
            Incoming::Ignore
        ));
    }
}
