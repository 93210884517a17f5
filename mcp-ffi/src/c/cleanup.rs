//! Cleanups run when a handle is freed: how a program releases the
//! `userdata` its callbacks use once no callback can run any more.

use std::ffi::c_void;
use std::sync::Mutex;

use super::callback::Userdata;
use super::error::Failure;

/// Releases what `userdata` points to (`mcp_server_on_free`,
/// `mcp_client_on_free`). Called once, after the last callback of the handle
/// has returned, on the thread that freed the handle (or, when it was freed
/// from one of its own callbacks, on a library thread once that callback has
/// returned).
pub type FreeCallback = Option<unsafe extern "C" fn(userdata: *mut c_void)>;

type Cleanup = (unsafe extern "C" fn(*mut c_void), Userdata);

/// The cleanups of one handle.
#[derive(Debug, Default)]
pub(crate) struct Cleanups(Mutex<Vec<Cleanup>>);

impl Cleanups {
    fn push(&self, callback: unsafe extern "C" fn(*mut c_void), userdata: Userdata) {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push((callback, userdata));
    }

    /// `mcp_server_on_free` / `mcp_client_on_free`: registers `callback`
    /// with `userdata`.
    pub(crate) fn register(
        &self,
        callback: FreeCallback,
        userdata: *mut c_void,
    ) -> Result<(), Failure> {
        let callback = callback.ok_or_else(|| Failure::null("callback"))?;
        self.push(callback, Userdata(userdata));
        Ok(())
    }

    /// Takes the cleanups, to run later with [`run`].
    pub(crate) fn take(&self) -> Vec<Cleanup> {
        std::mem::take(
            &mut *self
                .0
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        )
    }
}

/// Runs cleanups, the last registered first.
pub(crate) fn run(cleanups: Vec<Cleanup>) {
    for (callback, userdata) in cleanups.into_iter().rev() {
        // SAFETY: the caller's function of the documented type, with the
        // userdata registered with it, called once.
        unsafe { callback(userdata.ptr()) };
    }
}
