use std::borrow::Cow;
use std::fmt;

use super::validate_tool_name;
use crate::Result;

/// A tool name that follows SEP-986 (1 to 128 characters from
/// `A-Z a-z 0-9 _ - .`). Checked when the program is compiled with
/// [`tool_name!`](crate::tool_name), or when it runs with [`ToolName::new`];
/// [`ToolDef::typed`](super::ToolDef::typed) takes one and so cannot fail.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ToolName(Cow<'static, str>);

impl ToolName {
    /// Checks `name` at run time.
    pub fn new(name: impl Into<String>) -> Result<Self> {
        let name = name.into();
        validate_tool_name(&name)?;
        Ok(Self(Cow::Owned(name)))
    }

    /// Whether `name` follows SEP-986; usable where constants are
    /// evaluated, which is how [`tool_name!`](crate::tool_name) checks
    /// names while compiling.
    pub const fn is_valid(name: &str) -> bool {
        let bytes = name.as_bytes();
        if bytes.is_empty() || bytes.len() > 128 {
            return false;
        }
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if !(b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.') {
                return false;
            }
            i += 1;
        }
        true
    }

    /// For [`tool_name!`](crate::tool_name), after its compile-time check.
    #[doc(hidden)]
    pub const fn __checked(name: &'static str) -> Self {
        Self(Cow::Borrowed(name))
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ToolName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A [`ToolName`](crate::server::ToolName) checked while compiling: a name
/// that breaks SEP-986 (1 to 128 characters from `A-Z a-z 0-9 _ - .`) does
/// not compile.
///
/// ```
/// let name = mcp_core::tool_name!("get_weather");
/// assert_eq!(name.as_str(), "get_weather");
/// ```
///
/// ```compile_fail
/// let name = mcp_core::tool_name!("get weather");
/// ```
#[macro_export]
macro_rules! tool_name {
    ($name:expr) => {{
        const _: () = ::std::assert!(
            $crate::server::ToolName::is_valid($name),
            "a tool name is 1 to 128 characters from A-Z, a-z, 0-9, `_`, `-` and `.` (SEP-986)"
        );
        $crate::server::ToolName::__checked($name)
    }};
}
