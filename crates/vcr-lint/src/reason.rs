//! What the leak judge says of a candidate: why a hit was judged real (shown by `verify -v`
//! and in JSON as a finding's `reason`), or what rejected it (shown by `verify --explain`).
//! One list, so a rule and its explanation are written once and every output agrees.

// Why a candidate was judged real.

/// A token found by its shape.
pub(super) const TOKEN: &str = "it has the key's shape (prefix, length, alphabet), and no mark of a placeholder: no marker word such as FAKE or EXAMPLE standing alone, no run of one character, enough distinct characters to be random";
/// A JWT.
pub(super) const JWT: &str =
    "a JWT whose claims are not made up (its subject and name are not test words)";
/// A PEM private key.
pub(super) const PRIVATE_KEY: &str =
    "a private key block whose body is key material, not a placeholder";
/// A URL's password.
pub(super) const URL_PASSWORD: &str =
    "the password of a URL's user-info, neither a placeholder nor the user's name";
/// A value after a key that names a credential, in text.
pub(super) const AFTER_A_KEY: &str = "the value of a key that names a credential, written as one (quoted, in an assignment, or shaped like a token), and none of: a placeholder, test words, a program's name for a secret, a key public by design";
/// A value in a header that carries credentials.
pub(super) const NAMED_HEADER: &str = "the value of a header that carries a credential (`Authorization`, an API key header, a session cookie), and none of: a placeholder, test words, a made-up JWT or Basic account, a program's name for a secret, a key public by design";
/// A value of a query parameter named for a credential.
pub(super) const NAMED_PARAMETER: &str = "the value of a query parameter named for a credential (`key`, `token`, a signature), and none of: a placeholder, test words, a made-up JWT, a program's name for a secret, a key public by design";
/// A value of a field named for a credential.
pub(super) const NAMED_FIELD: &str = "the value of a field named for a credential (`password`, `client_secret`, `access_token`), and none of: a placeholder, test words, a made-up JWT or Basic account, a program's name for a secret, a key public by design";
/// The access key id of an AWS signature.
pub(super) const SIGV4: &str =
    "the access key id an AWS Signature V4 names, which identifies the account; not a placeholder";
/// A user's home folder.
pub(super) const HOME: &str =
    "a user's home folder, and the user is not a made-up one (user, me, runner, $USER)";
/// `/root`.
pub(super) const ROOT_HOME: &str = "the root user's home folder";
/// A temporary folder.
pub(super) const TEMPORARY: &str =
    "a temporary folder: its name is made per run, so a replay that compares it fails";
/// A path of this machine.
pub(super) const MACHINE: &str =
    "a path of this machine (its working directory, home or configuration home)";
/// A UUID.
pub(super) const UUID: &str =
    "a random-looking UUID: not a documented example, and more than three distinct digits";
/// A timestamp.
pub(super) const TIMESTAMP: &str = "a valid date and time";
/// An e-mail address.
pub(super) const EMAIL: &str =
    "an address on a top-level domain of the DNS root, not an example, test or no-reply address";

// What rejected a candidate.

/// The candidate is part of a longer word or token.
pub(super) const INSIDE_A_WORD: &str = "part of a longer word or token";
/// The candidate is part of a longer number.
pub(super) const INSIDE_A_NUMBER: &str = "part of a longer number";
/// The candidate starts inside an escape (`\n`).
pub(super) const INSIDE_AN_ESCAPE: &str = "it starts inside an escape sequence such as `\\n`";
/// A path inside a longer path or word.
pub(super) const INSIDE_A_PATH: &str = "part of a longer path or word";
/// A placeholder token.
pub(super) const PLACEHOLDER_TOKEN: &str = "a placeholder token (redacted with `***` or `...`, a marker such as FAKE, EXAMPLE or XXXX standing as a word, padding, or too few distinct characters to be random)";
/// A placeholder value.
pub(super) const PLACEHOLDER: &str = "a placeholder (wrapped, marked with a word such as REDACTED or YOUR standing as a word, one repeated character, fake words, or an environment variable's name)";
/// A JWT that names no one it is for: a signed statement.
pub(super) const STATEMENT_JWT: &str = "a JWT whose claims name no audience, subject, scope, client or user: a signed statement (an attestation's report, a proof's nonce), no bearer credential";
/// A JWT with made-up claims.
pub(super) const FAKE_JWT: &str =
    "a JWT whose claims are made up (its subject or, without an issuer, its name is test words)";
/// A PEM block with a placeholder body.
pub(super) const REDACTED_PEM: &str = "a PEM block whose body is a placeholder";
/// A URL without a password.
pub(super) const NO_PASSWORD: &str = "the URL's user-info holds no password";
/// A session cookie sent back after a server set it while no request the cassette holds
/// carried a credential: a visit's, unless the project's recorder removes the requests'
/// credentials before they are written (see [`crate::http::SESSION_OF_REMOVED_LOGIN`]).
pub const SESSION_OF_REMOVED_LOGIN: &str = "a session cookie the client sent back, set in answer to requests whose credentials the project's recorder removes before writing them (`filter_headers`): the requests signed in, and the session is theirs";
/// A URL whose user-info holds a character reference of markup (`&quot;`, `&#39;`, `&lt;`):
/// the URL ended where that character stands, and what follows is the page's text.
pub(super) const ESCAPED_URL_END: &str =
    "the URL ends at an escaped quote or bracket of markup (`&quot;`): no user-info follows";
