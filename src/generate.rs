//! What `vcr --generate` prints for packagers (ripgrep's convention): the man page and the
//! shell completions, from the clap definition. The files in `man/` and `completions/` come
//! from the same functions (the `generated` test keeps them current), so what a package
//! installs and what the repository ships cannot disagree.
//!
//! clap_mangen writes NAME, SYNOPSIS, DESCRIPTION, OPTIONS, SUBCOMMANDS and VERSION. Its
//! synopsis drops the value names (`[--format]` for `--format <FORMAT>`), so the synopsis is
//! written here, and so are the sections a man page is expected to have and clap knows
//! nothing of: EXIT STATUS, ENVIRONMENT, FILES, EXAMPLES, SEE ALSO.

use clap::{ArgAction, CommandFactory};
use clap_complete::Shell;
use roff::{Roff, bold, italic, roman};

use crate::cli::{Cli, Generate};

/// The text `vcr --generate WHAT` prints.
pub(crate) fn generate(what: Generate) -> Vec<u8> {
    match what {
        Generate::Man => man_page(&built()),
        Generate::CompleteBash => completion(Shell::Bash),
        Generate::CompleteZsh => completion(Shell::Zsh),
        Generate::CompleteFish => completion(Shell::Fish),
        Generate::CompletePowershell => completion(Shell::PowerShell),
    }
}

/// A shell's completion script.
pub(crate) fn completion(shell: Shell) -> Vec<u8> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "vcr", &mut out);
    out
}

/// The man page of the subcommand `name` (`vcr --generate man verify`), vcr-verify(1): a
/// user who installed the binary alone (a wheel, an archive) writes every page with it.
pub(crate) fn man_page_of(name: &str) -> Vec<u8> {
    let cmd = built();
    match cmd.find_subcommand(name) {
        Some(sub) => man_page(sub),
        None => man_page(&cmd),
    }
}

/// Every man page with its file name: `vcr.1`, then one per subcommand (`vcr-verify.1`...).
#[cfg(test)]
pub(crate) fn man_pages() -> Vec<(String, Vec<u8>)> {
    let cmd = built();
    let mut pages = vec![("vcr.1".to_owned(), man_page(&cmd))];
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        pages.push((format!("vcr-{}.1", sub.get_name()), man_page(sub)));
    }
    pages
}

/// The command as the man pages describe it: built (subcommands know their full name and
/// the global options), without the `help` subcommand.
fn built() -> clap::Command {
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    cmd
}

/// One page: clap_mangen's, with this module's synopsis and sections.
fn man_page(cmd: &clap::Command) -> Vec<u8> {
    let mut page = Vec::new();
    clap_mangen::Man::new(cmd.clone())
        .render(&mut page)
        .expect("rendering to memory");
    let page = String::from_utf8(page).expect("man pages are UTF-8");
    let mut synopsis = Roff::new();
    synopsis.control("SH", ["SYNOPSIS"]);
    synopsis_lines(cmd, &mut synopsis);
    let page = replace_section(&page, "SYNOPSIS", &fragment(&synopsis));
    let extra = fragment(&sections(cmd));
    // After SUBCOMMANDS and OPTIONS, before VERSION.
    match page.find("\n.SH VERSION\n") {
        Some(at) => format!("{}\n{extra}{}", &page[..at], &page[at + 1..]),
        None => format!("{page}{extra}"),
    }
    .into_bytes()
}

/// Roff text without the preamble that every rendering starts with.
fn fragment(roff: &Roff) -> String {
    let preamble = Roff::new().render();
    let text = roff.render();
    text.strip_prefix(&preamble).unwrap_or(&text).to_owned()
}

/// `page` with the section `title` (up to the next `.SH`) replaced by `with`.
fn replace_section(page: &str, title: &str, with: &str) -> String {
    let header = format!(".SH {title}\n");
    let Some(start) = page.find(&header) else {
        return page.to_owned();
    };
    let end = page[start + header.len()..]
        .find("\n.SH ")
        .map_or(page.len(), |i| start + header.len() + i + 1);
    format!("{}{with}{}", &page[..start], &page[end..])
}

