//! A model call, as every provider's reader makes it and `vcr diff` compares it.

use std::fmt::Write as _;

use serde::Serialize;

use vcr_json::{Object, Value};

/// Token usage of one or more model calls. Fields the recording lacks are `None`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    /// Input (prompt) tokens.
    pub input: Option<u64>,
    /// Output tokens.
    pub output: Option<u64>,
    /// Tokens read from the prompt cache.
    pub cache_read: Option<u64>,
    /// Tokens written to the prompt cache.
    pub cache_write: Option<u64>,
}

impl Usage {
    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        *self == Usage::default()
    }

    /// The counts recorded, in words: `input 12, output 34`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        for (label, value) in [
            ("input", self.input),
            ("output", self.output),
            ("cache read", self.cache_read),
            ("cache write", self.cache_write),
        ] {
            if let Some(value) = value {
                parts.push(format!("{label} {value}"));
            }
        }
        parts.join(", ")
    }
}

/// The sum of two usages; a field is known when either side knows it.
impl std::ops::Add for Usage {
    type Output = Usage;

    fn add(self, other: Usage) -> Usage {
        let add = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
        };
        Usage {
            input: add(self.input, other.input),
            output: add(self.output, other.output),
            cache_read: add(self.cache_read, other.cache_read),
            cache_write: add(self.cache_write, other.cache_write),
        }
    }
}

/// One tool call a model call made.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolUse {
    /// The tool's name (`Read`, `Bash`, `read`, ...).
    pub name: String,
    /// The most telling string argument, shortened (`src/a.ts`, `npm test`), if any.
    pub key: Option<String>,
    /// The arguments as compact JSON (`JSON.stringify` of the input object).
    pub input: String,
    /// The top-level arguments, name and compact value, in the recorded order.
    #[serde(skip)]
    pub arguments: Vec<(String, String)>,
}

impl ToolUse {
    /// `Read(src/a.ts)`, `Bash(npm test)`, `TodoWrite()`.
    pub fn signature(&self) -> String {
        format!("{}({})", self.name, self.key.as_deref().unwrap_or(""))
    }

    /// A tool call from its name and its input as the API recorded it (JSON, or a string of
    /// JSON): the arguments sorted, the key argument picked out.
    pub fn from_input(name: &str, input: Option<&Value<'_>>) -> ToolUse {
        let (input_text, arguments, key) = match input {
            Some(value) => {
                let arguments = value
                    .as_object()
                    .map(|o| {
                        o.iter()
                            .map(|(k, v)| (k.as_str().to_owned(), argument_text(v)))
                            .collect()
                    })
                    .unwrap_or_default();
                let mut input = String::new();
                sorted_compact(value, &mut input);
                (input, arguments, value.as_object().and_then(key_argument))
            }
            None => (String::new(), Vec::new(), None),
        };
        ToolUse {
            name: name.to_owned(),
            key,
            input: input_text,
            arguments,
        }
    }
}

/// An argument's value for people: strings as they are, anything else as compact JSON.
fn argument_text(value: &Value<'_>) -> String {
    match value {
        Value::String(s) => s.as_str().to_owned(),
        other => String::from_utf8_lossy(&vcr_json::to_compact(other)).into_owned(),
    }
}

/// Arguments that tell what a tool call is about, most telling first: the file it reads or
/// edits, the command it runs, the pattern it searches, the page it fetches.
const KEY_ARGUMENTS: [&str; 10] = [
    "file_path",
    "path",
    "notebook_path",
    "command",
    "cmd",
    "pattern",
    "url",
    "query",
    "prompt",
    "description",
];

/// Longest key argument shown; longer ones end with `…`.
const KEY_LEN: usize = 48;

/// The key argument of a tool input: the first of [`KEY_ARGUMENTS`] that is a string, else
/// the first string argument; the recording folder placeholder is dropped from paths so
/// that `[CWD]/src/a.ts` reads `src/a.ts`.
fn key_argument(input: &Object<'_>) -> Option<String> {
    // Else the string of the first key in sorted order: the order a model wrote the keys in
    // is not a different call.
    let value = KEY_ARGUMENTS
        .iter()
        .find_map(|k| input.get(k).and_then(Value::as_str))
        .or_else(|| {
            sorted_entries(input)
                .into_iter()
                .find_map(|(_, v)| v.as_str())
        })?;
    let value = ["[CWD]/", "{{cwd}}/"]
        .iter()
        .find_map(|p| value.strip_prefix(p))
        .unwrap_or(value);
    Some(shorten(value, KEY_LEN))
}

/// The first line of `text`, at most `max` characters, with `…` where it was cut, secrets
/// masked. Masking comes first: a key cut short no longer matches its detector, so masking
/// the excerpt afterwards would print the part of the key that was kept.
pub fn shorten(text: &str, max: usize) -> String {
    static MASKER: std::sync::OnceLock<vcr_lint::Scanner> = std::sync::OnceLock::new();
    let masked = MASKER
        .get_or_init(|| vcr_lint::Scanner::new(&[]))
        .mask(text);
    let trimmed = masked.trim();
    let first = trimmed.lines().next().unwrap_or("");
    let cut = first.chars().count() > max || first.len() < trimmed.len();
    let mut out: String = first.chars().take(max).collect();
    if cut {
        out.push('…');
    }
    out
}

