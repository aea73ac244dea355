//! Forwarding SIGINT and SIGTERM to the test command while it runs.
//!
//! vcr must outlive its child: after an interrupted `record` it has cassettes to put back.
//! So while the child runs, SIGINT and SIGTERM do not end vcr; they are noted and passed on
//! to the child, which ends (or not) as it would have, and vcr then takes its failure path.
//! Once the child has exited, the previous handlers come back.
//!
//! A Ctrl-C typed at a terminal already reaches every process of the foreground group, the
//! child included; forwarding it too would deliver it twice, and test runners read a second
//! SIGINT as "force quit". On Linux such kernel-sent signals are recognised (`si_code > 0`)
//! and only noted; signals sent by a process (`kill`, a CI runner's timeout) are forwarded.

#[cfg(unix)]
mod imp {
    use std::sync::atomic::{AtomicI32, Ordering};

    /// The child's pid while it runs; 0 before it exists (signals are kept for it), -1 once
    /// it was reaped (signals are only noted).
    static CHILD: AtomicI32 = AtomicI32::new(0);
    /// The last signal received while the guard was installed, 0 if none.
    static RECEIVED: AtomicI32 = AtomicI32::new(0);
    /// A signal received before the child existed, not yet forwarded (0 if none): handed
    /// over once by `set_child`, so a signal is never forwarded twice by vcr.
    static PENDING: AtomicI32 = AtomicI32::new(0);

    const SIGNALS: [libc::c_int; 2] = [libc::SIGINT, libc::SIGTERM];

    extern "C" fn on_signal(
        signal: libc::c_int,
        info: *mut libc::siginfo_t,
        _context: *mut libc::c_void,
    ) {
        // Only async-signal-safe work here: atomics and kill(2). kill(2) may set errno,
        // which belongs to the interrupted thread: it is saved and restored.
        let saved = errno::get();
        RECEIVED.store(signal, Ordering::SeqCst);
        let child = CHILD.load(Ordering::SeqCst);
        if child == 0 {
            PENDING.store(signal, Ordering::SeqCst);
        } else if child > 0 && sent_by_a_process(info) {
            // SAFETY: kill(2) is async-signal-safe; the pid is our own child's.
            unsafe { libc::kill(child, signal) };
        }
        errno::set(saved);
    }

    /// The calling thread's errno.
    mod errno {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        fn location() -> *mut libc::c_int {
            // SAFETY: returns the calling thread's errno slot, valid for the thread's life.
            unsafe { libc::__errno_location() }
        }

        #[cfg(any(target_os = "macos", target_os = "ios", target_os = "freebsd"))]
        fn location() -> *mut libc::c_int {
            // SAFETY: as above.
            unsafe { libc::__error() }
        }

        #[cfg(not(any(
            target_os = "linux",
            target_os = "android",
            target_os = "macos",
            target_os = "ios",
            target_os = "freebsd"
        )))]
        fn location() -> *mut libc::c_int {
            std::ptr::null_mut()
        }

        pub(super) fn get() -> libc::c_int {
            let at = location();
            // SAFETY: a non-null errno slot of this thread.
            if at.is_null() { 0 } else { unsafe { *at } }
        }

        pub(super) fn set(value: libc::c_int) {
            let at = location();
            if !at.is_null() {
                // SAFETY: as above.
                unsafe { *at = value };
            }
        }
    }

    #[cfg(target_os = "linux")]
    fn sent_by_a_process(info: *mut libc::siginfo_t) -> bool {
        // SI_USER (0), SI_QUEUE (-1), SI_TKILL (-6): sent by a process. The terminal's
        // signals come with SI_KERNEL (0x80) and already reached the child.
        // SAFETY: the kernel passes a valid siginfo_t to an SA_SIGINFO handler.
        info.is_null() || unsafe { (*info).si_code } <= 0
    }

    #[cfg(not(target_os = "linux"))]
    fn sent_by_a_process(_info: *mut libc::siginfo_t) -> bool {
        true
    }

    /// The installed handlers; dropping it restores the previous ones.
    pub(crate) struct Guard {
        previous: Vec<(libc::c_int, libc::sigaction)>,
    }

    pub(crate) fn install() -> Guard {
        RECEIVED.store(0, Ordering::SeqCst);
        PENDING.store(0, Ordering::SeqCst);
        let mut previous = Vec::new();
        for signal in SIGNALS {
            // SAFETY: a zeroed sigaction is a valid value to fill in; the handler only
            // touches atomics and calls kill(2).
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_signal as *const () as libc::sighandler_t;
                action.sa_flags = libc::SA_SIGINFO | libc::SA_RESTART;
                libc::sigemptyset(&mut action.sa_mask);
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(signal, &action, &mut old) == 0 {
                    previous.push((signal, old));
                }
            }
        }
        Guard { previous }
    }

    impl Guard {
        /// Starts forwarding to the child; forwards at once a signal that came before it
        /// existed. (A signal after the store is the handler's to forward; one before it is
        /// in `PENDING`, taken here exactly once.)
        pub(crate) fn set_child(&self, pid: u32) {
            let pid = i32::try_from(pid).unwrap_or(-1);
            CHILD.store(pid, Ordering::SeqCst);
            let early = PENDING.swap(0, Ordering::SeqCst);
            if early != 0 && pid > 0 {
                // SAFETY: kill(2) on our own child.
                unsafe { libc::kill(pid, early) };
            }
        }

        /// Stops forwarding: the child was reaped, and its pid may soon be another
        /// process's. Signals until the guard is dropped are only noted.
        pub(crate) fn child_exited(&self) {
            CHILD.store(-1, Ordering::SeqCst);
        }

        /// The signal received while installed, if any.
        pub(crate) fn received(&self) -> Option<i32> {
            Some(RECEIVED.load(Ordering::SeqCst)).filter(|&s| s != 0)
        }
    }

    impl Drop for Guard {
        fn drop(&mut self) {
            CHILD.store(0, Ordering::SeqCst);
            for (signal, old) in &self.previous {
                // SAFETY: restoring the action sigaction(2) gave us.
                unsafe { libc::sigaction(*signal, old, std::ptr::null_mut()) };
            }
        }
    }
}

#[cfg(not(unix))]
mod imp {
    /// Without Unix signals there is nothing to forward: Ctrl-C reaches the whole console
    /// group on Windows.
    pub(crate) struct Guard;

    pub(crate) fn install() -> Guard {
        Guard
    }

    impl Guard {
        pub(crate) fn set_child(&self, _pid: u32) {}

        pub(crate) fn child_exited(&self) {}

        pub(crate) fn received(&self) -> Option<i32> {
            None
        }
    }
}

pub(crate) use imp::install;