/// The synopsis, with value names: `vcr verify [--format <FORMAT>] ... [PATH]...`. An
/// exclusive option (`--generate`) gets a line of its own.
fn synopsis_lines(cmd: &clap::Command, roff: &mut Roff) {
    let name = cmd.get_bin_name().unwrap_or_else(|| cmd.get_name());
    let visible = || cmd.get_arguments().filter(|a| !a.is_hide_set());
    let mut line = vec![bold(name)];
    for arg in visible().filter(|a| !a.is_positional() && !a.is_exclusive_set()) {
        line.push(roman(" ["));
        line.extend(option_usage(arg));
        line.push(roman("]"));
        if matches!(arg.get_action(), ArgAction::Count | ArgAction::Append) {
            line.push(roman("..."));
        }
    }
    for arg in visible().filter(|a| a.is_positional()) {
        let value = arg
            .get_value_names()
            .map_or_else(|| arg.get_id().to_string(), |v| v.join(" "));
        let (open, close) = if arg.is_required_set() {
            ("<", ">")
        } else {
            ("[", "]")
        };
        line.push(roman(if arg.is_last_set() { " -- " } else { " " }));
        line.push(roman(open));
        line.push(italic(value));
        line.push(roman(close));
        if arg.get_num_args().is_some_and(|n| n.max_values() > 1) {
            line.push(roman("..."));
        }
    }
    if cmd.has_subcommands() {
        line.push(roman(" <"));
        line.push(italic("COMMAND"));
        line.push(roman(">"));
    }
    roff.text(line);
    for arg in visible().filter(|a| a.is_exclusive_set()) {
        roff.control("br", []);
        let mut line = vec![bold(name), roman(" ")];
        line.extend(option_usage(arg));
        roff.text(line);
    }
}

/// `-C <DIR>`, `--format <FORMAT>`, `-q|--quiet`.
fn option_usage(arg: &clap::Arg) -> Vec<roff::Inline> {
    let mut out = Vec::new();
    match (arg.get_short(), arg.get_long()) {
        (Some(short), Some(long)) => {
            out.push(bold(format!("-{short}")));
            out.push(roman("|"));
            out.push(bold(format!("--{long}")));
        }
        (Some(short), None) => out.push(bold(format!("-{short}"))),
        (None, Some(long)) => out.push(bold(format!("--{long}"))),
        (None, None) => {}
    }
    if arg.get_action().takes_values() {
        for value in arg.get_value_names().unwrap_or_default() {
            out.push(roman(" <"));
            out.push(italic(value.as_str()));
            out.push(roman(">"));
        }
    }
    out
}

/// EXIT STATUS, ENVIRONMENT, FILES, EXAMPLES and SEE ALSO of the page of `cmd`.
fn sections(cmd: &clap::Command) -> Roff {
    let mut roff = Roff::new();
    let sub = cmd.get_bin_name().and_then(|n| n.strip_prefix("vcr "));
    let content = match sub {
        Some(sub) => subcommand(sub),
        None => TOP,
    };
    tagged(&mut roff, "EXIT STATUS", content.exit);
    if sub.is_none() {
        tagged(&mut roff, "ENVIRONMENT", ENVIRONMENT);
        tagged(&mut roff, "FILES", FILES);
    }
    roff.control("SH", ["EXAMPLES"]);
    for (what, command) in content.examples {
        roff.text([roman(*what)]);
        roff.control("RS", ["4"]);
        roff.control("nf", []);
        roff.text([bold(*command)]);
        roff.control("fi", []);
        roff.control("RE", []);
        roff.control("PP", []);
    }
    roff.control("SH", ["SEE ALSO"]);
    let others: Vec<String> = match sub {
        Some(_) => vec!["vcr(1)".to_owned()],
        None => cmd
            .get_subcommands()
            .filter(|s| !s.is_hide_set())
            .map(|s| format!("vcr-{}(1)", s.get_name()))
            .collect(),
    };
    roff.text([roman(others.join(", "))]);
    roff
}

