//! Old behaviour against new: what changed, and the verdict a reviewer reads first.
//!
//! The verdict ranks what matters for an agent: `behaviour change` when what it did differs
//! (tool calls and their arguments, stop reasons, the number of model calls, the shape of
//! structured output), `reworded` when only its text differs, `same behaviour` when only
//! what surrounds the behaviour moved (usage, model, the request, ids and timestamps), and
//! `identical` when the canonical contents are equal. Usage and model changes are reported
//! but never raise the verdict: every re-recording changes token counts.

use std::fmt;

use serde::Serialize;

use super::behaviour::{Behaviour, Kind, ModelCall, Usage, output_shape, shorten};

/// How much a cassette changed, least first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Equal canonical contents.
    Identical,
    /// Contents differ, behaviour does not: usage, model, request, ids, timestamps.
    SameBehaviour,
    /// Only the text the model wrote differs.
    Reworded,
    /// What the agent did differs.
    BehaviourChange,
}

impl Verdict {
    /// How people read it.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Identical => "identical",
            Verdict::SameBehaviour => "same behaviour",
            Verdict::Reworded => "reworded",
            Verdict::BehaviourChange => "behaviour change",
        }
    }
}

/// One difference between two recordings of a cassette.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "what", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Change {
    /// The number of model calls differs.
    Calls {
        /// Calls before.
        old: usize,
        /// Calls after.
        new: usize,
    },
    /// A dsh scenario's session logs differ.
    Sessions {
        /// Logs before.
        old: Vec<String>,
        /// Logs after.
        new: Vec<String>,
    },
    /// The sequence of tool calls (names and key arguments) differs.
    ToolCalls {
        /// Which call (empty for a one-call cassette).
        call: String,
        /// `Read(src/a.ts) -> Edit(src/a.ts)`.
        old: String,
        /// `Read(src/a.ts) -> Bash(npm test)`.
        new: String,
    },
    /// Same tools with the same key arguments, other arguments differ.
    ToolArguments {
        /// Which call.
        call: String,
        /// The tool call, `Edit(src/a.ts)`.
        tool: String,
        /// The arguments whose values differ.
        arguments: Vec<String>,
    },
    /// The stop reason differs.
    StopReason {
        /// Which call.
        call: String,
        /// Before.
        old: Option<String>,
        /// After.
        new: Option<String>,
    },
    /// The model answered nothing (no text, no tool call) where it had answered, or the
    /// other way round: a reply that vanished (thinking spent the token budget) is not a
    /// rewording.
    Output {
        /// Which call.
        call: String,
        /// The answer before, in one line, or `nothing`.
        old: String,
        /// The answer after.
        new: String,
    },
    /// The text is JSON of another shape (structured output).
    OutputShape {
        /// Which call.
        call: String,
        /// Shape before (`None`: not JSON).
        old: Option<String>,
        /// Shape after.
        new: Option<String>,
    },
    /// The text differs.
    Text {
        /// Which call.
        call: String,
        /// How alike the texts are, in percent (word-level similarity ratio).
        similarity: u8,
        /// The old text, shortened.
        old: String,
        /// The new text, shortened.
        new: String,
    },
    /// The thinking differs, the answer does not.
    Thinking {
        /// Which call.
        call: String,
        /// How alike the two thoughts are, in percent (word-level similarity ratio).
        similarity: u8,
    },
    /// The model differs.
    Model {
        /// Which call.
        call: String,
        /// Before.
        old: Option<String>,
        /// After.
        new: Option<String>,
    },
    /// Token usage, summed over the calls, differs.
    Usage {
        /// Before.
        old: Usage,
        /// After.
        new: Usage,
        /// Change of input tokens in percent, when both are known and the old is not 0.
        input_percent: Option<f64>,
        /// Change of output tokens in percent.
        output_percent: Option<f64>,
    },
    /// A request message differs: for a re-keyed Claude Code fixture, the message whose
    /// hash segment is the first that changed; for a model call of an HTTP cassette, the
    /// first of its messages (system instructions are message 0) that changed.
    Request {
        /// Which call (empty for a one-call cassette).
        #[serde(skip_serializing_if = "String::is_empty")]
        call: String,
        /// 0-based index of the first message that differs.
        message: usize,
        /// Messages before.
        old_messages: usize,
        /// Messages after.
        new_messages: usize,
        /// Whether message 0 is the system prompt (an HTTP model call's): messages are then
        /// shown counted from 1 after it, as a reader counts a conversation.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        system: bool,
    },
    /// A token-count fixture's count differs.
    TokenCount {
        /// Before, as JavaScript prints it.
        old: Option<String>,
        /// After.
        new: Option<String>,
    },
    /// An HTTP interaction only the new recording has.
    InteractionAdded {
        /// The interaction (`#3 GET /v1/models`).
        call: String,
        /// It in one line: status, and for a model call its tool calls or text.
        summary: String,
        /// An authentication or telemetry call: reported, but it does not decide what the
        /// agent did.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        plumbing: bool,
    },
    /// An HTTP interaction only the old recording has.
    InteractionRemoved {
        /// The interaction.
        call: String,
        /// It in one line.
        summary: String,
        /// An authentication or telemetry call (see [`Change::InteractionAdded`]).
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        plumbing: bool,
    },
    /// An HTTP interaction's response status differs (`200` -> `429`).
    Status {
        /// The interaction.
        call: String,
        /// Before (`None`: no response recorded).
        old: Option<u16>,
        /// After.
        new: Option<u16>,
    },
    /// An HTTP interaction's request asks for another path or query (volatile query
    /// values, a timestamp, a key, a nonce, are not compared).
    Url {
        /// The interaction.
        call: String,
        /// Before.
        old: String,
        /// After.
        new: String,
        /// A model call's URL (a query added, the model in the path): a change of the
        /// request, not of what the agent did; its calls are compared as calls.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        model_call: bool,
        /// The server answered both alike: the same status and decoded body, or at the same
        /// endpoint the same status and a body of the same shape. A request the server did
        /// not react to (a parameter it ignores dropped, a query fixed) is how the call was
        /// written, as a request body is (issue 42).
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        same_answer: bool,
    },
    /// The server the requests went to differs (scheme, host and port): a local test
    /// server's port, a proxy, a region. Once per pair of origins.
    Origin {
        /// Before (`https://api.openai.com`).
        old: String,
        /// After.
        new: String,
        /// How many paired interactions moved so.
        requests: usize,
    },
    /// The shape (JSON keys and value types, form fields, event names) of a body of an
    /// HTTP interaction that is not a model call differs.
    BodyShape {
        /// The interaction.
        call: String,
        /// `request` or `response`.
        side: String,
        /// Before.
        old: String,
        /// After.
        new: String,
        /// An authentication or telemetry call's body (an OAuth token response that lost
        /// `id_token`): reported, but it does not decide what the agent did.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        plumbing: bool,
        /// The response only gained keys and the request did not change: the API's
        /// responses grew under a caller that asked the same (schema drift). Still a
        /// behaviour change (what the code under test reads may have changed), said so.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        drift: bool,
    },
    /// HTTP interactions, paired by request, were recorded in another order.
    Reordered {
        /// `#1 POST /v1/chat/completions is now #2`, per interaction that moved.
        moves: Vec<String>,
    },
    /// The contents differ where the behaviour summary does not look (ids, timestamps).
    Other,
}

