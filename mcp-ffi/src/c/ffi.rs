//! Plumbing shared by every exported function: the panic boundary, reading
//! arguments, writing out-parameters, and library-allocated strings.

use std::ffi::{CStr, c_char, c_void};
use std::panic::{self, AssertUnwindSafe};
use std::ptr;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::error::{Failure, MCP_ERR_INVALID_JSON, MCP_OK, McpResult};

/// Most entries read from a NULL-terminated array of strings (arguments,
/// environment, headers): a guard against a missing terminator.
const MAX_LIST_LEN: usize = 65_536;

/// Runs the body of an exported function that returns an [`McpResult`]:
/// failures are recorded as the thread's last error, panics become
/// `MCP_ERR_PANIC`.
pub(crate) fn boundary(body: impl FnOnce() -> Result<(), Failure>) -> McpResult {
    match panic::catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => MCP_OK,
        Ok(Err(failure)) => failure.record(),
        Err(payload) => Failure::panic(payload.as_ref()).record(),
    }
}

/// Runs the body of an exported function that returns something other than
/// an [`McpResult`]; a panic returns `fallback`.
pub(crate) fn boundary_or<T>(fallback: T, body: impl FnOnce() -> T) -> T {
    match panic::catch_unwind(AssertUnwindSafe(body)) {
        Ok(value) => value,
        Err(payload) => {
            Failure::panic(payload.as_ref()).record();
            fallback
        }
    }
}

/// Reads an argument of an exported function, named after its parameter
/// (the name its error messages use), returning the failure from the
/// enclosing body with `?`: `arg!(str name)`, `arg!(opt_str description)`,
/// `arg!(json params_json)`, `arg!(opt_json arguments_json)`,
/// `arg!(str_list args)`, `arg!(handle server)`, `arg!(handle_mut
/// options)`, `arg!(call_options options)`, `arg!(out_string
/// result_json)` (set to NULL at once), `arg!(out_handle server_out)` (the
/// same, for a `_new` function), `arg!(out_value port_out)`.
///
/// Use it only on a parameter of the exported function it is in: that
/// function's `# Safety` section is the caller's promise that the pointer is
/// NULL or valid for its type, for the whole call, which is what each reader
/// needs.
macro_rules! arg {
    (handle $p:ident) => {
        // SAFETY: the exported function's contract (NULL or a live handle).
        unsafe { $crate::c::ffi::arg_handle($p, stringify!($p)) }?
    };
    (handle_mut $p:ident) => {
        // SAFETY: the exported function's contract (NULL or a live handle
        // that no other thread uses meanwhile).
        unsafe { $crate::c::ffi::arg_handle_mut($p, stringify!($p)) }?
    };
    (str $p:ident) => {
        // SAFETY: the exported function's contract (NULL or a string).
        unsafe { $crate::c::ffi::arg_str($p, stringify!($p)) }?
    };
    (opt_str $p:ident) => {
        // SAFETY: the exported function's contract (NULL or a string).
        unsafe { $crate::c::ffi::arg_opt_str($p, stringify!($p)) }?
    };
    (json $p:ident) => {
        // SAFETY: the exported function's contract (NULL or a string).
        unsafe { $crate::c::ffi::arg_json($p, stringify!($p)) }?
    };
    (opt_json $p:ident) => {
        // SAFETY: the exported function's contract (NULL or a string).
        unsafe { $crate::c::ffi::arg_opt_json($p, stringify!($p)) }?
    };
    (str_list $p:ident) => {
        // SAFETY: the exported function's contract (NULL or a
        // NULL-terminated array of strings).
        unsafe { $crate::c::ffi::arg_str_list($p, stringify!($p)) }?
    };
    (out_string $p:ident) => {
        // SAFETY: the exported function's contract (NULL or writable).
        unsafe { $crate::c::ffi::OutString::new($p, stringify!($p)) }?
    };
    (out_handle $p:ident) => {
        // SAFETY: the exported function's contract (NULL or writable).
        unsafe { $crate::c::ffi::OutHandle::new($p, stringify!($p)) }?
    };
    (call_options $p:ident) => {
        // SAFETY: the exported function's contract (NULL or a valid
        // `mcp_call_options` that starts with its size).
        unsafe { $crate::c::client::read_options($p) }?
    };
    (out_value $p:ident) => {
        // SAFETY: the exported function's contract (NULL or writable).
        unsafe { $crate::c::ffi::OutValue::new($p) }
    };
}
pub(crate) use arg;

/// Reads a required string argument.
///
/// # Safety
/// `ptr` is NULL or points to a NUL-terminated string that stays valid and
/// unchanged for `'a` (the duration of the exported call).
pub(crate) unsafe fn arg_str<'a>(ptr: *const c_char, name: &str) -> Result<&'a str, Failure> {
    if ptr.is_null() {
        return Err(Failure::null(name));
    }
    // SAFETY: not NULL, and the caller guarantees a live NUL-terminated string.
    let text = unsafe { CStr::from_ptr(ptr) };
    text.to_str()
        .map_err(|e| Failure::invalid(format!("`{name}` is not valid UTF-8: {e}")))
}

