//! Watching folders for file opens while the test command runs (inotify, Linux only).
//!
//! Many harnesses write no usage log; the cassettes they read are still opened. inotify
//! reports `IN_OPEN` for every file opened in a watched folder, by any process, queued in the
//! kernel at the moment of the open. vcr opens nothing in the tree while the command runs,
//! and drains the queue after the command has exited, so every open the command made is
//! seen, unless the queue overflowed, which is then reported rather than ignored.

#[cfg(target_os = "linux")]
mod imp {
    use std::collections::{BTreeSet, HashMap};
    use std::ffi::{CString, OsStr};
    use std::os::unix::ffi::OsStrExt;
    use std::path::PathBuf;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::thread::JoinHandle;

    use super::super::Watch;

    struct Seen {
        opened: BTreeSet<PathBuf>,
        overflowed: bool,
    }

    pub(crate) struct Watcher {
        state: Option<(Arc<AtomicBool>, JoinHandle<Seen>)>,
        watch: Watch,
    }

    impl Watcher {
        pub(crate) fn start(dirs: &[PathBuf]) -> Watcher {
            if dirs.is_empty() {
                return Watcher {
                    state: None,
                    watch: Watch::Off,
                };
            }
            // SAFETY: plain system call; the descriptor is owned by the thread below.
            let fd = unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) };
            if fd < 0 {
                return Watcher::failed(format!(
                    "inotify is not available: {}",
                    std::io::Error::last_os_error()
                ));
            }
            let mut folders = HashMap::new();
            for dir in dirs {
                let Ok(path) = CString::new(dir.as_os_str().as_bytes()) else {
                    continue;
                };
                // SAFETY: a valid descriptor and a NUL-terminated path.
                let wd = unsafe {
                    libc::inotify_add_watch(fd, path.as_ptr(), libc::IN_OPEN | libc::IN_ONLYDIR)
                };
                if wd < 0 {
                    let e = std::io::Error::last_os_error();
                    // SAFETY: closing the descriptor opened above.
                    unsafe { libc::close(fd) };
                    return Watcher::failed(format!("cannot watch {}: {e}", dir.display()));
                }
                folders.insert(wd, dir.clone());
            }
            let stop = Arc::new(AtomicBool::new(false));
            let stop_seen = Arc::clone(&stop);
            let handle = std::thread::spawn(move || {
                let mut seen = Seen {
                    opened: BTreeSet::new(),
                    overflowed: false,
                };
                loop {
                    let stopping = stop_seen.load(Ordering::SeqCst);
                    let mut poll = libc::pollfd {
                        fd,
                        events: libc::POLLIN,
                        revents: 0,
                    };
                    // SAFETY: one valid pollfd.
                    unsafe { libc::poll(&mut poll, 1, if stopping { 0 } else { 50 }) };
                    drain(fd, &folders, &mut seen);
                    if stopping {
                        break;
                    }
                }
                // SAFETY: the descriptor is ours and no longer used.
                unsafe { libc::close(fd) };
                seen
            });
            Watcher {
                state: Some((stop, handle)),
                watch: Watch::Complete,
            }
        }

        fn failed(reason: String) -> Watcher {
            Watcher {
                state: None,
                watch: Watch::Incomplete { reason },
            }
        }

        /// Stops watching (after the command exited) and returns every open seen.
        pub(crate) fn finish(self) -> (BTreeSet<PathBuf>, Watch) {
            let Some((stop, handle)) = self.state else {
                return (BTreeSet::new(), self.watch);
            };
            stop.store(true, Ordering::SeqCst);
            match handle.join() {
                Ok(seen) if seen.overflowed => (
                    seen.opened,
                    Watch::Incomplete {
                        reason: "the kernel's inotify queue overflowed; some opens were lost"
                            .into(),
                    },
                ),
                Ok(seen) => (seen.opened, self.watch),
                Err(_) => (
                    BTreeSet::new(),
                    Watch::Incomplete {
                        reason: "the watching thread failed".into(),
                    },
                ),
            }
        }
    }

    /// Reads every queued event.
    fn drain(fd: libc::c_int, folders: &HashMap<libc::c_int, PathBuf>, seen: &mut Seen) {
        const HEADER: usize = size_of::<libc::inotify_event>();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            // SAFETY: reading into a buffer we own, of the length given.
            let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
            let Ok(n) = usize::try_from(n) else {
                let e = std::io::Error::last_os_error();
                if e.kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return; // EAGAIN: the queue is empty
            };
            if n == 0 {
                return;
            }
            let mut at = 0;
            while at + HEADER <= n {
                // SAFETY: the kernel wrote a whole event header at `at`.
                let event: libc::inotify_event =
                    unsafe { std::ptr::read_unaligned(buf[at..].as_ptr().cast()) };
                let len = event.len as usize;
                let name = &buf[at + HEADER..(at + HEADER + len).min(n)];
                let name = &name[..name.iter().position(|&b| b == 0).unwrap_or(name.len())];
                if event.mask & libc::IN_Q_OVERFLOW != 0 {
                    seen.overflowed = true;
                } else if event.mask & libc::IN_ISDIR == 0
                    && !name.is_empty()
                    && let Some(dir) = folders.get(&event.wd)
                {
                    seen.opened.insert(dir.join(OsStr::from_bytes(name)));
                }
                at += HEADER + len;
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use std::collections::BTreeSet;
    use std::path::PathBuf;

    use super::super::Watch;

    pub(crate) struct Watcher {
        asked: bool,
    }

    impl Watcher {
        pub(crate) fn start(dirs: &[PathBuf]) -> Watcher {
            Watcher {
                asked: !dirs.is_empty(),
            }
        }

        pub(crate) fn finish(self) -> (BTreeSet<PathBuf>, Watch) {
            let watch = if self.asked {
                Watch::Unavailable
            } else {
                Watch::Off
            };
            (BTreeSet::new(), watch)
        }
    }
}

pub(crate) use imp::Watcher;
