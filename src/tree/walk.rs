//! The walk that selects a tree: folders read on every core, files met in `walkdir`'s order,
//! leaving out what users never want scanned, the way ripgrep and git do (issue 21).
//!
//! Three kinds of folder are never entered, whatever the flags: version control's own
//! (`.git`, `.hg`, ...) and vcr's (`.vcr`, which holds cassettes moved aside); installed
//! dependencies (`node_modules`, `site-packages`, a virtualenv or conda environment known by
//! the file it always holds, Go's and PHP's `vendor` beside their manifest, Rust's and
//! Maven's `target` beside theirs); and caches that say they are one (`CACHEDIR.TAG`, which
//! pytest, mypy, ruff and cargo write). Hidden folders are entered: git commits them, and a
//! gate reads what git would commit.
//!
//! In a git repository, what git ignores (`.gitignore` files from the repository's top down,
//! `.git/info/exclude`, the user's global excludes) is met as *ignored*: not selected, but
//! still offered to `visit`, so that a cassette left out by an ignore rule is counted rather
//! than skipped in silence. Outside a repository nothing is ignored, as with ripgrep.

use std::fs::FileType;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use ignore::gitignore::Gitignore;

/// A folder that could not be read, or one of its entries.
pub(crate) type WalkError = (PathBuf, std::io::Error);

/// Folders never entered, by name alone: version control's, vcr's own state, installed
/// dependencies and byte code, and test-environment managers' folders (their
/// environments are virtualenvs; their other folders hold logs).
const SKIPPED_NAMES: &[&str] = &[
    ".git",
    ".hg",
    ".svn",
    ".jj",
    ".bzr",
    ".vcr",
    "node_modules",
    "bower_components",
    "__pycache__",
    "site-packages",
    "dist-packages",
    ".tox",
    ".nox",
];

/// Files whose presence makes a folder an environment or a cache, never entered:
/// a virtualenv's `pyvenv.cfg`, a conda environment's `conda-meta`, and the Cache Directory
/// Tagging Specification's `CACHEDIR.TAG`.
const MARKERS: &[&str] = &["pyvenv.cfg", "conda-meta", "CACHEDIR.TAG"];

/// Folders that hold installed dependencies or build output when a manifest sits beside
/// them: `(folder, manifests)`.
const BESIDE_MANIFEST: &[(&str, &[&str])] = &[
    ("vendor", &["go.mod", "composer.json"]),
    ("target", &["Cargo.toml", "pom.xml"]),
];

/// Whether a folder named `name` is never entered whatever it holds (what `vcr diff` also
/// leaves out of a git revision, whose folders cannot be looked into).
pub(crate) fn is_skipped_name(name: &str) -> bool {
    SKIPPED_NAMES.contains(&name)
}

/// How a walk treats ignored files and configured exclusions.
#[derive(Clone, Copy, Default)]
pub(crate) struct Policy<'a> {
    /// Whether git's ignore rules hold (`--no-ignore` turns them off).
    pub gitignore: bool,
    /// Paths the configuration's `exclude` globs leave out: never entered or met.
    pub exclude: Option<&'a (dyn Fn(&Path) -> bool + Sync)>,
}

/// What `visit` makes of each file and link under `dir` (links are never followed; folders
/// are not visited), with the folders that could not be read, in the order `walkdir` gives
/// them: a folder's entries as the system lists them, each subfolder's tree in its place.
/// `visit`'s third argument says whether git ignores the file (see the module's notes).
/// `dir` itself is always entered: a folder given by name is read.
///
/// The folders are read on every core and `visit` runs on the core that read the file's
/// folder: on one thread, the walk that selects a whole tree was a twentieth of a
/// whole-tree `verify` over the corpus, with a core idle (issue 12).
pub(crate) fn walk<R: Send>(
    dir: &Path,
    policy: Policy<'_>,
    visit: &(dyn Fn(PathBuf, FileType, bool) -> Option<R> + Sync),
) -> Vec<Result<R, WalkError>> {
    let rules = if policy.gitignore {
        Rules::above(dir)
    } else {
        Rules::default()
    };
    walk_dir(dir, &policy, &rules, false, true, visit)
}