/// Reads an optional string argument (NULL gives `None`).
///
/// # Safety
/// As for [`arg_str`].
pub(crate) unsafe fn arg_opt_str<'a>(
    ptr: *const c_char,
    name: &str,
) -> Result<Option<&'a str>, Failure> {
    if ptr.is_null() {
        return Ok(None);
    }
    // SAFETY: forwarded from the caller.
    unsafe { arg_str(ptr, name) }.map(Some)
}

/// Parses a required JSON text argument.
///
/// # Safety
/// As for [`arg_str`].
pub(crate) unsafe fn arg_json<T: DeserializeOwned>(
    ptr: *const c_char,
    name: &str,
) -> Result<T, Failure> {
    // SAFETY: forwarded from the caller.
    let text = unsafe { arg_str(ptr, name) }?;
    parse_json(text, name)
}

/// Parses an optional JSON text argument (NULL gives `None`).
///
/// # Safety
/// As for [`arg_str`].
pub(crate) unsafe fn arg_opt_json<T: DeserializeOwned>(
    ptr: *const c_char,
    name: &str,
) -> Result<Option<T>, Failure> {
    // SAFETY: forwarded from the caller.
    match unsafe { arg_opt_str(ptr, name) }? {
        Some(text) => parse_json(text, name).map(Some),
        None => Ok(None),
    }
}

pub(crate) fn parse_json<T: DeserializeOwned>(text: &str, name: &str) -> Result<T, Failure> {
    serde_json::from_str(text)
        .map_err(|e| Failure::new(MCP_ERR_INVALID_JSON, format!("`{name}`: {e}")))
}

/// Reads a NULL-terminated array of strings; a NULL array is empty.
///
/// # Safety
/// `ptr` is NULL or points to an array of string pointers, each valid as for
/// [`arg_str`], ending with a NULL entry.
pub(crate) unsafe fn arg_str_list(
    ptr: *const *const c_char,
    name: &str,
) -> Result<Vec<String>, Failure> {
    let mut items = Vec::new();
    if ptr.is_null() {
        return Ok(items);
    }
    for i in 0..MAX_LIST_LEN {
        // SAFETY: the array is NULL-terminated and we stop at the terminator,
        // so index `i` is within it.
        let item = unsafe { *ptr.add(i) };
        if item.is_null() {
            return Ok(items);
        }
        // SAFETY: each entry before the terminator is a valid string.
        let text = unsafe { arg_str(item, name) }?;
        items.push(text.to_string());
    }
    Err(Failure::invalid(format!(
        "`{name}` has more than {MAX_LIST_LEN} entries; is its NULL terminator missing?"
    )))
}

/// Borrows the object behind a handle argument.
///
/// # Safety
/// `ptr` is NULL or a handle made by this library and not yet freed.
pub(crate) unsafe fn arg_handle<'a, T>(ptr: *const T, name: &str) -> Result<&'a T, Failure> {
    // SAFETY: the caller guarantees a live handle when not NULL.
    unsafe { ptr.as_ref() }.ok_or_else(|| Failure::null(name))
}

/// Borrows the object behind a handle argument for changing it.
///
/// # Safety
/// `ptr` is NULL or a handle made by this library, not yet freed, and not
/// used by any other thread during the call.
pub(crate) unsafe fn arg_handle_mut<'a, T>(ptr: *mut T, name: &str) -> Result<&'a mut T, Failure> {
    // SAFETY: the caller guarantees a live handle used by nobody else.
    unsafe { ptr.as_mut() }.ok_or_else(|| Failure::null(name))
}

/// An out-parameter for a library-allocated string: checked for NULL and set
/// to NULL when made, written only on success.
pub(crate) struct OutString(*mut *mut c_char);

impl OutString {
    /// # Safety
    /// `ptr` is NULL or points to writable memory for one `char *`.
    pub(crate) unsafe fn new(ptr: *mut *mut c_char, name: &str) -> Result<Self, Failure> {
        if ptr.is_null() {
            return Err(Failure::null(name));
        }
        // SAFETY: not NULL and writable, as the caller guarantees.
        unsafe { ptr.write(ptr::null_mut()) };
        Ok(Self(ptr))
    }

    pub(crate) fn set(self, text: &str) -> Result<(), Failure> {
        let string = alloc_string(text)?;
        // SAFETY: checked and writable when `self` was made; the exported
        // call has not returned yet.
        unsafe { self.0.write(string) };
        Ok(())
    }
}