/// A URL whose password is the user's name.
pub(super) const PASSWORD_IS_USER: &str = "the URL's password is its user's name";
/// A URL whose password is a placeholder.
pub(super) const PLACEHOLDER_PASSWORD: &str = "the URL's password is a placeholder";
/// A home folder without a user.
pub(super) const NO_USER: &str = "a home folder path with no user's name in it";
/// A made-up user.
pub(super) const PLACEHOLDER_USER: &str =
    "a home folder of a made-up user (user, me, runner, $USER)";
/// Not `/root`.
pub(super) const NOT_ROOT_HOME: &str =
    "not the root user's home (`/rootfs`, `/root.txt`, `</root>`)";
/// A made-up UUID.
pub(super) const MADE_UP_UUID: &str =
    "a documented example or a made-up UUID (three distinct digits or fewer)";
/// Not a date.
pub(super) const NO_DATE: &str = "not a valid date and time";
/// A made-up address.
pub(super) const MADE_UP_EMAIL: &str = "a made-up address (an example, test or no-reply address, a file name, or a domain the DNS root does not hold)";
/// No value after a key.
pub(super) const NO_VALUE: &str = "no value follows the key";
/// The key is part of a longer name.
pub(super) const KEY_INSIDE_A_NAME: &str =
    "the key is part of a longer name (`my_password`), or starts inside an escape";
/// Empty.
pub(super) const EMPTY: &str = "empty";
/// Too short.
pub(super) const TOO_SHORT: &str = "too short to be a credential";
/// A made-up Basic account.
pub(super) const FAKE_BASIC: &str =
    "an HTTP Basic account made up for a test (its password is test words or a placeholder)";
/// A public key.
pub(super) const PUBLIC_KEY: &str = "a key public by design (a publishable or browser client key)";
/// A program's name for a secret.
pub(super) const REFERENCE: &str = "a program's name for a secret, not its value";
/// Test words.
pub(super) const TEST_WORDS: &str =
    "test words (glued, in leetspeak, alphabet runs, behind a vendor's prefix)";
/// `token` naming a token of text.
pub(super) const TEXT_TOKEN: &str = "a `token` that is not shaped like one (token characters, and 16 or more of them or 48 bits of entropy: 12 hex digits, 9 letters of both cases and digits): a token of text";
/// A value made of the words of the name that holds it.
pub(super) const SELF_DESCRIBING: &str = "the value describes itself: every piece of it is a word of the name that holds it or of its scheme (`SESSIONID` under `TNS_SESSIONID`, `DPoP myDPoPToken`), or a number";
/// A value made of English words.
pub(super) const TYPED_WORDS: &str = "words a person typed: every piece of it (split at symbols, case changes and digits) is an English word of the embedded word list, a word of its name, or a number (`myAPIToken`, `test-refresh-token`, `correcthorsebatterystaple`); random keys split into pieces of one or two letters";
/// A bare word in prose.
pub(super) const PROSE: &str =
    "a bare word after the key in prose, not quoted, not an assignment and not shaped like a token";
/// A short query value.
pub(super) const SHORT_QUERY: &str = "shorter than 8 characters in a query";
/// A UUID with a password rule's characters after it.
pub(super) const ID_MADE_PASSWORD: &str = "a UUID with the few characters a password rule asks for after it (`<uuid>Tt!`): a password a test made up for an account it creates";
/// A random segment of a URL's path beside a word that says ticket, reset, verify.
pub(super) const TICKET_PATH: &str = "a random segment of a URL's path beside a word that says it is a one-time secret (a ticket, an invitation, a reset, verification or activation link), above the floor of 64 bits; not a UUID";

/// A credential its vendor publishes as an example.
pub(super) const KNOWN_EXAMPLE: &str = "a credential its vendor publishes in its documentation as an example (AWS's `wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`, Stripe's sample test key), as written, percent-encoded, JSON-escaped or in a layer the judge decodes";

/// A body the decoding did not inflate whole.
pub(super) const TOO_LARGE_TO_SCAN: &str = "it decompresses past 100 times its recorded size (or 64 MiB), which no real body does: the zip-bomb guard of the body decoding stops there, and what it holds was not read";

/// A body whose hidden layers inflated to their cap.
pub(super) const HIDDEN_TOO_LARGE: &str = "gzip inside a layer it encodes (base64 in a JSON string) inflates past 8 MiB: the zip-bomb guard of the hidden layers stops there, and what lies past it was not read";

/// A URL with no user-info under a credential's name.
pub(super) const OAUTH1_SIGNED: &str = "an OAuth 1.0 signature: a consumer key and a token, identifiers the protocol sends in the clear, and a signature for one request (its nonce and time); the shared secrets that sign are never sent";
pub(super) const PLAIN_URL: &str = "a URL with no user-info: a service's address, not a credential (the credentials a URL can carry, in its user-info or its query, are judged where they stand)";

/// A value without letters.
pub(super) const NO_LETTERS: &str = "no letters, not a number alone, and below 48 bits (`0:-1#13`: a session's log position, a sequence): no key or token is written so; a password or PIN name keeps it";

/// One English word under a name that is no password's.
pub(super) const ONE_WORD: &str = "one English word in lower case (`safe`, a filter's replacement): no key or token is one; a password's name keeps it";