/// A section of tagged paragraphs: the term in bold, its text below.
fn tagged(roff: &mut Roff, title: &str, items: &[(&str, &str)]) {
    roff.control("SH", [title]);
    for (term, text) in items {
        roff.control("TP", []);
        roff.text([bold(*term)]);
        roff.text([roman(*text)]);
    }
}

/// What a page says besides what clap knows.
struct Content {
    exit: &'static [(&'static str, &'static str)],
    examples: &'static [(&'static str, &'static str)],
}

const TOP: Content = Content {
    exit: &[
        ("0", "Done, or clean: nothing to report."),
        (
            "1",
            "Findings: verify found an error finding (a file that does not parse is one: parse), normalize --check would change a file, diff found a difference, or what record recorded has error findings.",
        ),
        (
            "2",
            "Error: bad usage or configuration, a file that could not be read, or that a command which rewrites, renames or compares it could not parse (the run goes on and exits 2 at the end), a refused unsafe operation (a collision, a name too long, another vcr holding the lock, a prune after a failing or partial run). With --format json the document then carries an \"error\". record exits with the test command's own code when that command fails.",
        ),
    ],
    examples: &[
        ("Check the whole tree:", "vcr verify"),
        (
            "Check what is staged for commit, as a pre-commit hook does:",
            "vcr verify --staged",
        ),
        (
            "In GitHub Actions, findings as annotations on the pull request:",
            "vcr verify --format github",
        ),
        (
            "Show what normalize would change; exit 1 if anything would:",
            "vcr normalize --check --diff",
        ),
        (
            "Record a few cassettes again; they come back if the run fails:",
            "vcr record --only 'fixtures/a1f2*' -- pnpm test",
        ),
        (
            "Install the man page and the bash completions:",
            "vcr --generate man > /usr/local/share/man/man1/vcr.1\nvcr --generate complete-bash > /usr/local/share/bash-completion/completions/vcr",
        ),
    ],
};

const ENVIRONMENT: &[(&str, &str)] = &[
    ("VCR_CONFIG", "The configuration file, as --config."),
    (
        "VCR_COLOR",
        "When to use colour, as --color: auto, always or never.",
    ),
    (
        "NO_COLOR",
        "When set and not empty, --color auto writes no colour (nor does TERM=dumb).",
    ),
    (
        "VCR_PLATFORM",
        "Whose path forms the rules replace, unix or windows, as --platform; over [claude-code] platform.",
    ),
    (
        "VCR_CWD",
        "What [CWD] stands for in Claude Code fixtures; over [claude-code] cwd.",
    ),
    (
        "CLAUDE_CONFIG_DIR",
        "What [CONFIG_HOME] stands for, as in Claude Code; over [claude-code] config-home.",
    ),
    (
        "HOME",
        "The home folder: [CONFIG_HOME] defaults to $HOME/.claude, and verify reports it in cassettes as this machine's path.",
    ),
    (
        "VCR_USAGE_LOG",
        "Set by record and prune for the test command they run: the usage log a harness appends one line to per cassette lookup.",
    ),
    (
        "VCR_RECORD, DSH_SNAPSHOT",
        "Set to 1 and record by vcr record for the test command (Claude Code and dsh trees), unless [record] env names other variables.",
    ),
];

const FILES: &[(&str, &str)] = &[
    (
        "vcr.toml, .vcr.toml, pyproject.toml",
        "The configuration (in pyproject.toml, its [tool.vcr] table; a vcr.toml beside it wins), found in the working folder or its nearest ancestor up to the repository root; its folder is the project root.",
    ),
    (
        ".vcr/",
        "vcr's state at the project root: the lock of a mutating command, journal.json of an interrupted run (completed or rolled back by the next one), and stash/ with the cassettes record --only moved aside. Add it to .gitignore.",
    ),
    (
        "fixtures/",
        "Claude Code fixtures: <6hex>(-<6hex>)*.json message fixtures and token-count-<12hex>.json token counts.",
    ),
    (
        "session.jsonl, replay.override.json",
        "The session log and override of a DeepSeek-Harness (dsh) scenario folder.",
    ),
    (
        ".vcr-new-*, .vcr-old-*, .vcr-tmp-*",
        "Temporary files beside cassettes while vcr writes; those of a killed run are removed by the next mutating command.",
    ),
];

