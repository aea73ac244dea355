//! SARIF 2.1.0, the format code scanning services (GitHub, GitLab, Azure DevOps) read.

use serde_json::{Value, json};
use vcr_lint::finding::{Finding, FindingId, Severity};

use super::Problem;

/// The whole SARIF log for one run. Files that could not be checked (`problems`) and an error
/// that stopped the run (`fatal`) are tool execution notifications of a failed invocation,
/// so a code scanning service does not take the run for a clean one.
pub(super) fn render(findings: &[Finding], problems: &[Problem], fatal: Option<&str>) -> String {
    let rules: Vec<Value> = FindingId::ALL
        .iter()
        .map(|id| {
            json!({
                "id": id.as_str(),
                "shortDescription": {"text": id.describe()},
            })
        })
        .collect();
    let results: Vec<Value> = findings.iter().map(result).collect();
    let mut notifications: Vec<Value> = problems.iter().map(notification).collect();
    if let Some(message) = fatal {
        notifications.push(json!({"level": "error", "message": {"text": message}}));
    }
    let invocation = json!({
        "executionSuccessful": notifications.is_empty(),
        "toolExecutionNotifications": notifications,
    });
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "vcr",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": INFORMATION_URI,
                "rules": rules,
            }},
            "invocations": [invocation],
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    });
    serde_json::to_string_pretty(&log).expect("SARIF serializes")
}

/// Where a reader of the log learns about the tool: the package's page.
const INFORMATION_URI: &str = "https://pypi.org/project/vcr-cassettes/";

fn location(path: &str, line: Option<usize>, column: Option<usize>) -> Value {
    let mut location = json!({"artifactLocation": {"uri": uri_of(path), "uriBaseId": "%SRCROOT%"}});
    if let Some(line) = line {
        location["region"] = json!({"startLine": line, "startColumn": column.unwrap_or(1)});
    }
    location
}

/// A relative path as a URI reference (RFC 3986): every byte but the unreserved characters
/// and `/` percent-encoded, so pytest's `test_x[param].yaml`, spaces and non-ASCII names
/// are valid URIs that name the file.
fn uri_of(path: &str) -> String {
    let mut uri = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            uri.push(char::from(b));
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri
}

fn notification(problem: &Problem) -> Value {
    let mut value = json!({
        "level": "error",
        "message": {"text": problem.text()},
        "descriptor": {"id": problem.id},
    });
    if let Some(path) = &problem.path {
        value["locations"] =
            json!([{"physicalLocation": location(path, problem.line, problem.column)}]);
    }
    value
}

fn result(finding: &Finding) -> Value {
    let rule_index = FindingId::ALL
        .iter()
        .position(|id| *id == finding.id)
        .unwrap_or(0);
    let location = location(&finding.path, finding.line, finding.column);
    let text = match &finding.matched {
        Some(matched) => format!("{} ({matched})", finding.message),
        None => finding.message.clone(),
    };
    let mut value = json!({
        "ruleId": finding.id,
        "ruleIndex": rule_index,
        "level": match finding.severity { Severity::Error => "error", Severity::Warning => "warning" },
        "message": {"text": text},
        "locations": [{"physicalLocation": location}],
        "partialFingerprints": {"vcr/v1": format!("{}:{}", finding.pointer.as_deref().unwrap_or(""), finding.fingerprint)},
    });
    // SARIF's property bag: where a format leaves room for what a tool adds.
    if let Some(reason) = &finding.reason {
        value["properties"] = json!({"reason": reason});
    }
    value
}
