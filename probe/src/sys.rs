//! The few system calls std has no safe wrapper for: `access(2)`, `poll(2)` on standard input,
//! and waiting for signals with `sigwait(3)`. The only module of the probe that uses `unsafe`;
//! each block says why it is sound.
#![allow(unsafe_code)]

use std::ffi::CString;
use std::io;
use std::time::Duration;

/// The signals the probe takes over: blocked in every thread and received by [`wait_signal`], so
/// that none ends the process by its default action, and a probe running as PID 1 of its pid
/// namespace (where the kernel drops signals without a handler) still sees them.
pub(crate) const WATCHED: &[(libc::c_int, &str)] = &[
    (libc::SIGTERM, "SIGTERM"),
    (libc::SIGINT, "SIGINT"),
    (libc::SIGHUP, "SIGHUP"),
    (libc::SIGQUIT, "SIGQUIT"),
    (libc::SIGUSR1, "SIGUSR1"),
    (libc::SIGUSR2, "SIGUSR2"),
];

/// `access(path, mode)` for the real user and group ids: `R_OK` or `W_OK`.
pub(crate) fn access(path: &str, write: bool) -> bool {
    let Ok(c) = CString::new(path) else {
        return false;
    };
    let mode = if write { libc::W_OK } else { libc::R_OK };
    // SAFETY: `c` is a valid NUL-terminated string that outlives the call; `access` only reads it.
    unsafe { libc::access(c.as_ptr(), mode) == 0 }
}

/// Whether standard input becomes readable (data, end of file or an error to report) within
/// `wait`.
pub(crate) fn stdin_readable(wait: Duration) -> io::Result<bool> {
    let mut fds = [libc::pollfd {
        fd: 0,
        events: libc::POLLIN,
        revents: 0,
    }];
    let ms = libc::c_int::try_from(wait.as_millis()).unwrap_or(libc::c_int::MAX);
    // SAFETY: `fds` is a valid array of one `pollfd` for the duration of the call.
    let n = unsafe { libc::poll(fds.as_mut_ptr(), 1, ms) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(n > 0)
}

fn watched_set() -> libc::sigset_t {
    // SAFETY: `sigset_t` is plain data; `sigemptyset` initialises it before any other use, and
    // `sigaddset` is given valid signal numbers.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for (sig, _) in WATCHED {
            libc::sigaddset(&mut set, *sig);
        }
        set
    }
}

/// Blocks the [`WATCHED`] signals in the calling thread; threads started afterwards inherit the
/// mask. Call before starting any thread.
pub(crate) fn block_watched() -> io::Result<()> {
    let set = watched_set();
    // SAFETY: `set` is an initialised signal set; the old mask is not asked for (null).
    let rc = unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::from_raw_os_error(rc))
    }
}

/// Waits for one of the [`WATCHED`] signals (which must be blocked) and returns its name.
pub(crate) fn wait_signal() -> io::Result<&'static str> {
    let set = watched_set();
    let mut sig: libc::c_int = 0;
    // SAFETY: `set` is initialised and `sig` is a valid place for the result.
    let rc = unsafe { libc::sigwait(&set, &mut sig) };
    if rc != 0 {
        return Err(io::Error::from_raw_os_error(rc));
    }
    Ok(WATCHED
        .iter()
        .find(|(s, _)| *s == sig)
        .map_or("SIGUNKNOWN", |(_, name)| name))
}

/// The name of an error number (`EROFS`), `errno N` for those not listed.
pub(crate) fn errno_name(e: &io::Error) -> String {
    let Some(n) = e.raw_os_error() else {
        return e.to_string();
    };
    let name = match n {
        libc::EPERM => "EPERM",
        libc::ENOENT => "ENOENT",
        libc::EIO => "EIO",
        libc::EBADF => "EBADF",
        libc::EAGAIN => "EAGAIN",
        libc::ENOMEM => "ENOMEM",
        libc::EACCES => "EACCES",
        libc::EBUSY => "EBUSY",
        libc::EEXIST => "EEXIST",
        libc::ENOTDIR => "ENOTDIR",
        libc::EISDIR => "EISDIR",
        libc::EINVAL => "EINVAL",
        libc::ENOSPC => "ENOSPC",
        libc::EROFS => "EROFS",
        libc::ENXIO => "ENXIO",
        libc::ENODEV => "ENODEV",
        libc::EOPNOTSUPP => "EOPNOTSUPP",
        libc::ENOTCONN => "ENOTCONN",
        libc::ECONNREFUSED => "ECONNREFUSED",
        libc::EADDRINUSE => "EADDRINUSE",
        libc::ENAMETOOLONG => "ENAMETOOLONG",
        libc::ELOOP => "ELOOP",
        _ => return format!("errno {n}"),
    };
    name.to_owned()
}