/// The out-parameter of a `_new` function: checked for NULL and set to NULL
/// when made; [`give`](Self::give) hands the new handle to the caller, who
/// owns it until the matching `_free` takes it back with [`take_handle`].
pub(crate) struct OutHandle<T>(*mut *mut T);

impl<T> OutHandle<T> {
    /// # Safety
    /// `ptr` is NULL or points to writable memory for one pointer.
    pub(crate) unsafe fn new(ptr: *mut *mut T, name: &str) -> Result<Self, Failure> {
        if ptr.is_null() {
            return Err(Failure::null(name));
        }
        // SAFETY: not NULL and writable, as the caller guarantees.
        unsafe { ptr.write(ptr::null_mut()) };
        Ok(Self(ptr))
    }

    pub(crate) fn give(self, value: T) {
        // SAFETY: checked and writable when `self` was made; the exported
        // call has not returned yet.
        unsafe { self.0.write(Box::into_raw(Box::new(value))) };
    }
}

/// Takes back a handle given with [`OutHandle::give`] (`None` for NULL).
///
/// # Safety
/// `ptr` is NULL or a handle of this type that was given and not yet taken
/// back; the caller gives it up.
pub(crate) unsafe fn take_handle<T>(ptr: *mut T) -> Option<Box<T>> {
    // SAFETY: as the caller guarantees: from `Box::into_raw`, taken once.
    (!ptr.is_null()).then(|| unsafe { Box::from_raw(ptr) })
}

/// An optional out-parameter of a plain value (NULL: not wanted).
pub(crate) struct OutValue<T>(*mut T);

impl<T> OutValue<T> {
    /// # Safety
    /// `ptr` is NULL or points to writable memory for one `T`.
    pub(crate) unsafe fn new(ptr: *mut T) -> Self {
        Self(ptr)
    }

    pub(crate) fn set(self, value: T) {
        if !self.0.is_null() {
            // SAFETY: not NULL and writable, as the caller of `new` guaranteed.
            unsafe { self.0.write(value) };
        }
    }
}

/// Copies `text` into a new NUL-terminated C string allocated with `malloc`,
/// the allocation `mcp_string_free` releases. An interior NUL ends the string
/// early as C sees it (JSON text never holds one).
pub(crate) fn alloc_string(text: &str) -> Result<*mut c_char, Failure> {
    let bytes = text.as_bytes();
    let Some(size) = bytes.len().checked_add(1) else {
        return Err(Failure::internal("string too long"));
    };
    // SAFETY: `malloc` has no preconditions; the result is checked for NULL.
    let buffer = unsafe { libc::malloc(size) }.cast::<u8>();
    if buffer.is_null() {
        return Err(Failure::internal(format!(
            "out of memory allocating {size} bytes"
        )));
    }
    // SAFETY: `buffer` has room for `size` = len + 1 bytes and does not
    // overlap `bytes`.
    unsafe {
        ptr::copy_nonoverlapping(bytes.as_ptr(), buffer, bytes.len());
        buffer.add(bytes.len()).write(0);
    }
    Ok(buffer.cast::<c_char>())
}

/// Releases a string made by [`alloc_string`] (NULL is a no-op).
///
/// # Safety
/// `ptr` is NULL or a string from [`alloc_string`] (i.e. `malloc`) that is
/// not used afterwards.
pub(crate) unsafe fn free_string(ptr: *mut c_char) {
    if !ptr.is_null() {
        // SAFETY: allocated with `malloc`, freed once, as the caller guarantees.
        unsafe { libc::free(ptr.cast::<c_void>()) };
    }
}

/// Takes a string that a callback handed over (made by `mcp_string_new`, or
/// `malloc`'d), copies it and frees it.
///
/// # Safety
/// As for [`free_string`]; the string is NUL-terminated.
pub(crate) unsafe fn take_string(ptr: *mut c_char) -> Option<String> {
    if ptr.is_null() {
        return None;
    }
    // SAFETY: a live NUL-terminated string, as the caller guarantees.
    let text = unsafe { CStr::from_ptr(ptr) }
        .to_string_lossy()
        .into_owned();
    // SAFETY: as the caller guarantees; not used after this.
    unsafe { free_string(ptr) };
    Some(text)
}

/// Serializes to JSON text, reporting failure as an internal error.
pub(crate) fn to_json<T: serde::Serialize + ?Sized>(value: &T) -> Result<String, Failure> {
    serde_json::to_string(value)
        .map_err(|e| Failure::internal(format!("could not encode JSON: {e}")))
}

/// A JSON value that must be an object.
pub(crate) fn expect_object(
    value: Value,
    name: &str,
) -> Result<serde_json::Map<String, Value>, Failure> {
    match value {
        Value::Object(map) => Ok(map),
        other => Err(Failure::new(
            MCP_ERR_INVALID_JSON,
            format!("`{name}` must be a JSON object, got {other}"),
        )),
    }
}
