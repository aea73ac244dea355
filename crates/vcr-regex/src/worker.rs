//! Backtracking work on a thread of its own, under a time limit.
//!
//! `regress` is a backtracking engine with no step budget: `(a+)+b` against forty `a`s runs
//! for days, and nothing can interrupt it from outside. So every call into `regress`
//! (compiling, matching) runs here, on a worker thread, while the caller waits for the
//! answer at most `limit`. A worker that runs past the limit is abandoned: the caller gets
//! [`Stop::TimedOut`] and goes on with its run, and the stuck thread finishes on its own or
//! ends with the process. The caller disables a pattern that ran out (see
//! `super::Backtracking`), so a run abandons at most one thread per pattern.
//!
//! Workers also give `regress` a deep stack. Its parser, optimizer and emitter recurse over
//! alternatives and groups, and its matcher recurses into each look-around: on the 2 MiB of a
//! `rayon` thread, a debug build overflows at about 25 nested look-arounds. The limits of
//! [`super::shape`] keep every pattern well within [`STACK`].
//!
//! Idle workers are kept for the next call, so a call costs two thread hand-offs, not a
//! thread spawn.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;
use std::sync::mpsc;
use std::time::Duration;

/// The stack of a worker thread (reserved address space; pages are used as touched).
const STACK: usize = 64 << 20;

/// Why a job gave no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Stop {
    /// It ran past the limit and was abandoned.
    TimedOut,
    /// It panicked, or no worker thread could be started.
    Failed(String),
}

type Job = Box<dyn FnOnce() + Send>;

/// An idle worker: the sending end of its job queue.
struct Worker {
    jobs: mpsc::Sender<Job>,
}

static IDLE: Mutex<Vec<Worker>> = Mutex::new(Vec::new());

fn spawn() -> std::io::Result<Worker> {
    let (jobs, queue) = mpsc::channel::<Job>();
    std::thread::Builder::new()
        .name("vcr-regex".into())
        .stack_size(STACK)
        .spawn(move || {
            while let Ok(job) = queue.recv() {
                job();
            }
        })?;
    Ok(Worker { jobs })
}

fn idle() -> std::sync::MutexGuard<'static, Vec<Worker>> {
    IDLE.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Runs `job` on a worker and waits for its result at most `limit`.
pub(super) fn run<R: Send + 'static>(
    limit: Duration,
    job: impl FnOnce() -> R + Send + 'static,
) -> Result<R, Stop> {
    let (reply, answer) = mpsc::sync_channel(1);
    let mut job: Job = Box::new(move || {
        let _ = reply.send(catch_unwind(AssertUnwindSafe(job)));
    });
    let worker = loop {
        let worker = match idle().pop() {
            Some(worker) => worker,
            None => spawn().map_err(|e| Stop::Failed(format!("cannot start a thread: {e}")))?,
        };
        // A worker whose thread is gone hands the job back; try another.
        match worker.jobs.send(job) {
            Ok(()) => break worker,
            Err(mpsc::SendError(back)) => job = back,
        }
    };
    match answer.recv_timeout(limit) {
        Ok(Ok(result)) => {
            idle().push(worker);
            Ok(result)
        }
        Ok(Err(payload)) => {
            idle().push(worker);
            Err(Stop::Failed(panic_message(payload.as_ref())))
        }
        Err(mpsc::RecvTimeoutError::Timeout) => Err(Stop::TimedOut),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            Err(Stop::Failed("the worker thread stopped".into()))
        }
    }
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "it panicked".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_come_back() {
        for i in 0..20 {
            assert_eq!(run(Duration::from_secs(5), move || i * 2), Ok(i * 2));
        }
    }

    #[test]
    fn a_job_past_its_limit_is_abandoned() {
        let (release, wait) = mpsc::channel::<()>();
        let started = std::time::Instant::now();
        let result = run(Duration::from_millis(50), move || {
            let _ = wait.recv_timeout(Duration::from_secs(10));
        });
        assert_eq!(result, Err(Stop::TimedOut));
        assert!(started.elapsed() < Duration::from_secs(5));
        drop(release);
        // The next job gets a working worker.
        assert_eq!(run(Duration::from_secs(5), || 7), Ok(7));
    }

    #[test]
    fn a_panic_is_an_answer() {
        let result = run(Duration::from_secs(5), || -> u8 { panic!("boom") });
        assert_eq!(result, Err(Stop::Failed("boom".into())));
    }

    #[test]
    fn workers_have_a_deep_stack() {
        fn depth(n: u64) -> u64 {
            let pad = std::hint::black_box([n; 64]);
            if n == 0 {
                pad[0]
            } else {
                depth(n - 1) + pad[1] - n + 1
            }
        }
        assert_eq!(run(Duration::from_secs(30), || depth(20_000)), Ok(20_000));
    }
}