impl Change {
    /// The verdict this change alone would give.
    pub fn verdict(&self) -> Verdict {
        match self {
            Change::Calls { .. }
            | Change::Sessions { .. }
            | Change::ToolCalls { .. }
            | Change::ToolArguments { .. }
            | Change::StopReason { .. }
            | Change::OutputShape { .. }
            | Change::Output { .. }
            | Change::InteractionAdded {
                plumbing: false, ..
            }
            | Change::InteractionRemoved {
                plumbing: false, ..
            }
            | Change::Url {
                model_call: false,
                same_answer: false,
                ..
            } => Verdict::BehaviourChange,
            // A status of another class (a success became an error, a redirect, no answer)
            // decides wherever it happens, plumbing included; `200` -> `201` is the same
            // answer told another way.
            Change::Status { old, new, .. } if status_class(*old) != status_class(*new) => {
                Verdict::BehaviourChange
            }
            // A response's shape decides; a request's is how the call was written (a field
            // sent that the default was, a list of objects sent as strings), as a model
            // call's request is.
            Change::BodyShape {
                plumbing: false,
                side,
                ..
            } if side == "response" => Verdict::BehaviourChange,
            // Authentication and telemetry, and a model call's URL: reported, not deciding.
            Change::InteractionAdded { .. }
            | Change::InteractionRemoved { .. }
            | Change::BodyShape { .. }
            | Change::Url { .. } => Verdict::SameBehaviour,
            Change::Text { .. } | Change::Thinking { .. } => Verdict::Reworded,
            Change::Model { .. }
            | Change::Usage { .. }
            | Change::Request { .. }
            | Change::TokenCount { .. }
            | Change::Origin { .. }
            | Change::Reordered { .. }
            | Change::Status { .. }
            | Change::Other => Verdict::SameBehaviour,
        }
    }

