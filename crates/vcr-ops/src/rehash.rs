//! `vcr rehash`: re-key content-addressed cassettes under the current rules, without
//! re-recording.
//!
//! The key rules are applied to each cassette's key material (rewriting it if a rule changed
//! it; the payload is left alone), the name is computed as the harness computes it, and the
//! cassette is renamed. The whole plan is computed and validated before the first change:
//! two different cassettes that would share a name are a collision and nothing is renamed;
//! identical twins are merged. The renames go through the store's journal, so an interrupted
//! rehash is completed by the next run. A file is renamed only if it is well-formed
//! throughout and still holds, when the rename happens, the bytes the plan read.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sha1::{Digest, Sha1};

use crate::event::{Event, FileProblem, Progress, Report, error_chain, par_ordered};
use vcr_cassette::jsonl::{self, LineReader};
use vcr_cassette::{Mode, generic};
use vcr_project::store::journal::{Move, SkipReason};
use vcr_project::store::{ContentHash, Store, StoreError};
use vcr_project::tree::{Cassette, CassetteKind, Selection};

pub use vcr_cassette::model::MAX_NAME_BYTES;

/// How `rehash` runs.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Compute and report the plan; change nothing.
    pub dry_run: bool,
}

/// What `rehash` found and did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    /// Content-addressed cassettes read.
    pub files: usize,
    /// Cassettes renamed (or to be renamed).
    pub renamed: usize,
    /// Cassettes whose key material was rewritten without a new name.
    pub rewritten: usize,
    /// Twins merged (or to be merged).
    pub merged: usize,
    /// Names two different cassettes would share.
    pub collisions: usize,
    /// Names too long for the file system.
    pub too_long: usize,
    /// Files that could not be processed.
    pub errors: usize,
    /// Files left alone because they changed while the run worked.
    pub changed: usize,
    /// Whether the plan was applied.
    pub applied: bool,
}

/// One cassette's part of the plan.
struct Entry {
    rel: String,
    path: PathBuf,
    target: PathBuf,
    /// The hash of the bytes the plan read, when it moves (to another name, or with new
    /// contents; every other entry of a group of twins does): hashing every file of a tree
    /// that is already right would cost more than the check.
    read: Option<ContentHash>,
    /// The cassette as `normalize` would see it after re-keying, hashed, to recognise twins;
    /// computed only for cassettes that compete for a name.
    content: std::cell::OnceCell<Option<[u8; 20]>>,
    /// The cassette, to compute `content`.
    cassette: Cassette,
    /// Whether the key rules changed the key material.
    rewritten: bool,
    /// A temporary file with the rewritten contents (not in a dry run).
    new: Option<PathBuf>,
}

