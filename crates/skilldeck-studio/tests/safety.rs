//! What keeps other sites and hostile text out: CSRF, Host and Origin,
//! escaping, the URL rule for store keys, the body limit, the token.

use axum::body::Body;
use axum::http::{Request, header};
use skilldeck_studio::{Access, Token};

use crate::{Backend, Fixture, HOST, disk_skill, encode_form};

const GOOD: &str = "---\nname: ok\ndescription: fine\n---\nbody\n";

fn fixture() -> Fixture {
    Fixture::new(Backend::Sqlite, |_| {}).unwrap()
}

#[test]
fn posts_without_the_csrf_pair_are_refused() {
    let f = fixture();
    let form = |csrf: &str| encode_form(&[("csrf", csrf), ("name", "ok"), ("content", GOOD), ("began", "")]);
    let origin = Some("http://127.0.0.1:7676");
    // No cookie at all (a first visit that never loaded a page).
    let cold = f.post_raw("/skills", &form("0".repeat(64).as_str()), origin);
    assert_eq!(cold.status, 403);
    assert_eq!(cold.body, "Forbidden: the CSRF cookie is missing: load the page again, then send the form\n");
    let csrf = f.csrf();
    // The cookie, but no token in the form.
    let missing = f.post_raw("/skills", &encode_form(&[("name", "ok"), ("content", GOOD), ("began", "")]), origin);
    assert_eq!((missing.status, missing.body.as_str()), (403, "Forbidden: the form carries no CSRF token\n"));
    // A wrong token.
    let wrong = f.post_raw("/skills", &form(&"f".repeat(64)), origin);
    assert_eq!(wrong.status, 403);
    assert!(wrong.body.starts_with("Forbidden: the form's CSRF token does not match"));
    // Another site's form, even with the right pair (a leaked token).
    let cross = f.post_raw("/skills", &form(&csrf), Some("http://evil.example"));
    assert_eq!(cross.status, 403);
    assert_eq!(cross.body, "Forbidden: Origin header is not allowed: cross-site requests are refused\n");
    let other_port = f.post_raw("/skills", &form(&csrf), Some("http://127.0.0.1:9999"));
    assert_eq!(other_port.status, 403);
    assert!(f.store.get("ok", None).unwrap().is_none(), "nothing was written");
    // The right pair from the page's own origin goes through.
    assert_eq!(f.post_raw("/skills", &form(&csrf), origin).status, 303);
    // /validate takes the token in a header.
    let validate = |token: Option<&str>| {
        let mut request = Request::post("/validate")
            .header(header::HOST, HOST)
            .header(header::COOKIE, f.cookies())
            .header(header::CONTENT_TYPE, "application/json");
        if let Some(token) = token {
            request = request.header("x-csrf-token", token);
        }
        f.send(request.body(Body::from(r#"{"content":"x"}"#)).unwrap()).status
    };
    assert_eq!(validate(None), 403);
    assert_eq!(validate(Some("nope")), 403);
    assert_eq!(validate(Some(&csrf)), 200);
}

#[test]
fn the_csrf_cookie_is_strict_and_http_only() {
    let f = fixture();
    let page = f.get("/skills");
    let cookie = page
        .headers
        .get_all(header::SET_COOKIE)
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .find(|c| c.starts_with("skilldeck_csrf="))
        .unwrap();
    assert!(cookie.ends_with("; Path=/; HttpOnly; SameSite=Strict"), "{cookie}");
    let token = &cookie["skilldeck_csrf=".len()..cookie.find(';').unwrap()];
    assert_eq!(token.len(), 64);
    // Every form of the page carries it, and the next page keeps it.
    f.get("/skills/new").has(&format!("<input type=\"hidden\" name=\"csrf\" value=\"{token}\">"));
    assert!(f.get("/skills").headers.get(header::SET_COOKIE).is_none());
    // `no-referrer` would make browsers send `Origin: null` on the Studio's own posts.
    assert_eq!(page.headers[header::REFERRER_POLICY], "same-origin");
    let policy = page.headers[header::CONTENT_SECURITY_POLICY].to_str().unwrap();
    assert!(policy.contains("script-src 'self'") && policy.contains("frame-ancestors 'none'"), "{policy}");
}

#[test]
fn foreign_hosts_are_refused() {
    let f = fixture();
    let get = |host: &str| {
        let request = Request::get("/skills").header(header::HOST, host).body(Body::empty()).unwrap();
        f.send(request)
    };
    for host in ["127.0.0.1:7676", "localhost:7676", "[::1]:7676"] {
        assert_eq!(get(host).status, 200, "{host}");
    }
    let rebound = get("evil.example:7676");
    assert_eq!((rebound.status, rebound.body.as_str()), (403, "Forbidden: Host header is not allowed\n"));
    assert_eq!(get("192.0.2.1").status, 403);
}

#[test]
fn hostile_text_is_shown_as_text() {
    let hostile = "<script>alert('x')</script>";
    let f = Fixture::new(Backend::Sqlite, |root| {
        disk_skill(
            root,
            "evil",
            &format!("---\nname: \"{hostile}\"\ndescription: \"<img src=x onerror=alert(1)>\"\n---\n"),
        );
    })
    .unwrap();
    let body =
        format!("# Title\n\n{hostile}\n\n<iframe src=\"https://evil.example\"></iframe>\n\n[x](javascript:alert(1))\n");
    let text = format!("---\nname: tricky\ndescription: \"\\\"><svg onload=alert(1)>\"\n---\n{body}");
    assert_eq!(f.post("/skills", &[("name", "tricky"), ("content", &text), ("began", "")]).status, 303);
    let list = f.get("/skills");
    list.has("<a href=\"/skills/%3Cscript%3Ealert%28%27x%27%29%3C%2Fscript%3E\">&#60;script&#62;alert(&#39;x&#39;)&#60;/script&#62;</a>")
        .has("<td>&#60;img src=x onerror=alert(1)&#62;</td>")
        .has("<td>&#34;&#62;&#60;svg onload=alert(1)&#62;</td>")
        .lacks("<script>alert")
        .lacks("<img src=x")
        .lacks("<svg");
    let editor = f.get("/skills/tricky");
    editor
        .has("&#60;script&#62;alert(&#39;x&#39;)&#60;/script&#62;\n\n&#60;iframe")
        .has("<div class=\"markdown\"><h1>Title</h1>\n&lt;script&gt;alert('x')&lt;/script&gt;\n")
        .has("<a href=\"#\">x</a>")
        .lacks("<script>alert")
        .lacks("<iframe");
    // The hostile disk skill's own page: its name is a path segment, decoded.
    let evil = f.get("/skills/%3Cscript%3Ealert%28%27x%27%29%3C%2Fscript%3E");
    assert_eq!(evil.status, 200);
    evil.has("<h1>&#60;script&#62;alert(&#39;x&#39;)&#60;/script&#62;</h1>").lacks("<script>alert");
    // A hostile agent id: a store key like any other, shown as text everywhere.
    // (One with a `/`, as `</script>` has, is refused by the URL rule.)
    assert_eq!(f.post("/agents", &[("id", hostile)]).status, 422);
    let added = f.post("/agents", &[("id", "<img src=x onerror=alert('a')>")]);
    assert_eq!((added.status, added.location()), (303, "/agents/%3Cimg%20src%3Dx%20onerror%3Dalert%28%27a%27%29%3E"));
    let escaped = "&#60;img src=x onerror=alert(&#39;a&#39;)&#62;";
    f.follow(&added).has(&format!("<h1>Agent {escaped}</h1>")).lacks("<img src=x");
    f.get("/agents").has(&format!(">{escaped}</a>")).lacks("<img src=x");
    f.get("/skills/tricky")
        .has(&format!("value=\"{escaped}\" id=\"allowed-{escaped}\" checked>"))
        .has(&format!("<option value=\"{escaped}\">{escaped}</option>"))
        .lacks("<img src=x");
}

/// The engine's name rule (`skilldeck::check_name`), the Studio's only one.
#[test]
fn keys_that_break_a_url_segment_are_refused() {
    let f = fixture();
    let long = "x".repeat(256);
    for (name, message) in [
        ("a/b", "a skill name cannot contain &#39;/&#39;"),
        ("..", "a skill name cannot be &#39;.&#39; or &#39;..&#39;"),
        (".", "a skill name cannot be &#39;.&#39; or &#39;..&#39;"),
        ("a\nb", "a skill name cannot contain U+000A, a control character"),
        ("nul\0", "a skill name cannot contain U+0000, a control character"),
        ("evil\u{202E}gpj.exe", "a skill name cannot contain U+202E, a format character"),
        ("\u{200B}", "a skill name cannot contain U+200B, a format character"),
        (&long, "a skill name is at most 255 bytes long; this one is 256"),
    ] {
        let refused = f.post("/skills", &[("name", name), ("content", GOOD), ("began", "")]);
        assert_eq!(refused.status, 422, "{name}");
        refused.has(&format!("<div class=\"flash error\" role=\"alert\">{message}</div>"));
    }
    assert!(f.store.names(None).unwrap().is_empty());
    // In a URL: a percent-encoded slash is decoded, and refused too.
    f.post("/skills", &[("name", "ok"), ("content", GOOD), ("began", "")]);
    let specialised = f.post("/skills/ok/specialize", &[("agent_id", "x/y")]);
    assert_eq!(specialised.status, 422);
    specialised.has("role=\"alert\">an agent id cannot contain &#39;/&#39;</div>");
    let own = f.post("/agents/x%2Fy/skills/ok", &[("content", GOOD), ("began", "")]);
    assert_eq!(own.status, 422);
    assert!(f.store.agents().unwrap().is_empty());
    let agent = f.post("/agents", &[("id", "..")]);
    assert_eq!(agent.status, 422);
    let agent = f.post("/agents", &[("id", "bia\u{2028}chef")]);
    assert_eq!(agent.status, 422);
    agent.has("role=\"alert\">an agent id cannot contain U+2028, a line separator</div>");
    assert!(f.store.profiles().unwrap().is_empty());
}

#[test]
fn bodies_over_one_mebibyte_are_refused() {
    let f = fixture();
    let csrf = f.csrf();
    let big = format!("---\nname: big\n---\n{}", "x".repeat(skilldeck_studio::MAX_BODY_BYTES));
    let answer = f.post_raw(
        "/skills",
        &encode_form(&[("csrf", &csrf), ("name", "big"), ("content", &big), ("began", "")]),
        None,
    );
    assert_eq!(answer.status, 413);
    // A declared length over the limit is refused before the body is read.
    let request = Request::post("/skills")
        .header(header::HOST, HOST)
        .header(header::COOKIE, f.cookies())
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .header(header::CONTENT_LENGTH, "2000000")
        .body(Body::from("csrf=x"))
        .unwrap();
    assert_eq!(f.send(request).status, 413);
    assert!(f.store.get("big", None).unwrap().is_none());
    // Just under the limit is fine.
    let fits = format!("---\nname: fits\n---\n{}", "y".repeat(900_000));
    assert_eq!(f.post("/skills", &[("name", "fits"), ("content", &fits), ("began", "")]).status, 303);
}

const TOKEN: &str = "s3cret-s3cret-s3cret";

fn guarded() -> Fixture {
    let access = Access::new("0.0.0.0:7676".parse().unwrap(), Some(Token::new(TOKEN).unwrap()));
    Fixture::with_access(Backend::Memory, |_| {}, access).unwrap()
}

#[test]
fn a_token_is_asked_when_set() {
    let f = guarded();
    let denied = f.get("/skills");
    assert_eq!(denied.status, 401);
    let opened = f.get(&format!("/skills?token={TOKEN}"));
    assert_eq!((opened.status, opened.location()), (303, "/skills"));
    assert_eq!(f.get("/skills").status, 200, "the session cookie carries it from then on");
    let bearer = Request::get("/skills")
        .header(header::HOST, "skills.example")
        .header(header::AUTHORIZATION, "Bearer s3cret-s3cret-s3cret");
    assert_eq!(f.send(bearer.body(Body::empty()).unwrap()).status, 200);
    let wrong = Request::get("/skills?token=nope").header(header::HOST, "skills.example");
    assert_eq!(f.send(wrong.body(Body::empty()).unwrap()).status, 401);
}

/// Cookies reach every port of the host: what a browser keeps must not be
/// the token (which `serve --http` may share), only a session of this Studio.
#[test]
fn the_token_is_exchanged_for_a_session_never_kept_in_a_cookie() {
    let f = guarded();
    let opened = f.get(&format!("/?token={TOKEN}"));
    let cookies: Vec<&str> = opened.headers.get_all(header::SET_COOKIE).iter().map(|v| v.to_str().unwrap()).collect();
    assert_eq!(cookies.len(), 1, "{cookies:?}");
    assert!(!cookies[0].contains(TOKEN), "{}", cookies[0]);
    let id = cookies[0].strip_prefix("skilldeck_session=").unwrap().split(';').next().unwrap();
    assert!(id.len() == 64 && id.bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
    assert!(cookies[0].ends_with("; Path=/; Max-Age=43200; HttpOnly; SameSite=Strict"), "{}", cookies[0]);
    let with_cookie = |cookie: &str| {
        let request = Request::get("/skills").header(header::HOST, HOST).header(header::COOKIE, cookie);
        f.send(request.body(Body::empty()).unwrap()).status
    };
    assert_eq!(with_cookie(&format!("skilldeck_session={id}")), 200);
    // The token itself is no cookie, nor is a session this Studio never opened.
    assert_eq!(with_cookie(&format!("skilldeck_token={TOKEN}")), 401);
    assert_eq!(with_cookie(&format!("skilldeck_session={TOKEN}")), 401);
    assert_eq!(with_cookie(&format!("skilldeck_session={}", "a".repeat(64))), 401);
    // Behind a TLS proxy the cookie gets the __Host- rules.
    let request = Request::get(format!("/?token={TOKEN}"))
        .header(header::HOST, "skills.example")
        .header("x-forwarded-proto", "https");
    let secure = f.send(request.body(Body::empty()).unwrap());
    let cookie = secure.headers[header::SET_COOKIE].to_str().unwrap();
    assert!(cookie.starts_with("__Host-skilldeck_session=") && cookie.ends_with("; Secure"), "{cookie}");
}

#[test]
fn a_token_redirect_stays_on_this_studio() {
    let f = guarded();
    for (path, to) in [
        ("//evil.example/", "/evil.example/"),
        ("///evil.example", "/evil.example"),
        ("/%5Cevil.example", "/%5Cevil.example"),
        ("/skills/x", "/skills/x"),
    ] {
        // Each a first visit: no session cookie yet.
        let request = Request::get(format!("{path}?token={TOKEN}")).header(header::HOST, HOST);
        let opened = f.send(request.body(Body::empty()).unwrap());
        assert_eq!((opened.status, opened.location()), (303, to), "{path}");
    }
}

#[test]
fn a_flash_this_studio_did_not_sign_is_not_shown() {
    let f = fixture();
    f.csrf();
    let forged = |value: &str| {
        let cookie = format!("{}; skilldeck_flash={value}", f.cookies());
        let request = Request::get("/skills").header(header::HOST, HOST).header(header::COOKIE, cookie);
        f.send(request.body(Body::empty()).unwrap())
    };
    forged("error:Your%20store%20is%20broken%3A%20call%20555-0100").lacks("555-0100").lacks("flash error");
    forged(&format!("{}error:Call%20555-0100", "0".repeat(64))).lacks("555-0100");
    // A genuine one still shows, once.
    let saved = f.post("/skills", &[("name", "ok"), ("content", GOOD), ("began", "")]);
    f.follow(&saved).has("<div class=\"flash\" role=\"status\">Skill saved.</div>");
}