    /// A few words for the verdict's reason.
    pub fn reason(&self) -> String {
        match self {
            Change::Calls { old, new } => format!("{new} model calls, was {old}"),
            Change::Sessions { .. } => "session logs changed".to_owned(),
            Change::ToolCalls { .. } => "tool calls changed".to_owned(),
            Change::ToolArguments { .. } => "tool arguments changed".to_owned(),
            Change::StopReason { .. } => "stop reason changed".to_owned(),
            Change::OutputShape { .. } => "structured output shape changed".to_owned(),
            Change::Output { new, .. } if new == NOTHING => "the answer is gone".to_owned(),
            Change::Output { .. } => "an answer where there was none".to_owned(),
            Change::Text { similarity, .. } => format!("text reworded ({similarity}% similar)"),
            Change::Thinking { similarity, .. } => {
                format!("thinking reworded ({similarity}% similar)")
            }
            Change::Model { .. } => "model changed".to_owned(),
            Change::Usage { .. } => "usage changed".to_owned(),
            Change::Request { .. } => "request changed".to_owned(),
            Change::TokenCount { .. } => "token count changed".to_owned(),
            Change::InteractionAdded { .. } => "interaction added".to_owned(),
            Change::InteractionRemoved { .. } => "interaction removed".to_owned(),
            Change::Status { .. } => "status changed".to_owned(),
            Change::Url { .. } => "request URL changed".to_owned(),
            Change::Origin { .. } => "server changed".to_owned(),
            Change::BodyShape { side, .. } => format!("{side} body shape changed"),
            Change::Reordered { .. } => "interactions reordered".to_owned(),
            Change::Other => "values changed, same shape".to_owned(),
        }
    }
}

impl Change {
    /// The change with every text taken from a cassette masked (secrets never leave): an
    /// HTTP interaction's label holds its URL path, so call labels are masked too.
    pub fn masked(self, masker: &vcr_lint::Scanner) -> Change {
        let m = |s: String| masker.mask(&s);
        let mo = |s: Option<String>| s.map(|s| masker.mask(&s));
        match self {
            Change::ToolCalls { call, old, new } => Change::ToolCalls {
                call: m(call),
                old: m(old),
                new: m(new),
            },
            Change::ToolArguments {
                call,
                tool,
                arguments,
            } => Change::ToolArguments {
                call: m(call),
                tool: m(tool),
                arguments,
            },
            Change::StopReason { call, old, new } => Change::StopReason {
                call: m(call),
                old: mo(old),
                new: mo(new),
            },
            Change::OutputShape { call, old, new } => Change::OutputShape {
                call: m(call),
                old: mo(old),
                new: mo(new),
            },
            Change::Output { call, old, new } => Change::Output {
                call: m(call),
                old: m(old),
                new: m(new),
            },
            Change::Thinking { call, similarity } => Change::Thinking {
                call: m(call),
                similarity,
            },
            Change::Text {
                call,
                similarity,
                old,
                new,
            } => Change::Text {
                call: m(call),
                similarity,
                old: m(old),
                new: m(new),
            },
            Change::Model { call, old, new } => Change::Model {
                call: m(call),
                old: mo(old),
                new: mo(new),
            },
            Change::Request {
                call,
                message,
                old_messages,
                new_messages,
                system,
            } => Change::Request {
                call: m(call),
                message,
                old_messages,
                new_messages,
                system,
            },
            Change::InteractionAdded {
                call,
                summary,
                plumbing,
            } => Change::InteractionAdded {
                call: m(call),
                summary: m(summary),
                plumbing,
            },
            Change::InteractionRemoved {
                call,
                summary,
                plumbing,
            } => Change::InteractionRemoved {
                call: m(call),
                summary: m(summary),
                plumbing,
            },
            Change::Status { call, old, new } => Change::Status {
                call: m(call),
                old,
                new,
            },
            Change::Url {
                call,
                old,
                new,
                model_call,
                same_answer,
            } => Change::Url {
                call: m(call),
                old: m(old),
                new: m(new),
                model_call,
                same_answer,
            },
            Change::Origin { old, new, requests } => Change::Origin {
                old: m(old),
                new: m(new),
                requests,
            },
            Change::BodyShape {
                call,
                side,
                old,
                new,
                plumbing,
                drift,
            } => Change::BodyShape {
                call: m(call),
                side,
                old: m(old),
                new: m(new),
                plumbing,
                drift,
            },
            Change::Reordered { moves } => Change::Reordered {
                moves: moves.into_iter().map(m).collect(),
            },
            other => other,
        }
    }
}