fn subcommand(name: &str) -> Content {
    match name {
        "verify" => Content {
            exit: &[
                ("0", "Clean (warnings allowed)."),
                (
                    "1",
                    "Error findings, a file that does not parse among them (parse).",
                ),
                ("2", "Could not run, or a file or path could not be read."),
            ],
            examples: &[
                (
                    "The files pre-commit passes:",
                    "vcr verify fixtures/a1f2fb.json",
                ),
                ("Code scanning:", "vcr verify --format sarif > vcr.sarif"),
                (
                    "Adopt vcr on a legacy tree, then fail only on new findings:",
                    "vcr verify --write-baseline .vcr-baseline.json\nvcr verify --baseline .vcr-baseline.json",
                ),
                (
                    "The detectors, for [[verify.allow]] detector:",
                    "vcr verify --list-detectors",
                ),
            ],
        },
        "normalize" => Content {
            exit: &[
                ("0", "Done (or, with --check, nothing would change)."),
                ("1", "With --check: a cassette would change."),
                (
                    "2",
                    "A cassette could not be read or parsed, or vcr could not run.",
                ),
            ],
            examples: &[
                ("In CI:", "vcr normalize --check"),
                (
                    "What would change, as a diff:",
                    "vcr normalize --check --diff",
                ),
            ],
        },
        "rehash" => Content {
            exit: &[
                ("0", "Done, or nothing to rename."),
                (
                    "2",
                    "A collision, a name too long or an unreadable cassette: nothing was renamed.",
                ),
            ],
            examples: &[
                ("The plan, without renaming:", "vcr rehash --dry-run"),
                ("After a rule change:", "vcr rehash"),
            ],
        },
        "diff" => Content {
            exit: &[
                ("0", "Identical."),
                ("1", "Any difference (rewording included)."),
                ("2", "A side could not be read."),
            ],
            examples: &[
                (
                    "A re-recording against the last commit:",
                    "vcr diff --rev HEAD",
                ),
                (
                    "A pull request's summary, for its job summary or a comment:",
                    "vcr diff --rev origin/main...HEAD --format markdown",
                ),
                (
                    "As a git diff driver:",
                    "git config diff.vcr.textconv \"vcr diff --textconv\"",
                ),
            ],
        },
        "review" => Content {
            exit: &[
                (
                    "0",
                    "Every changed cassette decided (accepted or rejected).",
                ),
                (
                    "1",
                    "Some left undecided: skipped, not reached, or not asked.",
                ),
                (
                    "2",
                    "vcr could not run, a cassette could not be read, or a rejection failed.",
                ),
            ],
            examples: &[
                ("After vcr record:", "vcr review"),
                (
                    "Keep what is not a behaviour change, decide the rest:",
                    "vcr review --accept-same-behaviour",
                ),
            ],
        },
        "record" => Content {
            exit: &[
                ("0", "Recorded, and what was recorded is clean."),
                ("1", "What was recorded has error findings."),
                (
                    "2",
                    "vcr could not run or refused. When the test command fails, its own exit code.",
                ),
            ],
            examples: &[
                ("Record what is missing:", "vcr record -- pnpm test"),
                (
                    "Record these again; they come back if the run fails:",
                    "vcr record --only 'fixtures/a1f2*' -- pnpm test",
                ),
            ],
        },
        "prune" => Content {
            exit: &[
                ("0", "Done, whatever the dry run lists."),
                (
                    "2",
                    "Refused (a failing or interrupted run, a missed lookup, usage naming no cassette) or could not run: nothing deleted.",
                ),
            ],
            examples: &[
                (
                    "Which cassettes does no test read?",
                    "vcr prune -- pnpm test",
                ),
                (
                    "CI shards combined:",
                    "vcr prune --delete --usage-log linux.log --usage-log macos.log",
                ),
            ],
        },
        _ => Content {
            exit: TOP.exit,
            examples: &[],
        },
    }
}
