//! SARIF 2.1.0, the format code scanning services (GitHub, GitLab, Azure DevOps) read.

use serde_json::{Value, json};
use vcr::finding::{Finding, IDS, Severity};

/// The whole SARIF log for one run.
pub(super) fn render(findings: &[Finding]) -> String {
    let rules: Vec<Value> = IDS
        .iter()
        .map(|(id, description)| {
            json!({
                "id": id,
                "shortDescription": {"text": description},
            })
        })
        .collect();
    let results: Vec<Value> = findings.iter().map(result).collect();
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "vcr",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    });
    serde_json::to_string_pretty(&log).expect("SARIF serializes")
}

fn result(finding: &Finding) -> Value {
    let rule_index = IDS
        .iter()
        .position(|(id, _)| *id == finding.id)
        .unwrap_or(0);
    let mut location = json!({"artifactLocation": {"uri": finding.path, "uriBaseId": "%SRCROOT%"}});
    if let Some(line) = finding.line {
        location["region"] = json!({"startLine": line, "startColumn": finding.column.unwrap_or(1)});
    }
    let text = match &finding.matched {
        Some(matched) => format!("{} ({matched})", finding.message),
        None => finding.message.clone(),
    };
    json!({
        "ruleId": finding.id,
        "ruleIndex": rule_index,
        "level": match finding.severity { Severity::Error => "error", Severity::Warning => "warning" },
        "message": {"text": text},
        "locations": [{"physicalLocation": location}],
        "partialFingerprints": {"vcr/v1": format!("{}:{}", finding.pointer.as_deref().unwrap_or(""), finding.fingerprint)},
    })
}
