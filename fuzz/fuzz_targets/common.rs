//! Shared by the targets that run user regexes.

/// Lets panics on `vcr`'s regex worker threads pass: `vcr` catches them and reports the
/// pattern's engine as failed (`js_regex::Stopped::Failed`), so they are not crashes of
/// `vcr`. libFuzzer's hook aborts on every other panic, as before.
pub fn tolerate_caught_regex_panics() {
    let abort = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().name() != Some("vcr-regex") {
            abort(info);
        }
    }));
}
