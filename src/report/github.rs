//! GitHub Actions workflow commands: one `::error` or `::warning` annotation per finding.
//! GitHub shows a limited number per step; SARIF is the output that scales.

use vcr_lint::finding::{Finding, Severity};

use super::Problem;

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
    let message = match &finding.matched {
        Some(matched) => format!("{} ({matched})", finding.message),
        None => finding.message.clone(),
    };
    command(
        level,
        Some(&finding.path),
        finding.line,
        finding.column,
        finding.id.as_str(),
        &message,
    )
}

/// A file that could not be checked, or a problem that stopped a plan.
pub(super) fn problem(problem: &Problem) -> String {
    command(
        "error",
        problem.path.as_deref(),
        problem.line,
        problem.column,
        &problem.id,
        &problem.message,
    )
}

/// The error that stopped `vcr <command>` before it could report anything.
pub(super) fn fatal(command_name: &str, message: &str) -> String {
    command("error", None, None, None, command_name, message)
}

fn command(
    level: &str,
    file: Option<&str>,
    line: Option<usize>,
    column: Option<usize>,
    what: &str,
    message: &str,
) -> String {
    let mut props = Vec::new();
    if let Some(file) = file {
        props.push(format!("file={}", property(file)));
    }
    if let Some(line) = line {
        props.push(format!("line={line}"));
    }
    if let Some(column) = column {
        props.push(format!("col={column}"));
    }
    props.push(format!("title={}", property(&format!("vcr {what}"))));
    format!("::{level} {}::{}", props.join(","), data(message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_without_a_file_are_annotations_too() {
        // Issue 11: a run that cannot start still tells the workflow it failed.
        assert_eq!(
            fatal("verify", "in vcr.toml: rule `x`"),
            "::error title=vcr verify::in vcr.toml: rule `x`"
        );
        let p = Problem {
            path: Some("fixtures/a.json".into()),
            line: None,
            column: None,
            id: "io".into(),
            message: "Permission denied (os error 13)".into(),
        };
        assert_eq!(
            problem(&p),
            "::error file=fixtures/a.json,title=vcr io::Permission denied (os error 13)"
        );
    }

    #[test]
    fn annotations_escape_what_github_requires() {
        let mut f = Finding::new(
            vcr_lint::finding::FindingId::LeakPath,
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
