//! The table of LLM APIs (issue 40): each API is one [`Api`] value declared by its
//! provider's module (how it is told apart, read, and where its request keeps its messages),
//! and [`APIS`](crate::APIS) lists them in the order they are tried. Adding a provider is a
//! module that declares its `Api` and a line in that list; nothing else matches on
//! providers.

use std::cell::OnceCell;

use vcr_json::{Object, Value};

use crate::{ModelCall, Payload};

/// One LLM API: what tells it apart and how its calls are read.
pub struct Api {
    /// Its stable id (kebab-case), what [`Provider`] serializes as.
    pub(crate) id: &'static str,
    /// How a summary names it.
    pub(crate) name: &'static str,
    /// The API a call's URL path says (tried for every API in table order before any
    /// shape): usually this one, sometimes another (IBM's chat path answering in OpenAI's
    /// words, Bedrock's InvokeModel of Claude answering in Anthropic's).
    pub(crate) by_path: fn(&Ask<'_>) -> Option<Provider>,
    /// Whether the bodies are this API's when the path says none (behind a proxy or a
    /// gateway).
    pub(crate) by_shape: fn(&Ask<'_>) -> bool,
    /// The model call the response holds; `path` is the URL's path.
    pub(crate) read: fn(payload: &Payload<'_>, path: &str) -> ModelCall,
    /// Where the request keeps its messages.
    pub(crate) messages: fn(&Object<'_>) -> Keys,
}

/// Where a request keeps its messages: the system instructions' key, the list's (or a
/// prompt's) key, and a key that holds this turn's message apart from the list (Cohere v1's
/// `message`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Keys {
    pub(crate) system: &'static str,
    pub(crate) list: &'static str,
    pub(crate) turn: Option<&'static str>,
}

impl Keys {
    /// A system key and a list key, no separate turn.
    pub(crate) const fn new(system: &'static str, list: &'static str) -> Keys {
        Keys {
            system,
            list,
            turn: None,
        }
    }
}

/// An interaction as the table asks about it: its path (without a trailing `/`), its
/// request body's object, its payload, and the payload's objects, read once when first
/// asked.
pub(crate) struct Ask<'a> {
    pub(crate) path: &'a str,
    pub(crate) request: Option<&'a Object<'a>>,
    pub(crate) payload: &'a Payload<'a>,
    objects: OnceCell<Vec<&'a Object<'static>>>,
}

impl<'a> Ask<'a> {
    pub(crate) fn new(
        path: &'a str,
        request: Option<&'a Object<'a>>,
        payload: &'a Payload<'a>,
    ) -> Ask<'a> {
        Ask {
            path,
            request,
            payload,
            objects: OnceCell::new(),
        }
    }

    /// Whether the request body has `key`.
    pub(crate) fn has(&self, key: &str) -> bool {
        self.request.is_some_and(|r| r.contains_key(key))
    }

    /// The payload's objects (one document, or each event's data).
    pub(crate) fn objects(&self) -> &[&'a Object<'static>] {
        self.objects.get_or_init(|| self.payload.objects())
    }

    /// The payload's first object.
    pub(crate) fn first(&self) -> Option<&'a Object<'static>> {
        self.objects().first().copied()
    }

    /// A string field of the payload's first object.
    pub(crate) fn field(&self, key: &str) -> Option<&'a str> {
        self.first()
            .and_then(|o| o.get(key))
            .and_then(Value::as_str)
    }

    /// Whether the path ends with any of `ends`.
    pub(crate) fn path_ends(&self, ends: &[&str]) -> bool {
        ends.iter().any(|e| self.path.ends_with(e))
    }
}

/// The LLM API an interaction calls: a handle on its [`Api`], compared by id.
#[derive(Clone, Copy)]
pub struct Provider(pub(crate) &'static Api);

impl Provider {
    /// How the summary names the API.
    pub fn name(self) -> &'static str {
        self.0.name
    }

    /// Its stable id (kebab-case: `open-ai-chat`, `anthropic`).
    pub fn id(self) -> &'static str {
        self.0.id
    }
}

impl PartialEq for Provider {
    fn eq(&self, other: &Provider) -> bool {
        self.0.id == other.0.id
    }
}

impl Eq for Provider {}

impl std::fmt::Debug for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.id)
    }
}

impl serde::Serialize for Provider {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.0.id)
    }
}

/// For an API that no path names: never by path.
pub(crate) fn no_path(_: &Ask<'_>) -> Option<Provider> {
    None
}

/// For an API told only by its path: never by shape.
pub(crate) fn no_shape(_: &Ask<'_>) -> bool {
    false
}