enum Planned {
    Entry(Entry),
    /// Not re-keyed, and why.
    Skip(&'static str),
    Problem(FileProblem),
}

/// Runs `rehash` over the selected cassettes. The caller must hold the store's lock unless
/// this is a dry run.
pub fn run(
    selection: &Selection,
    store: &Store,
    options: Options,
    report: &dyn Report,
    progress: &dyn Progress,
) -> Result<Summary, StoreError> {
    let mut summary = Summary::default();
    let mut entries = Vec::new();
    par_ordered(
        &selection.cassettes,
        progress,
        |cassette| plan_one(cassette, store, options),
        |cassette, planned| match planned {
            Planned::Entry(entry) => {
                summary.files += 1;
                entries.push(entry);
            }
            Planned::Skip(reason) => report.report(&Event::Skipped {
                path: &cassette.rel,
                reason,
            }),
            Planned::Problem(problem) => {
                summary.errors += 1;
                crate::event::report_problem(report, &cassette.rel, &problem);
            }
        },
    );
    let moves = match validate(&entries, store, report, &mut summary) {
        Some(moves) => moves,
        None => {
            discard_temps(&entries, store);
            return Ok(summary);
        }
    };
    summary.rewritten = entries.iter().filter(|e| e.stays() && e.rewritten).count();
    if options.dry_run {
        report_plan(&moves, &entries, store, false, report);
        return Ok(summary);
    }
    let applied = match store.apply_moves("rehash", &moves) {
        Ok(applied) => applied,
        Err(e) => {
            // Without a journal, the new contents belong to no run: remove them now.
            if !store.journal_path().exists() {
                discard_temps(&entries, store);
            }
            return Err(e);
        }
    };
    summary.applied = true;
    // Moves left undone: the file changed under the run, or its new name stayed taken.
    let (done, undone): (Vec<Move>, Vec<Move>) = moves
        .into_iter()
        .partition(|m| applied.skipped(&m.from).is_none());
    for m in &undone {
        summary.changed += 1;
        match &m.to {
            None => summary.merged -= 1,
            Some(to) if to.as_os_str() != m.from.as_os_str() => summary.renamed -= 1,
            Some(_) => summary.rewritten -= 1,
        }
        let action = match applied.skipped(&m.from) {
            Some(SkipReason::TargetTaken { .. }) => {
                "renamed (the name it was to take is held by a file that changed during the run)"
            }
            _ if m.to.is_none() => "merged",
            _ => "renamed",
        };
        report.report(&Event::Changed {
            path: &store.rel(&m.from),
            action,
        });
    }
    report_plan(&done, &entries, store, true, report);
    Ok(summary)
}

/// Why a token-count fixture is left as it is.
const TOKEN_COUNT: &str = "the key of a token-count fixture is not stored; it cannot be re-keyed";

/// Why a cassette that is not content-addressed is left as it is.
const NOT_HASHED: &str =
    "named by its test, not by a hash of its content: there is no key to recompute";

fn plan_one(cassette: &Cassette, store: &Store, options: Options) -> Planned {
    // Only a content-addressed cassette has a name to recompute: the others (a dsh session
    // log of millions of lines among them) are not read at all (issue 12).
    if cassette.kind == CassetteKind::ClaudeCodeTokenCount {
        return Planned::Skip(TOKEN_COUNT);
    }
    if !cassette.kind.is_content_addressed() {
        return Planned::Skip(NOT_HASHED);
    }
    if let Some(spec) = vcr_cassette::streamed_log(cassette) {
        return plan_log(cassette, spec, store, options);
    }
    let bytes = match std::fs::read(&cassette.path) {
        Ok(bytes) => bytes,
        Err(e) => return Planned::Problem(FileProblem::io(&e)),
    };
    let keyed = match vcr_cassette::key_of(cassette, &bytes) {
        Ok(Some(keyed)) => keyed,
        Ok(None) => return Planned::Skip(TOKEN_COUNT),
        Err(e) => return Planned::Problem(FileProblem::cassette(&e, &bytes)),
    };
    let target = cassette.path.with_file_name(&keyed.name);
    let mut new = None;
    if keyed.key_changed && !options.dry_run {
        let canonical = match vcr_cassette::canonicalize(cassette, &bytes, Mode::Rekey) {
            Ok(canonical) => canonical,
            Err(e) => return Planned::Problem(FileProblem::cassette(&e, &bytes)),
        };
        match store.write_temp(&target, &canonical.bytes, Some(&cassette.path), "new") {
            Ok(path) => new = Some(path),
            Err(e) => return Planned::Problem(FileProblem::io(&error_chain(&e))),
        }
    }
    let moves = target.as_os_str() != cassette.path.as_os_str() || keyed.key_changed;
    Planned::Entry(Entry {
        rel: cassette.rel.clone(),
        path: cassette.path.clone(),
        read: moves.then(|| ContentHash::of(&bytes)),
        target,
        content: std::cell::OnceCell::new(),
        cassette: cassette.clone(),
        rewritten: keyed.key_changed,
        new,
    })
}

/// A `[[cassettes]]` JSONL log, line by line (issue 12): a first pass finds its stale line
/// hashes (and the first line that cannot be read, which leaves it alone), hashing what it
/// reads; only a log with stale hashes is read again and re-keyed line by line into its
/// temporary file. That second pass decides: the move carries the hash of what it read, so
/// the journal places the new contents only over the very bytes they were made from, as
/// when the log was read whole. Memory holds a line, not the log.
fn plan_log(cassette: &Cassette, spec: &generic::Spec, store: &Store, options: Options) -> Planned {
    let rel = cassette.rel.as_str();
    let open = || -> std::io::Result<LineReader<std::io::BufReader<std::fs::File>>> {
        let file = std::fs::File::open(&cassette.path)?;
        Ok(LineReader::new(std::io::BufReader::with_capacity(64 << 10, file)).hashing())
    };
    let entry = |read: Option<ContentHash>, new: Option<PathBuf>| {
        Planned::Entry(Entry {
            rel: cassette.rel.clone(),
            path: cassette.path.clone(),
            target: cassette.path.clone(),
            read,
            content: std::cell::OnceCell::new(),
            cassette: cassette.clone(),
            rewritten: read.is_some(),
            new,
        })
    };
    // The first pass only looks.
    match open().and_then(|reader| stale_lines(spec, reader, rel, &mut |_, _| Ok(()))) {
        Ok(Ok((0, _))) => return entry(None, None),
        Ok(Ok((_, read))) if options.dry_run => return entry(Some(read), None),
        Ok(Ok(_)) => {}
        Ok(Err(problem)) => return Planned::Problem(problem),
        Err(e) => return Planned::Problem(FileProblem::io(&e)),
    }
    // The second pass writes the re-keyed lines; what it read is what the plan read.
    let mut read = None;
    let mut buf = Vec::new();
    let mut write = |w: &mut dyn std::io::Write| -> std::io::Result<()> {
        let outcome = stale_lines(spec, open()?, rel, &mut |check, line| {
            buf.clear();
            generic::rekey_line(check, line.raw, line.start, &mut buf);
            w.write_all(&buf)
        })?;
        let failed = outcome.is_err();
        read = Some(outcome);
        if failed {
            return Err(std::io::Error::other("a line can no longer be read"));
        }
        Ok(())
    };
    let written = store.write_temp_with(&cassette.path, Some(&cassette.path), "new", &mut write);
    match (read, written) {
        (Some(Err(problem)), _) => Planned::Problem(problem),
        (Some(Ok((0, _))), Ok(temp)) => {
            // Re-keyed meanwhile by someone else: nothing left to do.
            let _ = store.remove(&temp);
            entry(None, None)
        }
        (Some(Ok((_, read))), Ok(temp)) => entry(Some(read), Some(temp)),
        (_, Err(e)) => Planned::Problem(FileProblem::io(&error_chain(&e))),
        (None, Ok(_)) => unreachable!("the temporary file is written by the pass"),
    }
}

/// Receives each line of a log with its stale hash, if it has one.
type StaleSink<'a> =
    dyn FnMut(Option<&generic::LineCheck>, &jsonl::Line<'_>) -> std::io::Result<()> + 'a;

/// One pass over a `[[cassettes]]` JSONL log for [`plan_log`] (`reader` hashing): `out`
/// receives each line and its stale hash; returns how many lines are stale and the hash of
/// the file, or `Ok(Err(problem))` at the first line that cannot be read.
fn stale_lines(
    spec: &generic::Spec,
    mut reader: LineReader<impl std::io::BufRead>,
    rel: &str,
    out: &mut StaleSink<'_>,
) -> std::io::Result<Result<(usize, ContentHash), FileProblem>> {
    let mut stale = 0;
    while let Some(line) = reader.next_line()? {
        let check = match generic::Line::record(&line) {
            Some(record) => match generic::parse_line(&record)
                .and_then(|value| generic::check_line(spec, &record, &value, rel))
            {
                Ok(check) => Some(check),
                Err(e) => {
                    let at = e.offset().map(|o| line.locate(o));
                    return Ok(Err(FileProblem::cassette_at(&e.into(), at)));
                }
            },
            None => None,
        };
        let check = check.filter(generic::LineCheck::is_stale);
        stale += usize::from(check.is_some());
        out(check.as_ref(), &line)?;
    }
    let hash = reader.content_hash().expect("a hashing reader");
    Ok(Ok((stale, ContentHash::from_bytes(hash))))
}

impl Entry {
    /// Whether the cassette keeps its name. (Raw path bytes: `Path` equality compares
    /// component by component, which is slow enough to show on a large tree.)
    fn stays(&self) -> bool {
        self.path.as_os_str() == self.target.as_os_str()
    }

    /// The hash of what this cassette holds once re-keyed (`None` if it cannot be read, or
    /// no longer holds what the plan read).
    fn content(&self) -> Option<[u8; 20]> {
        *self.content.get_or_init(|| {
            let bytes = std::fs::read(&self.path).ok()?;
            if self
                .read
                .is_some_and(|read| ContentHash::of(&bytes) != read)
            {
                return None;
            }
            canonical_hash(&self.cassette, &bytes)
        })
    }
}

fn canonical_hash(cassette: &Cassette, bytes: &[u8]) -> Option<[u8; 20]> {
    let canonical = vcr_cassette::canonicalize(cassette, bytes, Mode::Rekey).ok()?;
    Some(Sha1::digest(&canonical.bytes).into())
}

/// Checks the plan and turns it into moves; `None` (after reporting why) if it is unsafe.
fn validate(
    entries: &[Entry],
    store: &Store,
    report: &dyn Report,
    summary: &mut Summary,
) -> Option<Vec<Move>> {
    let mut by_target: BTreeMap<&Path, Vec<&Entry>> = BTreeMap::new();
    for entry in entries {
        by_target.entry(&entry.target).or_default().push(entry);
    }
    let sources: std::collections::HashSet<&std::ffi::OsStr> =
        entries.iter().map(|e| e.path.as_os_str()).collect();
    let mut moves = Vec::new();
    let mut ok = true;
    for (target, group) in &by_target {
        let target = Path::new(target);
        let name_len = target.file_name().map_or(0, |n| n.len());
        if name_len > MAX_NAME_BYTES {
            ok = false;
            summary.too_long += group.len();
            for entry in group {
                report.report(&Event::NameTooLong {
                    path: &entry.rel,
                    bytes: name_len,
                });
            }
            continue;
        }
        // A file already at the target that this run does not move: it must be a twin.
        let occupant = (!sources.contains(target.as_os_str()) && target.exists()).then_some(target);
        let twins = if group.len() == 1 && occupant.is_none() {
            true
        } else {
            let first = group[0].content();
            first.is_some()
                && group.iter().all(|e| e.content() == first)
                && occupant.is_none_or(|path| {
                    std::fs::read(path)
                        .ok()
                        .and_then(|b| canonical_hash(&group[0].cassette, &b))
                        == first
                })
        };
        if !twins {
            ok = false;
            summary.collisions += 1;
            let mut paths: Vec<String> = group.iter().map(|e| e.rel.clone()).collect();
            if let Some(path) = occupant {
                paths.push(store.rel(path));
            }
            paths.sort();
            report.report(&Event::Collision {
                name: &target
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                paths: &paths,
            });
            continue;
        }
        // The twin that keeps the name: one already there, else the first by path.
        let keeper = if occupant.is_some() {
            None
        } else {
            Some(group.iter().position(|e| e.stays()).unwrap_or(0))
        };
        for (i, entry) in group.iter().enumerate() {
            if Some(i) == keeper {
                if !entry.stays() || entry.rewritten {
                    moves.push(Move {
                        from: entry.path.clone(),
                        to: Some(entry.target.clone()),
                        new: entry.new.clone(),
                        read: entry.read.expect("a cassette that moves was hashed"),
                    });
                }
            } else {
                summary.merged += 1;
                moves.push(Move {
                    from: entry.path.clone(),
                    to: None,
                    new: entry.new.clone(),
                    read: entry.read.expect("a merged twin moves"),
                });
            }
        }
    }
    summary.renamed = moves
        .iter()
        .filter(|m| {
            m.to.as_ref()
                .is_some_and(|to| to.as_os_str() != m.from.as_os_str())
        })
        .count();
    ok.then_some(moves)
}

fn report_plan(moves: &[Move], entries: &[Entry], store: &Store, done: bool, report: &dyn Report) {
    if moves.is_empty() {
        return;
    }
    let by_path: std::collections::HashMap<&std::ffi::OsStr, &Entry> =
        entries.iter().map(|e| (e.path.as_os_str(), e)).collect();
    let mut planned: Vec<(&Entry, &Move)> = moves
        .iter()
        .filter_map(|m| by_path.get(m.from.as_os_str()).map(|e| (*e, m)))
        .collect();
    planned.sort_by(|a, b| a.0.rel.cmp(&b.0.rel));
    for (entry, m) in planned {
        match &m.to {
            Some(to) => report.report(&Event::Renamed {
                from: &entry.rel,
                to: &store.rel(to),
                rewritten: entry.rewritten,
                done,
            }),
            None => report.report(&Event::Merged {
                from: &entry.rel,
                into: &store.rel(&entry.target),
                done,
            }),
        }
    }
}

fn discard_temps(entries: &[Entry], store: &Store) {
    for new in entries.iter().filter_map(|e| e.new.as_ref()) {
        let _ = store.remove(new);
    }
}
