//! Every text of an HTTP cassette at the readable path its findings carry, with the judgement
//! its name calls for: what `vcr verify --explain FILE#POINTER` explains where no finding is.
//! The judgement by name is the one [`super::collect`] applies; what the rest of the
//! cassette adds (a page or cookie served to a request that carried no credential is
//! public) is not weighed here, and the explanation says so.

use crate::credential;
use vcr_cassette::http::HttpCassette;

use super::{
    CREDENTIAL_HEADERS, CREDENTIAL_PARAMETERS, credential_field_name, each_leaf, header_path,
    is_one_of, is_session_credential, leaf_path,
};

/// One text of a cassette.
#[derive(Debug)]
pub struct Place {
    /// Its readable path: `interactions[0].request.headers.Authorization[0]`.
    pub path: String,
    /// The text (a header's value, a query parameter's or a body leaf's, a URL).
    pub text: String,
    /// The header, cookie, parameter or field that names it, when it is a credential's name;
    /// with the judge's verdict on the value there: why it is one, or why not.
    pub by_name: Option<(String, Result<&'static str, &'static str>)>,
}

/// The texts of `cassette`, in file order.
pub fn places(cassette: &HttpCassette) -> Vec<Place> {
    let mut out = Vec::new();
    let mut push = |path: String, text: &str, by_name: Option<(&str, &'static str, usize)>| {
        let by_name = by_name.map(|(name, detector, min)| {
            let verdict = credential::named(detector, name, text, min).map(|hit| hit.reason);
            (name.to_owned(), verdict)
        });
        out.push(Place {
            path,
            text: text.to_owned(),
            by_name,
        });
    };
    for interaction in &cassette.interactions {
        let url = &interaction.request.url;
        push(url.path.clone(), &url.text, None);
        for (name, value) in super::url::query_pairs(&url.text) {
            let name = vcr_cassette::http::body::percent_decode(name);
            let value = vcr_cassette::http::body::percent_decode(value);
            let rule = is_one_of(&name, CREDENTIAL_PARAMETERS).then_some((
                name.as_str(),
                "credential-parameter",
                8,
            ));
            push(format!("{} ?{name}", url.path), &value, rule);
        }
        let mut sides = vec![(
            &interaction.request.headers,
            interaction.request.body.as_ref(),
        )];
        if let Some(response) = &interaction.response {
            sides.push((&response.headers, response.body.as_ref()));
        }
        for (headers, body) in sides {
            for header in headers {
                let (name, value) = (header.name.as_str(), &header.value);
                let path = header_path(&value.path, name);
                let rule =
                    is_one_of(name, CREDENTIAL_HEADERS).then_some((name, "credential-header", 4));
                push(path.clone(), &value.text, rule);
                if name.eq_ignore_ascii_case("cookie") || name.eq_ignore_ascii_case("set-cookie") {
                    for cookie in value.text.split(';') {
                        let Some((cookie_name, cookie_value)) = cookie.trim().split_once('=')
                        else {
                            continue;
                        };
                        let cookie_value = vcr_cassette::http::body::percent_decode(cookie_value);
                        let rule = is_session_credential(cookie_name, &cookie_value).then_some((
                            cookie_name,
                            "credential-header",
                            8,
                        ));
                        push(format!("{path} cookie {cookie_name}"), &cookie_value, rule);
                    }
                }
            }
            if let Some(body) = body {
                each_leaf(body, headers, &mut |leaf, base, described| {
                    let rule =
                        credential_field_name(leaf).map(|name| (name, "credential-field", 4));
                    let path = leaf_path(base, described, leaf.path);
                    let path = if leaf.is_key {
                        format!("{path} (key)")
                    } else {
                        path
                    };
                    push(path, leaf.text, rule);
                });
            }
        }
    }
    out
}
