//! The HTTP side of `kcontract serve`: a site held in memory, served on a listener the caller
//! bound, and the pages told when it changes.
//!
//! What it offers: [`start`] serves a [`Site`] (relative path → bytes, as [`render`](crate::render)
//! makes it) from a thread of its own and returns a [`Serving`], through which the caller's
//! rebuild loop swaps in a new site ([`Serving::replace`]: the open pages reload, or update in
//! place) or shows a failed rebuild's diagnostics over them ([`Serving::fail`]). Neither waits for
//! a page. The watcher and the rebuild loop are the binary's (`src/serve/`); nothing here prints:
//! a failure of the loop's wait is handed to the caller's `on_error`.
//!
//! Two parts: `http.rs` answers one request head from the site (pure functions of the bytes and
//! the site), `server.rs` holds the connections, their deadlines and the event streams in one
//! readiness loop.

mod http;
mod server;

pub use http::Site;
pub use server::{Serving, start};