fn walk_dir<R: Send>(
    dir: &Path,
    policy: &Policy<'_>,
    rules: &Rules,
    ignored: bool,
    given: bool,
    visit: &(dyn Fn(PathBuf, FileType, bool) -> Option<R> + Sync),
) -> Vec<Result<R, WalkError>> {
    use rayon::prelude::*;
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => return vec![Err((dir.to_owned(), e))],
    };
    let listed: Vec<Result<(PathBuf, FileType), WalkError>> = entries
        .map(|entry| {
            let entry = entry.map_err(|e| (dir.to_owned(), e))?;
            let path = entry.path();
            match entry.file_type() {
                Ok(file_type) => Ok((path, file_type)),
                Err(e) => Err((path, e)),
            }
        })
        .collect();
    // The names, taken once: markers and manifests are asked about some ten times a folder.
    let names: Vec<&std::ffi::OsStr> = listed
        .iter()
        .flatten()
        .filter_map(|(path, _)| path.file_name())
        .collect();
    let has = |name: &str| names.iter().any(|n| *n == name);
    if !given && MARKERS.iter().any(|marker| has(marker)) {
        return Vec::new();
    }
    let beside_manifest: Vec<&str> = BESIDE_MANIFEST
        .iter()
        .filter(|(_, manifests)| manifests.iter().any(|m| has(m)))
        .map(|(folder, _)| *folder)
        .collect();
    let rules = if policy.gitignore && !ignored {
        rules.entering(dir, has(".git"), has(".gitignore"))
    } else {
        rules.clone()
    };
    listed
        .into_par_iter()
        .map(|entry| {
            let (path, file_type) = match entry {
                Ok(entry) => entry,
                Err(e) => return vec![Err(e)],
            };
            if policy.exclude.is_some_and(|excluded| excluded(&path)) {
                return Vec::new();
            }
            let is_dir = file_type.is_dir();
            let ignored = ignored || rules.ignores(&path, is_dir);
            if !is_dir {
                return visit(path, file_type, ignored)
                    .map(Ok)
                    .into_iter()
                    .collect();
            }
            let name = path.file_name().map(|n| n.to_string_lossy());
            if name.is_some_and(|name| is_skipped_name(&name) || beside_manifest.contains(&&*name))
            {
                return Vec::new();
            }
            walk_dir(&path, policy, &rules, ignored, false, visit)
        })
        .flatten()
        .collect()
}

/// The gitignore rules in force in one folder: the `.gitignore` files of the folders from
/// the repository's top down to it (the deepest decides first, as in git), then the
/// repository's `info/exclude`, then the user's global excludes. Empty outside a repository.
#[derive(Clone, Default)]
struct Rules {
    folders: Option<Arc<Folder>>,
    repo: Option<Arc<Repo>>,
}

struct Folder {
    ignore: Gitignore,
    parent: Option<Arc<Folder>>,
}

struct Repo {
    exclude: Gitignore,
}

impl Rules {
    /// The rules in force above `dir`: those of its repository's top and of every folder
    /// between it and `dir`, `dir`'s own excepted (`entering` adds them).
    fn above(dir: &Path) -> Rules {
        let Some(top) = dir
            .ancestors()
            .find(|a| a.join(".git").symlink_metadata().is_ok())
        else {
            return Rules::default();
        };
        let mut rules = Rules::default();
        let below: Vec<&Path> = dir
            .ancestors()
            .skip(1)
            .take_while(|a| a.starts_with(top))
            .collect();
        for folder in below.into_iter().rev() {
            rules = rules.entering(folder, folder == top, folder.join(".gitignore").is_file());
        }
        rules
    }

    /// The rules in force in `dir`: a new repository when it holds `.git` (a nested
    /// repository or submodule answers to its own rules), plus its own `.gitignore`.
    fn entering(&self, dir: &Path, repo_top: bool, gitignore: bool) -> Rules {
        let mut rules = if repo_top {
            Rules {
                folders: None,
                repo: Some(Arc::new(Repo {
                    exclude: Gitignore::new(dir.join(".git/info/exclude")).0,
                })),
            }
        } else {
            self.clone()
        };
        if gitignore && rules.repo.is_some() {
            rules.folders = Some(Arc::new(Folder {
                ignore: Gitignore::new(dir.join(".gitignore")).0,
                parent: rules.folders.take(),
            }));
        }
        rules
    }

