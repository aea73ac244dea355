//! Recorded API errors: a model call whose recording holds the provider's refusal instead of
//! an answer.
//!
//! A harness in record mode writes whatever the call returned. A missing API key, a rate
//! limit or an outage is still a result, and the test that checks it may pass (DeepSeek-
//! Harness records a `MISSING_CREDENTIAL` failure as an ordinary `finish` chunk). From then
//! on the cassette replays the failure. Each fixture kind finds these calls in its own shapes:
//! [`crate::claude_code::recorded_errors`], `recorded/error` problems of
//! [`crate::dsh::check_scenario`], and [`crate::generic::recorded_errors`]. This
//! module holds what they share: the kinds of error that are the recording's fault and not
//! the test's ([`ApiErrorKind`], named from HTTP statuses and from the providers' and
//! harnesses' error codes), and the finding's wording.
//!
//! Other errors stay out on purpose: a bad request (400, `invalid_request_error`,
//! `CONTEXT_WINDOW_EXCEEDED`), an empty response, a timeout on the client's side or a
//! dropped connection. They are often what a scenario sets out to test, or they are not the
//! provider's answer.

use std::fmt;

use vcr_json::{Object, Value};

/// The finding id.
pub const RECORDED_ERROR: crate::finding_id::FindingId =
    crate::finding_id::FindingId::RecordedError;

/// What kind of API error a recording captured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ApiErrorKind {
    /// The key was missing, invalid or revoked, or the account has no access (401, 403).
    Authentication,
    /// The account has no credit or quota left (402, `billing_error`, `insufficient_quota`).
    Billing,
    /// Too many requests (429).
    RateLimit,
    /// The provider failed or was overloaded (5xx, 529 `overloaded_error`).
    Server,
}

impl fmt::Display for ApiErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ApiErrorKind::Authentication => "authentication",
            ApiErrorKind::Billing => "billing",
            ApiErrorKind::RateLimit => "rate limit",
            ApiErrorKind::Server => "server error",
        })
    }
}

impl ApiErrorKind {
    /// The kind an HTTP status stands for.
    pub fn from_status(status: f64) -> Option<ApiErrorKind> {
        match status {
            401.0 | 403.0 => Some(ApiErrorKind::Authentication),
            402.0 => Some(ApiErrorKind::Billing),
            429.0 => Some(ApiErrorKind::RateLimit),
            s if (500.0..600.0).contains(&s) && s.fract() == 0.0 => Some(ApiErrorKind::Server),
            _ => None,
        }
    }

    /// The kind an error type or code names. These are the names that the providers' error
    /// bodies, Claude Code and DeepSeek-Harness use:
    ///
    /// - Anthropic's `error.type` (`authentication_error`, `permission_error`,
    ///   `billing_error`, `rate_limit_error`, `api_error`, `overloaded_error`,
    ///   `timeout_error`);
    /// - OpenAI's `error.type` and `error.code` (`invalid_api_key`, `insufficient_quota`,
    ///   `rate_limit_exceeded`, `server_error`);
    /// - Claude Code's `SDKAssistantMessageError` (`authentication_failed`,
    ///   `oauth_org_not_allowed`, `billing_error`, `rate_limit`, `server_error`,
    ///   `overloaded`; `services/api/errors.ts` `getAssistantMessageFromError`);
    /// - DeepSeek-Harness's `LlmFailure.code` (`AUTH`, `MISSING_CREDENTIAL`,
    ///   `INVALID_CREDENTIAL`, `QUOTA`, `RATE_LIMIT`, `SERVER`; `httpErrorCode` in
    ///   `packages/llm/llm-deepseek/src/adapter.ts`, `packages/llm/llm/src/error.ts`).
    pub fn from_code(code: &str) -> Option<ApiErrorKind> {
        Some(match code {
            "authentication_error"
            | "permission_error"
            | "invalid_api_key"
            | "authentication_failed"
            | "oauth_org_not_allowed"
            | "AUTH"
            | "MISSING_CREDENTIAL"
            | "INVALID_CREDENTIAL" => ApiErrorKind::Authentication,
            "billing_error" | "insufficient_quota" | "QUOTA" => ApiErrorKind::Billing,
            "rate_limit_error" | "rate_limit_exceeded" | "rate_limit" | "RATE_LIMIT" => {
                ApiErrorKind::RateLimit
            }
            "api_error" | "overloaded_error" | "timeout_error" | "server_error" | "overloaded"
            | "SERVER" => ApiErrorKind::Server,
            _ => return None,
        })
    }

    /// What to do about it.
    fn advice(self) -> &'static str {
        match self {
            ApiErrorKind::Authentication => "record it again with a working API key",
            ApiErrorKind::Billing => "record it again once the account has credit",
            ApiErrorKind::RateLimit => "record it again once the rate limit has passed",
            ApiErrorKind::Server => "record it again once the provider answers",
        }
    }
}