/// A status's class (`2` for `2xx`), `None` when no response was recorded.
fn status_class(status: Option<u16>) -> Option<u16> {
    status.map(|s| s / 100)
}

fn call_prefix(call: &str) -> String {
    if call.is_empty() {
        String::new()
    } else {
        format!("{call}: ")
    }
}

/// What a change of an authentication or telemetry call adds to its line.
fn plumbing_note(plumbing: bool) -> &'static str {
    if plumbing {
        " (authentication or telemetry: not what the agent did)"
    } else {
        ""
    }
}

/// How alike two texts are, in percent: the word-level similarity ratio.
fn similarity(old: &str, new: &str) -> u8 {
    let ratio = similar::TextDiff::from_words(old, new).ratio();
    (ratio * 100.0).floor().clamp(0.0, 100.0) as u8
}

/// How [`Change::Output`] names a call that answered nothing.
const NOTHING: &str = "nothing";

fn or_none(value: Option<&String>) -> &str {
    value.map_or("(none)", String::as_str)
}

fn percent(value: Option<f64>) -> String {
    value.map_or_else(String::new, |p| format!(" ({p:+.1}%)"))
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Change::Calls { old, new } => write!(f, "model calls: {old} -> {new}"),
            Change::Sessions { old, new } => {
                write!(f, "session logs: {} -> {}", old.join(", "), new.join(", "))
            }
            Change::ToolCalls { call, old, new } => {
                write!(f, "{}tool calls `{old}` became `{new}`", call_prefix(call))
            }
            Change::ToolArguments {
                call,
                tool,
                arguments,
            } => write!(
                f,
                "{}{tool}: arguments changed ({})",
                call_prefix(call),
                arguments.join(", ")
            ),
            Change::StopReason { call, old, new } => write!(
                f,
                "{}stop reason {} -> {}",
                call_prefix(call),
                or_none(old.as_ref()),
                or_none(new.as_ref())
            ),
            Change::Output { call, old, new } => {
                write!(f, "{}answer {old} became {new}", call_prefix(call))
            }
            Change::Thinking { call, similarity } => write!(
                f,
                "{}thinking reworded ({similarity}% similar), the answer the same",
                call_prefix(call)
            ),
            Change::OutputShape { call, old, new } => write!(
                f,
                "{}structured output shape {} -> {}",
                call_prefix(call),
                old.as_deref().unwrap_or("(not JSON)"),
                new.as_deref().unwrap_or("(not JSON)")
            ),
            Change::Text {
                call,
                similarity,
                old,
                new,
            } => write!(
                f,
                "{}text reworded ({similarity}% similar): \"{old}\" -> \"{new}\"",
                call_prefix(call)
            ),
            Change::Model { call, old, new } => write!(
                f,
                "{}model {} -> {}",
                call_prefix(call),
                or_none(old.as_ref()),
                or_none(new.as_ref())
            ),
            Change::Usage {
                old,
                new,
                input_percent,
                output_percent,
            } => {
                let show = |v: Option<u64>| v.map_or_else(|| "?".to_owned(), |v| v.to_string());
                let mut parts = Vec::new();
                for (label, o, n, pct) in [
                    ("input", old.input, new.input, *input_percent),
                    ("output", old.output, new.output, *output_percent),
                    ("cache read", old.cache_read, new.cache_read, None),
                    ("cache write", old.cache_write, new.cache_write, None),
                ] {
                    if o != n {
                        parts.push(format!(
                            "{label} {} -> {}{}",
                            show(o),
                            show(n),
                            percent(pct)
                        ));
                    }
                }
                write!(f, "usage: {}", parts.join(", "))
            }
            Change::Request {
                call,
                message,
                old_messages,
                new_messages,
                system,
            } if !call.is_empty() => {
                match (system, message) {
                    (true, 0) => write!(f, "{call}: system prompt changed")?,
                    (true, n) => write!(f, "{call}: request message {n} changed")?,
                    (false, n) => write!(f, "{call}: request message {} changed", n + 1)?,
                }
                if old_messages != new_messages {
                    write!(f, " ({new_messages} messages, was {old_messages})")?;
                }
                Ok(())
            }
            Change::Request {
                message,
                old_messages,
                new_messages,
                ..
            } => {
                write!(f, "request: input[{message}] changed")?;
                if old_messages != new_messages {
                    write!(f, " ({new_messages} messages, was {old_messages})")?;
                }
                Ok(())
            }
            Change::TokenCount { old, new } => {
                let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "null".to_owned());
                write!(f, "token count {} -> {}", show(old), show(new))?;
                let number = |v: &Option<String>| v.as_deref().and_then(|v| v.parse::<f64>().ok());
                if let (Some(o), Some(n)) = (number(old), number(new))
                    && o != 0.0
                {
                    write!(f, "{}", percent(Some((n - o) / o * 100.0)))?;
                }
                Ok(())
            }
            Change::InteractionAdded {
                summary, plumbing, ..
            } => {
                write!(f, "interaction added: {summary}{}", plumbing_note(*plumbing))
            }
            Change::InteractionRemoved {
                summary, plumbing, ..
            } => {
                write!(f, "interaction removed: {summary}{}", plumbing_note(*plumbing))
            }
            Change::Status { call, old, new } => {
                let show = |s: &Option<u16>| {
                    s.map_or_else(|| "(no response)".to_owned(), |s| s.to_string())
                };
                write!(f, "{call}: status {} -> {}", show(old), show(new))
            }
            Change::Url {
                call,
                old,
                new,
                same_answer,
                ..
            } => {
                write!(f, "{call}: URL {old} -> {new}")?;
                if *same_answer {
                    f.write_str(" (answered alike)")?;
                }
                Ok(())
            }
            Change::Origin { old, new, requests } => write!(
                f,
                "server {old} -> {new} ({requests} request{})",
                if *requests == 1 { "" } else { "s" }
            ),
            Change::BodyShape {
                call,
                side,
                old,
                new,
                plumbing,
                drift,
            } => write!(
                f,
                "{call}: {side} body shape {} -> {}{}{}",
                shorten(old, SHAPE_EXCERPT),
                shorten(new, SHAPE_EXCERPT),
                if *drift {
                    " (keys added, the request the same: the API's responses grew)"
                } else {
                    ""
                },
                plumbing_note(*plumbing)
            ),
            Change::Reordered { moves } => {
                write!(f, "interactions reordered: {}", moves.join(", "))
            }
            Change::Other => f.write_str(
                "values changed (ids, timestamps, data or formatting); the shapes and the calls did not",
            ),
        }
    }
}

