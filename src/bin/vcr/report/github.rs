//! GitHub Actions workflow commands: one `::error` or `::warning` annotation per finding.
//! GitHub shows a limited number per step; SARIF is the output that scales.

use vcr::finding::{Finding, Severity};

/// Escapes the message of a workflow command.
fn data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property of a workflow command.
fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}

/// `::error file=…,line=…,col=…,title=…::message`.
pub(super) fn annotation(finding: &Finding) -> String {
    let level = match finding.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let mut props = format!("file={}", property(&finding.path));
    if let Some(line) = finding.line {
        props.push_str(&format!(",line={line}"));
    }
    if let Some(column) = finding.column {
        props.push_str(&format!(",col={column}"));
    }
    props.push_str(&format!(
        ",title={}",
        property(&format!("vcr {}", finding.id))
    ));
    let message = match &finding.matched {
        Some(matched) => format!("{} ({matched})", finding.message),
        None => finding.message.clone(),
    };
    format!("::{level} {props}::{}", data(&message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotations_escape_what_github_requires() {
        let mut f = Finding::new(
            "leak/path",
            Severity::Warning,
            "a,b:c.json",
            "50%\nnext".into(),
        );
        f.line = Some(3);
        f.column = Some(7);
        assert_eq!(
            annotation(&f),
            "::warning file=a%2Cb%3Ac.json,line=3,col=7,title=vcr leak/path::50%25%0Anext"
        );
    }
}