/// One recorded API error in a cassette.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedError {
    /// What kind of error.
    pub kind: ApiErrorKind,
    /// Where it is, as a JSON pointer (`/output/2`, `/response`).
    pub pointer: String,
    /// Byte offset in the file, when it can be told.
    pub offset: Option<usize>,
    /// What shows it (`HTTP 429`, `` `rate_limit_error` ``), for the message.
    pub detail: String,
}

impl RecordedError {
    /// The finding's message; `place` says where in words (`output[2]`, `model call 2`).
    pub fn message(&self, place: &str) -> String {
        message(self.kind, place, &self.detail)
    }
}

/// The finding's message: what is where, its kind, what shows it, what to do.
pub fn message(kind: ApiErrorKind, place: &str, detail: &str) -> String {
    format!(
        "{place} is a recorded API error, not an answer: {kind} ({detail}); {}",
        kind.advice()
    )
}

/// `detail` for a status and an error code, whichever are known.
pub fn detail(status: Option<f64>, code: Option<&str>) -> String {
    let status = status.map(|s| format!("HTTP {}", json_number(s)));
    let code = code.map(|c| format!("`{c}`"));
    match (status, code) {
        (Some(s), Some(c)) => format!("{s}, {c}"),
        (Some(s), None) => s,
        (None, Some(c)) => c,
        (None, None) => "an API error".to_owned(),
    }
}

fn json_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        n.to_string()
    }
}

/// The error type or code a provider error body names. The body can be Anthropic's
/// `{"type":"error","error":{"type":...}}`, OpenAI's `{"error":{"type":...,"code":...}}`, or
/// the `error` object alone. The first name that [`ApiErrorKind::from_code`] knows wins, and
/// failing that, the first name given.
pub fn body_code<'v>(body: &'v Value<'_>) -> Option<&'v str> {
    let object = body.as_object()?;
    let error = match object.get("error") {
        Some(Value::Object(error)) => error,
        _ if object.get("type").and_then(Value::as_str).is_some() => object,
        _ => return None,
    };
    let names: Vec<&str> = ["type", "code"]
        .iter()
        .filter_map(|k| error.get(k).and_then(Value::as_str))
        .collect();
    names
        .iter()
        .find(|n| ApiErrorKind::from_code(n).is_some())
        .or(names.first())
        .copied()
}

/// A number field, when it is one.
pub fn number(object: &Object<'_>, key: &str) -> Option<f64> {
    match object.get(key) {
        Some(Value::Number(n)) => Some(n.as_f64()),
        _ => None,
    }
}

/// The API error an HTTP response object records, if it is one of [`ApiErrorKind`].
///
/// The status is `status` (a number, or `{"code": N}` as vcrpy-style recorders and DataDog's
/// test agent write it), `status_code` or `statusCode`. The body is `body` (an object, a JSON
/// text, or `{"string": JSON text}`). An error code in the body decides the kind when it names
/// one (OpenAI answers an exhausted quota with 429 `insufficient_quota`). Otherwise the status
/// decides.
pub fn in_response(response: &Object<'_>) -> Option<(ApiErrorKind, String)> {
    let status = number(response, "status")
        .or_else(|| {
            response
                .get("status")
                .and_then(Value::as_object)
                .and_then(|s| number(s, "code"))
        })
        .or_else(|| number(response, "status_code"))
        .or_else(|| number(response, "statusCode"));
    let parsed;
    let body = match response.get("body") {
        Some(Value::String(text)) => {
            parsed = vcr_json::parse(text.as_str().as_bytes()).ok();
            parsed.as_ref()
        }
        Some(Value::Object(o)) if o.get("string").and_then(Value::as_str).is_some() => {
            let text = o.get("string").and_then(Value::as_str).unwrap_or_default();
            parsed = vcr_json::parse(text.as_bytes()).ok();
            parsed.as_ref()
        }
        other => other,
    };
    let code = body.and_then(body_code);
    let kind = code
        .and_then(ApiErrorKind::from_code)
        .or_else(|| status.and_then(ApiErrorKind::from_status))?;
    Some((kind, detail(status, code)))
}

/// Every `response` object under `value` that records an API error, skipping the subtrees
/// `skip` names by pointer (key material: the request, never the answer). `prefix` goes
/// before every pointer (`/3` for line 4 of a JSONL file).
pub fn responses(
    value: &Value<'_>,
    prefix: &str,
    skip: &dyn Fn(&str) -> bool,
) -> Vec<RecordedError> {
    let mut out = Vec::new();
    walk(value, &mut String::new(), prefix, skip, &mut out);
    out
}