/// Longest text excerpt in a [`Change::Text`].
const EXCERPT: usize = 60;

/// Longest body shape shown in a [`Change::BodyShape`] sentence (the JSON document has it
/// whole, up to the summary's own bound).
const SHAPE_EXCERPT: usize = 160;

/// The changes from `old` to `new`, most important first. Empty when the behaviours are
/// equal (the caller tells `identical` from `same behaviour` by the contents).
pub fn compare(old: &Behaviour, new: &Behaviour) -> Vec<Change> {
    let mut changes = Vec::new();
    if old.sessions != new.sessions {
        changes.push(Change::Sessions {
            old: old.sessions.clone(),
            new: new.sessions.clone(),
        });
    }
    if old.calls.len() != new.calls.len() {
        changes.push(Change::Calls {
            old: old.calls.len(),
            new: new.calls.len(),
        });
    }
    // HTTP cassettes pair their interactions by request; everything else by position.
    let http =
        (old.kind == Kind::Http && new.kind == Kind::Http).then(|| super::http::compare(old, new));
    let call_pairs: Vec<(usize, usize)> = match &http {
        Some(http) => {
            changes.extend(http.behaviour.iter().cloned());
            http.calls.clone()
        }
        None => (0..old.calls.len().min(new.calls.len()))
            .map(|i| (i, i))
            .collect(),
    };
    let mut behaviour = Vec::new();
    let mut wording = Vec::new();
    let mut models = Vec::new();
    for (o, n) in call_pairs {
        compare_call(
            &old.calls[o],
            &new.calls[n],
            &mut behaviour,
            &mut wording,
            &mut models,
        );
    }
    changes.extend(behaviour);
    changes.extend(wording);
    changes.extend(models);
    if let Some(http) = http {
        changes.extend(http.other);
    }
    if old.token_count != new.token_count {
        changes.push(Change::TokenCount {
            old: old.token_count.clone(),
            new: new.token_count.clone(),
        });
    }
    changes.extend(request_change(
        first_difference(old, new),
        old.request.len(),
        new.request.len(),
    ));
    changes.extend(usage_change(old.usage(), new.usage()));
    changes
}

