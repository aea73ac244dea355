//! The walk that selects a tree: folders read on every core, files met in `walkdir`'s order.

use std::path::{Path, PathBuf};

/// A folder that could not be read, or one of its entries.
pub(crate) type WalkError = (PathBuf, std::io::Error);

/// What `visit` makes of each file and link under `dir` (links are never followed; folders
/// are not visited), with the folders that could not be read, in the order `walkdir` gives
/// them: a folder's entries as the system lists them, each subfolder's tree in its place.
/// Folders whose name `skip` accepts are not entered.
///
/// The folders are read on every core and `visit` runs on the core that read the file's
/// folder: on one thread, the walk that selects a whole tree was a twentieth of a
/// whole-tree `verify` over the corpus, with a core idle (issue 12).
pub(crate) fn walk<R: Send>(
    dir: &Path,
    skip: &(dyn Fn(&str) -> bool + Sync),
    visit: &(dyn Fn(PathBuf, std::fs::FileType) -> Option<R> + Sync),
) -> Vec<Result<R, WalkError>> {
    use rayon::prelude::*;
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => return vec![Err((dir.to_owned(), e))],
    };
    let listed: Vec<Result<(PathBuf, std::fs::FileType), WalkError>> = entries
        .map(|entry| {
            let entry = entry.map_err(|e| (dir.to_owned(), e))?;
            let path = entry.path();
            match entry.file_type() {
                Ok(file_type) => Ok((path, file_type)),
                Err(e) => Err((path, e)),
            }
        })
        .collect();
    listed
        .into_par_iter()
        .map(|entry| match entry {
            Ok((path, file_type)) if file_type.is_dir() => {
                if path
                    .file_name()
                    .is_some_and(|name| skip(&name.to_string_lossy()))
                {
                    Vec::new()
                } else {
                    walk(&path, skip, visit)
                }
            }
            Ok((path, file_type)) => visit(path, file_type).map(Ok).into_iter().collect(),
            Err(e) => vec![Err(e)],
        })
        .flatten()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The walk `discover` selects with meets what walkdir meets, in walkdir's order, on
    /// every core: files and links (not followed) in place, skipped folders left out.
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
                        && crate::tree::is_skipped_dir(&e.file_name().to_string_lossy()))
            })
            .map(Result::unwrap)
            .filter(|e| !e.file_type().is_dir())
            .map(walkdir::DirEntry::into_path)
            .collect();
        let met: Vec<PathBuf> = walk(root, &crate::tree::is_skipped_dir, &|path, _| Some(path))
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!(met, expected);
        assert_eq!(met.len(), 7 * 6 + 300 + 2, "{met:#?}");
        // What `visit` declines is left out, in order.
        let even: Vec<PathBuf> = walk(root, &crate::tree::is_skipped_dir, &|path, file_type| {
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
        let met = walk(&missing, &crate::tree::is_skipped_dir, &|path, _| {
            Some(path)
        });
        let [Err((path, e))] = met.as_slice() else {
            panic!("{met:?}");
        };
        assert_eq!((path, e.kind()), (&missing, std::io::ErrorKind::NotFound));
    }
}
