//! Names of a group's tools and prompts: `server__tool`.
//!
//! The spec's tool names (SEP-986) are 1 to 128 characters from `A-Z a-z
//! 0-9 _ - .`; a merged name keeps to that so that it can be handed to a
//! model as is:
//! - any other character of the server's or the tool's name becomes `_`;
//! - a name over 128 characters is cut, and ends with `_` and 8 hex digits
//!   of a SHA-256 of the server's and the tool's original names;
//! - a name an earlier item already took (servers in configuration order,
//!   each server's items in its order) gets `_2`, `_3`, … (cut to fit).

use std::collections::HashSet;

use sha2::{Digest, Sha256};

/// Longest tool name (SEP-986).
pub(super) const MAX_NAME: usize = 128;

/// The separator between the server and the tool unless configured.
pub(super) const DEFAULT_SEPARATOR: &str = "__";

/// Whether `c` may appear in a tool name (SEP-986).
fn allowed(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

/// `text` with every character a tool name may not hold replaced by `_`
/// (ASCII only, so byte offsets are character offsets).
pub(super) fn sanitize(text: &str) -> String {
    let clean: String = text
        .chars()
        .map(|c| if allowed(c) { c } else { '_' })
        .collect();
    if clean.is_empty() { "_".into() } else { clean }
}

/// Whether `separator` may join names (non-empty, allowed characters).
pub(super) fn valid_separator(separator: &str) -> bool {
    !separator.is_empty() && separator.len() < 16 && separator.chars().all(allowed)
}

/// `base` (ASCII) with `suffix` at its end, cut so the whole fits.
fn with_suffix(base: &str, suffix: &str) -> String {
    let keep = MAX_NAME.saturating_sub(suffix.len()).min(base.len());
    format!("{}{suffix}", &base[..keep])
}

/// Hands out unique merged names for one listing.
#[derive(Debug)]
pub(super) struct Namer<'a> {
    separator: &'a str,
    taken: HashSet<String>,
}

impl<'a> Namer<'a> {
    pub(super) fn new(separator: &'a str) -> Self {
        Self {
            separator,
            taken: HashSet::new(),
        }
    }

    /// The merged name of `item` of server `server`.
    pub(super) fn name(&mut self, server: &str, item: &str) -> String {
        let base = format!("{}{}{}", sanitize(server), self.separator, sanitize(item));
        let base = if base.len() > MAX_NAME {
            let digest = Sha256::new()
                .chain_update(server.as_bytes())
                .chain_update([0])
                .chain_update(item.as_bytes())
                .finalize();
            let hex: String = digest[..4].iter().map(|b| format!("{b:02x}")).collect();
            with_suffix(&base, &format!("_{hex}"))
        } else {
            base
        };
        let mut name = base.clone();
        let mut n = 2usize;
        while self.taken.contains(&name) {
            name = with_suffix(&base, &format!("_{n}"));
            n += 1;
        }
        self.taken.insert(name.clone());
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn valid(name: &str) -> bool {
        (1..=MAX_NAME).contains(&name.len()) && name.chars().all(allowed)
    }

    #[test]
    fn joins_server_and_tool() {
        let mut namer = Namer::new(DEFAULT_SEPARATOR);
        assert_eq!(namer.name("files", "read_file"), "files__read_file");
        assert_eq!(namer.name("my server", "do it/now"), "my_server__do_it_now");
        assert_eq!(namer.name("", "x"), "___x");
        let mut dotted = Namer::new(".");
        assert_eq!(dotted.name("a", "b"), "a.b");
    }

    #[test]
    fn collisions_get_a_number() {
        let mut namer = Namer::new(DEFAULT_SEPARATOR);
        // "my server" and "my_server" sanitize alike.
        assert_eq!(namer.name("my server", "t"), "my_server__t");
        assert_eq!(namer.name("my_server", "t"), "my_server__t_2");
        assert_eq!(namer.name("my-server", "t"), "my-server__t");
        assert_eq!(namer.name("my?server", "t"), "my_server__t_3");
        // A tool whose own name is a taken name's numbered form.
        assert_eq!(namer.name("my_server", "t_2"), "my_server__t_2_2");
    }

    #[test]
    fn long_names_are_cut_with_a_hash() {
        let mut namer = Namer::new(DEFAULT_SEPARATOR);
        let long = "t".repeat(200);
        let a = namer.name("server", &long);
        let b = namer.name("server", &format!("{long}x"));
        assert!(valid(&a) && valid(&b), "{a} {b}");
        assert_eq!(a.len(), MAX_NAME);
        assert_ne!(a, b, "different tools keep different names");
        assert!(a.starts_with("server__ttt"));
        // The same inputs give the same name (stable across listings).
        assert_eq!(Namer::new(DEFAULT_SEPARATOR).name("server", &long), a);
        // A collision of a cut name still fits.
        let mut namer = Namer::new(DEFAULT_SEPARATOR);
        let first = namer.name("s", &long);
        let second = namer.name("s", &long);
        assert!(valid(&second) && second != first, "{second}");
    }

    #[test]
    fn separators_are_checked() {
        assert!(valid_separator("__") && valid_separator("."));
        assert!(!valid_separator("") && !valid_separator("/") && !valid_separator(" "));
    }
}