/// The [`Change::Request`] for the first request message that differs, if any.
fn request_change(
    first: Option<usize>,
    old_messages: usize,
    new_messages: usize,
) -> Option<Change> {
    first.map(|message| Change::Request {
        call: String::new(),
        message,
        old_messages,
        new_messages,
        system: false,
    })
}

/// The [`Change::Usage`] for two usage totals, when they differ.
fn usage_change(old: Usage, new: Usage) -> Option<Change> {
    if old == new {
        return None;
    }
    let pct = |o: Option<u64>, n: Option<u64>| match (o, n) {
        (Some(o), Some(n)) if o > 0 => Some((n as f64 - o as f64) / o as f64 * 100.0),
        _ => None,
    };
    Some(Change::Usage {
        old,
        new,
        input_percent: pct(old.input, new.input),
        output_percent: pct(old.output, new.output),
    })
}

/// [`compare`] fed a call at a time (issue 12): a dsh scenario's scripts are derived line
/// by line on both sides and compared in lockstep, and what this keeps is the changes found
/// (what the report shows), the call counts and usage totals, and the request hashes of
/// the side that is ahead until the first that differs. The changes come out in
/// [`compare`]'s order for the same calls and requests.
#[derive(Debug, Default)]
pub(super) struct CallByCall {
    behaviour: Vec<Change>,
    wording: Vec<Change>,
    models: Vec<Change>,
    calls: (usize, usize),
    usage: (Usage, Usage),
    requests: RequestHashes,
}

impl CallByCall {
    /// The next call of each side, compared.
    pub(super) fn pair(&mut self, old: &ModelCall, new: &ModelCall) {
        compare_call(
            old,
            new,
            &mut self.behaviour,
            &mut self.wording,
            &mut self.models,
        );
        self.old_only(old);
        self.new_only(new);
    }

    /// A call of the old side past the new side's last.
    pub(super) fn old_only(&mut self, old: &ModelCall) {
        self.calls.0 += 1;
        self.usage.0 = self.usage.0 + old.usage;
    }

    /// A call of the new side past the old side's last.
    pub(super) fn new_only(&mut self, new: &ModelCall) {
        self.calls.1 += 1;
        self.usage.1 = self.usage.1 + new.usage;
    }

    /// The next request message hash of the old (`old`) or the new side.
    pub(super) fn request(&mut self, old: bool, hash: String) {
        self.requests.push(old, hash);
    }

    /// The changes, as [`compare`] lists them for two dsh behaviours with these sessions.
    pub(super) fn finish(self, old_sessions: &[String], new_sessions: &[String]) -> Vec<Change> {
        let mut changes = Vec::new();
        if old_sessions != new_sessions {
            changes.push(Change::Sessions {
                old: old_sessions.to_vec(),
                new: new_sessions.to_vec(),
            });
        }
        if self.calls.0 != self.calls.1 {
            changes.push(Change::Calls {
                old: self.calls.0,
                new: self.calls.1,
            });
        }
        changes.extend(self.behaviour);
        changes.extend(self.wording);
        changes.extend(self.models);
        let requests = &self.requests;
        changes.extend(request_change(
            requests.first_difference(),
            requests.len.0,
            requests.len.1,
        ));
        changes.extend(usage_change(self.usage.0, self.usage.1));
        changes
    }
}

