//! The Python face: the native module `libmcp._libmcp`, built by maturin
//! from `bindings/python` with the feature `python`, and re-exported by the
//! pure-Python package `libmcp`.
//!
//! Like the C face, it adds no protocol logic. It converts between Python
//! objects and JSON values ([`convert`]), maps [`mcp_core::Error`] to the
//! package's exception hierarchy ([`errors`]), runs `mcp-core` futures and
//! hands their outcomes to Python ([`call`]), and adapts Python callables to
//! `mcp-core`'s handler types ([`server`], [`client`]). Everything Pythonic
//! (schemas from type hints, typed result objects, decorators, `async with`)
//! lives in the pure-Python package.
//!
//! # Runtimes
//!
//! There is no global runtime. Each connected client and each running
//! server transport owns one multi-thread Tokio runtime, created when it
//! starts and shut down when it is closed or garbage-collected, so that
//! stopping one never disturbs another and nothing keeps threads alive
//! after the Python object is gone. Operations started through a handler's
//! context run on the runtime of the transport that delivered the request.
//!
//! # The GIL
//!
//! Every wait (a blocking `result()`, binding a port) releases the GIL and
//! wakes every 50 ms to run Python's signal handlers, so Ctrl-C interrupts
//! it (and cancels the operation). Python callables are called from the
//! handler threads ([`handlers`]: handlers, a client's sampling and
//! elicitation callbacks, auth hooks) or a client's delivery thread, never
//! from a runtime worker, so a handler holding the GIL never
//! stalls the engine. Library threads stop entering Python when the
//! interpreter exits ([`gil`]).

mod asgi;
mod auth;
mod call;
mod client;
mod context;
mod convert;
mod errors;
mod gil;
mod group;
mod handlers;
mod http_config;
mod invoke;
mod server;
mod spin;
mod uri;

use pyo3::prelude::*;

/// The native part of `libmcp`. Use the `libmcp` package instead: its API
/// is stable, this module's is not.
#[pymodule]
#[pyo3(name = "_libmcp")]
fn libmcp_native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    module.add_class::<asgi::AsgiCore>()?;
    module.add_class::<asgi::ResponseBody>()?;
    module.add_class::<call::Call>()?;
    module.add_class::<invoke::Responder>()?;
    module.add_class::<server::ServerCore>()?;
    module.add_class::<context::ServerContext>()?;
    module.add_class::<server::Serving>()?;
    module.add_class::<client::ClientCore>()?;
    auth::register(module)?;
    module.add_function(wrap_pyfunction!(client::connect_stdio, module)?)?;
    module.add_function(wrap_pyfunction!(client::connect_http, module)?)?;
    module.add_function(wrap_pyfunction!(client::check_protocol, module)?)?;
    module.add_function(wrap_pyfunction!(gil::shutdown, module)?)?;
    module.add_class::<group::GroupCore>()?;
    module.add_function(wrap_pyfunction!(group::connect_group, module)?)?;
    module.add_function(wrap_pyfunction!(uri::uri_template_variables, module)?)?;
    Ok(())
}