/// One recorded model call.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ModelCall {
    /// Where the call is: empty for a Claude Code fixture (one call per file), the session
    /// log and the call's number in it for dsh (`session.jsonl #2`).
    pub label: String,
    /// The text the model wrote, text blocks joined by blank lines.
    pub text: String,
    /// What the model thought before it answered, as the API shows it: Anthropic's
    /// `thinking` blocks, Gemini's thought parts, the summaries of OpenAI's reasoning items,
    /// DeepSeek's `reasoning_content`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub thinking: String,
    /// The tool calls, in order.
    pub tools: Vec<ToolUse>,
    /// The stop reason (`end_turn`, `tool_use`, `max_tokens`; dsh: `stop`, `tool-calls`, ...;
    /// an override's `throw <code>` or `hang`).
    pub stop_reason: Option<String>,
    /// The model that answered.
    pub model: Option<String>,
    /// Its token usage.
    pub usage: Usage,
}

impl ModelCall {
    /// `Read(src/a.ts) -> Edit(src/a.ts)`, or `(no tool calls)`.
    pub fn tool_sequence(&self) -> String {
        if self.tools.is_empty() {
            return "(no tool calls)".to_owned();
        }
        self.tools
            .iter()
            .map(ToolUse::signature)
            .collect::<Vec<_>>()
            .join(" -> ")
    }

    /// One line: tool sequence, stop reason, text.
    pub fn one_line(&self) -> String {
        let mut line = String::new();
        if !self.label.is_empty() {
            let _ = write!(line, "{}: ", self.label);
        }
        if self.tools.is_empty() {
            let _ = write!(line, "\"{}\"", shorten(&self.text, 60));
        } else {
            line.push_str(&self.tool_sequence());
        }
        if let Some(stop) = &self.stop_reason {
            let _ = write!(line, " ({stop})");
        }
        line
    }
}

/// An object's entries in key order: JSON objects do not order their keys, so neither does
/// a comparison of them.
pub fn sorted_entries<'o, 'a>(
    object: &'o Object<'a>,
) -> Vec<(&'o vcr_json::Str<'a>, &'o Value<'a>)> {
    let mut entries: Vec<_> = object.iter().collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    entries
}

/// `value` as compact JSON with every object's keys sorted: tool arguments compared as JSON,
/// so the same arguments written in another key order are the same call.
pub fn sorted_compact(value: &Value<'_>, out: &mut String) {
    match value {
        Value::Object(o) => {
            out.push('{');
            for (i, (k, v)) in sorted_entries(o).into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&String::from_utf8_lossy(&vcr_json::to_compact(
                    &Value::String(k.clone()),
                )));
                out.push(':');
                sorted_compact(v, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                sorted_compact(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&String::from_utf8_lossy(&vcr_json::to_compact(other))),
    }
}

/// A string field's value.
pub fn str_field(o: &Object<'_>, key: &str) -> Option<String> {
    o.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// A count field's value: a number that is not negative.
pub fn count_field(o: &Object<'_>, key: &str) -> Option<u64> {
    match o.get(key) {
        Some(Value::Number(n)) => {
            let f = n.as_f64();
            (f >= 0.0 && f.is_finite()).then_some(f as u64)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn key(input: &str, expected: Option<&str>) {
        let value = vcr_json::parse(input.as_bytes()).unwrap();
        assert_eq!(
            key_argument(value.as_object().unwrap()).as_deref(),
            expected,
            "{input}"
        );
    }

    #[test]
    fn key_arguments_are_the_most_telling_string() {
        key(
            r#"{"file_path":"[CWD]/src/a.ts","old_string":"x"}"#,
            Some("src/a.ts"),
        );
        key(
            r#"{"description":"Run","command":"npm test"}"#,
            Some("npm test"),
        );
        key(r#"{"todos":[],"mode":"fast"}"#, Some("fast"));
        key(r#"{"n":1}"#, None);
        key(r#"{"path":"{{cwd}}/src/cart.ts"}"#, Some("src/cart.ts"));
    }

    #[test]
    fn shorten_masks_a_secret_before_cutting_it() {
        // Regression: the excerpt was masked after the cut, when the key no longer matched.
        let key = format!("sk-ant-api03-{}", "Zq7XvB2mKp9LwR4tYc8NdF3hJs6GaT1uEo5i");
        let text = format!("Here is the thing you asked about, set KEY={key} and go");
        let short = shorten(&text, 60);
        assert!(!short.contains("Zq7X"), "{short}");
        assert!(short.contains("KEY=sk-ant-a"), "{short}");
    }

    #[test]
    fn shorten_cuts_at_the_first_line_and_length() {
        assert_eq!(shorten("abc", 5), "abc");
        assert_eq!(shorten("abcdefgh", 5), "abcde…");
        assert_eq!(shorten("ab\ncd", 5), "ab…");
    }
}