/// The request message hashes of two sides arriving at their own pace: only those of the
/// side ahead are kept, and none once two differ (then only the counts matter).
#[derive(Debug, Default)]
struct RequestHashes {
    ahead: std::collections::VecDeque<String>,
    /// Whether `ahead` holds the old side's hashes.
    ahead_old: bool,
    len: (usize, usize),
    shared: usize,
    differ: bool,
}

impl RequestHashes {
    fn push(&mut self, old: bool, hash: String) {
        if old {
            self.len.0 += 1;
        } else {
            self.len.1 += 1;
        }
        if self.differ {
            return;
        }
        if self.ahead.is_empty() || self.ahead_old == old {
            self.ahead_old = old;
            self.ahead.push_back(hash);
        } else if self.ahead.pop_front() == Some(hash) {
            self.shared += 1;
        } else {
            self.differ = true;
            self.ahead = std::collections::VecDeque::new();
        }
    }

    /// [`first_difference`] of the hashes pushed.
    fn first_difference(&self) -> Option<usize> {
        (self.shared < self.len.0.max(self.len.1)).then_some(self.shared)
    }
}

/// The first request message whose hash differs, if any.
fn first_difference(old: &Behaviour, new: &Behaviour) -> Option<usize> {
    let shared = old
        .request
        .iter()
        .zip(&new.request)
        .take_while(|(o, n)| o.hash == n.hash)
        .count();
    (shared < old.request.len().max(new.request.len())).then_some(shared)
}