    /// Whether git ignores `path`, a file or (`is_dir`) a folder, in a folder these rules
    /// hold in.
    fn ignores(&self, path: &Path, is_dir: bool) -> bool {
        let Some(repo) = &self.repo else {
            return false;
        };
        let mut folder = self.folders.as_deref();
        while let Some(f) = folder {
            let matched = f.ignore.matched(path, is_dir);
            if !matched.is_none() {
                return matched.is_ignore();
            }
            folder = f.parent.as_deref();
        }
        for ignore in [&repo.exclude, global()] {
            let matched = ignore.matched(path, is_dir);
            if !matched.is_none() {
                return matched.is_ignore();
            }
        }
        false
    }
}

/// The user's global excludes (`core.excludesFile`, else `$XDG_CONFIG_HOME/git/ignore`),
/// read once.
fn global() -> &'static Gitignore {
    static GLOBAL: OnceLock<Gitignore> = OnceLock::new();
    GLOBAL.get_or_init(|| Gitignore::global().0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn met(root: &Path, policy: Policy<'_>) -> Vec<(String, bool)> {
        walk(root, policy, &|path, _, ignored| {
            Some((crate::tree::relative(root, &path), ignored))
        })
        .into_iter()
        .map(Result::unwrap)
        .collect()
    }

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// The walk meets what walkdir meets, in walkdir's order, on every core: files and
    /// links (not followed) in place, hidden folders entered, skipped folders left out.
    #[cfg(unix)]
    #[test]
    fn the_parallel_walk_meets_files_in_walkdirs_order() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let mut n = 0;
        for folder in [
            "",
            "a",
            "a/b",
            "a/b/c",
            "d",
            "node_modules/x",
            ".git",
            "e/.hidden",
            "f",
        ] {
            std::fs::create_dir_all(root.join(folder)).unwrap();
            for _ in 0..7 {
                n += 1;
                std::fs::write(root.join(folder).join(format!("{n}.txt")), "x").unwrap();
            }
        }
        for i in 0..300 {
            std::fs::create_dir_all(root.join(format!("many/{i}/deeper"))).unwrap();
            std::fs::write(root.join(format!("many/{i}/deeper/f")), "x").unwrap();
        }
        std::os::unix::fs::symlink(root.join("a"), root.join("d/link-to-a")).unwrap();
        std::os::unix::fs::symlink(root.join("nowhere"), root.join("f/dangling")).unwrap();
        let expected: Vec<PathBuf> = walkdir::WalkDir::new(root)
            .into_iter()
            .filter_entry(|e| {
                e.depth() == 0
                    || !(e.file_type().is_dir()
                        && is_skipped_name(&e.file_name().to_string_lossy()))
            })
            .map(Result::unwrap)
            .filter(|e| !e.file_type().is_dir())
            .map(walkdir::DirEntry::into_path)
            .collect();
        let visit_all = |path, _, _| Some(path);
        let met: Vec<PathBuf> = walk(root, Policy::default(), &visit_all)
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!(met, expected);
        assert_eq!(met.len(), 7 * 7 + 300 + 2, "{met:#?}");
        // What `visit` declines is left out, in order.
        let even: Vec<PathBuf> = walk(root, Policy::default(), &|path, file_type, _| {
            (file_type.is_file() && path.to_string_lossy().ends_with("2.txt")).then_some(path)
        })
        .into_iter()
        .map(Result::unwrap)
        .collect();
        let expected: Vec<&PathBuf> = expected
            .iter()
            .filter(|p| p.to_string_lossy().ends_with("2.txt"))
            .collect();
        assert_eq!(even.iter().collect::<Vec<_>>(), expected);
        // A folder that cannot be read is met as an error with its path, once.
        let missing = root.join("missing");
        let met = walk(&missing, Policy::default(), &visit_all);
        let [Err((path, e))] = met.as_slice() else {
            panic!("{met:?}");
        };
        assert_eq!((path, e.kind()), (&missing, std::io::ErrorKind::NotFound));
    }

    /// Environments, caches and dependencies beside their manifest are never entered; a
    /// `vendor` or `target` folder without one is an ordinary folder, and a folder given
    /// by name is read whatever it is.
    #[test]
    fn environments_caches_and_dependencies_are_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for rel in [
            ".venv/pyvenv.cfg",
            ".venv/lib/python3.12/x/cassettes/a.yaml",
            "env/conda-meta/history",
            "env/cassettes/b.yaml",
            ".pytest_cache/CACHEDIR.TAG",
            ".pytest_cache/v/c.json",
            "go/go.mod",
            "go/vendor/x/fixtures/d.yaml",
            "ruby/vendor/cassettes/e.yaml",
            "rust/Cargo.toml",
            "rust/target/f.json",
            "other/target/g.json",
            ".github/cassettes/h.yaml",
            ".vcr/stash/i.yaml",
        ] {
            write(root, rel, "x");
        }
        let mut names: Vec<String> = met(root, Policy::default())
            .into_iter()
            .map(|(rel, _)| rel)
            .collect();
        names.sort();
        assert_eq!(
            names,
            [
                ".github/cassettes/h.yaml",
                "go/go.mod",
                "other/target/g.json",
                "ruby/vendor/cassettes/e.yaml",
                "rust/Cargo.toml",
            ]
        );
        let given = root.join(".venv");
        let names: Vec<String> = met(&given, Policy::default())
            .into_iter()
            .map(|(rel, _)| rel)
            .collect();
        assert!(names.contains(&"pyvenv.cfg".to_owned()), "{names:?}");
    }

    /// In a git repository, what its `.gitignore` files and `info/exclude` ignore is met as
    /// ignored, with git's precedence (a deeper file's negation wins); without the rules, or
    /// outside a repository, nothing is.
    #[test]
    fn git_ignore_rules_mark_what_git_ignores() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, ".gitignore", "build/\n*.log.json\n");
        write(root, ".git/info/exclude", "scratch.yaml\n");
        write(root, "build/cassettes/a.yaml", "x");
        write(root, "tests/cassettes/b.yaml", "x");
        write(root, "tests/cassettes/run.log.json", "x");
        write(root, "tests/keep/.gitignore", "!*.log.json\n");
        write(root, "tests/keep/kept.log.json", "x");
        write(root, "scratch.yaml", "x");
        let mut seen = met(
            root,
            Policy {
                gitignore: true,
                exclude: None,
            },
        );
        seen.sort();
        let ignored: Vec<&str> = seen
            .iter()
            .filter(|(_, ignored)| *ignored)
            .map(|(rel, _)| rel.as_str())
            .collect();
        assert_eq!(
            ignored,
            [
                "build/cassettes/a.yaml",
                "scratch.yaml",
                "tests/cassettes/run.log.json"
            ]
        );
        // The rules of the folders above a folder given by name hold in it.
        let below = met(
            &root.join("tests/cassettes"),
            Policy {
                gitignore: true,
                exclude: None,
            },
        );
        assert!(
            below.contains(&("run.log.json".to_owned(), true)),
            "{below:?}"
        );
        assert!(below.contains(&("b.yaml".to_owned(), false)), "{below:?}");
        // `--no-ignore`: nothing is ignored.
        assert!(met(root, Policy::default()).iter().all(|(_, i)| !i));
        // Outside a repository the rules do not hold.
        std::fs::remove_dir_all(root.join(".git")).unwrap();
        assert!(
            met(
                root,
                Policy {
                    gitignore: true,
                    exclude: None,
                }
            )
            .iter()
            .all(|(_, i)| !i)
        );
    }

    /// Configured exclusions are neither entered nor met.
    #[test]
    fn excluded_paths_are_not_met() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "legacy/cassettes/a.yaml", "x");
        write(root, "tests/cassettes/b.yaml", "x");
        let excluded = |path: &Path| path.ends_with("legacy");
        let seen = met(
            root,
            Policy {
                gitignore: false,
                exclude: Some(&excluded),
            },
        );
        assert_eq!(seen, [("tests/cassettes/b.yaml".to_owned(), false)]);
    }
}