fn walk(
    value: &Value<'_>,
    pointer: &mut String,
    prefix: &str,
    skip: &dyn Fn(&str) -> bool,
    out: &mut Vec<RecordedError>,
) {
    if !pointer.is_empty() && skip(pointer) {
        return;
    }
    let len = pointer.len();
    match value {
        Value::Object(object) => {
            for (key, child) in object.iter() {
                pointer.push('/');
                pointer.push_str(&key.as_str().replace('~', "~0").replace('/', "~1"));
                if key.as_str() == "response"
                    && let Some((kind, detail)) = child.as_object().and_then(in_response)
                {
                    out.push(RecordedError {
                        kind,
                        pointer: format!("{prefix}{pointer}"),
                        offset: child.source_offset(),
                        detail,
                    });
                }
                walk(child, pointer, prefix, skip, out);
                pointer.truncate(len);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                pointer.push('/');
                pointer.push_str(&i.to_string());
                walk(child, pointer, prefix, skip, out);
                pointer.truncate(len);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_name_their_kind() {
        for (status, want) in [
            (401.0, Some(ApiErrorKind::Authentication)),
            (403.0, Some(ApiErrorKind::Authentication)),
            (402.0, Some(ApiErrorKind::Billing)),
            (429.0, Some(ApiErrorKind::RateLimit)),
            (500.0, Some(ApiErrorKind::Server)),
            (529.0, Some(ApiErrorKind::Server)),
            (503.0, Some(ApiErrorKind::Server)),
            (200.0, None),
            (400.0, None),
            (404.0, None),
            (413.0, None),
            (500.5, None),
            (600.0, None),
        ] {
            assert_eq!(ApiErrorKind::from_status(status), want, "{status}");
        }
    }

    #[test]
    fn codes_name_their_kind() {
        for (code, want) in [
            ("authentication_error", Some(ApiErrorKind::Authentication)),
            ("MISSING_CREDENTIAL", Some(ApiErrorKind::Authentication)),
            ("authentication_failed", Some(ApiErrorKind::Authentication)),
            ("insufficient_quota", Some(ApiErrorKind::Billing)),
            ("QUOTA", Some(ApiErrorKind::Billing)),
            ("rate_limit", Some(ApiErrorKind::RateLimit)),
            ("RATE_LIMIT", Some(ApiErrorKind::RateLimit)),
            ("overloaded_error", Some(ApiErrorKind::Server)),
            ("SERVER", Some(ApiErrorKind::Server)),
            ("invalid_request_error", None),
            ("CONTEXT_WINDOW_EXCEEDED", None),
            ("EMPTY_RESPONSE", None),
            ("TIMEOUT", None),
            ("TRANSPORT", None),
            ("max_output_tokens", None),
            ("auth", None),
        ] {
            assert_eq!(ApiErrorKind::from_code(code), want, "{code}");
        }
    }

    #[track_caller]
    fn response(text: &str) -> Option<(ApiErrorKind, String)> {
        let value = vcr_json::parse(text.as_bytes()).unwrap();
        in_response(value.as_object().unwrap())
    }

    #[test]
    fn responses_are_read_in_the_recorders_shapes() {
        // DataDog's test agent: status {code, message}, the body as JSON text.
        assert_eq!(
            response(
                r#"{"status":{"code":401,"message":"Unauthorized"},"headers":{},"body":"{\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":\"invalid x-api-key\"}}"}"#
            ),
            Some((
                ApiErrorKind::Authentication,
                "HTTP 401, `authentication_error`".to_owned()
            ))
        );
        // OpenAI answers an exhausted quota with 429: the code decides.
        assert_eq!(
            response(
                r#"{"status_code":429,"body":{"error":{"message":"m","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}}"#
            ),
            Some((
                ApiErrorKind::Billing,
                "HTTP 429, `insufficient_quota`".to_owned()
            ))
        );
        assert_eq!(
            response(r#"{"statusCode":503,"body":{"string":"upstream connect error"}}"#),
            Some((ApiErrorKind::Server, "HTTP 503".to_owned()))
        );
        // A bad request is the test's business.
        assert_eq!(
            response(
                r#"{"status":{"code":400,"message":"Bad Request"},"body":"{\n  \"error\": {\n    \"message\": \"Invalid token in prompt\",\n    \"type\": \"invalid_request_error\",\n    \"param\": null,\n    \"code\": null\n  }\n}"}"#
            ),
            None
        );
        assert_eq!(response(r#"{"status":200,"body":"{}"}"#), None);
        assert_eq!(response(r#"{"stop_reason":"end_turn"}"#), None);
    }

    #[test]
    fn key_material_is_skipped() {
        let value = vcr_json::parse(
            br#"{"request":{"response":{"status":500}},"response":{"status":429},"log":[{"response":{"status":401}}]}"#,
        )
        .unwrap();
        let found = responses(&value, "", &|p| p.starts_with("/request"));
        let got: Vec<(&str, ApiErrorKind)> =
            found.iter().map(|e| (e.pointer.as_str(), e.kind)).collect();
        assert_eq!(
            got,
            [
                ("/response", ApiErrorKind::RateLimit),
                ("/log/0/response", ApiErrorKind::Authentication)
            ]
        );
    }
}