fn compare_call(
    old: &ModelCall,
    new: &ModelCall,
    behaviour: &mut Vec<Change>,
    wording: &mut Vec<Change>,
    models: &mut Vec<Change>,
) {
    let call = new.label.clone();
    let (old_tools, new_tools) = (old.tool_sequence(), new.tool_sequence());
    if old_tools != new_tools {
        behaviour.push(Change::ToolCalls {
            call: call.clone(),
            old: old_tools,
            new: new_tools,
        });
    } else {
        for (o, n) in old.tools.iter().zip(&new.tools) {
            if o.input == n.input {
                continue;
            }
            let mut arguments: Vec<String> = Vec::new();
            for (name, value) in &n.arguments {
                let before = o.arguments.iter().find(|(k, _)| k == name).map(|(_, v)| v);
                if before != Some(value) {
                    arguments.push(name.clone());
                }
            }
            for (name, _) in &o.arguments {
                if !n.arguments.iter().any(|(k, _)| k == name) {
                    arguments.push(name.clone());
                }
            }
            if arguments.is_empty() {
                arguments.push("(order)".to_owned());
            }
            behaviour.push(Change::ToolArguments {
                call: call.clone(),
                tool: n.signature(),
                arguments,
            });
        }
    }
    if old.stop_reason != new.stop_reason {
        behaviour.push(Change::StopReason {
            call: call.clone(),
            old: old.stop_reason.clone(),
            new: new.stop_reason.clone(),
        });
    }
    let (old_shape, new_shape) = (output_shape(old), output_shape(new));
    if old_shape != new_shape {
        behaviour.push(Change::OutputShape {
            call: call.clone(),
            old: old_shape,
            new: new_shape,
        });
    }
    // Without tool calls on either side (a change of those is told above), text that
    // appeared or vanished is an answer that did. A blank answer is an answer all the same
    // (a one-token generation that wrote a space, then `=`): only no text at all is none.
    let answered = |c: &ModelCall| !c.text.is_empty();
    if old.tools.is_empty() && new.tools.is_empty() && answered(old) != answered(new) {
        let line = |c: &ModelCall| {
            if answered(c) {
                format!("\"{}\"", shorten(&c.text, EXCERPT))
            } else {
                NOTHING.to_owned()
            }
        };
        behaviour.push(Change::Output {
            call: call.clone(),
            old: line(old),
            new: line(new),
        });
    } else if old.text.split_whitespace().ne(new.text.split_whitespace()) {
        // Text that differs only in whitespace is formatting, not rewording (it read as "0%
        // similar").
        wording.push(Change::Text {
            call: call.clone(),
            similarity: similarity(&old.text, &new.text),
            old: shorten(&old.text, EXCERPT),
            new: shorten(&new.text, EXCERPT),
        });
    } else if old
        .thinking
        .split_whitespace()
        .ne(new.thinking.split_whitespace())
    {
        // The same answer reached by other thoughts: the model's words changed all the same.
        wording.push(Change::Thinking {
            call: call.clone(),
            similarity: similarity(&old.thinking, &new.thinking),
        });
    }
    if old.model != new.model {
        models.push(Change::Model {
            call,
            old: old.model.clone(),
            new: new.model.clone(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::behaviour::ToolUse;

    fn tool(name: &str, key: &str, input: &str) -> ToolUse {
        ToolUse {
            name: name.to_owned(),
            key: Some(key.to_owned()),
            input: input.to_owned(),
            arguments: vec![("x".to_owned(), input.to_owned())],
        }
    }

    fn behaviour(calls: Vec<ModelCall>) -> Behaviour {
        Behaviour {
            kind: Kind::ClaudeCode,
            request: Vec::new(),
            calls,
            sessions: Vec::new(),
            token_count: None,
            format: None,
            exchanges: Vec::new(),
        }
    }

    #[test]
    fn verdicts_rank_tool_calls_above_text_above_usage() {
        let base = ModelCall {
            text: "I will read it.".to_owned(),
            tools: vec![tool("Read", "a.ts", "1")],
            stop_reason: Some("tool_use".to_owned()),
            ..ModelCall::default()
        };
        let mut reworded = base.clone();
        reworded.text = "Let me read it.".to_owned();
        reworded.usage.output = Some(3);
        let changes = compare(&behaviour(vec![base.clone()]), &behaviour(vec![reworded]));
        let worst = changes.iter().map(Change::verdict).max();
        assert_eq!(worst, Some(Verdict::Reworded), "{changes:?}");

        let mut other_tool = base.clone();
        other_tool.tools = vec![tool("Bash", "npm test", "2")];
        let changes = compare(&behaviour(vec![base.clone()]), &behaviour(vec![other_tool]));
        assert_eq!(
            changes[0].to_string(),
            "tool calls `Read(a.ts)` became `Bash(npm test)`"
        );
        assert_eq!(changes[0].verdict(), Verdict::BehaviourChange);

        let mut other_args = base.clone();
        other_args.tools = vec![tool("Read", "a.ts", "3")];
        let changes = compare(&behaviour(vec![base.clone()]), &behaviour(vec![other_args]));
        assert_eq!(changes[0].to_string(), "Read(a.ts): arguments changed (x)");

        assert!(compare(&behaviour(vec![base.clone()]), &behaviour(vec![base])).is_empty());
    }

    /// A JSON answer that only gained or lost a Markdown code fence is reworded, not a shape
    /// change; JSON of other keys, fenced or not, is (issue 42).
    #[test]
    fn a_code_fence_around_json_is_text_not_shape() {
        let answer = |text: &str| ModelCall {
            text: text.to_owned(),
            stop_reason: Some("stop".to_owned()),
            ..ModelCall::default()
        };
        let worst = |old: &str, new: &str| {
            compare(&behaviour(vec![answer(old)]), &behaviour(vec![answer(new)]))
                .iter()
                .map(Change::verdict)
                .max()
        };
        let plain = "{\"output\": [\"a\", \"b\"]}";
        let fenced = "```json\n{\"output\": [\"a\", \"b\"]}\n```";
        assert_eq!(worst(plain, fenced), Some(Verdict::Reworded));
        assert_eq!(worst(fenced, plain), Some(Verdict::Reworded));
        assert_eq!(
            worst(plain, "```\n{\"output\": [\"c\"]}\n```"),
            Some(Verdict::Reworded)
        );
        assert_eq!(
            worst(plain, "```json\n{\"items\": [\"a\"]}\n```"),
            Some(Verdict::BehaviourChange)
        );
    }
}
