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

    /// The child's pid while it runs, 0 otherwise.
    static CHILD: AtomicI32 = AtomicI32::new(0);
    /// The last signal received while the guard was installed, 0 if none.
    static RECEIVED: AtomicI32 = AtomicI32::new(0);

    const SIGNALS: [libc::c_int; 2] = [libc::SIGINT, libc::SIGTERM];

    extern "C" fn on_signal(
        signal: libc::c_int,
        info: *mut libc::siginfo_t,
        _context: *mut libc::c_void,
    ) {
        // Only async-signal-safe work here: atomics and kill(2).
        RECEIVED.store(signal, Ordering::SeqCst);
        if sent_by_a_process(info) {
            let child = CHILD.load(Ordering::SeqCst);
            if child > 0 {
                // SAFETY: kill(2) is async-signal-safe; the pid is our own child's.
                unsafe { libc::kill(child, signal) };
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
        /// existed.
        pub(crate) fn set_child(&self, pid: u32) {
            let pid = i32::try_from(pid).unwrap_or(0);
            CHILD.store(pid, Ordering::SeqCst);
            let early = RECEIVED.load(Ordering::SeqCst);
            if early != 0 && pid > 0 {
                // SAFETY: kill(2) on our own child.
                unsafe { libc::kill(pid, early) };
            }
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

        pub(crate) fn received(&self) -> Option<i32> {
            None
        }
    }
}

pub(crate) use imp::install;
